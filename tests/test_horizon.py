"""The horizon of a composition (encode/horizon.py): a bound on how long a game nobody has won
goes on, where the proved counting facts give one, and the reason where they give none."""

from pathlib import Path

from mafiacheck.encode.horizon import horizon
from mafiacheck.encode.induction import Windows
from mafiacheck.encode.solver import Limits, check, make_solver
from mafiacheck.encode.unroll import NONE, Game
from mafiacheck.evaluate import initial_state
from mafiacheck.phases import start_phases
from mafiacheck.pipeline import load

from test_hardening import main

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "bench" / "gangster_core.mafia"


def _horizon(path):
    sc = load(str(path))
    comp = next(c for c in sc.compositions if c.total == c.players)
    seats = comp.seats()
    return sc, seats, horizon(Windows(sc, seats, Limits()), len(start_phases(sc, initial_state(sc, seats))))


def _unwon_after(sc, seats, phases):
    game = Game(sc, seats, phases, symmetry=False)
    solver = make_solver(game.ctx, Limits(), finite=game.finite)
    solver.add(game.constraints)
    return check(solver, game.states[-1].winner == NONE).status


def test_a_day_that_always_removes_someone_bounds_the_game():
    """The core's days require an exit and nobody comes back: ten players, so at most ten
    days from the first generic phase. The bound is sound (no game of that many phases is
    unwon) and not below the longest game (the anchors' (c): an unwon game of 7 rounds)."""
    sc, seats, h = _horizon(CORE)
    assert (h.phases, h.rounds) == (23, 11)
    assert h.text.startswith("its horizon is 11 rounds: no game goes on past them without a winner")
    assert "every day removes a player" in h.why
    assert _unwon_after(sc, seats, h.phases) == "unsat"
    assert _unwon_after(sc, seats, 1 + 2 * 7) == "sat"


def test_a_day_without_an_exit_leaves_the_horizon_unknown():
    """Gangster's vote may exit nobody, and its nights may be bloodless: its games can go on
    as long as the moderator lets them, and no bound is claimed."""
    _, _, h = _horizon(ROOT / "specs" / "gangster.mafia")
    assert h.rounds is None and h.phases is None
    assert "no phase of the cycle is proved to remove a player" in h.why


def test_a_return_leaves_the_horizon_unknown():
    """godfather_jack's Constantine brings a player back at night (his summon), so the count of the
    living is not a bound."""
    _, _, h = _horizon(ROOT / "specs" / "godfather_jack.mafia")
    assert h.rounds is None
    assert h.why == "a player who has left is not proved to stay out in every night"


def test_an_inconclusive_finding_names_the_horizon():
    code, out, err = main("check", CORE, "--no-config", "--select", "stalemate")
    assert code == 3, out + err  # inconclusive
    assert "inconclusive: whether a game can get stuck" in out
    assert "; its horizon is 11 rounds: no game goes on past them without a winner" in out
