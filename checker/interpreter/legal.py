"""Whether a choice is allowed: the right player, the right phase, targets that pass the
filter, limits not exhausted. A choice the rules forbid is reported with the rule that
forbids it, never silently applied or dropped."""

from __future__ import annotations

from collections.abc import Iterable, Set as AbstractSet
from dataclasses import dataclass, replace

from .. import holes
from ..evaluate import EvalError, Evaluator, State
from ..holes import Hole
from ..model import Ability, Scenario, Team
from ..narrow import present
from ..phases import Phase, matches
from .bind import BoundUse


@dataclass(frozen=True)
class Problem:
    """An illegal choice, or (with `gap`) a choice the rules cannot decide."""

    message: str
    rules: tuple[str, ...] = ()
    gap: Hole | None = None

    @property
    def hole(self) -> bool:
        return self.gap is not None


def team_of(scenario: Scenario, ability: Ability) -> Team | None:
    return scenario.team_of(ability)


def ability_of(scenario: Scenario, use: BoundUse) -> Ability:
    """The ability of a use that is not the day's vote."""
    return scenario.ability_by_key[present(use.ability, "the ability of a use (not a vote)")]


def acting_team(scenario: Scenario, ability: Ability) -> Team:
    """The team of an ability `by team T` or `for team T`: resolve refuses an unknown team."""
    return present(team_of(scenario, ability), f"the team of '{ability.display}'")


def phase_choices(uses: Iterable[BoundUse]) -> frozenset:
    """What legality conditions read as `chosen(p, A)`: whom each use of the phase names,
    whether or not it later takes effect."""
    return frozenset(("chosen", t, u.ability) for u in uses if u.ability for t in u.targets)


def team_members(scenario: Scenario, state: State, team: Team, choices: frozenset) -> list[int]:
    """The team's members this phase: by side or role, less those its `except` takes out
    (read on the state at the start of the phase and the phase's choices)."""
    seats = listed_members(state, team)
    if team.except_when is None:
        return seats
    ev = Evaluator(scenario, replace(state, events=choices))
    var = present(team.except_var, "the variable of a team's `except`")
    return [i for i in seats if not ev.value(team.except_when, {var: i})]


def listed_members(state: State, team: Team) -> list[int]:
    """The seats the team's `members` names, its `except` aside."""
    return [i for i in range(len(state.roles))
            if (team.members_side and state.sides[i] == team.members_side)
            or state.roles[i] in team.members]


def team_decider(scenario: Scenario, state: State, team: Team, choices: frozenset
                 ) -> tuple[int | None, list[int]]:
    """(who decides for the team, who else may): the first living leader, else any living
    member when the spec says `then any`; (None, []) when the rules name nobody. `choices`:
    the phase's choices (`phase_choices`), which a team's `except` may read."""
    living = [i for i in team_members(scenario, state, team, choices) if state.alive[i]]
    for leader in team.leaders:
        for seat in living:
            if state.roles[seat] == leader:
                return seat, [seat]
    if not team.leaders or team.leader_fallback:
        return (living[0] if living else None), living
    return None, []


def actor_roles(ability: Ability) -> tuple[str, ...]:
    if ability.actor is None or ability.actor.kind != "role":
        return ()
    return tuple(n.key for n in (ability.actor.roles
                                 or (present(ability.actor.name, "the role of `by ROLE`"),)))


def pending_for(state: State, ability: str, seat: int | None, phase: Phase) -> bool:
    return any(a == ability and s == seat and k == phase.kind for a, s, k in state.pending)


def default_actor(scenario: Scenario, state: State, ability: Ability, phase: Phase,
                  drawn: AbstractSet[int], choices: frozenset) -> tuple[int | None, Problem | None]:
    """The acting player when a query does not say `by`."""
    actor = ability.actor
    if actor is None or actor.kind == "moderator":
        if ability.is_card:
            if len(drawn) == 1:
                return next(iter(drawn)), None
            return None, Problem(f"say who plays the card '{ability.display}' (`by …`)")
        return None, None
    if actor.kind == "team":
        team = acting_team(scenario, ability)
        seat, _ = team_decider(scenario, state, team, choices)
        if seat is None:
            return None, _leaderless(scenario, state, team, choices)
        return seat, None
    if actor.kind == "holder":
        item_name = present(actor.name, "the item of `by holder of ITEM`")
        holders = sorted(s for (item, s) in state.items if item == item_name.key)
        if len(holders) == 1:
            return holders[0], None
        return None, Problem(f"say which holder of {item_name.text} uses '{ability.display}' (`by …`)")
    roles = actor_roles(ability)
    # `on revived immediately`: a holder who has left may be brought back, and act, this phase
    returns = any(t.event.key == "revived" and t.timing == "immediately" for t in ability.triggers)
    candidates = [i for i in range(len(state.roles)) if state.roles[i] in roles
                  and (state.alive[i] or pending_for(state, ability.key, i, phase) or returns)]
    if len(candidates) == 1:
        return candidates[0], None
    if not candidates:
        return None, Problem(f"nobody who can use '{ability.display}' is in play")
    return None, Problem(f"say which player uses '{ability.display}' (`by …`)")


def check(scenario: Scenario, state: State, phase: Phase, moment: str | None, use: BoundUse,
          phase_uses: list[BoundUse], triggered_now: bool = False, drawn: frozenset = frozenset()
          ) -> list[Problem]:
    """Everything wrong with one use, judged on the state at the start of the phase."""
    ability = ability_of(scenario, use)
    pending = pending_for(state, ability.key, use.actor, phase)
    out = _when(ability, phase, moment, use, pending, triggered_now, drawn)
    if out and not ability.is_card:
        return out  # not its phase: nothing else about it matters
    # Legality conditions may read the phase's other choices (`chosen(p, A)`): whom each use
    # of the phase names, whether or not it later takes effect.
    choices = phase_choices(phase_uses)
    out += _who(scenario, state, ability, use, pending, triggered_now, choices)
    ev = Evaluator(scenario, replace(state, events=choices))
    env = {"actor": use.actor, "targets": frozenset(use.targets),
           "target": use.targets[0] if use.targets else None}
    out += _values(scenario, ability, use, env)
    targets, undefined = _targets(scenario, state, ability, use, ev, env)
    if undefined:
        return out + targets
    out += targets
    out += _conditions(ability, ev, env)
    out += _limits(scenario, state, phase, ability, use, phase_uses)
    return out


def _when(ability: Ability, phase: Phase, moment: str | None, use: BoundUse, pending: bool,
          triggered_now: bool, drawn: frozenset) -> list[Problem]:
    """Used in its phase, on its trigger, pending from an earlier one, or (a card) by its drawer."""
    name = ability.display
    if ability.is_card:
        if use.actor not in drawn:
            return [Problem(f"'{name}' is a card: only the player who drew it plays it")]
        return []
    immediate = any(t.timing == "immediately" for t in ability.triggers)
    if any(matches(ref, phase, moment) for ref in ability.phases) or pending or (immediate and triggered_now):
        return []
    when = ", ".join(f"{r.phase.text}" + (f" {r.exact}" if r.exact is not None else "")
                     + (f" from {r.start}" if r.start is not None else "")
                     + (f" {r.moment} vote" if r.moment else "") for r in ability.phases)
    if ability.triggers and not when:
        return [Problem(f"'{name}' is used only when its trigger happens", ability.cites_of("on"))]
    return [Problem(f"'{name}' is not used at {phase}: it is used at {when}", ability.cites_of("at"))]


def _who(scenario: Scenario, state: State, ability: Ability, use: BoundUse, pending: bool,
         triggered_now: bool, choices: frozenset) -> list[Problem]:
    """The acting player may use it: his role, the team's decider, the item's holder; alive."""
    out: list[Problem] = []
    name = ability.display
    actor = ability.actor
    if use.actor is not None:
        who = seat_name(scenario, state, use.actor)
        if actor is not None and actor.kind == "role":
            if state.roles[use.actor] not in actor_roles(ability):
                out.append(Problem(f"{who} cannot use '{name}'", ability.cites_of("by")))
        elif actor is not None and actor.kind == "team":
            team = acting_team(scenario, ability)
            decider, allowed = team_decider(scenario, state, team, choices)
            if decider is None:
                out.append(_leaderless(scenario, state, team, choices))
            elif use.actor not in allowed and use.actor in listed_members(state, team) \
                    and use.actor not in team_members(scenario, state, team, choices):
                out.append(Problem(f"{who} is out of team {team.key} this phase (its `except`)",
                                   team.except_cites + tuple(r.id for r in team.cites)))
            elif use.actor not in allowed:
                out.append(Problem(f"{who} does not decide for team {team.key}",
                                   team.leader_cites + tuple(r.id for r in team.cites)))
        elif actor is not None and actor.kind == "holder":
            item_name = present(actor.name, "the item of `by holder of ITEM`")
            if (item_name.key, use.actor) not in state.items:
                out.append(Problem(f"{who} holds no {item_name.text}", ability.cites_of("by")))
        # A last-move card is played by the player who drew it, who has usually left by then.
        if not state.alive[use.actor] and not pending and not triggered_now and not ability.is_card:
            out.append(Problem(f"{who} has left the game", ability.cites_of("by")))
    if ability.for_team and use.actor is not None:
        team = acting_team(scenario, ability)
        if use.actor not in team_members(scenario, state, team, choices):
            out.append(Problem(f"{seat_name(scenario, state, use.actor)} is not in team {team.key}"))
    return out


def _values(scenario: Scenario, ability: Ability, use: BoundUse, env: dict) -> list[Problem]:
    """Each value named is one of the choice's kind; env gains them."""
    out = []
    values = use.value_map()
    for choice in ability.choices:
        value = values.get(choice.binds.key)
        if value is None:
            continue
        valid = {"role": set(scenario.role_by_key), "side": set(scenario.side_by_key),
                 "option": {n.key for n in choice.names}}.get(choice.kind)
        if choice.kind == "variant":
            item = next(i for i in scenario.items if i.name.key == choice.names[0].key)
            valid = {v.key for v, _ in item.variants}
        if valid is not None and value not in valid:
            out.append(Problem(f"'{value}' is not a {choice.kind} '{ability.display}' can name"))
        env[choice.binds.key] = value
    return out


def _targets(scenario: Scenario, state: State, ability: Ability, use: BoundUse, ev: Evaluator,
             env: dict) -> tuple[list[Problem], bool]:
    """(what is wrong with the targets, whether the rules give no number of them)."""
    out = []
    name = ability.display
    if ability.target_count is None:
        return ([Problem(f"'{name}' takes no target")] if use.targets else []), False
    try:
        count = ev.value(ability.target_count, env)
    except EvalError as exc:
        hole = holes.no_row(ability.display, ability.key, case=f"the number of its targets: {exc}")
        return [Problem(str(hole), ability.cites_of("targets"), hole)], True
    cites = ability.cites_of("targets") + ability.cites_of("target") + ability.cites_of("targets_up_to")
    if ability.target_up_to and not 1 <= len(use.targets) <= count:
        out.append(Problem(f"'{name}' takes 1 to {count} target{'s' if count != 1 else ''} "
                           f"here, not {len(use.targets)}", cites))
    elif not ability.target_up_to and len(use.targets) != count:
        out.append(Problem(f"'{name}' takes {count} target{'s' if count != 1 else ''} here, "
                           f"not {len(use.targets)}", cites))
    if len(set(use.targets)) != len(use.targets):
        out.append(Problem(f"'{name}' names the same player twice"))
    if ability.target_filter is not None:
        for t in use.targets:
            if not ev.value(ability.target_filter, {**env, "target": t}):
                out.append(Problem(f"{seat_name(scenario, state, t)} cannot be chosen for '{name}'",
                                   ability.cites_of("target") + ability.cites_of("targets")))
    return out, False


def _conditions(ability: Ability, ev: Evaluator, env: dict) -> list[Problem]:
    out = []
    for cond in ability.conditions:
        try:
            holds = ev.value(cond, env)
        except EvalError as exc:
            hole = holes.no_row(ability.display, ability.key, case=f"whether it may be used: {exc}")
            out.append(Problem(str(hole), gap=hole))
            continue
        if not holds:
            out.append(Problem(f"the condition of '{ability.display}' does not hold",
                               ability.cites_of("when", lambda c, cond=cond: c.cond is cond)))
    return out


def _limits(scenario: Scenario, state: State, phase: Phase, ability: Ability, use: BoundUse,
            phase_uses: list[BoundUse]) -> list[Problem]:
    """Its limits, the uses of the phase it is one of (a card's one player, a team's one action)."""
    out = []
    name = ability.display
    key = use_key(ability, use)
    this_phase = [u for u in phase_uses if u.ability == ability.key and use_key(ability, u) == key]
    for limit in ability.limits:
        cites = ability.cites_of("limit", lambda c, limit=limit: c.limit is limit)
        if limit.kind == "no_repeat":
            last = state.last_targets.get(key)
            if last and last[0] == previous_index(phase, state) and set(last[1]) & set(use.targets):
                out.append(Problem(f"'{name}' cannot choose the same player on consecutive "
                                   f"{phase.kind}s", cites))
            continue
        most = present(limit.count, "the count of a `N per PERIOD` limit")
        period = present(limit.per, "the period of a `N per PERIOD` limit")
        if limit.on_self:
            if use.actor in use.targets:
                done = state.self_uses.get(key, 0)
                if done - state.uses_open.get(("self",) + key, 0) < most <= done:
                    out.append(_open_limit(ability, cites))
                elif done >= most:
                    out.append(Problem(f"'{name}' has already been used on oneself {done} "
                                       f"time{'s' if done != 1 else ''} (limit {most})", cites))
            continue
        if period.key == "game":
            done = state.uses.get(key, 0)
            if done - state.uses_open.get(key, 0) < most <= done:
                out.append(_open_limit(ability, cites))
            elif done >= most:
                out.append(Problem(f"'{name}' has been used {done} time{'s' if done != 1 else ''} "
                                   f"this game (limit {most})", cites))
        elif this_phase.index(use) >= most:
            out.append(Problem(f"'{name}' is limited to {most} use"
                               f"{'s' if most != 1 else ''} per {period.text}", cites))
    has_phase_limit = any(lim.kind == "count" and not lim.on_self and lim.per is not None
                          and lim.per.key != "game"
                          for lim in ability.limits)
    if not has_phase_limit and this_phase.index(use) >= 1:
        out.append(Problem(f"'{name}' is used twice by the same player in one phase"))
    if ability.is_card:
        # A card is one object: whoever drew it, one player plays it in a phase.
        same_card = [u for u in phase_uses if u.ability == ability.key]
        if same_card.index(use) >= 1:
            out.append(Problem(f"'{name}' is one card: only one player plays it in a phase"))
    team = team_of(scenario, ability)
    if team is not None and team.options and ability.key in team.options:
        team_uses = [u for u in phase_uses if u.ability in team.options]
        if team_uses.index(use) >= 1:
            options = ", ".join(scenario.ability_by_key[o].display for o in team.options)
            out.append(Problem(f"team {team.key} uses only one of {options} per {team.per}",
                               team.option_cites + tuple(r.id for r in team.cites)))
    return out


def _open_limit(ability: Ability, cites: tuple[str, ...]) -> Problem:
    """A use that is within its limit only if the blocked uses before it do not count (only an
    ability whose `blocked uses unspecified "why"` says why has such uses)."""
    why = present(ability.blocked_why, "the why of `blocked uses unspecified`")
    hole = holes.open_limit(ability.display, why, ability.key)
    return Problem(hole.message, tuple(dict.fromkeys(tuple(cites) + ability.cites_of("blocked"))), hole)


def _leaderless(scenario: Scenario, state: State, team: Team, choices: frozenset) -> Problem:
    """Why nobody decides for the team: nobody is in it (every member left, or out by its
    `except`), and nobody can act for it; or its leaders have left and the rules name no
    one else, a hole."""
    if not any(state.alive[i] for i in team_members(scenario, state, team, choices)):
        return Problem(f"nobody is in team {team.key} to act this phase",
                       team.except_cites + tuple(r.id for r in team.cites))
    hole = holes.leaderless(team.key)
    return Problem(hole.message, team.leader_cites + tuple(r.id for r in team.cites), hole)


def use_key(ability: Ability, use: BoundUse) -> tuple[str, int | None]:
    """Whose uses a limit counts: a team's abilities count for the team, others per player."""
    if ability.actor is not None and ability.actor.kind in ("team", "moderator"):
        return (ability.key, -1)
    return (ability.key, use.actor)


def previous_index(phase: Phase, state: State) -> tuple[str, int]:
    """The index of the previous phase of the same kind, stored in `last_targets` as the
    phase kind's count: consecutive nights have consecutive numbers."""
    return (phase.kind, phase.number - 1)


def seat_name(scenario: Scenario, state: State, seat: int | None) -> str:
    if seat is None:
        return "the moderator"
    dealt = state.dealt[seat] if state.dealt else state.roles[seat]
    return f"@{seat + 1} ({scenario.role_by_key[dealt].display})"
