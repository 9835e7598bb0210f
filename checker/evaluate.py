"""Evaluating expressions against a game state.

Written plainly so it can be read against the rulebook: a player is a seat number, a role or
side is its key, a set of players is a frozenset. Event predicates (`kill(p, shot)`, …) ask
the `events` of the phase being resolved; outside a phase there are none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import ast
from .model import Scenario
from .source import Span

# The value of a spec expression: an int, a bool, a key (role, side, kind, option...), a seat
# (int), a frozenset of seats or keys, or None (no player). Which one an expression has is the
# spec's type, checked by resolve; Python sees them all alike, so this is Any, not a union
# every caller would have to narrow again.
Value = Any
# The values bound to the variables in scope (`target`, a rule's `for p`, a count's variable).
Env = dict[str, Value]


class EvalError(Exception):
    """An expression has no value in this state (for example, a table with no matching row)."""

    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.span = span


@dataclass
class State:
    """The whole state of a game between two phases. Seats are numbered from 0.

    Plain and mutable; the interpreter copies it (`clone`) before each branch.
    """

    roles: list[str]  # seat -> role key
    sides: list[str | None]  # seat -> side key (None while a side is unchosen)
    alive: list[bool]
    left_by: list[str | None] = field(default_factory=list)
    counters: list[dict[str, int]] = field(default_factory=list)
    memories: dict[str, Value] = field(default_factory=dict)
    settings: dict[str, Value] = field(default_factory=dict)
    round: int = 0
    events: frozenset = frozenset()  # this phase's events: ("kill", seat, kind), ("voted", seat)…
    items: dict = field(default_factory=dict)  # (item, seat) -> variant
    uses: dict = field(default_factory=dict)  # (ability, seat) -> uses so far in the game
    self_uses: dict = field(default_factory=dict)  # (ability, seat) -> uses on oneself
    last_targets: dict = field(default_factory=dict)  # (ability, seat) -> (phase index, targets)
    pending: tuple = ()  # (ability, seat, phase kind): triggered uses due in a later phase
    delayed: tuple = ()  # (phase index due, effects, env): `after N night:` effects
    links: dict = field(default_factory=dict)  # seat -> linked seat (`link`)
    revealed: frozenset = frozenset()  # seats whose role or side has been revealed
    phase_index: int = -1  # index of the last phase played (-1: before the game)
    drawn: frozenset = frozenset()  # seats holding a last-move card they have not played
    # win index -> the readings of its check schedule still consistent with the game so far
    # (absent: all of them); see `wins checked after … or after …`.
    readings: dict = field(default_factory=dict)
    # (ability, seat) -> blocked uses not known to count against the limits (`blocked uses unspecified`)
    uses_open: dict = field(default_factory=dict)
    # (ability, seat) -> the phases of the ability in a row, up to the last one played, in
    # which the seat made no use of it (only for the abilities a spec asks `idle(p, A)` of)
    idle: dict = field(default_factory=dict)
    # seat -> the role dealt at the start: a moderator's log names each seat by it throughout,
    # so a converted player keeps one name (and a conversion is reported as a change)
    dealt: tuple = ()
    # seat -> the kind of exit its link carries (`link … with KIND`): when the player it is
    # linked to leaves, it leaves too, by that kind
    link_kinds: dict = field(default_factory=dict)

    def clone(self) -> "State":
        return State(
            roles=list(self.roles), sides=list(self.sides), alive=list(self.alive),
            left_by=list(self.left_by), counters=[dict(c) for c in self.counters],
            memories=dict(self.memories), settings=dict(self.settings), round=self.round,
            events=self.events, items=dict(self.items), uses=dict(self.uses),
            self_uses=dict(self.self_uses), last_targets=dict(self.last_targets),
            pending=self.pending, delayed=self.delayed, links=dict(self.links),
            revealed=self.revealed, phase_index=self.phase_index, drawn=self.drawn,
            readings=dict(self.readings), uses_open=dict(self.uses_open), idle=dict(self.idle),
            dealt=self.dealt, link_kinds=dict(self.link_kinds))

    def key(self) -> tuple:
        """A hashable summary, to tell apart outcomes that differ in anything that matters."""
        return (tuple(self.roles), tuple(self.sides), tuple(self.alive), tuple(self.left_by),
                tuple(tuple(sorted(c.items())) for c in self.counters),
                tuple(sorted((k, _freeze(v)) for k, v in self.memories.items())),
                tuple(sorted(self.items.items())), tuple(sorted(self.uses.items())),
                tuple(sorted(self.self_uses.items())), self.pending,
                tuple(sorted(self.links.items())), tuple(sorted(self.revealed)), tuple(sorted(self.drawn)),
                tuple(sorted((k, tuple(sorted(v))) for k, v in self.readings.items())),
                tuple(sorted(self.uses_open.items())), tuple(sorted(self.idle.items())),
                tuple(sorted(self.link_kinds.items())))


def _freeze(value: Value) -> Value:
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(value))
    return value


def initial_state(scenario: Scenario, seats: tuple[str, ...], settings: dict | None = None) -> State:
    """The state before the first phase: everyone alive, counters at their initial values."""
    values: dict[str, object] = {s.name.key: None for s in scenario.settings}
    state = State(roles=list(seats), sides=[scenario.role_by_key[r].side for r in seats],
                  alive=[True] * len(seats), left_by=[None] * len(seats), dealt=tuple(seats))
    for s in scenario.settings:
        values[s.name.key] = Evaluator(scenario, state).value(s.default, {})
    values.update(settings or {})
    state.settings = values
    for seat, role_key in enumerate(seats):
        role = scenario.role_by_key[role_key]
        state.counters.append({c.key: Evaluator(scenario, state).value(c.initial, {})
                               for c in role.counters})
    for m in scenario.memories:
        if m.initial is not None:
            state.memories[m.name.key] = Evaluator(scenario, state).value(m.initial, {})
        else:
            state.memories[m.name.key] = frozenset() if m.type == "players" else None
    return state


class Evaluator:
    def __init__(self, scenario: Scenario, state: State) -> None:
        self.scenario = scenario
        self.state = state
        self.setting_keys = {s.name.key for s in scenario.settings}
        self.memory_keys = {m.name.key for m in scenario.memories}

    def _group(self, key: str) -> Iterable[int]:
        """The seats of a side or a role (or everyone, for `all`)."""
        s = self.state
        if key == "all":
            return range(len(s.roles))
        if key in self.scenario.side_by_key:
            return [i for i in range(len(s.roles)) if self._counted_side(i) == key]
        return [i for i in range(len(s.roles)) if s.roles[i] == key]

    def _counted_side(self, seat: int) -> str | None:
        role = self.scenario.role_by_key[self.state.roles[seat]]
        if role.counts_as is not None:
            return role.counts_as or None
        return self.state.sides[seat]

    # `e` may be None for the callers in analyses/ that pass a win's `cond` (optional in
    # WinDecl, always there in scenario.wins): None ends in the TypeError below, as any value
    # that is no expression does. Once they narrow it, this can take ast.Expr alone.
    def value(self, e: ast.Expr | None, env: Env) -> Value:
        s = self.state
        if isinstance(e, ast.Num):
            return e.value
        if isinstance(e, ast.Str):
            return e.value
        if isinstance(e, ast.Bool):
            return e.value
        if isinstance(e, ast.Ref):
            key = e.name.key
            if key in env:
                return env[key]
            if key in self.setting_keys:
                return s.settings.get(key)
            if key in self.memory_keys:
                return s.memories.get(key)
            if key == "alive" and key not in self.scenario.side_by_key:
                return sum(s.alive)
            if key == "players":
                return len(s.roles)
            if key == "round":
                return s.round
            return key  # a role, side, kind, item, variant or option: its key is its value
        if isinstance(e, ast.Attr):
            seat = self.value(e.obj, env)
            attr = e.attr.key
            if seat is None:
                return None
            if attr == "alive":
                return s.alive[seat]
            if attr == "role":
                return s.roles[seat]
            if attr == "side":
                return s.sides[seat]
            if attr == "plain":
                return self.scenario.role_by_key[s.roles[seat]].plain
            if attr == "left_by":
                return s.left_by[seat]
            if attr == "revealed":
                return seat in s.revealed
            if attr == "blocked":
                return ("blocked", seat) in s.events
            return s.counters[seat].get(attr, 0)
        if isinstance(e, ast.Not):
            return not self.value(e.operand, env)
        if isinstance(e, ast.BinOp):
            if e.op == "and":
                return bool(self.value(e.left, env)) and bool(self.value(e.right, env))
            if e.op == "or":
                return bool(self.value(e.left, env)) or bool(self.value(e.right, env))
            left, right = self.value(e.left, env), self.value(e.right, env)
            return {"+": left + right, "-": left - right, "*": left * right}[e.op]
        if isinstance(e, ast.Compare):
            left, right = self.value(e.left, env), self.value(e.right, env)
            if e.op == "in":
                return left in right
            if e.op == "not in":
                return left not in right
            if e.op == "==":
                return left == right
            if e.op == "!=":
                return left != right
            if left is None or right is None:
                return False  # an order comparison with no value (a player who never left)
            return {"<": left < right, "<=": left <= right, ">": left > right,
                    ">=": left >= right}[e.op]
        if isinstance(e, ast.SetLit):
            return frozenset(self.value(i, env) for i in e.items)
        if isinstance(e, ast.Count):
            within = range(len(s.roles)) if e.within is None else self.value(e.within, env)
            return sum(1 for x in within if self.value(e.cond, {**env, e.var.key: x}))
        if isinstance(e, ast.ByTable):
            subject = self.value(e.subject, env)
            for case in e.cases:
                if case.low is None or case.low <= subject <= case.high:
                    return self.value(case.value, env)
            raise EvalError(f"no row of this table covers {subject}", e.span)
        if isinstance(e, ast.Cases):
            for arm in e.arms:
                if arm.cond is None or self.value(arm.cond, env):
                    return self.value(arm.value, env)
            raise EvalError("no case applies", e.span)
        if isinstance(e, ast.Call):
            return self._call(e, env)
        raise TypeError(f"cannot evaluate {type(e).__name__}")

    def _call(self, e: ast.Call, env: Env) -> Value:
        s = self.state
        name = e.func.key
        args = [self.value(a, env) for a in e.args]
        if name == "alive":
            return sum(1 for i in self._group(args[0]) if s.alive[i])
        if name == "left":
            return sum(1 for i in self._group(args[0]) if not s.alive[i])
        if name == "died":
            return sum(1 for i in self._group(args[0]) if ("left", i) in s.events)
        if name in ("first", "second"):
            ordered = sorted(args[0])
            index = 0 if name == "first" else 1
            return ordered[index] if len(ordered) > index else None
        if name == "size":
            return len(args[0])
        if name == "holds":
            return (args[1], args[0]) in s.items
        if name == "item_variant":
            return s.items.get((args[1], args[0]))
        if name == "setting":
            return s.settings.get(args[0])
        if name == "idle":
            return s.idle.get((args[1], args[0]), 0)
        if name == "uses":
            return sum(n for (a, _), n in s.uses.items() if a == args[0])
        if name == "linked":
            return s.links.get(args[0])
        if name == "appearance":
            seat, inquirer_role = args
            role = self.scenario.role_by_key[s.roles[seat]]
            for a in role.appearances:
                if inquirer_role in a.to_roles:
                    return a.value
            side = s.sides[seat]
            return self.scenario.side_by_key[side].display if side else "no side"
        if name == "leaves":
            return ("left", args[0]) in s.events
        # Event predicates: true when the phase being resolved produced that event.
        return (name, *args) in s.events
