"""The questions an analysis answers no (findings.Verdict): each says how far its answer holds,
for every length of game (k-induction) or within the rounds searched, and the proofs behind
them (Houdini's invariants, within a budget of solver work) never claim more than is true."""

import json
from pathlib import Path

import z3

from mafiacheck.encode import invariants
from mafiacheck.encode.solver import Budget, Result, make_solver, Limits

from test_hardening import main

ROOT = Path(__file__).parent.parent
LATE = ROOT / "tests" / "fixtures" / "verdicts" / "late_hole.mafia"


def _verdicts(*args):
    code, out, err = main("check", LATE, "--no-config", "--format", "json", *args)
    assert code in (0, 1), out + err
    (entry,) = json.loads(out)["files"]
    return {v["question"]: v for v in entry["verdicts"]}, entry["findings"]


def test_a_no_that_holds_for_every_length_says_so():
    verdicts, findings = _verdicts("--select", "undefined,win-overlap", "--bound", "3")
    shielded = verdicts["whether 'rule shielded_guess: what a shielded player may do' can happen"]
    assert shielded["every_length"] is True and shielded["analysis"] == "undefined"
    assert "induction over 1 phase rules out every longer game" in shielded["detail"]
    assert verdicts["whether two sides can win at once"]["every_length"] is True
    assert not [f for f in findings if f["code"] == "MC203"]


def test_a_no_that_holds_only_within_the_depth_is_not_claimed_for_every_length():
    """The hole of the fifth night is beyond three rounds: searched exactly that deep, the
    verdict must say it holds only within them."""
    verdicts, _ = _verdicts("--select", "undefined", "--bound", "3")
    late = verdicts["whether 'rule fifth_night: what happens on the fifth night' can happen"]
    assert late["every_length"] is False and late["depth"] == 3
    assert "not proved for longer games" in late["detail"]
    assert "leads to it" in late["detail"]  # the induction step's counterexample


def test_the_default_check_follows_an_open_no_past_its_depth_and_finds_the_hole():
    """By default a "no" whose induction step reaches the event from a state the search has
    not ruled out is searched a round further (Encoded.further): the fifth night's hole is a
    finding, with its shortest game, not a verdict within three rounds."""
    verdicts, findings = _verdicts("--select", "undefined")
    assert not [q for q in verdicts if "fifth_night" in q]
    (late,) = [f for f in findings if f["code"] == "MC203" and "fifth night" in f["message"]]
    assert "reached at night 5" in late["message"] and "up to 4 rounds" in late["message"]


def test_the_search_past_the_depth_stops_at_its_limit(tmp_path):
    """A hole later still (the seventh night) is past the rounds followed: the verdict says
    how deep it searched, never every length."""
    from mafiacheck.analyses.encoded import FURTHER_DEPTH

    spec = tmp_path / "later.mafia"
    spec.write_text(LATE.read_text(encoding="utf-8").replace("tally >= 5", "tally >= 7"), encoding="utf-8")
    code, out, err = main("check", spec, "--no-config", "--format", "json", "--select", "undefined")
    assert code in (0, 1), out + err
    (entry,) = json.loads(out)["files"]
    late = next(v for v in entry["verdicts"] if "fifth_night" in v["question"])
    assert late["every_length"] is False and late["depth"] == FURTHER_DEPTH
    assert f"no game of up to {FURTHER_DEPTH} rounds shows it" in late["detail"]


def test_the_text_report_counts_the_verdicts_and_lists_them_on_request():
    code, out, err = main("check", LATE, "--no-config", "--select", "undefined", "--bound", "3")
    assert code == 0, out + err
    assert ("2 questions answered no: 1 for every length of game, 1 only within the 3 rounds searched "
            "(--show-verdicts lists them)") in out
    code, out, err = main("check", LATE, "--no-config", "--select", "undefined", "--bound", "3", "--show-verdicts")
    assert "    - undefined: whether 'rule fifth_night: what happens on the fifth night' can happen: no" in out


def test_the_markdown_report_lists_what_holds():
    code, out, err = main("check", LATE, "--no-config", "--select", "undefined", "--bound", "3",
                          "--format", "markdown")
    assert "Answered no (2 questions, 1 for every length of game):" in out
    assert "- within 3 rounds — undefined: whether 'rule fifth_night" in out


def _free_game():
    from mafiacheck.analyses.encoded import Encoded, Options
    from mafiacheck.pipeline import load

    sc = load(str(ROOT / "tests" / "fixtures" / "invariants" / "unwritten_memory.mafia"))
    enc = Encoded(sc, sc.compositions[0], Options(bound=1))
    return enc.game


def test_houdini_asks_the_halves_of_a_question_the_solver_gives_up_on(monkeypatch):
    """A disjunction of many broken candidates can be beyond the solver where its parts are
    not: a question the solver gives up on is split, and only the candidates it gives up on
    one by one are dropped (before, the whole search for invariants failed)."""
    game = _free_game()
    st = game.states[1]
    todo = [("alive", s) for s in range(game.n)] + [("unmarked", "shielded", s) for s in range(game.n)]
    solver = make_solver(game.ctx, Limits())
    solver.add(game.constraints)
    expected, _ = invariants.keep_holding(solver, todo, game, st, [])
    # Nobody is ever shielded (no ability writes it); the night's shot can kill some.
    assert all(("unmarked", "shielded", s) in expected for s in range(game.n))
    assert len([lm for lm in expected if lm[0] == "alive"]) < game.n
    real_ask, refused = invariants.ask, []

    def ask(solver, *parts):  # the solver "gives up" on any question of more than two candidates
        goal = parts[-1]
        if z3.is_or(goal) and goal.num_args() > 2:
            refused.append(goal.num_args())
            return Result("unknown", None, "canceled", 0.0)
        return real_ask(solver, *parts)
    monkeypatch.setattr(invariants, "ask", ask)
    kept, given_up = invariants.keep_holding(solver, todo, game, st, [])
    assert refused and (kept, given_up) == (expected, [])


def test_a_spent_budget_asks_nothing_more():
    ctx = z3.Context()
    solver = make_solver(ctx, Limits())
    x = z3.Int("x", ctx)
    budget = Budget(1)
    assert budget.ask(solver, x > 0).status == "sat"
    assert budget.exhausted
    answer = budget.ask(solver, x > 0)
    assert answer.status == "unknown" and answer.reason == "the budget of solver work was spent"
