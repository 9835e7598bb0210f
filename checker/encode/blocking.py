"""The blocking steps (stage 1 of a resolution, as Resolver.resolve's walk): abilities that
block, unblock or protect from blocks run first, in every order the spec leaves open (one
order variable chooses among them); uses of one step act together, and when they block each
other every consistent reading is an outcome."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .. import holes
from ..holes import Hole
from ..vocabulary import flat, is_blocking
from .passes import Pass
from .terms import And, Events, If, Not, Or, View, compare_op, count_of, pick

# Players with one blocking ability whose readings are listed (2^4 subsets); beyond, one use a
# phase (and the analyses say so, Encoded.unfollowed).
MAX_READERS = 4


@dataclass
class Blocking:
    """What the blocking stage leaves: who is blocked (per seat, over the order chosen), and
    the attacks and saves of blocking abilities, under the order they were made in."""

    steps: list[str]
    blocked: list
    order: object
    perms: list
    intents: list = field(default_factory=list)  # (perm index, effect, use, seat, cond)

    def in_order(self, perm_index: int, cond):
        return And(self.order == perm_index, cond) if len(self.perms) > 1 else cond


def blocking_stage(p: Pass, uses: list) -> Blocking:
    game, pv = p.game, p.pv
    steps = sorted({u.ability.key for u in uses if is_blocking(u.ability.effects)})
    edges = game.declared_edges(steps)
    perms = [q for q in itertools.permutations(steps) if all(q.index(a) < q.index(b) for a, b in edges)]
    rules = [r for r in game.rules_now(pv.phase, p.tag) if game.sc.rule_stage(r) == "blocking"]
    by_ability: dict = {}
    for u in uses:
        by_ability.setdefault(u.ability.key, []).append(u)
    order = game.ranged(f"t{p.t}_{p.tag}_order", 0, len(perms) - 1) if len(perms) > 1 else game.I(0)
    result = Blocking(steps, [], order, perms)
    results = [_one_order(p, result, i, perm, by_ability, rules) for i, perm in enumerate(perms)]
    if len(perms) > 1:
        game.add(And(order >= 0, order < len(perms)))
        if p.tag in ("n", "b"):
            pv.order = order
            pv.perms = perms
            pv.perm_blocked = [r[0] for r in results]
    result.blocked = [Or([And(order == i, r[0][s]) for i, r in enumerate(results)]) for s in range(p.n)]
    F = game.B(False)
    keys = set().union(*[set(r[2].keys()) for r in results])
    for key in sorted(keys, key=repr):
        if len(results) == 1:
            p.event(key, results[0][2].get(key))
        else:
            p.event(key, Or([And(order == i, r[2].get(key, F)) for i, r in enumerate(results)]))
    return result


def _one_order(p: Pass, result: Blocking, perm_index: int, perm, by_ability: dict, rules) -> tuple:
    """The blocking steps in one order: (blocked, shielded, events) per seat."""
    game, pv = p.game, p.pv
    F = game.B(False)
    blocked = [F] * p.n
    shield = [F] * p.n
    evs = Events(game.ctx)
    fired: dict = {}
    in_order = result.in_order(perm_index, game.B(True))
    _fire(p, rules, blocked, shield, evs, fired)
    for step in perm:
        # Uses of one step act together: each is stopped only by a block from before the
        # step, or by the reading of their mutual blocks.
        before = list(blocked)
        dropped = mutual_blocks(p, perm_index, by_ability[step], before, shield, in_order)
        for u in by_ability[step]:
            eff = u.acts
            if u.actor is not None and u.ability.actor.kind != "moderator":
                eff = And(eff, Not(pick(u.actor, before)), Not(dropped.get(id(u), F)))
            view = View(game, p.S, evs.copy(), {**game.env_of(u), "__holes": []})
            # As Resolver.run_step: a use that acts is `used`, and names its targets.
            evs.add(("used", step), eff)
            targets = game.env_of(u).get("targets")
            if targets is not None:
                for s in range(p.n):
                    evs.add(("targeted", s, step), And(eff, targets.member[s]))
            for e, guard in game.guarded(u.ability.effects, view):
                for s in range(p.n):
                    on = And(eff, guard, game.on(e, view, u, s))
                    if e.verb == "unspecified":
                        if s == 0:
                            pv.undefined.append((And(pv.active, eff, guard, in_order), Hole(
                                holes.UNSPECIFIED, f"{u.ability.display}: {e.value.value}", u.ability.key)))
                        continue
                    if e.verb in ("kill", "save"):
                        result.intents.append((perm_index, e, u, s, on))
                        if e.verb == "kill":
                            evs.add(("kill", s, e.name.key), on)
                        else:
                            evs.add(("save", s), on)
                        continue
                    blocking_effect(e, on, s, blocked, shield, evs)
        _fire(p, rules, blocked, shield, evs, fired)
    return blocked, shield, evs


def _fire(p: Pass, rules, blocked, shield, evs, fired: dict) -> None:
    """Rules that block act once each, when they apply (after each blocking step)."""
    game = p.game
    F = game.B(False)
    for rule in rules:
        for combo, env, cond, view in game.bindings(rule, p.S, evs):
            key = (rule.name.key, combo)
            now = And(cond, Not(fired.get(key, F)))
            fired[key] = Or(fired.get(key, F), cond)
            for e in flat(rule.then):
                for s in range(p.n):
                    target = game.on(e, view, None, s)
                    blocking_effect(e, And(now, target), s, blocked, shield, evs)


def blocking_effect(e, cond, s: int, blocked: list, shield: list, evs: Events) -> None:
    if e.verb == "block":
        evs.add(("block", s), cond)
        hit = And(cond, Not(shield[s]))
        blocked[s] = Or(blocked[s], hit)
        evs.add(("blocked", s), hit)
    elif e.verb == "unblock":
        blocked[s] = And(blocked[s], Not(cond))
    elif e.verb == "protect":
        for nm in e.names:
            if nm.key == "block":
                shield[s] = Or(shield[s], cond)
            evs.add(("protect", s, nm.key), cond)


def mutual_blocks(p: Pass, perm_index: int, group: list, before: list, shield: list, in_order) -> dict:
    """Several players' uses of one blocking step block each other's players: as the
    interpreter does, every reading in which the blocked players are exactly those the
    others' uses block is an outcome. A reading is a set of the users, picked by a variable,
    that must be consistent where some reading is; with none consistent, all act. Returns
    id(use) -> the condition that the reading drops that use; records the phases with no
    consistent reading or several in pv.mutual."""
    game, pv = p.game, p.pv
    users = [u for u in group if u.key != -1 and u.ability.actor is not None
             and u.ability.actor.kind != "moderator"]
    if len(users) < 2 or users[0].ability.is_card:
        return {}  # (one player plays a card in a phase: no mutual blocks)
    if len(users) > MAX_READERS:
        # Readings are subsets of the users: too many to list. Seats that only a conversion
        # could make holders (Nostradamus's face change can give any seat any role) get one
        # use a phase; Encoded.unfollowed asks whether two can hold it at once and reports
        # that as not checked.
        game.add(compare_op("<=", count_of([u.used for u in users], game.ctx), 1))
        pv.crowded.append(users[0].ability)
        return {}
    seats = sorted({u.key for u in users})
    acting = {id(u): And(u.acts, Not(before[u.key])) for u in users}
    hits = {id(u): _newly_blocked(p, u, seats, acting[id(u)], before, shield) for u in users}
    readings = [frozenset(c) for r in range(len(seats) + 1) for c in itertools.combinations(seats, r)]
    F = game.B(False)
    consistent = []
    for c in readings:
        parts = []
        for s in seats:
            produced = Or([F] + [hits[id(u)][s] for u in users if u.key not in c])
            parts.append(produced if s in c else Not(produced))
        consistent.append(And(parts))
    together = compare_op(">=", count_of([acting[id(u)] for u in users], game.ctx), 2)
    pick_ = game.ranged(f"t{p.t}_{p.tag}_{perm_index}_{users[0].ability.key}_reading", 0, len(readings) - 1)
    none = And([Not(c) for c in consistent])
    game.add(If(together,
                Or(And(none, pick_ == 0), *[And(pick_ == i, c) for i, c in enumerate(consistent)]),
                pick_ == 0))
    several = compare_op(">=", count_of(consistent, game.ctx), 2)
    ability = users[0].ability
    pv.mutual.append((And(pv.active, in_order, together, none), ability, "none"))
    pv.mutual.append((And(pv.active, in_order, together, several), ability, "several"))
    return {id(u): Or([pick_ == i for i, c in enumerate(readings) if u.key in c]) if any(
                u.key in c for c in readings) else F for u in users}


def _newly_blocked(p: Pass, u, seats: list, acting, before: list, shield: list) -> dict:
    """seat -> the use, acting alone, newly blocks the seat's player."""
    game = p.game
    alone, guard_shield = list(before), list(shield)
    view = View(game, p.S, Events(game.ctx), {**game.env_of(u), "__holes": []})
    for e, guard in game.guarded(u.ability.effects, view):
        if e.verb in ("block", "unblock", "protect"):
            for s in seats:
                on = And(acting, guard, game.on(e, view, u, s))
                blocking_effect(e, on, s, alone, guard_shield, Events(game.ctx))
    return {s: And(alone[s], Not(before[s])) for s in seats}
