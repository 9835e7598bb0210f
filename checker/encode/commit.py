"""The state after a resolution (as Resolver.commit): exits and the triggers they set for a
later phase, the side effects of the exit rules that applied, the acting steps' changes of
state, the delayed effects they schedule, then the rules that change the state without
deciding exits (they act once, after the deaths)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import z3

from .. import ast, holes
from ..model import Ability
from ..narrow import actor_roles, effect_name, effect_text, plain_effect, present
from ..vocabulary import STATE_WRITES
from .phase_vars import NONE, Use
from .passes import Pass
from .rule_pass import settle
from .state import SymState
from .terms import And, Eq, If, Not, Or, Unsupported, View, truth

if TYPE_CHECKING:
    from .unroll import Game



def commit(p: Pass, leave: list, kind_of: list, rule_hits: list) -> SymState:
    game, pv, S, n = p.game, p.pv, p.S, p.n
    st = S.copy()
    st.alive = [And(S.alive[s], Not(leave[s])) for s in range(n)]
    st.left_by = [If(leave[s], kind_of[s], S.left_by[s]) for s in range(n)]
    for s in range(n):
        p.event(("left", s), leave[s])
    _exit_triggers(p, st, S, leave, kind_of)
    F = game.B(False)
    for rule, env, _, _ in rule_hits:
        others = [e for e in rule.then if not (isinstance(e, ast.Effect) and e.verb in ("leave", "stay"))]
        if not others:
            continue
        applies, view2 = game.applies(rule, env, st, p.events)
        # Each binding acts once a phase (as Resolver.commit: the rules that applied).
        key = (rule.name.key, tuple(env[v.key] for v in rule.variables))
        before = pv.rules_fired.get(key, F)
        cond2 = And(applies, Not(before))
        pv.rules_fired[key] = Or(before, applies)
        for x, guard in game.guarded(others, view2):
            e = plain_effect(x)  # exit rules have no `after` (Game._check_supported)
            targets = game.seats_on(e, view2, None, guard)
            for s in range(n):
                on = And(cond2, guard, targets[s])
                if e.verb == "inquire":
                    p.event(("inquire", s), on)
                elif e.verb == "win":
                    if s == 0:  # a declaration, not an effect on a player
                        pv.declare(effect_name(e).key, And(cond2, guard))
                else:
                    write(game, st, e, s, on, view2, rule, None)
    for e, s, on, view, a, u in p.intents.writes:
        write(game, st, e, s, on, view, a, u)
    _exit_triggers(p, st, S, leave, kind_of, revived=True)
    if p.intents.schedules:
        for slot, count, cond, target in p.intents.schedules:
            st.delayed_counts[slot] = If(cond, game.I(count), st.delayed_counts[slot])
            st.delayed_targets[slot] = If(cond, target, st.delayed_targets[slot])
    if p.tag == "n" and game.checks_deaths():
        pv.checkpoint = snapshot(st)  # as Resolver.commit: before the rules after the deaths
    _late_rules(p, st)
    st.defenses = p.intents.defenses
    return st


def _late_rules(p: Pass, st: SymState) -> None:
    """Rules that change the state without deciding exits act after the deaths, until
    nothing changes (rule_pass.settle); a binding's effects act one after another, each
    reading the state the ones before it left."""
    game, pv = p.game, p.pv
    rules = [r for r in game.rules_now(pv.phase, p.tag) if game.sc.rule_stage(r) == "late"]
    schedules: list = []

    def read(rule: ast.RuleDecl) -> Iterator[tuple]:
        return game.bindings(rule, st, p.events)

    def act(rule: ast.RuleDecl, combo: tuple, env: dict, now: z3.BoolRef, view: View) -> None:
        for e, guard in game.guarded(rule.then, view):
            on = And(now, guard)
            if isinstance(e, ast.AfterEffect):
                schedules.append(((rule.name.key, game.delayed_index(rule.then, e), combo), e.count, on))
                continue
            if e.verb in ("nothing", "announce", "learn"):
                continue
            if e.verb == "unspecified":
                pv.undefined.append((And(pv.active, on), holes.unspecified(f"rule {rule.name.text}",
                                                                             effect_text(e), rule.name.key)))
                continue
            if e.verb == "win":
                pv.declare(effect_name(e).key, on)
                continue
            if e.verb != "inquire" and e.verb not in STATE_WRITES and e.verb != "draw":
                raise Unsupported(f"the effect `{e.verb}` in a rule that acts after the deaths", e.span)
            seats = [And(on, x) for x in game.seats_on(e, view, None, guard)]
            for s in range(p.n):
                if e.verb == "inquire":  # the later rules, and the later rounds, see it
                    p.event(("inquire", s), seats[s])
                else:
                    write(game, st, e, s, seats[s], view, rule, None)

    settle(p, rules, pv.rules_fired, read, act)
    if schedules:
        for slot, count, cond in schedules:
            st.delayed_counts[slot] = If(cond, game.I(count), st.delayed_counts[slot])


def _exit_triggers(p: Pass, st: SymState, S: SymState, leave: list, kind_of: list, revived: bool = False) -> None:
    """Abilities this pass triggers for a later phase (`on leave by vote next night`, `on voted
    next night`, `on kill next day`, `on targeted next night`, `on revived next night`), as
    Resolver._trigger records them; those triggered `immediately` act in this phase instead."""
    game = p.game
    F = game.B(False)
    for a in game.sc.abilities:
        if a.actor is None or a.actor.kind != "role":
            continue
        roles = [game.ids.roles.index(r.key) for r in actor_roles(a.actor)]
        for trig in a.triggers:
            if trig.timing != "next":
                continue
            named = [nm.key for nm in trig.by]
            later = present(trig.timing_phase, "the phase of a `next` trigger").key
            event = trig.event.key
            if (event == "revived") != revived:
                continue  # a return is known once the changes of state are applied
            for s in game.actor_keys(a):
                if event == "leave":
                    kinds = [game.ids.value("kind", k) for k in named]
                    fires = And(leave[s], Or([Eq(S.roles[s], r) for r in roles]),
                                Or([Eq(kind_of[s], k) for k in kinds]) if kinds else game.B(True))
                    key = (a.key, s, later)
                    st.pending[key] = Or(st.pending[key], fires)
                    continue
                if event == "kill":
                    happened = Or([p.events.get(("kill", s, k), F) for k in (named or game.ids.kinds)])
                elif event == "voted":
                    happened = p.events.get(("voted", s), F) if not named or "vote" in named else F
                elif event == "targeted":
                    happened = Or([p.events.get(("targeted", s, k), F)
                                   for k in (named or sorted(game.sc.ability_by_key))])
                elif event == "revived":
                    happened = And(Not(S.alive[s]), st.alive[s]) if not named else F
                else:
                    continue
                fires = And(happened, Or([Eq(S.roles[s], r) for r in roles]))
                key = (a.key, s, later)
                st.pending[key] = Or(st.pending[key], fires)


def write(game: Game, st: SymState, e: ast.Effect, s: int, cond: z3.BoolRef, view: View,
          source: Ability | ast.RuleDecl | None, u: Use | None) -> None:
    """A change of state on seat s, under cond (as Resolver.apply_to for the state writes)."""
    if truth(cond) is False:
        # Nothing to change, and nothing to build: a rule `for p, g` acts on every seat for
        # each of its n * n bindings, and all but one seat of each are false at once.
        return
    v = e.verb
    ids = game.ids
    if v == "convert":
        if effect_name(e).key not in present(game.roles_of, "the roles a seat can hold")[s]:
            return  # encode/roles.py has shown this convert never reaches seat s
        role = game.sc.role_by_key[effect_name(e).key]
        st.roles[s] = If(cond, game.I(ids.roles.index(role.key)), st.roles[s])
        if role.side is not None:
            st.sides[s] = If(cond, game.I(ids.sides.index(role.side)), st.sides[s])
        for c in role.counters:
            given = st.counter_given.get((s, c.key))
            if given is not None:  # the first conversion gives the counter its initial value
                first = And(cond, Not(given))
                st.counters[s][c.key] = If(first, game.compiler.value(c.initial, view), st.counters[s][c.key])
                st.counter_given[(s, c.key)] = Or(given, cond)
    elif v == "reveal":
        st.revealed[s] = Or(st.revealed[s], cond)
    elif v == "link":
        for q, here, to, kind in link_changes(game, e, s, cond, view, u):
            st.links[q] = If(here, to, st.links[q])
            if st.link_kinds is not None:
                st.link_kinds[q] = If(here, kind, st.link_kinds[q])
    elif v == "revive":
        was_dead = Not(st.alive[s])
        st.alive[s] = Or(st.alive[s], cond)
        st.left_by[s] = If(And(cond, was_dead), game.I(NONE), st.left_by[s])
    elif v == "give":
        if e.names:
            variant = game.I(ids.value("variant", e.names[0].key))
        else:
            choice = next((ch for ch in getattr(source, "choices", ()) if ch.kind == "variant"
                           and ch.names[0].key == effect_name(e).key), None)
            item = next(i for i in game.sc.items if i.name.key == effect_name(e).key)
            if choice is not None and u is not None:
                variant = u.values[choice.binds.key]
            elif not item.variants:  # an item without variants: held, with no variant
                variant = game.I(ids.no_variant)
            else:
                raise Unsupported("`give` of an item with variants, naming none", e.span)
        key = (effect_name(e).key, s)
        st.items[key] = If(cond, variant, st.items[key])
    elif v == "lose":
        key = (effect_name(e).key, s)
        st.items[key] = If(cond, game.I(NONE), st.items[key])
    elif v in ("mark", "unmark"):
        decl = next(m for m in game.sc.memories if m.name.key == effect_name(e).key)
        if decl.type == "players":
            seats = list(st.memories_set[decl.name.key])
            seats[s] = Or(seats[s], cond) if v == "mark" else And(seats[s], Not(cond))
            st.memories_set[decl.name.key] = seats
        else:
            current = st.memories_one[decl.name.key]
            st.memories_one[decl.name.key] = If(cond, game.I(s if v == "mark" else NONE), current)
    elif v == "draw":
        st.drawn[s] = Or(st.drawn[s], cond)
    elif v == "consume":
        ctr = st.counters[s].get(effect_name(e).key)
        if ctr is None:
            return
        st.counters[s][effect_name(e).key] = game.decremented(cond, ctr)
    elif v == "set":
        value = game.compiler.value(e.value, game.compiler.under(view, e.value, cond))
        if effect_name(e).key in st.counters[s]:
            st.counters[s][effect_name(e).key] = If(cond, value, st.counters[s][effect_name(e).key])
        elif effect_name(e).key in st.memories_int:
            st.memories_int[effect_name(e).key] = If(cond, value, st.memories_int[effect_name(e).key])
        elif effect_name(e).key == "side" and not any(m.name.key == "side" for m in game.sc.memories):
            st.sides[s] = If(cond, value, st.sides[s])
        else:
            raise Unsupported("`set` on this memory", e.span)

def link_changes(game: Game, e: ast.Effect, s: int, cond: z3.BoolRef, view: View,
                 u: Use | None) -> list[tuple[int, z3.BoolRef, z3.ArithRef, z3.ArithRef]]:
    """What a `link` on seat s links, as (seat, condition, linked to, kind of exit it carries):
    as the interpreter's link_pairs, the user to s, or (`link together`) s to the next player
    it applies to by seat, the last to the first."""
    kind = game.I(game.ids.value("kind", effect_name(e).key if e.name is not None else None))
    if not e.together:
        if u is None or u.actor is None:
            raise Unsupported("`link` without an acting player", e.span)
        actor = u.actor
        if isinstance(actor, int):
            return [(actor, cond, game.I(s), kind)]
        return [(q, And(cond, actor == q), game.I(s), kind) for q in range(game.n)]
    members = game.seats_on(e, view, u)
    order = list(range(s + 1, game.n)) + list(range(s))
    to = game.I(NONE)
    for t in reversed(order):
        to = If(members[t], game.I(t), to)
    return [(s, And(cond, Or([members[t] for t in order] or [game.B(False)])), to, kind)]


# -------------------------------------------------------------- between phases


def snapshot(st: SymState) -> SymState:
    """A copy of a state that later writes (which replace list items) leave alone."""
    return st.copy()
