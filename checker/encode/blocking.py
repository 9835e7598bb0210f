"""The blocking steps (stage 1 of a resolution, as Resolver.resolve's walk): abilities that
block, unblock or protect from blocks run first, in every order the spec leaves open (one
order variable chooses among them); uses of one step act together, and when they block each
other every consistent reading is an outcome."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

import z3

from .. import ast, holes
from ..narrow import effect_name, effect_text, plain_effect
from ..vocabulary import block_rings, flat, in_block_cycles, is_blocking
from .passes import Pass, acted_events
from .phase_vars import NONE, Use
from .rule_pass import settle
from .terms import And, Eq, Events, If, Implies, Not, Or, View, compare_op, count_of, pick, truth

# Users of one blocking ability acting together whose readings are listed (2^4 subsets of
# them); more acting at once are left out of the game (and the analyses say when that can
# matter, Encoded.unfollowed).
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
    cancelled: dict = field(default_factory=dict)  # ability -> per seat: his uses of it are cancelled

    def in_order(self, perm_index: int, cond: z3.BoolRef) -> z3.BoolRef:
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
    prior = _recorded_before(p)
    results = [_one_order(p, result, i, perm, by_ability, rules, prior) for i, perm in enumerate(perms)]
    block_cycles(p, perms, by_ability, [r[5] for r in results])
    if len(perms) > 1:
        game.add(And(order >= 0, order < len(perms)))
        if p.tag in ("n", "b"):
            pv.order = order
            pv.perms = perms
            pv.perm_blocked = [r[0] for r in results]
            pv.perm_cancelled = [r[3] for r in results]
    result.blocked = [Or([And(order == i, r[0][s]) for i, r in enumerate(results)]) for s in range(p.n)]
    for a in sorted(set().union(*[set(r[3]) for r in results])):
        result.cancelled[a] = [Or([And(order == i, r[3][a][s]) for i, r in enumerate(results) if a in r[3]])
                               for s in range(p.n)]
    F = game.B(False)
    for key in sorted(set().union(*[set(r[4]) for r in results]), key=repr):
        pv.rules_fired[key] = results[0][4].get(key, F) if len(results) == 1 else \
            Or([And(order == i, r[4].get(key, F)) for i, r in enumerate(results)])
    added = [_added(r[2], prior) for r in results]
    for key in sorted(set().union(*[set(a) for a in added]), key=repr):
        if len(results) == 1:
            p.event(key, added[0][key])
        else:
            p.event(key, Or([And(order == i, a.get(key, F)) for i, a in enumerate(added)]))
    return result


def _recorded_before(p: Pass) -> Events:
    """What the blocking steps and rules see from the start: the events the resolution has
    before its first step (an attack falling due, the vote), as the interpreter's scratch
    has them. Not `acted`, recorded for every use as the pass begins: the interpreter
    records it as each step runs (see _one_order)."""
    return Events(p.game.ctx, {key: p.events.get(key) for key in p.events if key[0] != "acted"})


def _added(evs: Events, prior: Events) -> dict:
    """The events the stage recorded beyond those it started from (and `acted`, which the
    pass has already), for the pass to keep."""
    out = {}
    for key in evs:
        parts = evs.parts[key][len(prior.parts.get(key, ())):]
        if parts and key[0] != "acted":
            out[key] = parts[0] if len(parts) == 1 else Or(parts)
    return out


def _one_order(p: Pass, result: Blocking, perm_index: int, perm: tuple, by_ability: dict, rules: list[ast.RuleDecl],
               prior: Events) -> tuple:
    """The blocking steps in one order: (blocked, shielded, events, cancelled) per seat, the
    rules' bindings that acted (fired), and what block_cycles reads: ({(ability, user,
    seat): his block took}, {(ability, user): his use of it was taken away by a block})."""
    game, pv = p.game, p.pv
    F = game.B(False)
    blocked = [F] * p.n
    shield = [F] * p.n
    cancelled: dict = {}  # ability -> per seat (as Blocking.cancelled)
    evs = prior.copy()
    fired = dict(pv.rules_fired)  # the rules' bindings that acted earlier in the phase
    hits: dict = {}
    taken: dict = {}
    in_order = result.in_order(perm_index, game.B(True))
    for e, s, on in p.intents.due_blocks:  # what falls due acts before any step
        blocking_effect(e, on, s, blocked, shield, evs, cancelled)
    _fire(p, rules, blocked, shield, evs, fired, in_order, cancelled)
    for step in perm:
        # Uses of one step act together: each is stopped only by a block or a cancel from
        # before the step, or by the reading of their mutual blocks.
        before = list(blocked)
        # A cancelled use takes no part, as a blocked one (Resolver.run_step drops both).
        was = list(cancelled.get(step, [F] * p.n))
        stopped = [Or(before[s], was[s]) for s in range(p.n)]
        dropped = mutual_blocks(p, perm_index, by_ability[step], stopped, shield, in_order)
        cycles = in_block_cycles(game.sc, game.sc.ability_by_key[step])
        for u in by_ability[step]:  # as Resolver.run_step: a choice made, seen from its step on
            for key, cond in acted_events(p, u):
                evs.add(key, cond)
        for u in by_ability[step]:
            watched = cycles and u.key != -1 and isinstance(u.actor, int)
            if watched:
                taken[(step, u.key)] = Or(taken.get((step, u.key), F), And(u.acts, Not(was[u.key]), before[u.key]))
            eff = u.acts
            if u.actor is not None:
                eff = And(eff, Not(pick(u.actor, was)))
            if u.actor is not None and u.ability.actor.kind != "moderator":
                eff = And(eff, Not(pick(u.actor, before)), Not(dropped.get(id(u), F)))
            # Tables with no row in its effects are holes of the ability, where it acts.
            view = game.table_view(p.S, evs.copy(), {**game.env_of(u), "__guard": eff},
                                   holes.no_row(u.ability.display, u.ability.key), in_order)
            # As Resolver.run_step: a use that acts is `used`, and names its targets.
            evs.add(("used", step), eff)
            targets = game.env_of(u).get("targets")
            if targets is not None:
                for s in range(p.n):
                    evs.add(("targeted", s, step), And(eff, targets.member[s]))
            for e, guard in game.guarded(u.ability.effects, view):
                if isinstance(e, ast.AfterEffect):  # scheduled where the step acts (as acting.py)
                    index = game.delayed_index(u.ability.effects, e)
                    p.intents.schedules.append(((u.ability.key, index, u.key), e.count, And(eff, guard, in_order),
                                                game.env_of(u).get("target", game.I(NONE))))
                    continue
                if e.verb == "win":  # a declaration, not an effect on a player
                    pv.declare(effect_name(e).key, And(eff, guard, in_order))
                    continue
                targets = game.seats_on(e, view, u)
                for s in range(p.n):
                    on = And(eff, guard, targets[s])
                    if e.verb == "unspecified":
                        if s == 0:
                            pv.undefined.append((And(pv.active, eff, guard, in_order), holes.unspecified(
                                u.ability.display, effect_text(e), u.ability.key)))
                        continue
                    if e.verb in ("kill", "save"):
                        result.intents.append((perm_index, e, u, s, on))
                        if e.verb == "kill":
                            evs.add(("kill", s, effect_name(e).key), on)
                        else:
                            evs.add(("save", s), on)
                        continue
                    if watched and e.verb == "block":
                        hits[(step, u.key, s)] = Or(hits.get((step, u.key, s), F), And(on, Not(shield[s])))
                    blocking_effect(e, on, s, blocked, shield, evs, cancelled)
        _fire(p, rules, blocked, shield, evs, fired, in_order, cancelled)
    return blocked, shield, evs, cancelled, fired, (hits, taken)


def block_cycles(p: Pass, perms: list, by_ability: dict, marks: list) -> None:
    """Users of k >= 2 blocking abilities the spec leaves unordered whose blocks form a ring,
    as Resolver._block_cycles finds them: x's use of A links to y's use of B when, in some
    order with A before B, x's block takes and y's use of B is taken away by a block; a ring
    of such links (vocabulary.block_rings) through k abilities and k players is a cycle. The
    orders give its readings (which of its uses take effect): recorded per phase in pv.cycles
    as (condition, the hole), for `ambiguous-resolution` (and set aside by `ambiguous-order`).
    Only terms: nothing is added to the game, so a spec pays for them only where asked."""
    game, pv = p.game, p.pv
    F = game.B(False)
    steps = sorted(a for a in by_ability if in_block_cycles(game.sc, game.sc.ability_by_key[a]))
    users = {a: sorted({u.key for u in by_ability[a] if u.key != -1 and isinstance(u.actor, int)}) for a in steps}
    links: dict = {}
    for a, b in itertools.permutations(steps, 2):
        first = [i for i, q in enumerate(perms) if q.index(a) < q.index(b)]
        for x, y in itertools.product(users[a], users[b]):
            link = Or([F] + [And(marks[i][0].get((a, x, y), F), marks[i][1].get((b, y), F)) for i in first])
            if x != y and truth(link) is not False:
                links[((a, x), (b, y))] = link
    for ring in block_rings(links):
        hole = holes.block_cycle([(a, game.sc.ability_by_key[a].display, x,
                                   game.sc.role_by_key[game.seats[x]].display) for a, x in ring])
        pv.cycles.append((And([pv.active] + [links[(u, ring[(i + 1) % len(ring)])] for i, u in enumerate(ring)]),
                          hole))


def _fire(p: Pass, rules: list[ast.RuleDecl], blocked: list, shield: list, evs: Events, fired: dict,
          in_order: z3.BoolRef, cancelled: dict) -> None:
    """Rules that block act after each blocking step (in the order `in_order` says is
    played), until nothing changes (rule_pass.settle); each binding once a phase."""
    game = p.game

    def read(rule: ast.RuleDecl) -> Iterator[tuple]:
        return game.bindings(rule, p.S, evs, guard=in_order)

    def act(rule: ast.RuleDecl, combo: tuple, env: dict, now: z3.BoolRef, view: View) -> None:
        for e in flat(rule.then):
            if e.verb == "win":
                p.pv.declare(effect_name(e).key, And(in_order, now))
                continue
            targets = game.seats_on(e, view, None)
            for s in range(p.n):
                blocking_effect(e, And(now, targets[s]), s, blocked, shield, evs, cancelled)

    settle(p, rules, fired, read, act, in_order, hits=False)


def blocking_effect(e: ast.Effect, cond: z3.BoolRef, s: int, blocked: list, shield: list, evs: Events,
                    cancelled: dict | None = None) -> None:
    if e.verb == "cancel":
        if cancelled is not None:  # (the readings of mutual blocks weigh the blocks alone)
            seats = cancelled.setdefault(effect_name(e).key, [z3.BoolVal(False, cond.ctx)] * len(blocked))
            seats[s] = Or(seats[s], cond)
    elif e.verb == "block":
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


def mutual_blocks(p: Pass, perm_index: int, group: list, before: list, shield: list,
                  in_order: z3.BoolRef) -> dict:
    """Several players' uses of one blocking step block each other's players: as the
    interpreter does, every reading (the set of acting users blocked) in which the blocked
    are exactly those the unblocked users block is an outcome; with none consistent, all
    act. Returns id(use) -> the condition that the reading drops that use; records the
    phases with no consistent reading or several in pv.mutual.

    Readings are subsets of the users that act, not of every seat that could hold the
    ability (with a conversion, every seat): the acting users take positions (Positions),
    at most MAX_READERS of them, and the readings are the subsets of positions."""
    game, pv = p.game, p.pv
    users = [u for u in group if u.key != -1 and u.ability.actor is not None
             and u.ability.actor.kind != "moderator"]
    if len(users) < 2:
        return {}
    ability = users[0].ability
    if ability.is_card or any(ability.key in team.options for team in game.sc.teams):
        # One player plays a card in a phase, and a team makes one of its options a phase
        # (legality.team_once): never two uses at once, no mutual blocks.
        return {}
    seats = sorted({u.key for u in users})
    acting = {id(u): And(u.acts, Not(before[u.key])) for u in users}
    hits = {id(u): _newly_blocked(p, u, seats, acting[id(u)], before, shield) for u in users}
    seat_acts = [Or([acting[id(u)] for u in users if u.key == s]) for s in seats]
    name = f"t{p.t}_{p.tag}_{perm_index}_{ability.key}"
    pos = _positions(p, seat_acts, in_order)
    if pos.limited and pos.beyond is None:
        pv.crowded.append(ability)
    F = game.B(False)
    # by[x][y]: the acting user at seats[x] newly blocks the player at seats[y].
    by = [[Or([F] + [hits[id(u)][y] for u in users if u.key == x]) for y in seats] for x in seats]
    h = pos.between(by)
    m = len(pos.filled)
    chosen = [game.bool_var(f"{name}_read{j}") for j in range(m)]
    readings = [[game.B(j in c) for j in range(m)] for r in range(m + 1) for c in itertools.combinations(range(m), r)]
    consistent = [_consistent(h, pos.filled, bits) for bits in readings]
    together = compare_op(">=", count_of(list(acting.values()), game.ctx), 2)
    none = And([Not(c) for c in consistent])
    nobody = And([Not(b) for b in chosen])
    game.add(If(together, Or(_consistent(h, pos.filled, chosen), And(none, nobody)), nobody))
    several = compare_op(">=", count_of(consistent, game.ctx), 2)
    drops = {id(u): Or([F] + [And(pos.eq[j][seats.index(u.key)], chosen[j]) for j in range(m)]) for u in users}
    if pos.beyond is None:
        pv.mutual.append((And(pv.active, in_order, together, none), ability, "none"))
        pv.mutual.append((And(pv.active, in_order, together, several), ability, "several"))
        return drops
    # More acting users than positions, in a game that may allow more than the rules do
    # (Game.over_approximate): every subset of them may be dropped, and either hole may or
    # may not be met. Each outcome of the rules is one of these, so "no game" still holds.
    beyond = pos.beyond
    for kind, met in (("none", none), ("several", several)):
        free = game.bool_var(f"{name}_{kind}_beyond")
        pv.mutual.append((And(pv.active, in_order, together, If(beyond, free, met)), ability, kind))
    loose = {s: game.bool_var(f"{name}_drop{s}_beyond") for s in seats}
    return {id(u): If(beyond, loose[u.key], drops[id(u)]) for u in users}


@dataclass(frozen=True)
class Positions:
    """Where the acting users of a step sit: position j holds the seat of index x (in the
    step's list of seats that could hold the ability) when eq[j][x]; filled[j] when some
    acting user holds position j. `limited` when more users could act than there are
    positions (the game then lets no more act together: Game.restricted). `beyond`, in a game
    that over-approximates (Game.over_approximate), instead of that limit: the condition that
    more users act than there are positions (mutual_blocks then lets any of them be dropped)."""

    eq: tuple
    filled: tuple
    limited: bool
    beyond: z3.BoolRef | None = None

    def between(self, by: list) -> list:
        """h[i][j]: the user at position i newly blocks the one at position j, from by[x][y]
        over seat indices (by way of each position's row, so n*n terms a position, not n^4)."""
        m, k = len(self.eq), len(by)
        row = [[Or([And(self.eq[i][x], by[x][y]) for x in range(k)]) for y in range(k)] for i in range(m)]
        return [[Or([And(self.eq[j][y], row[i][y]) for y in range(k)]) for j in range(m)] for i in range(m)]


def _positions(p: Pass, seat_acts: list, in_order: z3.BoolRef) -> Positions:
    """The acting users in positions. Up to MAX_READERS seats could act, each seat is its
    own position. Beyond, an acting seat's position is the number of acting seats before
    it (a term, no new variable: one way for each set of acting seats, so that each
    reading of the positions is one reading of the users), in MAX_READERS positions; more
    acting users than that are left out of the game, in this order (the analyses ask
    whether that can matter: Encoded.unfollowed)."""
    game = p.game
    k = len(seat_acts)
    if k <= MAX_READERS:
        eq = tuple(tuple(game.B(j == x) for x in range(k)) for j in range(k))
        return Positions(eq, tuple(seat_acts), False)
    before = [count_of(seat_acts[:x], game.ctx) for x in range(k)]
    eq = tuple(tuple(And(seat_acts[x], Eq(before[x], j)) for x in range(k)) for j in range(MAX_READERS))
    acting = count_of(seat_acts, game.ctx)
    filled = tuple(compare_op(">", acting, j) for j in range(MAX_READERS))
    if game.over_approximate:
        return Positions(eq, filled, True, compare_op(">", acting, MAX_READERS))
    game.add(Implies(in_order, compare_op("<=", acting, MAX_READERS)))
    return Positions(eq, filled, True)


def _consistent(h: list, filled: tuple, bits: list) -> object:
    """The reading `bits` (position j blocked) is consistent: a filled position is blocked
    exactly when an unblocked one newly blocks it; an empty one is not in the reading (so
    that each reading of the acting users is one reading of the positions)."""
    parts = []
    for j, in_it in enumerate(bits):
        produced = Or([And(Not(bits[i]), h[i][j]) for i in range(len(bits))])
        parts += [Implies(in_it, filled[j]), Implies(filled[j], _iff(in_it, produced))]
    return And(parts)


def _iff(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    known = truth(a)
    return b if known is True else Not(b) if known is False else a == b


def _newly_blocked(p: Pass, u: Use, seats: list, acting: z3.BoolRef, before: list, shield: list) -> dict:
    """seat -> the use, acting alone, newly blocks the seat's player."""
    game = p.game
    alone, guard_shield = list(before), list(shield)
    view = View(game, p.S, Events(game.ctx), {**game.env_of(u), "__holes": []})
    for x, guard in game.guarded(u.ability.effects, view):
        e = plain_effect(x)
        if e.verb in ("block", "unblock", "protect"):
            targets = game.seats_on(e, view, u)
            for s in seats:
                on = And(acting, guard, targets[s])
                blocking_effect(e, on, s, alone, guard_shield, Events(game.ctx))
    return {s: And(alone[s], Not(before[s])) for s in seats}
