"""Ranges of the encoding's integers (encode/ranges.py): derived, never assumed. A range the
constraints do not imply would make the finite-domain solver miss games."""

from pathlib import Path

import pytest
import z3

from mafiacheck.encode.ranges import Ranges
from mafiacheck.encode.solver import Limits, make_solver
from mafiacheck.encode.unroll import Game
from mafiacheck.pipeline import load

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.mafia"))


def test_interval_arithmetic():
    r = Ranges()
    x, y, b = z3.Int("x"), z3.Int("y"), z3.Bool("b")
    r.declare(x, -1, 9)
    assert r.of(z3.If(b, x + 1, z3.IntVal(3))) == (0, 10)
    assert r.of(x * 2 - 1) == (-3, 17)
    assert r.of(-x) == (-9, 1)
    assert r.of(z3.If(b, 1, 0) + z3.If(z3.Not(b), 1, 0)) == (0, 2)
    assert r.of(y + 1) is None  # y has no declared range
    assert r.of(z3.If(b, x, y)) is None
    assert r.of(x / 2) is None  # not an operation the intervals follow


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_every_range_is_implied_by_the_game(path):
    sc = load(str(path))
    comp = sc.compositions[0]
    game = Game(sc, comp.seats(), 5, symmetry=False)
    assert game.finite, game.unranged[:3]
    facts = {f.get_id() for f in game.derived_ranges}
    solver = make_solver(game.ctx, Limits(timeout=60, rlimit=50_000_000))
    solver.add([c for c in game.constraints if c.get_id() not in facts])
    assert game.derived_ranges
    broken = z3.Or([z3.Not(f) for f in game.derived_ranges])
    answer = solver.check(broken)
    if answer == z3.sat:
        model = solver.model()
        pytest.fail("not implied: " + ", ".join(str(f) for f in game.derived_ranges
                                               if z3.is_false(model.eval(f, model_completion=True))))
    assert answer == z3.unsat


def test_a_free_start_is_not_finite_and_keeps_the_arithmetic_solver():
    sc = load(str(ROOT / "specs" / "gangster.mafia"))
    game = Game(sc, sc.compositions[0].seats(), 2, symmetry=False, free_start=True)
    assert not game.finite


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_finite_domain_and_arithmetic_solvers_agree(path):
    # Which sides can have won after each phase: the same answers from both solvers.
    sc = load(str(path))
    game = Game(sc, sc.compositions[0].seats(), 5)
    answers = []
    for finite in (True, False):
        solver = make_solver(game.ctx, Limits(timeout=120, rlimit=200_000_000), finite=finite)
        solver.add(game.whole())
        answers.append([str(solver.check(st.winner == side))
                        for st in game.states for side in range(-1, len(game.ids.sides))])
    assert "unknown" not in answers[0]
    assert answers[0] == answers[1]
    assert "sat" in answers[0] and "unsat" in answers[0]


def test_a_use_count_is_kept_only_where_read_and_stops_at_its_limit():
    # The anchors' Gangster core: the Bodyguard's protection has no limit a count reads, so
    # the state keeps none for it; Nato's guess (`limit 1 per game`) and the Doctor's saves
    # on himself (`limit 2 per game on self`) are counted, and never past their limits,
    # however long the game: from day 3 on, one state looks like the one a round before.
    sc = load(str(ROOT / "bench" / "gangster_core.mafia"))
    game = Game(sc, sc.compositions[0].seats(), 15, symmetry=False)
    last = game.states[-1]
    assert not any(a == "guard" for a, _ in last.uses)
    guess = [v for (a, _), v in last.uses.items() if a == "nato_guess"]
    saves = [v for (a, _), v in last.self_uses.items() if a == "save"]
    assert guess and saves
    assert {game.ranges.of(v) for v in guess} == {(0, 1)}
    assert {game.ranges.of(v) for v in saves} == {(0, 2)}


def test_uses_read_by_an_expression_are_counted(tmp_path):
    # `uses(A)` reads the count of an ability no limit bounds: the state keeps it.
    spec = (ROOT / "bench" / "gangster_core.mafia").read_text(encoding="utf-8").replace(
        "  effect protect from revenge\n",
        "  when uses(guard) < 3\n  effect protect from revenge\n", 1)
    path = tmp_path / "counted.mafia"
    path.write_text(spec, encoding="utf-8")
    sc = load(str(path))
    assert "guard" in sc.counted_abilities
    game = Game(sc, sc.compositions[0].seats(), 5, symmetry=False)
    assert any(a == "guard" for a, _ in game.states[-1].uses)


def test_a_consumed_counter_and_a_countdown_stay_at_or_above_zero():
    # `consume` takes one only from a counter above zero, and a countdown stops at zero (as
    # the interpreter): their ranges say so, however long the game. Intervals alone (one
    # less, or the same) lost a bit of every phase: the Guard's armour on commando was
    # -18..1 after ten rounds.
    sc = load(str(ROOT / "specs" / "commando.mafia"))
    game = Game(sc, sc.compositions[0].seats(), 12, symmetry=False)
    armour = [v for s in range(game.n) for c, v in game.states[-1].counters[s].items() if c == "armour"]
    assert armour and all(game.ranges.of(v) is not None and game.ranges.of(v)[0] >= 0 for v in armour)
    sc = load(str(ROOT / "specs" / "godfather_jack.mafia"))
    game = Game(sc, sc.compositions[0].seats(), 8, symmetry=False)
    counts = list(game.states[-1].delayed_counts.values())
    assert counts and all(game.ranges.of(v) is not None and game.ranges.of(v)[0] >= 0 for v in counts)
