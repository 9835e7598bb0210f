"""Invariants of reachable states (encode/invariants.py) and what they let the proofs settle
(a rule no game reaches proved dead for every length), and the search past a depth the
solver gives up on (a witness one round longer)."""

from pathlib import Path

import z3

from mafiacheck import cli
from mafiacheck.analyses.encoded import Encoded, Options
from mafiacheck.encode import invariants
from mafiacheck.encode.induction import STEP, prove_absent
from mafiacheck.encode.phase_vars import NONE
from mafiacheck.encode.solver import Limits, Result, ask, make_solver
from mafiacheck.pipeline import load

from test_hardening import main

ROOT = Path(__file__).parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "invariants" / "unwritten_memory.mafia"
JACK = ROOT / "specs" / "godfather_jack.mafia"


def _encoded(path, bound=3, composition=None):
    sc = load(str(path))
    comp = next(c for c in sc.compositions if c.total == c.players and composition in (None, c.players))
    return Encoded(sc, comp, Options(bound=bound))


def _rule_applies(name):
    def event(game, i):
        hits = [c for rule, c in game.vars[i].rule_hits if rule == name]
        return [z3.Or(hits) if hits else z3.BoolVal(False, game.ctx)]
    return event


def test_a_rule_on_a_memory_nobody_writes_needs_the_invariants():
    enc = _encoded(FIXTURE)
    event = _rule_applies("shield")
    # From any well-formed state (a shielded player among them) the step cannot close...
    status, _, why = prove_absent(enc, event, clean_before=False)
    assert status == STEP and why.startswith("a well-formed state"), why
    # ...from the states the invariants allow (nobody is ever shielded) it does.
    found = invariants.find(enc)
    assert found.failed is None
    assert all(("unmarked", "shielded", s) in found.lemmas for s in range(enc.game.n))
    assert prove_absent(enc, event, clean_before=False,
                        invariants=invariants.strengthening(enc))[0] == "proved"


def test_the_check_proves_the_dead_rule_for_every_length():
    code, out, err = main("check", FIXTURE, "--no-config", "--select", "dead-rule")
    assert code == 0, out + err  # a warning
    assert "rule shield can never apply" in out
    assert "induction over 1 phase rules out every longer game" in out


def test_every_invariant_holds_in_the_games_of_four_rounds():
    """Soundness: what is assumed is true of every state a game reaches with nobody winning
    (asked of a longer game than the one the invariants were found from)."""
    for path in (FIXTURE, ROOT / "specs" / "gangster.mafia", JACK):
        enc = _encoded(path)
        found = invariants.find(enc)
        assert found.failed is None and found.lemmas
        longer = enc.at_bound(4)
        game = longer.game
        for st in game.states:
            terms = found.at(game, st)
            result = ask(longer.solver, st.winner == NONE, z3.Or([z3.Not(x) for x in terms]))
            assert result.status == "unsat", path


def _giving_up_at(monkeypatch, bound):
    """As if the solver gave up on every question of games of `bound` rounds (and no game of
    fewer rounds answered)."""
    real = Encoded.first

    def first(self, goal_at, fast=False, quiet=False, start=0, narrow_fallback=True):
        if self.options.bound < bound:
            return "unsat", None, None, None
        if self.options.bound == bound:
            return "unknown", None, Result("unknown", None, "test", 0.0), None
        return real(self, goal_at, fast, quiet, start, narrow_fallback)
    monkeypatch.setattr(Encoded, "first", first)


def test_a_depth_the_solver_gives_up_on_is_passed_by_induction_from_the_depth_searched(monkeypatch):
    # No game of tiny.mafia has two sides win at once: the solver gives up one round past
    # the depth searched, and no game one round longer shows it, but induction from that
    # depth needs no longer game: the verdict holds for every length, and says where the
    # search stopped. (The proof tried before the longer search is kept from closing: its
    # budget is none.)
    from mafiacheck.analyses import encoded

    monkeypatch.setattr(encoded, "EARLY_WORK", 0)
    _giving_up_at(monkeypatch, 2)
    code, out, err = main("check", ROOT / "tests" / "fixtures" / "tiny.mafia", "--no-config",
                          "--select", "win-overlap", "--show-verdicts")
    assert code == 0, out + err
    assert "whether two sides can win at once: no (composition 4, default settings; no game of up to 1 " \
           "round shows it, and induction over 1 phase from there rules out every longer game (the " \
           "search stopped there: a game of 2 rounds: the solver gave up (test)))" in out


def test_a_question_induction_closes_from_one_round_asks_no_longer_game(monkeypatch):
    # No game of tiny.mafia has two sides win at once, and induction from one round shows it
    # for every length: no game of 2 or 3 rounds is searched (they could only agree), and
    # the verdict says it holds from one round. (The invariants are still found on the
    # longest game's own states.)
    asked = []
    real = Encoded.first

    def first(self, goal_at, fast=False, quiet=False, start=0, narrow_fallback=True):
        asked.append(self.options.bound)
        return real(self, goal_at, fast, quiet, start, narrow_fallback)
    monkeypatch.setattr(Encoded, "first", first)
    code, out, err = main("check", ROOT / "tests" / "fixtures" / "tiny.mafia", "--no-config",
                          "--select", "win-overlap", "--show-verdicts")
    assert code == 0, out + err
    assert "whether two sides can win at once: no (composition 4, default settings; no game of up to 1 " \
           "round shows it, and induction over 1 phase rules out every longer game)" in out
    assert not [b for b in asked if b > 1], asked


def test_a_depth_the_solver_gives_up_on_with_no_proof_and_no_witness_past_it_stays_inconclusive(monkeypatch):
    # As above, with the induction step failing: the round the solver gave up on is reported,
    # with the depth searched and why no proof (never a pass).
    from mafiacheck.encode import induction

    _giving_up_at(monkeypatch, 2)
    monkeypatch.setattr(induction, "prove_absent", lambda *a, **k: (STEP, None, "a state the test allows"))
    code, out, err = main("check", ROOT / "tests" / "fixtures" / "tiny.mafia", "--no-config",
                          "--select", "win-overlap")
    assert code == cli.EXIT_INCONCLUSIVE, out + err
    assert "no game of up to 1 round shows it, and a longer one was not searched (a game of 2 rounds: " \
           "the solver gave up (test)); not proved for longer games: a state the test allows; its horizon is" in out


def test_a_witness_past_a_depth_the_solver_gives_up_on(monkeypatch):
    # The Oracle's overlap is real, so no proof closes; a game one round longer shows it,
    # and the finding says that a shorter game is not ruled out.
    _giving_up_at(monkeypatch, 2)
    code, out, err = main("check", ROOT / "examples" / "broken" / "oracle_win_overlaps_parity.mafia",
                          "--no-config", "--select", "win-overlap")
    assert code == 1, out + err
    assert "error[MC202]" in out and "MC200" not in out
    assert "up to 3 rounds; a shorter game is not ruled out (a game of 2 rounds: the solver gave up (test))" in out


def test_jack_keeps_his_role_and_never_draws_a_card():
    """The step's candidates beyond the progress proof's (invariants.step_candidates): Jack,
    whom no conversion reaches and whom the vote never sends out to draw, keeps his role and
    holds no card; a seat Saul's purchase can reach does not keep its role."""
    enc = _encoded(JACK)
    seats = enc.game.seats
    jack, citizen = seats.index("jack"), seats.index("citizen")
    found = invariants.find(enc)
    assert found.failed is None
    assert ("role", jack, "jack") in found.lemmas and ("undrawn", jack) in found.lemmas
    assert ("role", citizen, "citizen") not in found.lemmas
    assert ("role", jack, "jack") not in invariants.candidate_lemmas(enc.game)


def test_games_the_rules_decide_keep_every_reading_of_a_win():
    """night_of_mafia's wins are checked "after night, day or after deaths, day". In a game
    with a hole a win's readings can part; in one the rules decide they never do, and only
    its proofs may assume so (find's `clean`). With that, two sides winning at once with the
    ten players is ruled out for every length: the step's counterexample followed one
    reading for the town and the other for the mafia."""
    from mafiacheck.analyses import win_overlap

    enc = _encoded(ROOT / "specs" / "night_of_mafia.mafia", composition=10)
    decided = {lm for lm in invariants.find(enc, clean=True).lemmas if lm[0] == "all-readings"}
    assert decided == {("all-readings", i) for i in range(4)}
    assert prove_absent(enc, win_overlap._event, invariants=invariants.strengthening(enc, clean=False))[0] == STEP
    assert prove_absent(enc, win_overlap._event, invariants=invariants.strengthening(enc))[:2] == ("proved", 1)


def test_one_living_matador_is_proved_where_face_off_can_pass_the_role():
    """godfather_nostradamus's Face Off gives the drawer's role to its target a day later,
    so "at most one living Matador" does not hold across a phase from any state that keeps
    the other invariants (a free state has the Matador alive with his own Face Off pending).
    It does from those where at most one player may still use or pass the role on
    (`one-holder-unless`: alive, holding an unplayed card, out but returnable, or with a
    converting effect pending) and the drawers of the card night are out (`left-if-in`),
    proved with the other invariants assumed; and each holds in every state of the game's
    first two rounds."""
    enc = _encoded(ROOT / "specs" / "godfather_nostradamus.mafia")
    found = invariants.find(enc, clean=True)
    assert found.failed is None
    assert ("one-holder", "matador_block") in found.lemmas
    assert ("one-holder-unless", "matador_block", "unreturnable") in found.lemmas
    seat = enc.game.seats.index("matador")
    assert ("left-if-in", "card_night", seat) in found.lemmas
    new = [lm for lm in found.lemmas if lm[0] in ("one-holder", "one-holder-unless", "left-if-in")]
    shorter = enc.at_bound(2)
    game = shorter.game
    solver = make_solver(game.ctx, Limits(rlimit=20 * Limits().rlimit), finite=game.finite)
    solver.add(shorter.constraints)
    for st in game.states:
        terms = [invariants.lemma_term(lm, game, st) for lm in new]
        assert ask(solver, st.winner == NONE, z3.Or([z3.Not(x) for x in terms])).status == "unsat"
