"""Obligations: an ability marked `mandatory` must be used whenever a use of it is legal.

The rule, stated once for both implementations (the encoding's counterpart is
`encode/unroll.py: Game._obligation`): in a phase, each player (or team, or the moderator)
who could use a mandatory ability must use it if some choice of targets and values would be
legal, judged as any use is (`legal.check`), beside the phase's other choices. A team's
obligation is judged without the team's other options of the night, which it would replace.
When no use is legal, the obligation lapses for that phase: nothing is required and nothing
is reported. A mandatory option of a team's one action (`one of shot, guess per night`) obliges
the team to act: any of its options meets it. A phase that leaves out a use the rules require
is illegal.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from ..evaluate import EvalError, Evaluator, State
from ..model import Ability, Scenario
from ..phases import Phase, matches
from .bind import BoundUse
from .legal import (
    Problem,
    actor_roles,
    check,
    pending_for,
    phase_choices,
    team_decider,
    team_of,
    use_key,
)

# Past this many candidate uses the search for a legal one stops: the obligation is then
# taken as unmet only by the candidates tried (a spec this large is not a real rulebook).
MAX_CANDIDATES = 20_000


def missing(scenario: Scenario, state: State, phase: Phase, uses: list[BoundUse],
            drawn: frozenset, moment_of: Callable[[Ability], str | None],
            trigger_possible: Callable[[Ability, BoundUse, list[BoundUse]], bool]) -> list[Problem]:
    """The obligations this phase's choices leave unmet, one problem each."""
    out = []
    for ability in scenario.abilities:
        if not ability.mandatory or not _scheduled(ability, phase, state):
            continue
        if on_trigger_only(ability, phase, state):
            continue  # owed only where its trigger happens: see `unmet_on_trigger`
        moment = moment_of(ability) if phase.is_day else None
        options = _team_options(scenario, ability)
        if options and any(u.ability in options for u in uses):
            continue  # the team's one action of the night is made, with one of its options
        for actor in _candidates(scenario, state, phase, ability, drawn, phase_choices(uses)):
            key = use_key(ability, BoundUse(ability.key, actor, (), ()))
            if any(u.ability == ability.key and use_key(ability, u) == key for u in uses):
                continue
            others = _others(scenario, ability, uses)
            votes = [u for u in uses if u.ability is None]  # a vote can be the trigger
            example = _a_legal_use(scenario, state, phase, moment, ability, actor, others, votes, drawn,
                                   trigger_possible)
            if example is not None:
                who = "" if actor is None else f" by @{actor + 1}"
                out.append(Problem(f"'{ability.display}' must be used{who} on {phase}: "
                                   "the rules make it mandatory and a use is legal",
                                   ability.cites_of("mandatory")))
    return out


def on_trigger_only(ability: Ability, phase: Phase, state: State | None = None) -> bool:
    """Whether the ability comes into this phase only by triggers that act at once (the
    Hunter's last shot): then it is owed where a trigger happens, not wherever one could.
    (The encoding's counterpart: encode/legality.py, trigger_obligations.)"""
    if ability.is_card or any(r.phase.key == phase.kind for r in ability.phases) or not ability.triggers:
        return False
    return all(t.timing == "immediately" for t in ability.triggers)


def unmet_on_trigger(scenario: Scenario, state: State, phase: Phase, uses: list[BoundUse],
                     triggered: set, drawn: frozenset, moment_of: Callable[[Ability], str | None]) -> list[Problem]:
    """The obligations of mandatory abilities that act at once on their trigger, in one outcome
    of the phase: each holder whose trigger happened (`triggered`: (ability, seat)) must have
    been given a use, if some use would have been legal, judged as any use on its trigger is
    (at the start of the phase, the trigger taken as come). With no legal use (nobody left to
    aim at) the obligation lapses."""
    out = []
    for ability in scenario.abilities:
        if not ability.mandatory or not on_trigger_only(ability, phase, state):
            continue
        moment = moment_of(ability) if phase.is_day else None
        for key, seat in sorted(t for t in triggered if t[0] == ability.key):
            if any(u.ability == key and u.actor == seat for u in uses):
                continue
            others = _others(scenario, ability, uses)
            example = _a_legal_use(scenario, state, phase, moment, ability, seat, others, [], drawn,
                                   lambda a, u, us: True)
            if example is not None:
                out.append(Problem(f"'{ability.display}' must be used by @{seat + 1} on {phase}: its "
                                   "trigger happened, the rules make it mandatory and a use is legal",
                                   ability.cites_of("mandatory")))
    return out


def _scheduled(ability: Ability, phase: Phase, state: State) -> bool:
    """Whether the ability can be used in this phase at all (its `at`, a pending trigger or
    an immediate one)."""
    if any(r.phase.key == phase.kind and matches(r, phase, r.moment) for r in ability.phases):
        return True
    if any(a == ability.key and k == phase.kind for a, _, k in state.pending):
        return True
    return any(t.timing == "immediately" for t in ability.triggers)


def _candidates(scenario: Scenario, state: State, phase: Phase, ability: Ability,
                drawn: frozenset, choices: frozenset) -> list[int | None]:
    """Who could owe a use: each holder of the role, the team's decider, each holder of the
    item, the moderator, or each player holding the card."""
    actor = ability.actor
    if ability.is_card:
        return sorted(drawn)
    if actor is None or actor.kind == "moderator":
        return [None] if ability.target_count is not None else []  # target-less: completed
    team = team_of(scenario, ability)
    if actor.kind == "team" and team is not None:
        seat, _ = team_decider(scenario, state, team, choices)
        return [] if seat is None else [seat]
    if actor.kind == "holder" and actor.name is not None:
        item_key = actor.name.key
        return sorted(s for (item, s) in state.items if item == item_key)
    roles = actor_roles(ability)
    return [s for s in range(len(state.roles)) if state.roles[s] in roles
            and (state.alive[s] or pending_for(state, ability.key, s, phase))]


def _team_options(scenario: Scenario, ability: Ability) -> frozenset:
    """The options of the team whose one action this ability is (`one of … per night`)."""
    team = team_of(scenario, ability)
    return frozenset(team.options) if team is not None and ability.key in team.options else frozenset()


def _others(scenario: Scenario, ability: Ability, uses: list[BoundUse]) -> list[BoundUse]:
    """The phase's other choices, less the team's other options (which the use replaces)."""
    options = _team_options(scenario, ability)
    return [u for u in uses if u.ability is not None and u.ability not in options]


def _a_legal_use(scenario: Scenario, state: State, phase: Phase, moment: str | None,
                 ability: Ability, actor: int | None, others: list[BoundUse], votes: list[BoundUse],
                 drawn: frozenset,
                 trigger_possible: Callable[[Ability, BoundUse, list[BoundUse]], bool]) -> BoundUse | None:
    for tried, use in enumerate(_uses(scenario, state, ability, actor)):
        if tried >= MAX_CANDIDATES:
            return None
        phase_uses = others + [use]
        now = trigger_possible(ability, use, phase_uses + votes)
        if not any(not p.hole for p in check(scenario, state, phase, moment, use, phase_uses,
                                             triggered_now=now, drawn=drawn)):
            return use
    return None


def _uses(scenario: Scenario, state: State, ability: Ability, actor: int | None) -> Iterator[BoundUse]:
    """Every use the ability could be given: each number of targets it allows, each set of
    distinct players, each value of each choice."""
    n = len(state.roles)
    counts = [0]
    if ability.target_count is not None:
        env: dict[str, object] = {"actor": actor, "targets": frozenset(), "target": None}
        try:
            most = Evaluator(scenario, state).value(ability.target_count, env)
        except EvalError:
            return  # the rules give no number of targets: a hole, not an obligation
        counts = list(range(1, most + 1)) if ability.target_up_to else [most]
    domains = [scenario.choice_domain(ch, n) for ch in ability.choices]
    for count in counts:
        for targets in itertools.combinations(range(n), count):
            for values in itertools.product(*domains):
                named = tuple((ch.binds.key, v) for ch, v in zip(ability.choices, values))
                yield BoundUse(ability.key, actor, targets, named, explicit_actor=actor is not None)
