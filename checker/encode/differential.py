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

from ..evaluate import State
from ..interpreter.bind import BoundUse
from ..interpreter.legal import use_key
from ..interpreter.phases import Phase, matches, sequence
from ..interpreter.play import Player
from ..model import Scenario
from .solver import Limits, ask, check, make_solver
from .terms import Unsupported
from .unroll import NONE, Game, max_targets


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
    completed = player._complete(state, phase, uses)
    game = Game(scenario, tuple(state.roles), 1, start=state, first_phase=phase.index,
                symmetry=False)
    pv = game.vars[0]
    fix = _fix_choices(game, pv, completed, scenario)
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
        fields_ = _state_fields(game, S1, st, report.winner, phase, state)
        match = z3.And([z3.And(parts) for parts in fields_.values()])
        matches_.append(match)
        r = ask(solver, match)
        if r.status != "sat":
            return Verdict(False, f"the encoding cannot reach the interpreter's outcome: {report.exits}"
                           + _differing(solver, fields_))
    r = ask(solver, z3.Not(z3.Or(matches_)))
    if r.status == "sat":
        alive = [z3.is_true(r.model.eval(a, model_completion=True)) for a in S1["alive"]]
        nearest = min((_differs_in(r.model, _state_fields(game, S1, st, rep.winner, phase, state)) for st, rep in results),
                      key=len)
        return Verdict(False, f"the encoding reaches an outcome the interpreter does not: alive={alive}"
                       f"; it differs in {', '.join(nearest)}")
    return Verdict(True, f"{len(results)} outcome(s) agree")


# Every field of `evaluate.State` that the encoding's state has; `settings`, `round`,
# `phase_index`, `events` and `dealt` have no counterpart there (they are given, or per phase).
STATE_FIELDS = ("alive", "role", "side", "left_by", "counters", "items", "memories", "uses",
                "self_uses", "uses_open", "last_targets", "pending", "delayed", "idle", "links",
                "revealed", "drawn", "winner", "readings")


def _state_fields(game: Game, S1, st: State, winner, phase: Phase | None = None,
                  before: State | None = None) -> dict[str, list]:
    """The encoding's next state equal to the interpreter's `st`, field by field (the same
    correspondence `Game._init` uses to start the encoding from a state)."""
    ids = game.ids
    ctx = game.ctx
    f: dict[str, list] = {name: [z3.BoolVal(True, ctx)] for name in STATE_FIELDS}
    for s in range(game.n):
        f["alive"].append(S1["alive"][s] == st.alive[s])
        f["role"].append(S1["role"][s] == ids.roles.index(st.roles[s]))
        f["side"].append(S1["side"][s] == ids.value("side", st.sides[s]))
        f["left_by"].append(S1["left_by"][s] == ids.value("kind", st.left_by[s]))
        f["revealed"].append(S1["revealed"][s] == (s in st.revealed))
        f["drawn"].append(S1["drawn"][s] == (s in st.drawn))
        f["links"].append(S1["links"][s] == st.links.get(s, NONE))
        for c in game.counter_names:
            f["counters"].append(S1["counters"][s][c] == st.counters[s].get(c, 0))
    for (item, s), var in S1["items"].items():
        variant = st.items.get((item, s))
        f["items"].append(var == (ids.value("variant", variant) if variant else NONE))
    for m, seats in S1["mset"].items():
        members = st.memories.get(m) or frozenset()
        f["memories"] += [seats[s] == (s in members) for s in range(game.n)]
    for m, var in S1["mone"].items():
        value = st.memories.get(m)
        f["memories"].append(var == (NONE if value is None else value))
    for m, var in S1["mint"].items():
        value = st.memories.get(m)
        if value is not None:
            f["memories"].append(var == value)
    for name, table in (("uses", st.uses), ("self_uses", st.self_uses), ("uses_open", st.uses_open),
                        ("idle", st.idle)):
        for key, var in S1[name].items():
            f[name].append(var == table.get(key, 0))
    # The encoding keeps, per kind of phase, the targets of the previous phase of that kind
    # (none when it was not used then); the interpreter keeps the last use with its phase.
    # So in the phase just played, an ability it could be used in has its targets of this
    # phase, or none; the other kinds keep what they had before the phase.
    usable = {(v.ability.key, v.key) for v in game.vars[0].uses}
    played = (phase.kind, phase.number) if phase is not None else None
    for (a, k, kind), seats in S1["last"].items():
        last = st.last_targets.get((a, k))
        now = phase is not None and kind == phase.kind and (a, k) in usable
        for s in range(game.n):
            if now:
                f["last_targets"].append(seats[s] == bool(last and last[0] == played and s in last[1]))
            else:  # unchanged by this phase: as `Game._init` read the state before it
                kept = before.last_targets.get((a, k)) if before is not None else last
                f["last_targets"].append(z3.Not(seats[s]) if not kept else
                                         seats[s] == (kept[0][0] == kind and s in kept[1]))
    for (a, s, kind), var in S1["pending"].items():
        f["pending"].append(var == ((a, s, kind) in st.pending))
    due: dict = {}
    for unit, count, body, env, source in st.delayed:
        try:
            due[game._slot_of(body, dict(env), source)] = (count, dict(env).get("target"))
        except Unsupported:
            f["delayed"].append(z3.BoolVal(False, ctx))  # a pending effect with no slot
    for key, var in S1["delay"].items():
        count, target = due.get(key, (0, None))
        f["delayed"].append(var == count)
        if count > 0:  # the target of a countdown at 0 is not read
            f["delayed"].append(S1["delay_target"][key] == (NONE if target is None else target))
    f["winner"].append(S1["winner"] == (ids.sides.index(winner) if winner else NONE))
    for (i, r), var in S1["readings"].items():
        f["readings"].append(var == (i not in st.readings or r in st.readings[i]))
    return f


def _differs_in(model, fields_: dict[str, list]) -> list[str]:
    return [name for name, parts in fields_.items()
            if not z3.is_true(model.eval(z3.And(parts), model_completion=True))]


def _differing(solver, fields_: dict[str, list]) -> str:
    """Which fields the encoding cannot give the interpreter's values, the others held."""
    names = [name for name in fields_
             if ask(solver, z3.And([z3.And(p) for n, p in fields_.items() if n != name])).status == "sat"]
    return f"; it differs in {', '.join(names)}" if names else ""


def _fix_choices(game: Game, pv, uses: list[BoundUse], scenario: Scenario):
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
