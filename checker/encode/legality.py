"""Choices and their legality in the encoding (as interpreter/legal.py and obligations.py):
the variables of each possible use in a phase, the conditions that make a use legal (its
phase, its player, its targets, values, limits), the obligations of mandatory abilities, a
team's one action and a card's one player, and the day's vote."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import z3

from .. import ast, holes
from ..model import Ability, Team
from ..narrow import actor_roles, effect_name, present
from ..phases import Phase, matches
from ..vocabulary import flat, refers_to
from .phase_vars import NONE, PhaseVars, Use
from .state import SymState
from .vote import tally_legal, tie_rules, tied
from .terms import And, Eq, Events, If, Implies, Not, Or, Seats, Unsupported, View, compare_op, count_of, pick, truth

if TYPE_CHECKING:
    from .unroll import Game

MAX_OBLIGATION_CANDIDATES = 5000  # candidate uses of a mandatory ability, past which it is unsupported


def usable_in(game: Game, a: Ability, phase: Phase, moment: str | None) -> bool:
    for ref in a.phases:
        if matches(ref, phase, moment):
            return True
    for trig in a.triggers:
        if trig.timing == "next" and present(trig.timing_phase, "the phase of a `next` trigger").key == phase.kind \
                and moment in (None, "before"):
            return True
        if trig.timing == "immediately" and moment in (None, "before"):
            return True
    return False


def _choice_range(game: Game, c: ast.Choice) -> tuple[int, int] | None:
    """The values a `choose` can take (or nobody/nothing), as _legal allows them."""
    ids = game.ids
    if c.kind == "variant":
        values = [ids.value("variant", x) for x in ids.variants[c.names[0].key]]
    elif c.kind == "option":
        values = [ids.value("option", nm.key) for nm in c.names]
    elif c.kind == "player":
        values = [game.n - 1]
    elif c.kind in ("role", "side"):
        values = [len(ids.roles) - 1 if c.kind == "role" else len(ids.sides) - 1]
    else:
        return None
    return (min(values + [NONE]), max(values))


def _unranged(game: Game, name: str) -> z3.ArithRef:
    game.unranged.append(name)
    return game.int_var(name)


def use_vars(game: Game, t: int | str, a: Ability, key: int, moment: str | None, S: SymState,
             phase: Phase | None) -> Use:
    # An ability of both moments of a day has a use at each: the one after the vote needs
    # names of its own (one name is one variable: used at both moments or at neither). The
    # others keep theirs, and with them the solver's models, which witnesses are read from.
    both = moment == "after" and phase is not None and usable_in(game, a, phase, "before")
    p = f"t{t}_{a.key}_{key}_" + ("after_" if both else "")
    used = game.bool_var(p + "used")
    actor: z3.ArithRef | int | None = None
    if a.actor is not None and a.actor.kind == "team":
        actor = game.ranged(p + "actor", NONE, game.n - 1)
    elif key != NONE:
        actor = key
    most = max_targets(a)
    targets = [game.ranged(p + f"tgt{j}", NONE, game.n - 1) for j in range(most)]
    count = game.ranged(p + "count", 0, most) if a.target_count is not None else None
    values = {}
    for c in a.choices:
        span = _choice_range(game, c)
        name = p + f"val_{c.binds.key}"
        values[c.binds.key] = game.ranged(name, *span) if span else _unranged(game, name)
    return Use(a, key, used, actor, targets, count, values, moment)

# -------------------------------------------------------------- legality


def _team(game: Game, a: Ability) -> Team | None:
    key = a.for_team or (present(a.actor.name, "a team actor's name").key if a.actor and a.actor.kind == "team" else None)
    return next((t for t in game.sc.teams if t.key == key), None)


def _member(game: Game, team: Team, pv: PhaseVars, S: SymState, s: int) -> z3.BoolRef:
    """Seat s is in the team this phase, as legal.team_members: by side or role, less those
    the team's `except` takes out, read on S and the phase's choices."""
    memo = _memo_of(pv.member_memo, team.key, S)
    if s not in memo:
        ids = game.ids
        conds = []
        if team.members_side:
            conds.append(Eq(S.sides[s], ids.sides.index(team.members_side)))
        for r in team.members:
            conds.append(Eq(S.roles[s], ids.roles.index(r)))
        member = Or(conds) if conds else game.B(False)
        if team.except_when is not None:
            var = present(team.except_var, "the variable of a team's `except`")
            view = View(game, S, _choice_events(game, pv), {var: game.I(s), "__holes": []})
            member = And(member, Not(game.compiler.value(team.except_when, view)))
        memo[s] = member
    return memo[s]


def _memo_of(store: dict, key: str, S: SymState) -> dict:
    """The memo kept in `store` under `key` for terms read on state S: a phase reads more than
    one state (before and after the day's vote), and a memo holds for one of them only."""
    state, memo = store.get(key, (None, {}))
    if state is not S:
        memo = {}
        store[key] = (S, memo)
    return memo


def _decider(game: Game, team: Team, pv: PhaseVars, S: SymState
             ) -> tuple[z3.BoolRef, Callable[[int], z3.BoolRef]]:
    """(decider exists, allowed(seat)) for a team, as in legal.team_decider."""
    ids = game.ids
    living = [And(_member(game, team, pv, S, s), S.alive[s]) for s in range(game.n)]
    leader_alive = []
    allowed_by_leader = []
    for leader in team.leaders:
        rid = ids.roles.index(leader)
        has = [And(living[s], Eq(S.roles[s], rid)) for s in range(game.n)]
        leader_alive.append(Or(has))
        # The lowest seat with this leader's role, when no earlier leader is alive.
        first = [And(has[s], *[Not(has[j]) for j in range(s)]) for s in range(game.n)]
        allowed_by_leader.append(first)
    any_leader = Or(leader_alive) if leader_alive else game.B(False)
    fallback = not team.leaders or team.leader_fallback
    exists = Or(any_leader, Or(living)) if fallback else any_leader

    def allowed(seat_index: int) -> z3.BoolRef:
        options = []
        for i, first in enumerate(allowed_by_leader):
            earlier = [Not(x) for x in leader_alive[:i]]
            options.append(And(*earlier, leader_alive[i], first[seat_index]))
        if fallback:
            options.append(And(Not(any_leader), living[seat_index]))
        return Or(options) if options else game.B(False)
    return exists, allowed


def legal(game: Game, u: Use, pv: PhaseVars, S: SymState, phase: Phase, view0: View) -> None:
    conds, table_gaps, open_limits = _legality(game, u, pv, S, phase)
    for hole in table_gaps:
        pv.undefined.append((And(u.used, hole), holes.no_row(u.ability.display, u.ability.key)))
    for cond, why in open_limits:
        pv.undefined.append((And(pv.active, u.used, cond), why))
    game.add(Implies(u.used, And(conds)))
    if u.ability.mandatory and not owed_on_trigger(u.ability, phase):
        _obligation(game, u, pv, S, phase)


def owed_on_trigger(a: Ability, phase: Phase) -> bool:
    """As obligations.on_trigger_only: a mandatory ability that comes into the phase only by
    triggers acting at once is owed where a trigger happens (trigger_obligations)."""
    if a.is_card or any(r.phase.key == phase.kind for r in a.phases) or not a.triggers:
        return False
    return all(t.timing == "immediately" for t in a.triggers)


def trigger_obligations(game: Game, pv: PhaseVars, S: SymState, phase: Phase) -> None:
    """As obligations.unmet_on_trigger: where the trigger of such a use happened in the phase
    (pv.happened, filled by the passes), the use must be made if some use would be legal."""
    for u in pv.uses:
        if not u.ability.mandatory or not owed_on_trigger(u.ability, phase) or id(u) not in pv.happened:
            continue
        if truth(pv.happened[id(u)]) is False:
            continue
        legal = _some_use_legal(game, u, u.actor, pv, S, phase)
        game.add(Implies(And(pv.active, pv.happened[id(u)], legal), u.used))


def _obligation(game: Game, u: Use, pv: PhaseVars, S: SymState, phase: Phase) -> None:
    """As interpreter/obligations.py: a mandatory use must be made whenever some choice of
    targets and values would be legal (with none legal, the obligation lapses). Each
    candidate use is the legality of the use with constants for its choices, so the
    conditions fold; a team's decider is left to the team's own legality."""
    a = u.ability
    actor = u.actor
    if a.actor is not None and a.actor.kind == "team":
        # The team's decider, as the interpreter's default actor: the first allowed seat.
        _, allowed = _decider(game, present(_team(game, a), "the ability's team"), pv, S)
        actor = game.I(NONE)
        for seat in range(game.n - 1, -1, -1):
            actor = If(allowed(seat), game.I(seat), actor)
    legal = _some_use_legal(game, u, actor, pv, S, phase)
    team = _team(game, a)
    if team is not None and a.key in team.options:
        # A team's one action: any of its options meets the obligation.
        made = Or([x.used for x in pv.uses if x.ability.key in team.options])
    else:
        made = u.used
    game.add(Implies(And(pv.active, legal), made))


def _some_use_legal(game: Game, u: Use, actor: z3.ArithRef | int | None, pv: PhaseVars, S: SymState,
                    phase: Phase) -> z3.BoolRef:
    """Whether some choice of targets and values makes the use legal: the disjunction, over
    every candidate, of _legality's conditions with the candidate's constants. Who may act
    and when does not depend on the choices, so it is built once; a target filter or
    condition that reads neither the other targets nor `targets` is built once per seat and
    values, not once per candidate (a three-target ability has 165 candidates per seat)."""
    a = u.ability
    counts = list(range(1, len(u.targets) + 1)) if a.target_count is not None else [0]
    domains = [_choice_values(game, ch) for ch in a.choices]
    total = sum(math.comb(game.n, k) for k in counts) * math.prod(len(d) for d in domains)
    if total > MAX_OBLIGATION_CANDIDATES:
        raise Unsupported(f"a mandatory ability with more than {MAX_OBLIGATION_CANDIDATES} possible uses", a.span)
    base = _shadow(game, u, actor, (), 0, ())
    who: list = []
    _who_and_when(game, base, pv, S, phase, u, who)
    # The uses of one ability in a phase (one per seat that may hold it) read the same
    # state: what a candidate's conditions make of it is shared, but for what reads the actor.
    memo = _memo_of(pv.candidate_memo, a.key, S)
    options = []
    for count in counts:
        for targets in itertools.combinations(range(game.n), count):
            for values in itertools.product(*domains):
                shadow = _shadow(game, u, actor, targets, count, values)
                conds = _candidate_conditions(game, shadow, pv, S, phase, targets, values, memo)
                options.append(And(conds) if conds else game.B(True))
    return And(*who, Or(options)) if options else game.B(False)


def _shadow(game: Game, u: Use, actor: z3.ArithRef | int | None, targets: tuple, count: int, values: tuple) -> Use:
    """A candidate use standing for u, with constants for its choices (and the environment
    those constants give, built directly rather than folded from terms)."""
    a = u.ability
    most = len(u.targets)
    shadow = Use(a, u.key, game.B(True), actor,
                 [game.I(t) for t in targets] + [game.I(NONE)] * (most - len(targets)),
                 game.I(count) if u.count is not None else None,
                 {ch.binds.key: game.I(v) for ch, v in zip(a.choices, values)}, u.moment)
    env: dict = {"actor": actor if actor is not None else game.I(NONE)}
    if shadow.targets:
        env["target"] = shadow.targets[0]
        env["targets"] = Seats([game.B(s in targets) for s in range(game.n)])
    env.update(shadow.values)
    shadow.env = env
    return shadow


def _candidate_conditions(game: Game, shadow: Use, pv: PhaseVars, S: SymState, phase: Phase,
                          targets: tuple, values: tuple, memo: dict) -> list:
    """_legality's conditions for a candidate, less who and when (see _some_use_legal). Its
    choices are constants in range and its targets distinct, so only the number of targets,
    the filter, the conditions and the limits are left."""
    a = shadow.ability
    c = game.compiler
    env = present(shadow.env, "a candidate's environment")
    actor = env["actor"]
    who = actor if isinstance(actor, int) else actor.get_id()
    gaps: list = []
    view = View(game, S, _choice_events(game, pv), {**env, "__holes": gaps})
    conds: list = []
    if a.target_count is not None:
        key: tuple = ("count", len(targets), values, targets if _reads_targets(a.target_count) else None,
                      who if _reads_actor(a.target_count) else None)
        if key not in memo:
            need = c.value(a.target_count, view)
            gap = Or(gaps) if gaps else game.B(False)
            k = len(targets)
            ok = And(game.B(k >= 1), need >= game.I(k)) if a.target_up_to else need == game.I(k)
            memo[key] = Or(ok, And(gap, game.B(1 <= k <= len(shadow.targets))))
        conds.append(memo[key])
        if a.target_filter is not None:
            alone = not refers_to(a.target_filter, "targets")
            for t in targets:
                key = ("filter", t, values, None if alone else targets,
                       who if _reads_actor(a.target_filter) else None)
                if key not in memo:
                    memo[key] = c.value(a.target_filter, view.with_env(target=game.I(t)))
                conds.append(memo[key])
    for i, cond in enumerate(a.conditions):
        key = ("when", i, values, targets if _reads_targets(cond) else None, who if _reads_actor(cond) else None)
        if key not in memo:
            memo[key] = c.value(cond, view)
        conds.append(memo[key])
    _limit_conditions(game, shadow, S, phase, env, conds, [])
    return conds


def _reads_targets(tree: object) -> bool:
    return refers_to(tree, "targets") or refers_to(tree, "target")


def _reads_actor(tree: object) -> bool:
    return refers_to(tree, "actor")


def _choice_values(game: Game, c: ast.Choice) -> list[int]:
    ids = game.ids
    if c.kind == "variant":
        return [ids.value("variant", x) for x in ids.variants[c.names[0].key]]
    if c.kind == "option":
        return [ids.value("option", nm.key) for nm in c.names]
    if c.kind == "player":
        return list(range(game.n))
    return list(range(len(ids.roles) if c.kind == "role" else len(ids.sides)))


def _legality(game: Game, u: Use, pv: PhaseVars, S: SymState, phase: Phase,
              original: Use | None = None) -> tuple[list, list, list]:
    """(the conditions for u's choices to be legal, the table holes they met, the open
    limits as (condition, why)). `original`: for a candidate use standing in for one of
    the phase's uses (an obligation), the use it stands for, which is not one of the
    others that could trigger it."""
    conds: list = []
    _who_and_when(game, u, pv, S, phase, original, conds)
    env = game.env_of(u)
    table_gaps: list = []
    open_limits: list = []
    view = View(game, S, _choice_events(game, pv), {**env, "__holes": table_gaps})
    _choice_conditions(game, u, conds)
    if u.ability.target_count is not None:
        _target_conditions(game, u, view, table_gaps, conds)
    for cond in u.ability.conditions:
        conds.append(game.compiler.value(cond, view))
    _limit_conditions(game, u, S, phase, env, conds, open_limits)
    return conds, table_gaps, open_limits


def _who_and_when(game: Game, u: Use, pv: PhaseVars, S: SymState, phase: Phase, original: Use | None,
                  conds: list) -> None:
    """The use is made in its phase (or on its trigger, or pending), by a player who may."""
    a = u.ability
    ids = game.ids
    in_phase = any(matches(ref, phase, u.moment if phase.is_day else None) for ref in a.phases)
    if a.is_card:
        # As the interpreter: a card is played by a player holding one, or by today's
        # voted player (who draws it at the vote; the resolution checks the draw).
        voted_today = And(pv.vote_kind == 1, pv.vote_target == u.key) \
            if pv.vote_kind is not None else game.B(False)
        in_phase = True
        conds.append(Or(S.drawn[u.key], voted_today))
    immediate = [t for t in a.triggers if t.timing == "immediately"]
    trigger_ok = _trigger_possible(game, original or u, pv, immediate) if immediate else game.B(False)
    pend = S.pending.get((a.key, u.key, phase.kind), game.B(False)) if u.key != NONE else game.B(False)
    conds.append(Or(game.B(in_phase), pend, trigger_ok))
    if a.actor is not None and a.actor.kind == "role":
        roles = [ids.roles.index(r.key) for r in actor_roles(a.actor)]
        conds.append(Or([Eq(S.roles[u.key], r) for r in roles]))
        conds.append(Or(S.alive[u.key], pend, trigger_ok))
    elif a.actor is not None and a.actor.kind == "team":
        _team_decides(game, u, pv, S, original, conds)
    elif a.actor is not None and a.actor.kind == "holder":
        conds.append(compare_op(">=", S.items[(present(a.actor.name, "the item of `by holder`").key, u.key)], 0))
        conds.append(S.alive[u.key])
    if a.for_team and u.key != NONE:
        conds.append(_member(game, present(_team(game, a), "the ability's team"), pv, S, u.key))


def _team_decides(game: Game, u: Use, pv: PhaseVars, S: SymState, original: Use | None, conds: list) -> None:
    """A team's use is decided by its decider (legal.team_decider)."""
    n = game.n
    team = present(_team(game, u.ability), "the ability's team")
    exists, allowed = _decider(game, team, pv, S)
    actor = present(u.actor, "a team use's actor")
    conds.append(And(actor >= 0, actor < n))
    if team.leaders and not team.leader_fallback and original is None:
        # As legal.check: with every leader gone and no fallback, the rules name nobody to
        # decide; a use named by a living member is a hole, and takes no part in the phase.
        living = [And(_member(game, team, pv, S, s), S.alive[s]) for s in range(n)]
        conds.append(Or([And(u.actor == s, Or(allowed(s), And(Not(exists), living[s]))) for s in range(n)]))
        u.void = Not(exists)
        pv.undefined.append((And(pv.active, u.used, u.void), holes.leaderless(team.key)))
    else:
        conds.append(exists)
        conds.append(Or([And(u.actor == s, allowed(s)) for s in range(n)]))


def _choice_conditions(game: Game, u: Use, conds: list) -> None:
    """Each `choose` names a value of its kind."""
    ids, n = game.ids, game.n
    for choice in u.ability.choices:
        v = u.values[choice.binds.key]
        size = {"role": len(ids.roles), "side": len(ids.sides)}.get(choice.kind)
        if choice.kind == "variant":
            allowed = [ids.value("variant", x) for x in ids.variants[choice.names[0].key]]
            conds.append(Or([v == x for x in allowed]))
        elif choice.kind == "option":
            conds.append(Or([v == ids.value("option", nm.key) for nm in choice.names]))
        elif choice.kind == "player":
            conds.append(And(v >= 0, v < n))
        else:
            conds.append(And(v >= 0, v < size))


def _target_conditions(game: Game, u: Use, view: View, table_gaps: list, conds: list) -> None:
    """The number of targets the ability takes here, distinct players, each passing the filter."""
    a = u.ability
    c = game.compiler
    before = len(table_gaps)
    count = c.value(a.target_count, view)
    gap = Or(table_gaps[before:]) if len(table_gaps) > before else game.B(False)
    most = len(u.targets)
    chosen_count = present(u.count, "how many targets a use chooses")
    if a.target_up_to:
        ok = And(chosen_count >= 1, chosen_count <= count)
    else:
        ok = chosen_count == count
    # A table with no row for this case: the rules give no number (a hole, as in the
    # interpreter, which then takes the choice as given).
    conds.append(Or(ok, And(gap, chosen_count >= 1, chosen_count <= most)))
    for j, tj in enumerate(u.targets):
        chosen = j < chosen_count
        conds.append(Implies(chosen, And(tj >= 0, tj < game.n)))
        conds.append(Implies(Not(chosen), tj == NONE))
        for i in range(j):
            conds.append(Implies(chosen, tj != u.targets[i]))
        if a.target_filter is not None:
            ok = c.value(a.target_filter, view.with_env(target=tj))
            conds.append(Implies(chosen, ok))


def _limit_conditions(game: Game, u: Use, S: SymState, phase: Phase, env: dict, conds: list,
                      open_limits: list) -> None:
    """The limits: no repeat, uses on oneself and per game (with blocked uses as the spec says)."""
    a = u.ability
    n = game.n
    ukey = (a.key, u.key)
    targets_set = env.get("targets")
    for lim in a.limits:
        if lim.kind == "no_repeat":
            last = S.last_targets.get((a.key, u.key, phase.kind))
            if last is not None and targets_set is not None:
                conds.append(Not(Or([And(last[s], targets_set.member[s]) for s in range(n)])))
            continue
        open_ = a.blocked_uses == "open"
        why = holes.open_limit(a.display, present(a.blocked_why, "why blocked uses are open"), a.key) if open_ else None
        if lim.on_self:
            if targets_set is not None and u.actor is not None:
                on_self = targets_set.contains(u.actor)
                done = S.self_uses[ukey]
                if open_:
                    conds.append(Implies(on_self, done - S.uses_open[("self",) + ukey] < lim.count))
                    open_limits.append((And(on_self, done >= lim.count), why))
                else:
                    conds.append(Implies(on_self, done < lim.count))
            continue
        if present(lim.per, "a limit's period").key == "game":
            if open_:
                conds.append(S.uses[ukey] - S.uses_open[ukey] < lim.count)
                open_limits.append((S.uses[ukey] >= lim.count, why))
            else:
                conds.append(S.uses[ukey] < lim.count)


def _choice_events(game: Game, pv: PhaseVars) -> Events:
    """What legality conditions see: `chosen(p, A)`, whom the phase's uses of A name."""
    if pv.choice_events is None:
        pv.choice_events = Events(game.ctx)
        if _reads_choices(game, ):
            for v in pv.uses:
                targets = game.env_of(v).get("targets")
                if targets is not None:
                    for s in range(game.n):
                        pv.choice_events.add(("chosen", s, v.ability.key),
                                             And(v.used, targets.member[s]))
    return pv.choice_events


def _reads_choices(game: Game) -> bool:
    return game.sc.reads_choices


def _trigger_possible(game: Game, u: Use, pv: PhaseVars, triggers: list[ast.Trigger]) -> z3.BoolRef:
    """As play._can_trigger_now: another use that can attack this user (or, for
    `on leave`, anything that can remove someone)."""
    options = []
    for t in triggers:
        kinds = {n.key for n in t.by}
        for other in pv.uses:
            if other is u:
                continue
            if t.event.key == "targeted" and u.key != NONE and other.targets \
                    and (not kinds or other.ability.key in kinds):
                options.append(And(other.used, game.env_of(other)["targets"].member[u.key]))
            if t.event.key == "revived" and any(e.verb == "revive" for e in flat(other.ability.effects)):
                options.append(other.used)
            hits = any(e.verb == "kill" and (not kinds or effect_name(e).key in kinds) for e in flat(other.ability.effects))
            if not hits:
                continue
            if t.event.key == "kill" and u.key != NONE:
                options.append(And(other.used, Or([And(j < present(other.count, "how many targets a use chooses"), tj == u.key)
                                                         for j, tj in enumerate(other.targets)])))
            if t.event.key == "leave":
                options.append(other.used)
        # The day's vote on this user: it can remove him (`on leave`, by vote or any
        # means), and it is the event of `on voted`.
        if pv.vote_kind is not None and u.key != NONE and (
                t.event.key == "voted" or (t.event.key == "leave" and (not kinds or "vote" in kinds))):
            options.append(And(pv.vote_kind == 1, pv.vote_target == u.key))
            # As Player._can_trigger_now: a tie can remove any of the tied (`on leave`), and
            # votes them out under a tie rule that sends someone out (`on voted`); the use
            # lapses where the tie sends out another.
            rule = present(game.sc.day, "the day").tie_rule
            if t.event.key == "leave" or (rule is not None and rule.may_remove):
                options.append(tied(pv, u.key))
        # As Player._can_trigger_now: a user whose link carries an exit can leave by any vote
        # exit (he follows the player voted out).
        if pv.vote_kind is not None and u.key != NONE and t.event.key == "leave" and pv.link_kind:
            kind = pv.link_kind[u.key]
            carried = Or([Eq(kind, game.I(game.ids.value("kind", k))) for k in kinds]) if kinds \
                else Not(Eq(kind, game.I(NONE)))
            if truth(carried) is not False:
                sends_out = Or(pv.vote_kind == 1, And(pv.vote_kind == 2, game.B(
                    present(game.sc.day, "the day").tie in ("random", "all_leave"))))
                options.append(And(carried, sends_out))
    return Or(options) if options else game.B(False)


def card_once(game: Game, pv: PhaseVars) -> None:
    """As legal.check: a card is one object, played by one player in a phase."""
    for a in game.sc.abilities:
        if a.is_card:
            flags = [u.used for u in pv.uses if u.ability.key == a.key]
            if len(flags) > 1:
                game.add(compare_op("<=", count_of(flags, game.ctx), 1))


def once_a_day(game: Game, pv: PhaseVars) -> None:
    """As legal.check: a player uses an ability once in a phase (the encoding refuses a limit
    of more per phase), so an ability of both moments of a day is used at one of them."""
    by_key: dict[tuple[str, int], list] = {}
    for u in pv.uses:
        by_key.setdefault((u.ability.key, u.key), []).append(u.used)
    for flags in by_key.values():
        if len(flags) > 1:
            game.add(compare_op("<=", count_of(flags, game.ctx), 1))


def team_once(game: Game, pv: PhaseVars) -> None:
    for team in game.sc.teams:
        if not team.options:
            continue
        flags = [u.used for u in pv.uses if u.ability.key in team.options]
        if len(flags) > 1:
            game.add(compare_op("<=", count_of(flags, game.ctx), 1))


def vote_legal(game: Game, pv: PhaseVars, S: SymState, phase: Phase, view0: View) -> None:
    """Who may be voted out or tied, and what a tie does. The fixed tie rules are stated as
    plain terms; a tie broken by a player or revoted is stated by vote.tie_rules."""
    day = present(game.sc.day, "the day")
    k, x = present(pv.vote_kind, "the vote's kind"), present(pv.vote_target, "the player voted out")
    a, b = pv.tie
    dynamic = day.tie in ("chosen", "revote")
    tie_open = not dynamic and day.tie not in ("no_exit", "random", "all_leave")
    game.add(Or(k == 0, k == 1, k == 2))
    game.add(Implies(Not(pv.active), k == 0))
    if day.exit_mode == "required":
        game.add(Implies(pv.active, k != 0))  # a day after the game has ended is not played
        if day.tie == "no_exit":
            # As the interpreter: a tie that removes nobody is a day with no exit.
            game.add(Implies(pv.active, k != 2))
    game.add(Implies(k == 1, And(x >= 0, x < game.n, pick(x, S.alive))))
    if dynamic:
        tie_rules(game, pv, S)
    elif day.tie == "random":
        game.add(Implies(k == 2, Or(x == a, x == b)))  # the tied player drawn
        game.add(Implies(And(k != 1, k != 2), x == NONE))
    else:
        game.add(Implies(k != 1, x == NONE))
    game.add(Implies(k == 2, And(a >= 0, a < b, b < game.n, pick(a, S.alive), pick(b, S.alive))))
    for on_day, flt in day.candidates:
        if on_day is not None and on_day != phase.number:
            continue
        for who, kinds in ((x, (1,)), (a, (2,)), (b, (2,))):
            ok = game.compiler.value(flt, View(game, S, Events(game.ctx), {"candidate": who, "__holes": []}))
            game.add(Implies(Or([k == kd for kd in kinds]), ok))
    if pv.ballots is not None:
        tally_legal(game, pv, S)
    if k is not None and tie_open:
        pv.undefined.append((And(pv.active, k == 2), holes.open_tie()))

# -------------------------------------------------------------- resolution


def max_targets(a: Ability) -> int:
    """The most targets an ability can take: its number, or the largest in its table."""
    def bound(e: ast.Expr) -> int:
        if isinstance(e, ast.Num):
            return e.value
        if isinstance(e, ast.Cases):
            return max(bound(arm.value) for arm in e.arms)
        if isinstance(e, ast.ByTable):
            return max(bound(c.value) for c in e.cases)
        raise Unsupported("a number of targets that is not a number or a table", e.span)
    return bound(a.target_count) if a.target_count is not None else 0
