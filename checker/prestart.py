"""The checks a seating must pass before its game starts: no role over its maximum, a town
side and a dark side present (the checker's own), and the spec's `precheck` lines.

`check`'s setup analysis asks them of every declared composition; `ask` asks them of the
query's seating, which with `unlisted players` may be one the rulebook lists no composition
for, so that a moderator can see a pre-start check fire.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .evaluate import EvalError, Evaluator, initial_state
from .model import Scenario


@dataclass(frozen=True)
class Failed:
    """A pre-start check that stops the game (`error`) or only warns (`warning`)."""

    severity: str  # error, warning
    message: str
    rules: tuple[str, ...] = ()
    precheck: bool = False  # one of the spec's own `precheck` lines (not the checker's)


def side_kinds(scenario: Scenario, roles: Iterable[str]) -> set[str]:
    """The kinds of the sides the roles can be on (a role choosing its side counts each)."""
    kinds = set()
    for role_key in roles:
        role = scenario.role_by_key[role_key]
        for side_key in (role.side,) + role.side_choices:
            if side_key:
                kinds.add(scenario.side_by_key[side_key].kind)
    return kinds


def prechecks(scenario: Scenario, seats: tuple[str, ...],
              settings: dict | None = None) -> list[tuple]:
    """(the `precheck` line, whether it holds, or the EvalError that keeps it from being
    evaluated) for each of the spec's pre-start checks, on the seating's starting state."""
    ev = Evaluator(scenario, initial_state(scenario, seats, settings))
    out: list[tuple] = []
    for check in scenario.prechecks:
        try:
            out.append((check, bool(ev.value(check.cond, {}))))
        except EvalError as exc:
            out.append((check, exc))
    return out


def failed(scenario: Scenario, seats: tuple[str, ...], settings: dict | None = None,
           players: int | None = None) -> list[Failed]:
    """Every pre-start check the seating fails, the checker's own first; `players`, when
    given, is the number of players the roles are dealt to (`unlisted composition N`)."""
    out = []
    if players is not None and players != len(seats):
        more = "more" if len(seats) > players else "fewer"
        out.append(Failed("error", f"{more} roles than players: the roles add up to {len(seats)} "
                          f"seats, not {players} players"))
    for role_key, count in Counter(seats).items():
        role = scenario.role_by_key[role_key]
        if role.max is not None and count > role.max:
            out.append(Failed("error", f"{role.display} appears {count} times; its maximum is "
                              f"{role.max}", tuple(r.id for r in role.cites)))
    kinds = side_kinds(scenario, seats)
    if "town" not in kinds:
        out.append(Failed("error", "the seating has no role on a town side"))
    if "dark" not in kinds:
        out.append(Failed("error", "the seating has no role on a dark side"))
    for check, holds in prechecks(scenario, seats, settings):
        rules = tuple(r.id for r in check.cites)
        if isinstance(holds, EvalError):
            out.append(Failed("error", f"pre-start check \"{check.message}\" cannot be "
                              f"evaluated: {holds}", rules, True))
        elif holds:
            out.append(Failed(check.severity, check.message, rules, True))
    return out
