"""The names a query's goal and `expect` lines use, checked before the query is answered.

A goal or expectation naming a side, player or kind the scenario does not have is a mistake
in the query file (exit 2, located), never a failed expectation or a crash: `expect winner
jak` must not read as "jack did not win", and `can stays nobody` has no seat to ask about.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast
from .errors import SpecError
from .interpreter.bind import Binder, BoundQuery
from .limits import MAX_WITHIN
from .model import BUILTIN_KINDS, Scenario

if TYPE_CHECKING:
    from .phases import Phase
    from .source import Span


# What `expect verdict …` and `expect answer …` can name (interpreter.play.verdict_of, the
# pre-start checks, and the open questions).
VERDICTS = {"verdict": ("determined", "ambiguous", "undefined", "contradiction", "illegal", "rejected"),
            "answer": ("yes", "no", "inconclusive")}


def check_query_names(scenario: Scenario, query: ast.Query, bound: BoundQuery, path: str) -> None:
    """Raise SpecError listing every unknown name in the goal and expectations of `query`."""
    binder = Binder(scenario, path)
    sides = scenario.side_by_key
    kinds = {k.name.key for k in scenario.kinds} | set(BUILTIN_KINDS)

    def side(name: ast.Name | None, span: Span | None) -> None:
        if name is not None and name.key not in sides:
            binder.error(f"unknown side '{name.text}'; sides are: "
                         + ", ".join(s.text for s in scenario.sides), name.span or span)

    question = query.open
    if question is not None:
        if question.goal == "winner":
            side(question.side, question.span)
        elif question.player is not None:
            binder.seat(question.player, bound.seats)
        for a in question.assuming:
            for ref in (a.by, *a.on):
                if ref is not None:
                    binder.seat(ref, bound.seats)
            if a.ability is not None and a.ability.key not in scenario.ability_by_key:
                binder.error(f"unknown ability '{a.ability.text}'; abilities are: "
                             + ", ".join(x.key for x in scenario.abilities), a.ability.span or a.span)
        if question.within is not None and not 1 <= question.within <= MAX_WITHIN:
            binder.error(f"`within {question.within}`: an open question searches 1 to "
                         f"{MAX_WITHIN} rounds", question.span)
    roles = scenario.role_by_key
    counters = {c.key for r in scenario.roles for c in r.counters}
    for e in query.expectations:
        if e.kind == "winner":
            side(e.name, e.span)
        for ref in (e.player, e.about):
            if ref is not None:
                binder.seat(ref, bound.seats)
        if e.kind == "leaves" and e.name is not None and e.name.key not in kinds:
            binder.error(f"unknown kind of exit '{e.name.text}'; kinds are: "
                         + ", ".join(sorted(kinds)), e.name.span or e.span)
        # `expect P role = NAME`, `expect counter P NAME = N`: the grammar always gives the name.
        if e.kind == "role" and e.name is not None and e.name.key not in roles:
            binder.error(f"unknown role '{e.name.text}'; roles are: "
                         + ", ".join(r.text for r in scenario.roles), e.name.span or e.span)
        if e.kind == "side":
            side(e.name, e.span)
        if e.kind == "counter" and e.name is not None and e.name.key not in counters:
            binder.error(f"unknown counter '{e.name.text}'; counters are: "
                         + (", ".join(sorted(counters)) or "none"), e.name.span or e.span)
        if e.kind == "reveals" and e.name is not None and e.name.key not in roles \
                and e.name.key not in sides:
            binder.error(f"'{e.name.text}' is neither a role nor a side of {scenario.text}",
                         e.name.span or e.span)
        if e.phase is not None:
            _played(binder, e.phase, bound, e.span)
        if e.kind == "precheck" and e.value not in {c.message for c in scenario.prechecks}:
            binder.error(f"no pre-start check of {scenario.text} says \"{e.value}\"; its "
                         "`precheck` lines say: " + (", ".join(f'"{c.message}"' for c in scenario.prechecks)
                                                     or "nothing (it has none)"), e.span)
        if e.kind in VERDICTS and e.value not in VERDICTS[e.kind]:
            binder.error(f"unknown {e.kind} '{e.value}'; {e.kind}s are: "
                         + ", ".join(VERDICTS[e.kind]), e.span)
    if binder.errors:
        raise SpecError(binder.errors)


def _played(binder: Binder, phase: tuple[ast.Name, int | None], bound: BoundQuery, span: Span | None) -> None:
    """`in PHASE [N]` names exactly one of the phases the query plays."""
    name, number = phase
    played = [p for p, _ in bound.phases]
    found = [p for p in played if p.kind == name.key and (number is None or p.number == number)]
    wrote = name.text + ("" if number is None else f" {number}")
    if not found:
        binder.error(f"the query plays no phase '{wrote}'; it plays: "
                     + (", ".join(_written(p) for p in played) or "no phase"), name.span or span)
    elif len(found) > 1:
        binder.error(f"the query plays more than one {name.text}: say which, as "
                     + " or ".join(f"`in {_written(p)}`" for p in found), name.span or span)


def _written(phase: Phase) -> str:
    """A played phase as a query file names it: `night 2`, `intro_night`."""
    return f"{phase.kind} {phase.number}" if phase.kind in ("day", "night") else phase.kind
