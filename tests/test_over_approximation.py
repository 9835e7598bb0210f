"""The proofs' free-start windows over-approximate where the exact encoding leaves play out
(Game.over_approximate, blocking.mutual_blocks): more users of one blocking ability than the
encoding follows may act, with any of them dropped and either mutual-block hole met or not.
A "no" of such a window holds for the rules; the games of the rules are never cut short."""

import json
from pathlib import Path

import z3

from mafiacheck.encode.solver import Limits, ask, make_solver
from mafiacheck.encode.blocking import MAX_READERS
from mafiacheck.encode.unroll import Game
from mafiacheck.pipeline import load

from test_hardening import main

ROOT = Path(__file__).parent.parent
CROWDED = ROOT / "tests" / "fixtures" / "verdicts" / "crowded_block.mafia"
NIGHT = 2  # night 2: the first phase from which phases are all alike


def _window(over: bool) -> tuple[Game, z3.Solver]:
    sc = load(str(CROWDED))
    comp = sc.compositions[0]
    game = Game(sc, comp.seats(), 1, first_phase=NIGHT, symmetry=False, free_start=True, over_approximate=over)
    solver = make_solver(game.ctx, Limits(60, 20_000_000), preprocess=True)
    solver.add(game.constraints)
    return game, solver


def _hexing(game: Game) -> list:
    return [u.acts for u in game.vars[0].uses if u.ability.key == "hex"]


def _at_least(terms: list, n: int) -> z3.BoolRef:
    return z3.PbGe([(t, 1) for t in terms], n)


def test_the_exact_window_leaves_out_more_users_than_it_follows():
    game, solver = _window(over=False)
    assert game.restricted is not None and "Hex" in game.restricted
    assert len(_hexing(game)) > MAX_READERS
    assert ask(solver, _at_least(_hexing(game), MAX_READERS + 1)).status == "unsat"


def test_the_proofs_window_lets_them_act_with_any_reading():
    game, solver = _window(over=True)
    assert game.restricted is None
    crowd = _at_least(_hexing(game), MAX_READERS + 1)
    assert ask(solver, crowd).status == "sat"
    several = [c for c, ability, kind in game.vars[0].mutual if ability.key == "hex" and kind == "several"]
    assert several
    # Beyond the users it follows, a hole may or may not be met: both are games of the window.
    assert ask(solver, crowd, z3.Or(several)).status == "sat"
    assert ask(solver, crowd, z3.Not(z3.Or(several))).status == "sat"


def test_up_to_the_users_it_follows_the_window_is_the_exact_one():
    """Two witches hexing each other have two consistent readings (each blocked by the other)
    in both windows; with at most MAX_READERS acting the readings are the rules' own."""
    for over in (False, True):
        game, solver = _window(over)
        several = [c for c, ability, kind in game.vars[0].mutual if ability.key == "hex" and kind == "several"]
        few = z3.Not(_at_least(_hexing(game), MAX_READERS + 1))
        assert ask(solver, few, z3.Or(several)).status == "sat", over


def test_a_no_on_a_crowded_spec_holds_for_every_length():
    code, out, err = main("check", CROWDED, "--no-config", "--format", "json", "--select", "undefined")
    assert code == 0, out + err
    (entry,) = json.loads(out)["files"]
    assert entry["findings"] == []
    (verdict,) = entry["verdicts"]
    assert verdict["every_length"] is True, verdict
    assert "induction over 1 phase rules out every longer game" in verdict["detail"]
