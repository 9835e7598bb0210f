"""Which roles each seat can ever hold: its role at the start, and every role a `convert`
can give it.

A seat that can hold only one role keeps it as a constant through the whole unrolling, and
an ability of a role the seat can never hold gets no variables for that seat. Gangster's
intro-night swap, for one, can only turn the Nato and the Killer into each other; counting
every seat as a possible Killer made the encoding five times bigger and each question about
seven times slower.

The sets over-approximate: a convert counts for a seat unless Z3 shows, on one abstract
phase, that it cannot reach that seat. In that phase every seat's role is one of its
possible roles and everything else is free (any alive, side, memory, event, round), the
converting ability's target filter and conditions hold, and the effect's `if` guards hold.
Whatever a real phase allows, the abstract one allows too; so a convert the abstract phase
rules out never happens, and the fixpoint is a sound invariant of every reachable state.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import z3

from .. import ast
from ..model import Ability, Scenario
from ..narrow import actor_roles, effect_name
from ..vocabulary import flat
from .phase_vars import NONE, Use
from .solver import Limits, make_solver
from . import legality
from .state import SymState
from .terms import And, Eq, Events, Implies, Not, Or, Unsupported, View

if TYPE_CHECKING:
    from .unroll import Game



class FreeEvents(Events):
    """Events of which any may have happened: each asked for is a free boolean."""

    def get(self, key: tuple, default: z3.BoolRef | None = None) -> z3.BoolRef:
        if key not in self.cache:
            self.cache[key] = z3.Bool("abs_ev_" + "_".join(map(str, key)), self.ctx)
        return self.cache[key]


# (scenario id, roles, settings) -> (scenario, answer): analyses build many games of one
# composition, and the answer depends on nothing else. The scenario is kept so its id is not
# reused.
_CACHE: dict = {}


def possible_roles(game: Game, roles_now: Sequence[str]) -> list[frozenset[str]]:
    """Per seat, the roles it can hold in any game from a state where seat s holds
    roles_now[s]."""
    key = (id(game.sc), tuple(roles_now), tuple(sorted(game.settings.items())))
    hit = _CACHE.get(key)
    if hit is None:
        # The abstract states' choices are stated in range on the game (Game.ranged): they
        # are no part of it, and a game whose answer came from the cache would not hold them.
        mark, holes = len(game.constraints), len(game.table_holes)
        hit = _CACHE[key] = (game.sc, _fixpoint(game, roles_now))
        del game.constraints[mark:], game.table_holes[holes:]
    return list(hit[1])


def _fixpoint(game: Game, roles_now: Sequence[str]) -> list[frozenset[str]]:
    sources = _converting(game.sc)
    possible = [{r} for r in roles_now]
    if not sources:
        return [frozenset(p) for p in possible]
    solver = make_solver(game.ctx, Limits(timeout=10, rlimit=5_000_000))
    changed = True
    rounds = 0
    while changed:
        changed = False
        rounds += 1
        S, base = _abstract_state(game, possible, rounds)
        for owner in sources:
            for cond, role, on in _converts(game, owner, S, possible, rounds):
                for s in range(game.n):
                    if role in possible[s]:
                        continue
                    hit = And(cond, on(s))
                    if z3.is_false(hit):
                        continue
                    solver.push()
                    solver.add(base, hit)
                    answer = solver.check()
                    solver.pop()
                    if answer != z3.unsat:  # sat, or not shown impossible
                        possible[s].add(role)
                        changed = True
    return [frozenset(p) for p in possible]


def _converting(sc: Scenario) -> list[Ability | ast.RuleDecl]:
    """The abilities and rules with a `convert` somewhere in their effects."""
    def converts(effects: Sequence[ast.AnyEffect]) -> bool:
        return any(e.verb == "convert" for e in flat(effects))
    rules: list[Ability | ast.RuleDecl] = [r for r in sc.rules if converts(r.then)]
    return [a for a in sc.abilities if converts(a.effects)] + rules


def _abstract_state(game: Game, possible: list[set[str]], tag: int) -> tuple[SymState, z3.BoolRef]:
    """A state whose only known part is each seat's role, one of its possible roles."""
    S = game.state_vars(f"abs{tag}")
    ids = game.ids
    base = []
    for s, roles in enumerate(possible):
        values = sorted(ids.roles.index(r) for r in roles)
        if len(values) == 1:
            S.roles[s] = game.I(values[0])
        else:
            base.append(Or([S.roles[s] == v for v in values]))
    return S, And(base) if base else game.B(True)


def _converts(game: Game, owner: Ability | ast.RuleDecl, S: SymState, possible: list[set[str]],
              tag: int) -> Iterator[tuple[z3.BoolRef, str, Callable[[int], z3.BoolRef]]]:
    """(condition, role, on) for each convert of an ability or rule: `condition` is what
    must hold for it to apply at all, on(s) whether it applies to seat s."""
    events = FreeEvents(game.ctx)
    rnd = z3.Int(f"abs{tag}_round", game.ctx)
    if isinstance(owner, ast.RuleDecl):
        for seats in itertools.product(range(game.n), repeat=len(owner.variables)):
            env = {v.key: seat for v, seat in zip(owner.variables, seats)}
            view = View(game, S, events, {**env, "__holes": [], "__round": rnd})
            cond = _safe(game, owner.cond, view)
            yield from _effects(game, owner.then, view, cond, None)
        return
    for key in _actor_keys(game, owner, possible):
        u = legality.use_vars(game, f"abs{tag}", owner, key, None, S, None)
        env = game.env_of(u)
        view = View(game, S, events, {**env, "__holes": [], "__round": rnd})
        yield from _effects(game, owner.effects, view, _legal(game, u, S, view), u)


def _effects(game: Game, effects: Sequence[ast.AnyEffect], view: View, cond: z3.BoolRef,
             u: Use | None) -> Iterator[tuple[z3.BoolRef, str, Callable[[int], z3.BoolRef]]]:
    for e, guard in _guarded(game, effects, view, cond):
        if e.verb != "convert":
            continue
        yield guard, effect_name(e).key, _seat_reader(game, e, view, u)


def _seat_reader(game: Game, e: ast.Effect, view: View, u: Use | None) -> Callable[[int], z3.BoolRef]:
    """Whether seat s is one a conversion applies to: its `on` read once, on first use."""
    seats: list[z3.BoolRef] = []

    def on(s: int) -> z3.BoolRef:
        if not seats:
            try:
                seats.extend(game.seats_on(e, view, u))
            except Unsupported:
                seats.extend([game.B(True)] * game.n)
        return seats[s]
    return on


def _guarded(game: Game, effects: Sequence[ast.AnyEffect], view: View,
             guard: z3.BoolRef) -> Iterator[tuple[ast.Effect, z3.BoolRef]]:
    for e in effects:
        if isinstance(e, ast.IfEffect):
            cond = _safe(game, e.cond, view)
            yield from _guarded(game, e.then, view, And(guard, cond))
            yield from _guarded(game, e.otherwise, view, And(guard, Not(cond)))
        elif isinstance(e, ast.AfterEffect):
            # Applied later, to a state of which the abstract one is as good a picture.
            yield from _guarded(game, e.body, view, guard)
        else:
            yield e, guard


def _safe(game: Game, expr: ast.Expr | None, view: View) -> z3.BoolRef:
    """An expression's value, or `true` (no restriction) where it cannot be compiled."""
    if expr is None:
        return game.B(True)
    try:
        value = game.compiler.value(expr, view)
    except Unsupported:
        return game.B(True)
    return value if isinstance(value, z3.BoolRef) else game.B(True)


def _actor_keys(game: Game, a: Ability, possible: list[set[str]]) -> list[int]:
    if a.is_card or a.actor is None or a.actor.kind != "role":
        return game.actor_keys(a) if not a.is_card else list(range(game.n))
    roles = {r.key for r in actor_roles(a.actor)}
    return [s for s in range(game.n) if roles & possible[s]]


def _legal(game: Game, u: Use, S: SymState, view: View) -> z3.BoolRef:
    """What a use of the ability needs, weakened where that is simpler: the acting seat's
    role, its targets in range, distinct and passing the filter, its conditions."""
    a = u.ability
    n = game.n
    conds = []
    if a.actor is not None and a.actor.kind == "role" and u.key != NONE:
        roles = [game.ids.roles.index(r.key) for r in actor_roles(a.actor)]
        conds.append(Or([Eq(S.roles[u.key], r) for r in roles]))
    elif u.actor is not None and not isinstance(u.actor, int):
        conds.append(And(u.actor >= 0, u.actor < n))
    if u.count is not None:
        conds.append(And(u.count >= 1, u.count <= len(u.targets)))
        for j, tj in enumerate(u.targets):
            chosen = j < u.count
            ok = And(tj >= 0, tj < n)
            if a.target_filter is not None:
                ok = And(ok, _safe(game, a.target_filter, view.with_env(target=tj)))
            conds.append(Implies(chosen, ok))
            conds.append(Implies(Not(chosen), tj == NONE))
            for i in range(j):
                conds.append(Implies(chosen, tj != u.targets[i]))
    for cond in a.conditions:
        conds.append(_safe(game, cond, view))
    return And(conds) if conds else game.B(True)
