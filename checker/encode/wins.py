"""Win checks in the encoding (as Player._check_wins): each win is met when its condition holds
at a check point of its schedule; where a win's readings disagree the game follows one answer
and keeps the readings that gave it; two sides at once need a priority, else they overlap; a
win the rulebook does not write is a hole wherever its `when` holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

import z3

from .. import ast, holes
from ..narrow import present, present_expr
from ..phases import Phase
from .phase_vars import NONE, PhaseVars
from .state import SymState
from .terms import And, Events, If, Not, Or, View
from .vote import voted_out

if TYPE_CHECKING:
    from .unroll import Game



def _due_states(game: Game, points: tuple[str, ...], st: SymState, phase: Phase,
                pv: PhaseVars) -> list[tuple[z3.BoolRef, SymState]]:
    """As play._due_states: (when, state) pairs a schedule looks at in this phase."""
    out = []
    if "deaths" in points and phase.is_night and pv.checkpoint is not None:
        out.append((game.B(True), pv.checkpoint))
    due = game.B(not points or ("day" in points and phase.is_day) or ("night" in points and phase.is_night))
    if "exit" in points:
        due = Or(due, Or([z for leaves in pv.leaves for z in leaves] or [game.B(False)]))
    if "vote" in points and phase.is_day and pv.vote_kind is not None:
        due = Or(due, Or([And(pv.vote_leaves[s], voted_out(game, pv, s)) for s in range(game.n)])
                    if pv.vote_leaves is not None else game.B(False))
    out.append((due, st))
    return out


def _met(game: Game, cond: ast.Expr, states: list[tuple[z3.BoolRef, SymState]], cache: dict) -> z3.BoolRef:
    """Whether a condition holds at one of the (when, state) check points."""
    parts = []
    for due, state in states:
        if z3.is_false(due):
            continue
        key = (id(cond), id(state))
        if key not in cache:
            cache[key] = game.compiler.value(cond, View(game, state, Events(game.ctx), {"__holes": []}))
        parts.append(z3.And(due, cache[key]))
    return z3.Or(parts) if parts else game.B(False)


def wins(game: Game, st: SymState, phase: Phase, pv: PhaseVars, S: SymState,
         t: int) -> tuple[z3.ArithRef, z3.BoolRef]:
    cache: dict = {}
    holds: dict[str, z3.BoolRef] = {}
    schedules = {game.sc.win_readings(w) for w in game.sc.wins}
    simple = len(schedules) <= 1 and all(len(r) == 1 and "deaths" not in r[0] for r in schedules)
    if simple:
        # One schedule for every win: one `due`, as the encoding always had it.
        points = next(iter(schedules))[0] if schedules else present(game.sc.phases, "the phases").wins_checked
        due = _due_states(game, points, st, phase, pv)[-1][0]
        view = View(game, st, Events(game.ctx), {"__holes": []})
        for win in game.sc.wins:
            cond = game.compiler.value(win.cond, view)
            holds[win.side.key] = Or(holds.get(win.side.key, game.B(False)), cond)
    else:
        due = game.B(True)  # each win's own check points are in `holds`
    for i, win in enumerate(() if simple else game.sc.wins):
        readings = game.sc.win_readings(win)
        written = present_expr(win.cond, "a written win's condition")
        met = [_met(game, written, _due_states(game, points, st, phase, pv), cache) for points in readings]
        if len(readings) == 1:
            won = met[0]
        else:
            # Several readings: the game follows one answer, and keeps the readings that gave it.
            won = game.bool_var(f"t{t}_won_{i}")
            live = [S.readings[(i, r)] for r in range(len(readings))]
            game.add(Or([And(live[r], met[r] == won) for r in range(len(readings))]))
            for r in range(len(readings)):
                st.readings[(i, r)] = And(live[r], met[r] == won)
            yes = Or([And(live[r], met[r]) for r in range(len(readings))])
            no = Or([And(live[r], Not(met[r])) for r in range(len(readings))])
            pv.undefined.append((And(pv.active, yes, no), holes.readings(
                game.sc.side_by_key[win.side.key].display, ["after " + ", ".join(p) for p in readings],
                win.side.key)))
        holds[win.side.key] = Or(holds.get(win.side.key, game.B(False)), won)
    if pv.declared:
        # As Player._decide_winner: a side a `win SIDE` effect declared in the phase holds at
        # its end, whatever the schedule (so the schedule's `due` moves into the conditions).
        holds = {side: And(due, cond) for side, cond in holds.items()}
        due = game.B(True)
        for side, conds in pv.declared.items():
            holds[side] = Or(holds.get(side, game.B(False)), Or(conds))
    sides = list(holds)
    winner = game.I(NONE)
    overlap = game.B(False)
    if not sides:
        _open_wins(game, st, phase, pv, cache, game.I(NONE))
        return If(pv.active, game.I(NONE), st.winner), overlap
    # One side: it wins. Several: a priority that covers them all decides, else overlap.
    pair_overlaps = []
    for i, a in enumerate(sides):
        for b in sides[i + 1:]:
            if not any({a, b} <= {nm.key for nm in p.order} for p in game.sc.priorities):
                pair_overlaps.append(And(holds[a], holds[b]))
    overlap = And(due, Or(pair_overlaps or [game.B(False)]))
    ranked = sides
    for prio in game.sc.priorities:
        order = [nm.key for nm in prio.order]
        ranked = sorted(sides, key=lambda x: order.index(x) if x in order else len(order))
        break
    for side in reversed(ranked):
        alone = And(holds[side], *[Not(holds[o]) for o in sides if o != side]) \
            if not game.sc.priorities else holds[side]
        winner = If(alone, game.I(game.ids.sides.index(side)), winner)
    winner = If(And(due, Not(overlap)), winner, game.I(NONE))
    _open_wins(game, st, phase, pv, cache, winner)
    return winner, overlap


def _open_wins(game: Game, st: SymState, phase: Phase, pv: PhaseVars, cache: dict, winner: z3.ArithRef) -> None:
    """As play._open_wins: a win the rulebook does not write is in question wherever its
    `when` holds at a check point and nobody has won."""
    for win in game.sc.open_wins:
        states = [x for points in game.sc.win_readings(win) for x in _due_states(game, points, st, phase, pv)]
        if win.cond is None:
            asked = z3.Or([due for due, _ in states] or [game.B(False)])
        else:
            asked = _met(game, win.cond, states, cache)
        pv.undefined.append((z3.And(pv.active, winner == NONE, asked), holes.open_win(
            game.sc.side_by_key[win.side.key].display, present(win.unspecified, "an open win's words"), win.side.key)))
