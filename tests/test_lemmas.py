"""The counting facts the open questions state (encode/lemmas.py) are proved, implied by the
game's own constraints, and change no answer."""

from pathlib import Path

import pytest
import z3

from mafiacheck.encode import lemmas
from mafiacheck.encode.induction import Windows
from mafiacheck.encode.solver import Limits, check, make_solver
from mafiacheck.encode.unroll import NONE, Game
from mafiacheck.pipeline import load

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "bench" / "gangster_core.mafia"


def _first(path):
    sc = load(str(path))
    comp = next(c for c in sc.compositions if c.total == c.players)
    return sc, comp.seats()


def test_a_day_that_requires_an_exit_removes_a_player_and_nights_need_not():
    sc, seats = _first(CORE)
    windows = Windows(sc, seats, Limits())
    game = Game(sc, seats, 5, symmetry=False)  # intro night, day 1, night 1, day 2, night 2
    removes = [any(f.kind == "removes" for f in lemmas.proved_facts(windows, j)) for j in range(3)]
    assert removes == [False, True, False]
    facts = lemmas.implied(game, windows)
    # A phase past every number the spec names is proved once per position in the cycle.
    longer = Game(sc, seats, 15, symmetry=False)
    assert facts and len(lemmas.implied(longer, windows)) > len(facts)
    assert len(windows.facts) < 15


@pytest.mark.parametrize("spec", [CORE, ROOT / "specs" / "gangster.mafia", ROOT / "specs" / "commando.mafia"])
def test_every_fact_is_implied_by_the_game(spec):
    """A stated fact must be a consequence, never a new constraint: with the game's
    constraints, its negation has no model, phase by phase."""
    sc, seats = _first(spec)
    game = Game(sc, seats, 5, symmetry=False)
    facts = lemmas.implied(game, Windows(sc, seats, Limits()))
    assert facts
    solver = make_solver(game.ctx, Limits(), finite=game.finite)
    solver.add(game.constraints)
    for fact in facts:
        assert check(solver, z3.Not(fact)).status == "unsat", fact


def test_the_facts_change_no_answer_and_refute_long_games_cheaply():
    """Is there a game of k rounds that nobody has won? The same answers with and without the
    facts; ten rounds are refuted within a resource limit that is not enough without them."""
    sc, seats = _first(CORE)
    windows = Windows(sc, seats, Limits())
    for k, rlimit, with_facts_only in ((3, 50_000_000, False), (7, 50_000_000, False), (10, 10_000_000, True)):
        answers = []
        for use in (False, True):
            game = Game(sc, seats, 1 + 2 * k, symmetry=False)
            solver = make_solver(game.ctx, Limits(rlimit=rlimit), finite=game.finite)
            solver.add(game.constraints)
            if use:
                solver.add(lemmas.implied(game, windows))
            answers.append(check(solver, game.states[-1].winner == NONE).status)
        if with_facts_only:
            assert answers == ["unknown", "unsat"], (k, answers)
        else:
            assert answers[0] == answers[1] != "unknown", (k, answers)


def test_a_spec_that_compares_round_with_numbers_still_gets_proofs(tmp_path):
    """`round` read only against numbers (`round >= 2`) leaves later phases alike past the
    largest number: the induction proofs and the facts cover them (they gave up on any
    spec that read `round` before)."""
    from mafiacheck.cli import main
    import io

    text = (ROOT / "examples" / "broken" / "ability_needs_two_mafia.mafia").read_text(encoding="utf-8")
    text = text.replace("when alive(mafia) >= 2 ", "when alive(mafia) >= 2 and round >= 2 ")
    assert "round >= 2" in text
    spec = tmp_path / "rounds.mafia"
    spec.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    main(["check", str(spec), "--no-config", "--select", "dead-rule"], out, err)
    assert "ability Double can never be used" in out.getvalue(), out.getvalue() + err.getvalue()
    assert "rules out every longer game" in out.getvalue()


def test_the_running_count_refutes_ten_rounds_where_the_phase_facts_alone_need_more():
    """The facts of each phase, summed into one count per state (lemmas.running_counts): the
    same answer, with a tenth of the search. Measured in conflicts, not in Z3's rlimit: the
    rlimit counts the preprocessing too, which moves with the terms' ids by a factor of two
    (1.0M or 2.1M with the counts, over five seeds, against 2.7M to 3.8M without), where the
    conflicts are 150 to 320 against 2,100 to 3,900."""
    sc, seats = _first(CORE)
    windows = Windows(sc, seats, Limits())
    conflicts = []
    for running in (False, True):
        game = Game(sc, seats, 1 + 2 * 10, symmetry=False)
        facts = lemmas.implied(game, windows)
        counts = lemmas.running_counts(game, windows, 0, len(game.vars))
        assert len(counts) == 20  # one per state from the first day on (the intro night removes nobody)
        if not running:
            facts = [f for f in facts if not any(f.eq(c) for c in counts)]
        solver = make_solver(game.ctx, Limits(rlimit=50_000_000), finite=game.finite)
        solver.add(game.constraints)
        solver.add(facts)
        assert check(solver, game.states[-1].winner == NONE).status == "unsat"
        conflicts.append(solver.statistics().get_key_value("sat conflicts"))
    assert conflicts[1] * 5 < conflicts[0], conflicts
