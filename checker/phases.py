"""The sequence of phases a scenario declares, and which phases an ability's `at` names."""

from __future__ import annotations

from dataclasses import dataclass

from . import ast
from .evaluate import Evaluator, State
from .model import DAY_PHASES, NIGHT_PHASES, Ability, Scenario

PHASE_WORDS = {"intro_day": "intro day", "intro_night": "intro night", "blind_day": "blind day",
               "day": "day", "night": "night"}


@dataclass(frozen=True)
class Phase:
    kind: str  # intro_day, intro_night, blind_day, day, night
    number: int  # the n-th phase of this kind, from 1
    index: int  # position in the game, from 0

    @property
    def is_night(self) -> bool:
        return self.kind in NIGHT_PHASES

    @property
    def is_day(self) -> bool:
        return self.kind in DAY_PHASES

    def __str__(self) -> str:
        if self.kind in ("day", "night"):
            return f"{self.kind} {self.number}"
        return PHASE_WORDS[self.kind]


def start_phases(scenario: Scenario, state: State) -> tuple[str, ...]:
    """The opening phases: the first `start` option whose condition holds."""
    phases = scenario.phases
    if phases is None:
        return ()
    ev = Evaluator(scenario, state)
    for option in phases.starts:
        if option.when is None or ev.value(option.when, {}):
            return option.phases
    return ()


def sequence(scenario: Scenario, state: State, length: int) -> list[Phase]:
    """The first `length` phases of the game."""
    kinds = list(start_phases(scenario, state))
    cycle = scenario.phases.cycle if scenario.phases else ("day", "night")
    while len(kinds) < length:
        kinds.extend(cycle)
    out: list[Phase] = []
    counts: dict[str, int] = {}
    for index, kind in enumerate(kinds[:length]):
        counts[kind] = counts.get(kind, 0) + 1
        out.append(Phase(kind, counts[kind], index))
    return out


def matches(ref: ast.PhaseRef, phase: Phase, moment: str | None = None) -> bool:
    """Whether `at REF` covers this phase (and, for a day, this moment: before or after the vote)."""
    if ref.phase.key != phase.kind:
        return False
    if ref.exact is not None and ref.exact != phase.number:
        return False
    if ref.start is not None and phase.number < ref.start:
        return False
    if phase.is_day:
        return (ref.moment or "before") == (moment or "before")
    return True


def use_moment(ability: Ability, phase: Phase, given: str | None = None) -> str | None:
    """When in the phase a use of the ability acts: None at night; by day "before" or "after"
    the vote, or "vote" for a last-move card (played at the vote that draws it). A use whose
    query says `before vote` or `after vote` acts then; otherwise at the first moment of the
    day the ability holds at, and before the vote when it holds at neither (a use on its
    trigger, or one a trigger made due)."""
    if not phase.is_day:
        return None
    if ability.is_card and not ability.phases:
        return "vote"
    if given is not None:
        return given
    return next(iter(day_moments(ability, phase)), "before")


def day_moments(ability: Ability, phase: Phase) -> tuple[str, ...]:
    """The moments of a day its `at` holds at: ("before",), ("after",), both or none."""
    return tuple(m for m in ("before", "after") if any(matches(r, phase, m) for r in ability.phases))


def rule_applies_at(ref: ast.PhaseRef, phase: Phase, moment: str | None) -> bool:
    """A rule `at day` holds all day long; `at day after vote` only after the vote."""
    if ref.moment is None:
        return ref.phase.key == phase.kind and (ref.exact is None or ref.exact == phase.number) \
            and (ref.start is None or phase.number >= ref.start)
    return matches(ref, phase, moment)
