"""The interpreter against the encoding, on one phase: the same semantics, written twice.

Given a state and a phase's choices, the interpreter lists every outcome; the encoding,
with its choice variables fixed to the same choices, must allow each of those outcomes and
no other. A choice the interpreter calls illegal must leave the encoding unsatisfiable.
Used by the tests (with generated games) and by the benchmark.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import z3

from ..encode.solver import Limits, ask, check, make_solver
from ..encode.terms import Unsupported
from ..encode.unroll import NONE, Game, max_targets
from ..evaluate import State
from ..interpreter.bind import BoundUse
from ..interpreter.legal import use_key
from ..interpreter.play import Player
from ..model import Scenario
from ..phases import Phase, matches, sequence


@dataclass
class Verdict:
    agree: bool
    detail: str


def random_uses(scenario: Scenario, state: State, phase: Phase, rng: random.Random) -> list[BoundUse]:
    """Random choices for a phase: each ability usable now, by a random player, on random
    targets, with random values. Many will be illegal; that is part of the test."""
    n = len(state.roles)
    uses = []
    for a in scenario.abilities:
        usable = any(matches(r, phase, r.moment) for r in a.phases) or \
            any(p[0] == a.key and p[2] == phase.kind for p in state.pending) or \
            any(t.timing == "immediately" for t in a.triggers)
        if not usable or a.is_card or rng.random() < 0.45:
            continue
        actor = None
        if a.actor is not None and a.actor.kind != "moderator":
            if a.actor.kind == "role":
                roles = {nm.key for nm in (a.actor.roles or (a.actor.name,))}
                holders = [s for s in range(n) if state.roles[s] in roles]
                if not holders:
                    continue
                actor = rng.choice(holders)
            else:
                actor = rng.randrange(n)
        most = _most_targets(a)
        count = rng.randint(1, most) if a.target_count is not None else 0
        alive = [s for s in range(n) if state.alive[s]]
        pool = alive if alive and rng.random() < 0.9 else list(range(n))
        targets = tuple(rng.sample(pool, min(count, len(pool))))
        values = []
        for ch in a.choices:
            table = {"role": [r.key for r in scenario.roles], "side": [s.key for s in scenario.sides],
                     "option": [nm.key for nm in ch.names]}.get(ch.kind)
            if ch.kind == "variant":
                item = next(i for i in scenario.items if i.name.key == ch.names[0].key)
                table = [v.key for v, _ in item.variants]
            if ch.kind == "player":
                table = list(range(n))
            values.append((ch.binds.key, rng.choice(table)))
        uses.append(BoundUse(a.key, actor, targets, tuple(values), explicit_actor=actor is not None))
    if phase.kind == "day" and rng.random() < 0.8:
        alive = [s for s in range(n) if state.alive[s]]
        if alive:
            uses.append(BoundUse(None, None, (rng.choice(alive),), (), "player"))
    return uses


def _most_targets(a) -> int:
    try:
        return max(1, max_targets(a)) if a.target_count is not None else 0
    except Unsupported:
        return 1


def compare(scenario: Scenario, state: State, phase: Phase, uses: list[BoundUse],
            limits: Limits = Limits(timeout=20)) -> Verdict:
    player = Player(scenario)
    state = state.clone()
    results, problems = player.play(state, phase, uses)
    completed = player.complete(state, phase, uses)
    game = Game(scenario, tuple(state.roles), 1, start=state, first_phase=phase.index,
                symmetry=False)
    pv = game.vars[0]
    fix = fix_choices(game, pv, completed, scenario)
    if fix is None:
        return Verdict(True, "a choice the encoding has no variable for (not comparable)")
    solver = make_solver(game.ctx, limits, finite=game.finite)
    solver.add(game.constraints)
    solver.add(fix)
    illegal = any(not p.hole for p in problems)
    if any(p.hole for p in problems):
        return Verdict(True, "the interpreter reports a hole in the choices (not compared)")
    result = check(solver)
    if result.status == "unknown":
        return Verdict(False, f"solver gave up: {result.reason}")
    if illegal:
        return Verdict(result.status == "unsat",
                       "illegal for the interpreter: " + "; ".join(p.message for p in problems)
                       + f"; the encoding says {result.status}")
    if result.status == "unsat":
        return Verdict(False, "legal for the interpreter, impossible for the encoding")
    S1 = game.states[1]
    matches_ = []
    for st, report in results:
        match = _state_is(game, S1, st, scenario, report.winner)
        matches_.append(match)
        r = check(solver, match) if False else ask(solver, match)
        if r.status != "sat":
            return Verdict(False, f"the encoding cannot reach the interpreter's outcome: {report.exits}")
    r = ask(solver, z3.Not(z3.Or(matches_)))
    if r.status == "sat":
        alive = [z3.is_true(r.model.eval(a, model_completion=True)) for a in S1["alive"]]
        return Verdict(False, f"the encoding reaches an outcome the interpreter does not: alive={alive}")
    return Verdict(True, f"{len(results)} outcome(s) agree")


def _state_is(game: Game, S1, st: State, scenario: Scenario, winner) -> z3.BoolRef:
    ids = game.ids
    parts = []
    for s in range(game.n):
        parts.append(S1["alive"][s] == st.alive[s])
        parts.append(S1["role"][s] == ids.roles.index(st.roles[s]))
        parts.append(S1["side"][s] == ids.value("side", st.sides[s]))
        parts.append(S1["left_by"][s] == ids.value("kind", st.left_by[s]))
        for c in game.counter_names:
            parts.append(S1["counters"][s][c] == st.counters[s].get(c, 0))
    for (item, s), var in S1["items"].items():
        variant = st.items.get((item, s))
        parts.append(var == (ids.value("variant", variant) if variant else NONE))
    parts.append(S1["winner"] == (ids.sides.index(winner) if winner else NONE))
    for (i, r), var in S1["readings"].items():
        parts.append(var == (i not in st.readings or r in st.readings[i]))
    return z3.And(parts)


def fix_choices(game: Game, pv, uses: list[BoundUse], scenario: Scenario):
    parts = []
    chosen = set()
    ids = game.ids
    for u in uses:
        if u.ability is None:
            if pv.vote_kind is None:
                return None
            if u.vote == "player":
                parts += [pv.vote_kind == 1, pv.vote_target == u.targets[0]]
            elif u.vote == "none":
                parts.append(pv.vote_kind == 0)
            else:
                return None
            chosen.add("vote")
            continue
        ability = scenario.ability_by_key[u.ability]
        key = use_key(ability, u)[1]
        match = [v for v in pv.uses if v.ability.key == u.ability and v.key == key and id(v) not in chosen]
        if not match or len(u.targets) > len(match[0].targets) and ability.target_count is not None:
            return None
        v = match[0]
        chosen.add(id(v))
        parts.append(v.used)
        if u.actor is not None and not isinstance(v.actor, int) and v.actor is not None:
            parts.append(v.actor == u.actor)
        if v.count is not None:
            parts.append(v.count == len(u.targets))
            for j, t in enumerate(u.targets):
                parts.append(v.targets[j] == t)
        elif u.targets:
            return None
        for name, value in u.values:
            ch = next(c for c in ability.choices if c.binds.key == name)
            table = {"role": ids.roles, "side": ids.sides, "variant": ids.all_variants,
                     "option": ids.options}.get(ch.kind)
            parts.append(v.values[name] == (table.index(value) if table is not None else value))
    for v in pv.uses:
        if id(v) not in chosen:
            parts.append(z3.Not(v.used))
    if pv.vote_kind is not None and "vote" not in chosen:
        parts.append(pv.vote_kind == 0)
    return z3.And(parts) if parts else z3.BoolVal(True, game.ctx)


def random_walk(scenario: Scenario, seats, rng: random.Random, phases: int):
    """A random game through the interpreter: the state before each phase, with the phase."""
    from ..evaluate import initial_state

    state = initial_state(scenario, seats)
    seq = sequence(scenario, state, phases)
    player = Player(scenario)
    out = []
    for phase in seq:
        before = state.clone()
        for _ in range(30):
            uses = random_uses(scenario, state, phase, rng)
            results, problems = player.play(state, phase, uses)
            if results and not problems:
                break
        else:
            uses = []
            results, _ = player.play(state, phase, uses)
        out.append((before, phase, uses))
        if not results:
            break
        state = results[0][0]
        if results[0][1].winner:
            break
    return out
