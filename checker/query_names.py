"""The names a query's goal and `expect` lines use, checked before the query is answered.

A goal or expectation naming a side, player or kind the scenario does not have is a mistake
in the query file (exit 2, located), never a failed expectation or a crash: `expect winner
jak` must not read as "jack did not win", and `can stays nobody` has no seat to ask about.
"""

from __future__ import annotations

from . import ast
from .errors import SpecError
from .interpreter.bind import Binder, BoundQuery
from .limits import MAX_WITHIN
from .model import BUILTIN_KINDS, Scenario


def check_query_names(scenario: Scenario, query: ast.Query, bound: BoundQuery, path: str) -> None:
    """Raise SpecError listing every unknown name in the goal and expectations of `query`."""
    binder = Binder(scenario, path)
    sides = scenario.side_by_key
    kinds = {k.name.key for k in scenario.kinds} | set(BUILTIN_KINDS)

    def side(name: ast.Name | None, span) -> None:
        if name is not None and name.key not in sides:
            binder.error(f"unknown side '{name.text}'; sides are: "
                         + ", ".join(s.text for s in scenario.sides), name.span or span)

    question = query.open
    if question is not None:
        if question.goal == "winner":
            side(question.side, question.span)
        elif question.player is not None:
            binder.seat(question.player, bound.seats)
        if question.within is not None and not 1 <= question.within <= MAX_WITHIN:
            binder.error(f"`within {question.within}`: an open question searches 1 to "
                         f"{MAX_WITHIN} rounds", question.span)
    for e in query.expectations:
        if e.kind == "winner":
            side(e.name, e.span)
        if e.kind in ("leaves", "stays", "learns") and e.player is not None:
            binder.seat(e.player, bound.seats)
        if e.kind == "leaves" and e.name is not None and e.name.key not in kinds:
            binder.error(f"unknown kind of exit '{e.name.text}'; kinds are: "
                         + ", ".join(sorted(kinds)), e.name.span or e.span)
    if binder.errors:
        raise SpecError(binder.errors)
