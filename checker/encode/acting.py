"""The acting steps (stage 2 of a resolution, as Resolver.resolve after the blocks): every
other step acts together, against the state the phase began with; their attacks, saves and
protections are intentions for the deaths, their changes of state wait for after them."""

from __future__ import annotations

import z3

from .. import ast, holes
from ..narrow import effect_name, effect_text
from ..vocabulary import SHIELDS, STATE_WRITES, has_table
from .phase_vars import NONE, Use
from .blocking import Blocking
from .passes import Pass
from .terms import And, Not, Or, Unsupported, View, pick


# The verbs of an acting step: what the encoding does with each (commit.py applies the state
# writes), and the verbs it does not encode, with the reason an analysis reports.
ACTING = {"kill": "attack", "save": "defence", "protect": "defence", "inquire": "event",
          "leave": "exit", "stay": "exit", "unspecified": "hole", "nothing": "none",
          "announce": "none", "learn": "none", "win": "declared win",
          **{v: "state write" for v in STATE_WRITES}}
UNSUPPORTED = {"cancel": "a cancel outside the blocking steps",
               "block": "a block outside the blocking steps", "unblock": "a block outside the blocking steps",
               "draw": "a card drawn by an ability's effect (rules draw cards)"}


def acting_stage(p: Pass, uses: list, blocking: Blocking, gate: dict) -> None:
    game = p.game
    frozen = p.events.copy()  # what the steps see: no step sees another's effects
    _blocking_intents(p, blocking)
    acting = [u for u in uses if u.ability.key not in blocking.steps]
    acting.sort(key=lambda u: (game.is_triggered_by_kill(u.ability), u.ability.key, u.key))
    for u in acting:
        eff = _takes_effect(p, u, blocking, gate)
        env = game.env_of(u)
        # Tables with no row in its effects' values are holes of the ability, where it acts.
        view = game.table_view(p.S, frozen, {**env, "__guard": eff}, holes.no_row(u.ability.display, u.ability.key))
        p.event(("used", u.ability.key), eff)
        for s in range(p.n):
            if "targets" in env:
                p.event(("targeted", s, u.ability.key), And(eff, env["targets"].member[s]))
        for e, guard in game.guarded(u.ability.effects, view):
            _effect(p, u, e, And(eff, guard), view, env)


def _blocking_intents(p: Pass, blocking: Blocking) -> None:
    """The attacks and saves the blocking steps made, under the order they were made in."""
    F = p.game.B(False)
    for perm_index, e, u, s, on in blocking.intents:
        now = blocking.in_order(perm_index, on)
        if e.verb == "kill":
            p.intents.attacks.append((e.name.key, u.ability.key, s, now))
            if u.actor is not None:
                for q in range(p.n):
                    p.event(("attacked_by", s, q), And(now, u.actor == q) if not isinstance(u.actor, int)
                            else (now if u.actor == q else F))
        else:
            kinds = {nm.key for nm in e.names}
            p.intents.defenses.append((None if (not kinds or "any" in kinds) else kinds, s, now))


def _takes_effect(p: Pass, u: Use, blocking: Blocking, gate: dict) -> z3.BoolRef:
    """When the use takes part: made, not cancelled, its player not blocked, its trigger
    (if it waits for one) fired in this pass, its card drawn."""
    game, pv, S = p.game, p.pv, p.S
    a = u.ability
    F = game.B(False)
    blocked = blocking.blocked
    eff = And(u.acts, gate.get(u, game.B(True)))
    if u.actor is not None and a.key in blocking.cancelled:
        eff = And(eff, Not(pick(u.actor, blocking.cancelled[a.key])))
    if u.actor is not None and a.actor is not None and a.actor.kind != "moderator":
        if a.blocked_uses != "count":
            taken = And(eff, pick(u.actor, blocked))
            u.blocked = taken if u.blocked is None else Or(u.blocked, taken)
        eff = And(eff, Not(pick(u.actor, blocked)))
    if id(u) in pv.fired and not game.leave_triggered(a):
        # Triggered by an attack or by the vote: it acts in the pass where that happens.
        hit = game.trigger_hit(u, p.events)
        pend = S.pending.get((a.key, u.key, pv.phase.kind), F)
        before = pv.fired[id(u)]
        eff = And(eff, Not(before), Or(hit, pend))
        pv.fired[id(u)] = Or(before, And(u.used, hit))
        if a.mandatory:  # for the obligation on its trigger (legality.trigger_obligations)
            pv.happened[id(u)] = Or(pv.happened.get(id(u), F), hit)
    if a.is_card:
        eff = And(eff, Or(S.drawn[u.key], p.events.get(("drawn", u.key)), p.events.get(("voted", u.key))))
    return eff


def _effect(p: Pass, u: Use, e: ast.Effect | ast.AfterEffect, g: z3.BoolRef, view: View, env: dict) -> None:
    """One effect of an acting use, under the condition g that it applies."""
    game, pv = p.game, p.pv
    a = u.ability
    if isinstance(e, ast.AfterEffect):
        index = game.delayed_index(a.effects, e)
        p.intents.schedules.append(((a.key, index, u.key), e.count, g, env.get("target", game.I(NONE))))
        return
    v = e.verb
    if v == "unspecified":
        pv.undefined.append((And(pv.active, g), holes.unspecified(a.display, effect_text(e), a.key)))
        return
    if v in UNSUPPORTED or v not in ACTING:
        raise Unsupported(UNSUPPORTED.get(v, f"the effect `{v}`"), e.span)
    if v == "win":
        pv.declare(effect_name(e).key, g)
        return
    if ACTING[v] == "none":
        if v == "learn" and has_table(e.value):  # what is learned is read, for its holes
            game.compiler.value(e.value, game.compiler.under(view, e.value, g).with_env(__texts=True))
        return
    F = game.B(False)
    targets = game.seats_on(e, view, u, g)
    for s in range(p.n):
        on = And(g, targets[s])
        if v == "kill":
            kind = effect_name(e).key
            p.intents.attacks.append((kind, a.key, s, on))
            p.event(("kill", s, kind), on)
            if u.actor is not None:
                for q in range(p.n):
                    p.event(("attacked_by", s, q), And(on, u.actor == q) if not isinstance(u.actor, int)
                            else (on if u.actor == q else F))
        elif v == "save":
            kinds = {nm.key for nm in e.names}
            p.intents.defenses.append((None if (not kinds or "any" in kinds) else kinds, s, on))
            p.event(("save", s), on)
        elif v == "protect":
            for nm in e.names:
                p.event(("protect", s, nm.key), on)
                if nm.key not in SHIELDS:
                    p.intents.defenses.append((None if nm.key in ("any", "kill") else {nm.key}, s, on))
                elif nm.key != "block":
                    raise Unsupported(f"protection from {nm.key}", e.span)
        elif v == "inquire":
            p.event(("inquire", s), on)
        elif v in ("leave", "stay"):
            p.intents.strict.append((v, s, effect_name(e).key if v == "leave" else None, a.key, (), on))
        else:
            p.intents.writes.append((e, s, on, view, a, u))
