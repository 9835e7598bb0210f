"""The interpreter against the encoding, on one phase: the same semantics, written twice.

Given a state and a phase's choices, the interpreter lists every outcome; the encoding,
with its choice variables fixed to the same choices, must allow each of those outcomes and
no other. A choice the interpreter calls illegal must leave the encoding unsatisfiable.
Used by the tests (with generated games) and by the benchmark.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import z3

from ..encode.solver import Limits, ask, check, make_solver
from ..encode.state import SymState
from ..encode.terms import Unsupported
from ..encode.legality import max_targets
from ..encode.unroll import NONE, Game
from ..encode.vote import TieEffect, quorum_at_vote, votes_at_vote
from .. import holes
from ..narrow import present
from ..evaluate import State
from ..interpreter.bind import BoundUse
from ..interpreter.legal import use_key
from ..interpreter.play import Player
from ..interpreter.tally import count_problem
from ..interpreter.ties import pick_problem
from ..model import Scenario, TieRule
from ..phases import Phase, day_moments, matches, sequence, use_moment
from .witness import model_of

if TYPE_CHECKING:
    from ..encode.phase_vars import PhaseVars
    from ..holes import Hole
    from ..interpreter.legal import Problem
    from ..interpreter.resolution import Report
    from ..model import Ability

# Choices for one phase of a game, as random_choices makes them.
Chooser = Callable[[Scenario, State, Phase, random.Random], list[BoundUse]]


@dataclass
class Verdict:
    agree: bool
    detail: str
    # The constructs of the language that took part in the phase compared (see `CONSTRUCTS`);
    # empty when the two sides were not compared.
    covered: frozenset[str] = frozenset()


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
                roles = {nm.key for nm in (a.actor.roles or (a.actor.name,)) if nm is not None}
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
        values = [(ch.binds.key, rng.choice(scenario.choice_domain(ch, n))) for ch in a.choices]
        uses.append(BoundUse(a.key, actor, targets, tuple(values), explicit_actor=actor is not None))
    if phase.kind == "day" and rng.random() < 0.8:
        alive = [s for s in range(n) if state.alive[s]]
        if alive:
            uses.append(BoundUse(None, None, (rng.choice(alive),), (), "player"))
    return uses


def random_choices(scenario: Scenario, state: State, phase: Phase, rng: random.Random) -> list[BoundUse]:
    """Random choices for a phase, leaning to legal ones (`random_walk` plays them; the
    stalemate analysis keeps `random_uses`, so its seeded playouts are unchanged): each
    ability usable now (a mandatory one nearly always,
    a card by a player who holds one or is voted out today), by a random player who may use
    it, on random targets (mostly ones its `target where` admits), with random values. Many
    will be illegal; that is part of the test."""
    from ..interpreter.legal import team_members, team_of

    n = len(state.roles)
    alive = [s for s in range(n) if state.alive[s]]
    vote = None
    if phase.kind == "day" and scenario.day is not None and rng.random() < 0.85:
        r = rng.random()
        if alive and r < 0.7:
            vote = BoundUse(None, None, (rng.choice(alive),), (), "player")
        elif len(alive) >= 2 and r < 0.85:
            vote = BoundUse(None, None, tuple(sorted(rng.sample(alive, 2))), (), "tie")
        else:
            vote = BoundUse(None, None, (), (), "none")
    holders_of_cards = sorted(state.drawn | (set(vote.targets) if vote and vote.vote == "player" else set()))
    uses = []
    for a in scenario.abilities:
        usable = any(matches(r, phase, r.moment) for r in a.phases) or \
            any(p[0] == a.key and p[2] == phase.kind for p in state.pending) or \
            any(t.timing == "immediately" for t in a.triggers)
        due = [p[1] for p in state.pending if p[0] == a.key and p[2] == phase.kind]
        if not usable or rng.random() < (0.1 if a.mandatory or due else 0.45):
            continue
        actor = None
        by = a.actor
        kind = by.kind if by is not None else "moderator"
        if due and rng.random() < 0.9:  # a use its trigger made due in this phase
            actor = rng.choice(due)
        elif a.is_card:
            if not holders_of_cards:
                continue
            actor = rng.choice(holders_of_cards)
        elif kind == "role" and by is not None:
            roles = {nm.key for nm in (by.roles or (by.name,)) if nm is not None}
            holders = [s for s in range(n) if state.roles[s] in roles]
            if not holders:
                continue
            actor = rng.choice(holders)
        elif kind == "team":
            team = team_of(scenario, a)
            # The phase's choices are not made yet: a member its `except` takes out may be
            # drawn, which is one more illegal choice to test.
            members = [s for s in team_members(scenario, state, team, frozenset()) if state.alive[s]] if team else []
            if members and rng.random() < 0.5:
                actor = rng.choice(members)
        elif kind == "holder" and by is not None and by.name is not None:
            holders = sorted(s for (item, s) in state.items if item == by.name.key)
            if not holders:
                continue
            actor = rng.choice(holders)
        elif kind != "moderator":
            actor = rng.randrange(n)
        most = _most_targets(a)
        count = rng.randint(1, most) if a.target_count is not None else 0
        pool = _admitted(scenario, state, a, actor) if rng.random() < 0.85 else []
        if not pool:
            pool = alive if alive and rng.random() < 0.8 else list(range(n))
        targets = tuple(rng.sample(pool, min(count, len(pool))))
        values = [(ch.binds.key, rng.choice(scenario.choice_domain(ch, n))) for ch in a.choices]
        # An ability of both moments of a day: either (the rng is drawn only for one, so
        # the walks of other specs stay as they were).
        moments = day_moments(a, phase) if phase.is_day else ()
        moment = rng.choice(moments) if len(moments) > 1 else None
        uses.append(BoundUse(a.key, actor, targets, tuple(values), explicit_actor=actor is not None,
                             moment=moment))
    if vote is not None:
        uses.append(vote)
    return uses


def _admitted(scenario: Scenario, state: State, ability: Ability, actor: int | None) -> list[int]:
    """The seats the ability's `target where` admits for this actor, as far as the filter can
    be read outside a phase (a filter that asks the phase's choices admits everyone)."""
    from ..evaluate import EvalError, Evaluator

    if ability.target_filter is None:
        return [s for s in range(len(state.roles)) if state.alive[s]]
    ev = Evaluator(scenario, state)
    out = []
    for s in range(len(state.roles)):
        try:
            if ev.value(ability.target_filter, {"target": s, "actor": actor, "targets": frozenset({s})}):
                out.append(s)
        except (EvalError, TypeError, KeyError, IndexError, AttributeError):
            out.append(s)
    return out


def _most_targets(a: Ability) -> int:
    try:
        return max(1, max_targets(a)) if a.target_count is not None else 0
    except Unsupported:
        return 1


def compare(scenario: Scenario, state: State, phase: Phase, uses: list[BoundUse],
            limits: Limits = Limits(timeout=20)) -> Verdict:
    player = Player(scenario)
    state = state.clone()
    with _Trace() as trace:
        results, problems = player.play(state, phase, uses)
    completed = player.complete(state, phase, uses)
    try:
        game = Game(scenario, tuple(state.roles), 1, start=state, first_phase=phase.index,
                    symmetry=False, vote_states=counted_votes(uses))
    except Unsupported as exc:
        return Verdict(True, f"the encoding does not support this scenario (not compared): {exc}")
    covered = constructs(scenario, state, phase, completed, results, problems, trace.seen)
    pv = game.vars[0]
    fix = fix_choices(game, pv, completed, scenario, ties=True)
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
                       + f"; the encoding says {result.status}", covered)
    if result.status == "unsat":
        return Verdict(False, "legal for the interpreter, impossible for the encoding", covered)
    S1 = game.states[1]
    matches_ = []
    for st, report in results:
        fields_ = _state_fields(game, S1, st, report.winner, phase, state)
        match = z3.And([z3.And(parts) for parts in fields_.values()])
        matches_.append(match)
        r = ask(solver, match)
        if r.status != "sat":
            return Verdict(False, f"the encoding cannot reach the interpreter's outcome: {report.exits}"
                           + _differing(solver, fields_), covered)
    r = ask(solver, z3.Not(z3.Or(matches_)))
    if r.status == "sat":
        alive = [z3.is_true(model_of(r).eval(a, model_completion=True)) for a in S1.alive]
        nearest = min((_differs_in(model_of(r), _state_fields(game, S1, st, rep.winner, phase, state)) for st, rep in results),
                      key=len)
        return Verdict(False, f"the encoding reaches an outcome the interpreter does not: alive={alive}"
                       f"; it differs in {', '.join(nearest)}", covered)
    cycles = _cycles_differ(solver, pv, results)
    if cycles:
        return Verdict(False, cycles, covered)
    return Verdict(True, f"{len(results)} outcome(s) agree", covered)


def _cycles_differ(solver: z3.Solver, pv: PhaseVars, results: list[tuple[State, Report]]) -> str:
    """The block cycles of the phase (blocking.block_cycles, Resolver._block_cycles): the
    encoding's condition must hold exactly for the cycles the interpreter's hole names (its
    abilities and players, in ring order)."""
    def key(h: Hole) -> tuple:
        return holes.ring_abilities(h), h.seats

    def shown(k: tuple) -> str:
        return " → ".join(f"{a} by @{x + 1}" for a, x in zip(*k))
    said = {key(h) for _, report in results for h in report.holes if h.kind == holes.BLOCK_CYCLE}
    encoded = set()
    for cond, hole in pv.cycles:
        k = key(hole)
        encoded.add(k)
        r = ask(solver, z3.Not(cond) if k in said else cond)
        if r.status == "sat":
            return (f"the block cycle {shown(k)}: the interpreter {'reports' if k in said else 'does not report'}"
                    f" it, the encoding {'need not have' if k in said else 'can have'} it")
    missing = sorted(said - encoded)
    if missing:
        return f"the block cycle {shown(missing[0])}: the interpreter reports it, the encoding cannot"
    return ""


# Every field of `evaluate.State` that the encoding's state has; `settings`, `round`,
# `phase_index`, `events` and `dealt` have no counterpart there (they are given, or per phase).
STATE_FIELDS = ("alive", "role", "side", "left_by", "counters", "items", "memories", "uses",
                "self_uses", "uses_open", "last_targets", "pending", "delayed", "idle", "links",
                "revealed", "drawn", "winner", "readings")


def _state_fields(game: Game, S1: SymState, st: State, winner: str | None, phase: Phase | None = None,
                  before: State | None = None) -> dict[str, list]:
    """The encoding's next state equal to the interpreter's `st`, field by field (the same
    correspondence `Game._init` uses to start the encoding from a state)."""
    ids = game.ids
    ctx = game.ctx
    f: dict[str, list] = {name: [z3.BoolVal(True, ctx)] for name in STATE_FIELDS}
    for s in range(game.n):
        f["alive"].append(S1.alive[s] == st.alive[s])
        f["role"].append(S1.roles[s] == ids.roles.index(st.roles[s]))
        f["side"].append(S1.sides[s] == ids.value("side", st.sides[s]))
        f["left_by"].append(S1.left_by[s] == ids.value("kind", st.left_by[s]))
        f["revealed"].append(S1.revealed[s] == (s in st.revealed))
        f["drawn"].append(S1.drawn[s] == (s in st.drawn))
        f["links"].append(S1.links[s] == st.links.get(s, NONE))
        for c in game.counter_names:
            f["counters"].append(S1.counters[s][c] == st.counters[s].get(c, 0))
    for (item, s), var in S1.items.items():
        f["items"].append(var == ids.item_value((item, s) in st.items, st.items.get((item, s))))
    for m, seats in S1.memories_set.items():
        value = st.memories.get(m)
        members = value if isinstance(value, Container) else frozenset()  # a players memory: seats
        f["memories"] += [seats[s] == (s in members) for s in range(game.n)]
    for m, var in S1.memories_one.items():
        value = st.memories.get(m)
        f["memories"].append(var == (NONE if value is None else value))
    for m, var in S1.memories_int.items():
        value = st.memories.get(m)
        if value is not None:
            f["memories"].append(var == value)
    for name, table in (("uses", st.uses), ("self_uses", st.self_uses), ("uses_open", st.uses_open),
                        ("idle", st.idle)):
        for key, var in getattr(S1, name).items():
            f[name].append(var == table.get(key, 0))
    # The encoding keeps, per kind of phase, the targets of the previous phase of that kind
    # (none when it was not used then); the interpreter keeps the last use with its phase.
    # So in the phase just played, an ability has its targets of this phase, or none (none
    # too where it could not be used then); the other kinds keep what they had before it.
    played = (phase.kind, phase.number) if phase is not None else None
    for (a, k, kind), seats in S1.last_targets.items():
        last = st.last_targets.get((a, k))
        now = phase is not None and kind == phase.kind
        for s in range(game.n):
            if now:
                f["last_targets"].append(seats[s] == bool(last and last[0] == played and s in last[1]))
            else:  # unchanged by this phase: as `Game._init` read the state before it
                kept = game.start_last(before if before is not None else st, (a, k), kind)
                f["last_targets"].append(seats[s] == (s in kept))
    for (a, s, kind), var in S1.pending.items():
        f["pending"].append(var == ((a, s, kind) in st.pending))
    due: dict = {}
    for unit, count, body, env, source in st.delayed:
        try:
            due[game._slot_of(body, dict(env), source)] = (count, dict(env).get("target"))
        except Unsupported:
            f["delayed"].append(z3.BoolVal(False, ctx))  # a pending effect with no slot
    for key, var in S1.delayed_counts.items():
        count, target = due.get(key, (0, None))
        f["delayed"].append(var == count)
        if count > 0:  # the target of a countdown at 0 is not read
            f["delayed"].append(S1.delayed_targets[key] == (NONE if target is None else target))
    f["winner"].append(S1.winner == (ids.sides.index(winner) if winner else NONE))
    for (i, r), var in S1.readings.items():
        f["readings"].append(var == (i not in st.readings or r in st.readings[i]))
    return f


def _differs_in(model: z3.ModelRef, fields_: dict[str, list]) -> list[str]:
    return [name for name, parts in fields_.items()
            if not z3.is_true(model.eval(z3.And(parts), model_completion=True))]


def _differing(solver: z3.Solver, fields_: dict[str, list]) -> str:
    """Which fields the encoding cannot give the interpreter's values, the others held."""
    names = [name for name in fields_
             if ask(solver, z3.And([z3.And(p) for n, p in fields_.items() if n != name])).status == "sat"]
    return f"; it differs in {', '.join(names)}" if names else ""


def counted_votes(uses: list[BoundUse]) -> bool:
    """Whether a vote among the uses gives its count (`vote P with N`): its game must keep the
    state at the vote (Game's `vote_states`)."""
    return any(u.ability is None and u.votes is not None for u in uses)


def _tied(game: Game, pv: PhaseVars, u: BoundUse, scenario: Scenario) -> list:
    """A tied vote between the use's two players, and how the query says it came out."""
    a, b = sorted(u.targets)
    parts = [pv.vote_kind == 2, pv.tie[0] == a, pv.tie[1] == b]
    # The query's pick: the one the tie sends out (where the rules let it send one out: a tie
    # with nobody to break it is a hole whatever the pick), or a revote that ties again. A
    # pick the rule has no room for is illegal.
    rule = (scenario.day.tie_rule if scenario.day is not None else None) or TieRule("undecided")
    if pick_problem(rule, u.targets, u.pick, u.retie):
        parts.append(z3.BoolVal(False, game.ctx))
    elif u.pick is not None:
        # (`tie random` always sends the drawn one out: no tie effect is stated)
        tie = pv.tie_effect
        one = tie.one if isinstance(tie, TieEffect) else z3.BoolVal(True, game.ctx)
        parts.append(z3.Implies(one, pv.vote_target == u.pick))
        if pv.retie is not None:
            parts.append(z3.Not(pv.retie))
    elif u.retie:
        parts.append(pv.retie)
    return parts


def _counted_vote(game: Game, pv: PhaseVars, u: BoundUse, scenario: Scenario,
                  ties: bool) -> z3.BoolRef | None:
    """As Player._counted, on the state at the vote: a counted vote sends its player out (or
    goes to the tie rule) when its votes reach the quorum, or, for one player under `vote
    majority`, more than half the living's votes, and otherwise when it has a vote at all;
    short of it, nobody is voted out (and a pick of how a tie came out has nothing to
    settle). With no row of the quorum for the
    number alive the vote is given, and undecided. Numbers that contradict the result they
    name, or more votes than the living cast, are impossible. None: no counterpart."""
    ctx = game.ctx
    t = next(i for i, v in enumerate(game.vars) if v is pv)
    total = votes_at_vote(game, pv, game.states[t])  # the day starts in states[t]
    if total is None or (u.vote == "tie" and not (ties and len(u.targets) == 2)):
        return None
    if count_problem(u):
        return z3.BoolVal(False, ctx)
    day, n = scenario.day, u.votes
    if day is None or n is None:
        return None  # no vote of the day to count (fix_choices calls this for counts only)
    cast = n * len(u.targets) + sum(m for _, m in u.counts)
    if day.quorum is not None:
        needed, gap = present(quorum_at_vote(game, pv), "the quorum at the vote (a game built with vote_states)")
        reach = z3.Or(gap, needed <= n)
    elif u.vote == "player" and day.vote == "majority":
        reach = 2 * n > total
    else:
        # The most votes (`vote plurality`), or a tie under `vote majority`: a majority is
        # one player's, so a tie is the tie rule's; with no votes, nobody is voted out.
        reach = z3.BoolVal(n >= 1, ctx)
    if u.vote == "player":
        given = z3.And(pv.vote_kind == 1, pv.vote_target == u.targets[0])
    else:
        given = z3.And(_tied(game, pv, u, scenario))
    nobody = pv.vote_kind == 0 if u.pick is None and not u.retie else z3.BoolVal(False, ctx)
    return z3.And(cast <= total, z3.If(reach, given, nobody))


def fix_choices(game: Game, pv: PhaseVars, uses: list[BoundUse], scenario: Scenario,
                ties: bool = False) -> z3.BoolRef | None:
    """The encoding's choice variables fixed to the uses; None when a use has no variable.
    With `ties`, a tied vote too (kind 2 on the two players, whatever the tie rule; under
    `tie random` the encoding draws one of them)."""
    parts = []
    chosen: set[str | int] = set()  # "vote", and the id() of each use variable fixed
    ids = game.ids
    for u in uses:
        if u.ability is None:
            if pv.vote_kind is None:
                return None
            if u.votes is not None:
                counted = _counted_vote(game, pv, u, scenario, ties)
                if counted is None:
                    return None  # a count the game kept no state at the vote for
                parts.append(counted)
            elif u.vote == "player":
                parts += [pv.vote_kind == 1, pv.vote_target == u.targets[0]]
                if u.ballots is not None and pv.ballots is not None:  # who voted for him
                    parts += [pv.ballots[s] == (s in u.ballots) for s in range(game.n)]
            elif u.vote == "none":
                parts.append(pv.vote_kind == 0)
            elif u.vote == "tie" and ties and scenario.day is not None and len(u.targets) == 2:
                parts += _tied(game, pv, u, scenario)
            else:
                return None
            chosen.add("vote")
            continue
        ability = scenario.ability_by_key[u.ability]
        key = use_key(ability, u)[1]
        match = [v for v in pv.uses if v.ability.key == u.ability and v.key == key and id(v) not in chosen]
        if not match or len(u.targets) > len(match[0].targets) and ability.target_count is not None:
            return None
        # By day, the use at the moment the interpreter plays it (an ability of both moments
        # has one at each); with none at that moment, the encoding cannot make it.
        moment = use_moment(ability, pv.phase, u.moment)
        match = [v for v in match if not pv.phase.is_day or v.moment == moment]
        if not match:
            parts.append(z3.BoolVal(False, game.ctx))
            continue
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


def random_walk(scenario: Scenario, seats: tuple[str, ...], rng: random.Random, phases: int,
                choose: Chooser | None = None) -> list[tuple[State, Phase, list[BoundUse]]]:
    """A random game through the interpreter: the state before each phase, with the phase
    and its choices (`random_choices`, tried until the interpreter finds them legal; a
    random one of the outcomes goes on)."""
    from ..evaluate import initial_state

    choose = choose or random_choices
    state = initial_state(scenario, seats)
    seq = sequence(scenario, state, phases)
    player = Player(scenario)
    out: list[tuple[State, Phase, list[BoundUse]]] = []
    for phase in seq:
        before = state.clone()
        for _ in range(30):
            uses = choose(scenario, state, phase, rng)
            results, problems = player.play(state, phase, uses)
            if results and not problems:
                break
        else:
            uses = []
            results, _ = player.play(state, phase, uses)
        out.append((before, phase, uses))
        if not results:
            break
        # In an order that does not hang on the process's hash seed, so a seed is one walk.
        state, report = rng.choice(sorted(results, key=lambda r: repr(r[0].key())))
        if report.winner:
            break
    return out


# ------------------------------------------------------------------ coverage
# What a compared phase exercised, taken from the interpreter's run of it (the effects it
# applied, the predicates that held, its report) and from the choices and states, never from
# the spec's text alone: a trigger counts when it fired, a card when it was played, a delayed
# effect when it fell due, a rule when it decided something.

EFFECT_VERBS = ("kill", "save", "protect", "block", "unblock", "inquire", "convert", "reveal",
                "link", "revive", "give", "lose", "mark", "unmark", "consume", "set", "leave",
                "stay", "learn", "announce", "nothing", "unspecified", "draw", "cancel", "win")
# Verbs of the vocabulary no differential run can compare, with the reason (none today: the
# encoding once refused `win` and `cancel`).
NOT_COMPARABLE: dict[str, str] = {}
PREDICATES = ("kill", "save", "protect", "block", "blocked", "voted", "leaves", "targeted",
              "acted", "used", "idle", "chosen", "attacked_by")

# Every construct a differential run must cover, in the order the table prints them.
CONSTRUCTS = (
    tuple(f"effect {v}" for v in EFFECT_VERBS)
    + ("effect if/else", "effect after N (scheduled)", "delayed effect falls due")
    + tuple(f"predicate {p}" for p in PREDICATES)
    + ("round", "attribute plain", "appearance",
       "by role", "by team", "by moderator", "by holder", "by drawer (card)",
       "at night", "at day before vote", "at day after vote", "at intro phase",
       "at day before and after vote, used before", "at day before and after vote, used after",
       "target filter", "targets N", "choose role", "choose option", "choose variant",
       "when", "mandatory use", "mandatory use omitted (illegal)",
       "limit per game", "limit per night", "limit on self", "limit no repeat",
       "blocked uses count", "blocked uses do not count", "blocked uses unspecified",
       "trigger on kill immediately (night)", "trigger on leave immediately (night)",
       "trigger on leave immediately (day)", "trigger on voted immediately (day)",
       "trigger next phase (recorded)", "trigger next phase (played)",
       "card played at night", "card played after the vote",
       "team with leader", "team leader left, then any", "team without leader",
       "team member out (except)",
       "block then targeted", "block cycle of two", "block cycle of three or more", "conversion",
       "rule for", "rule unless", "rule overrides", "rule at", "rule acts in a later round",
       "delayed block or cancel falls due", "win declared by a blocking step",
       "vote exit", "vote none", "vote quorum", "vote weight",
       "tie no_exit", "tie random", "tie all_leave", "tie chosen", "tie revote",
       "exit required",
       "candidates", "win", "win readings disagree", "priority", "illegal choice")
)


class _Trace:
    """While the interpreter plays a phase: which effects it applied and which predicates
    held (by wrapping `Resolver.apply_one` and the evaluator; nothing is changed)."""

    def __enter__(self) -> _Trace:
        from .. import ast as A
        from ..evaluate import Evaluator
        from ..interpreter.resolution import Resolver, Scratch
        from ..vocabulary import is_blocking

        self.seen: set[tuple] = set()
        seen = self.seen
        self._saved = (Resolver.apply_one, Evaluator._call, Evaluator.value)
        apply_one, call, value = self._saved

        def traced_apply(resolver: Resolver, sc: Scratch, e: A.AnyEffect, env: dict, source: Any,
                         actor: int | None) -> Any:
            if isinstance(e, A.IfEffect):
                seen.add(("effect", "if"))
            elif isinstance(e, A.AfterEffect):
                seen.add(("effect", "after"))
            else:
                seen.add(("effect", e.verb))
                if e.verb == "win" and not isinstance(source, A.RuleDecl) and is_blocking(source.effects):
                    seen.add(("blocking win",))
            return apply_one(resolver, sc, e, env, source, actor)

        def traced_call(evaluator: Evaluator, e: A.Call, env: dict) -> Any:
            out = call(evaluator, e, env)
            # A predicate takes part when it holds; `idle` when it counts a phase; `chosen`
            # whenever a legality condition asks it (it forbids a choice by holding).
            if out is True or (e.func.key == "idle" and out) or e.func.key == "chosen":
                args = tuple(evaluator.value(a, env) for a in e.args)
                seen.add(("pred", e.func.key, args[1] if e.func.key == "targeted" else None))
            return out

        def traced_value(evaluator: Evaluator, e: A.Expr, env: dict) -> Any:
            out = value(evaluator, e, env)
            if type(e) is A.Ref and e.name.key == "round" and e.name.key not in env:
                seen.add(("round",))
            elif type(e) is A.Attr and e.attr.key in ("plain", "blocked") and out is True:
                seen.add(("pred", "blocked", None) if e.attr.key == "blocked" else ("plain",))
            return out

        # Set as attributes: the type checker takes a method assigned on its class for a mistake.
        setattr(Resolver, "apply_one", traced_apply)
        setattr(Evaluator, "_call", traced_call)
        setattr(Evaluator, "value", traced_value)
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        from ..evaluate import Evaluator
        from ..interpreter.resolution import Resolver

        for owner, name, saved in zip((Resolver, Evaluator, Evaluator), ("apply_one", "_call", "value"), self._saved):
            setattr(owner, name, saved)
        return False


def constructs(scenario: Scenario, state: State, phase: Phase, uses: list[BoundUse],
               results: list[tuple[State, Report]], problems: list[Problem], seen: set[tuple]) -> frozenset[str]:
    """The constructs of `CONSTRUCTS` that took part in one phase (see `compare`)."""
    from ..interpreter.legal import (listed_members, pending_for, phase_choices, team_decider,
                                     team_members, team_of)
    from ..vocabulary import is_blocking

    out: set[str] = set()
    choices = phase_choices(uses)
    for tag, *rest in seen:
        if tag == "effect":
            name = rest[0]
            out.add({"if": "effect if/else", "after": "effect after N (scheduled)"}.get(name, f"effect {name}"))
        elif tag == "pred":
            out.add(f"predicate {rest[0]}")
            if rest[0] == "targeted" and rest[1] in scenario.ability_by_key \
                    and is_blocking(scenario.ability_by_key[rest[1]].effects):
                out.add("block then targeted")
        elif tag == "round":
            out.add("round")
        elif tag == "plain":
            out.add("attribute plain")
        elif tag == "blocking win":
            out.add("win declared by a blocking step")
    if any(not p.hole for p in problems):  # illegal: what the legality checks read, no more
        out.add("illegal choice")
        if any("mandatory" in p.message or "must" in p.message for p in problems):
            out.add("mandatory use omitted (illegal)")
        return frozenset(out)
    reports = [rep for _, rep in results]
    after = [st for st, _ in results]
    if any(a != b for st in after for a, b in zip(state.roles, st.roles)) and "effect convert" in out:
        out.add("conversion")
    for unit, count, body, _, _ in state.delayed:
        if (unit == phase.kind or (unit == "round" and phase.kind == "night")) and count <= 1:
            out.add("delayed effect falls due")
            if is_blocking(body):
                out.add("delayed block or cancel falls due")
    for u in uses:
        if u.ability is None:
            out.add({"player": "vote exit", "none": "vote none"}.get(u.vote or "", "vote tie"))
            day = scenario.day
            if day is not None and u.vote != "none":
                if day.quorum is not None:
                    out.add("vote quorum")
                if day.weight is not None and u.vote == "player":
                    out.add("vote weight")
                if u.vote == "tie" and day.tie in ("no_exit", "random", "all_leave", "chosen", "revote"):
                    out.add(f"tie {day.tie}")
                if any(d is None or d == phase.number for d, _ in day.candidates):
                    out.add("candidates")
            if day is not None and day.exit_mode == "required":
                out.add("exit required")
            continue
        a = scenario.ability_by_key[u.ability]
        kind = a.actor.kind if a.actor is not None else "moderator"
        out.add("by drawer (card)" if a.is_card else f"by {kind}")
        if a.is_card:
            out.add("card played at night" if phase.is_night else "card played after the vote")
        for ref in a.phases:
            if matches(ref, phase, ref.moment):
                if phase.kind not in ("day", "night"):
                    out.add("at intro phase")
                elif phase.is_night:
                    out.add("at night")
        if phase.kind == "day" and day_moments(a, phase):
            # The moment the use was played at, of those its `at` names for the day.
            when = use_moment(a, phase, u.moment)
            out.add("at day after vote" if when == "after" else "at day before vote")
            if len(day_moments(a, phase)) > 1:
                out.add(f"at day before and after vote, used {when}")
        if a.target_filter is not None and u.targets:
            out.add("target filter")
        if a.target_count is not None and len(u.targets) > 1 or (
                a.actor is not None and a.actor.kind == "moderator" and u.targets):
            out.add("targets N")
        for ch in a.choices:
            if ch.kind in ("role", "option", "variant"):
                out.add(f"choose {ch.kind}")
        if a.conditions:
            out.add("when")
        if a.mandatory:
            out.add("mandatory use")
        for lim in a.limits:
            if lim.kind == "no_repeat":
                out.add("limit no repeat")
            elif lim.on_self:
                out.add("limit on self")
            else:
                out.add("limit per game" if lim.per is not None and lim.per.key == "game" else "limit per night")
        if any((u.ability, u.actor) in rep.blocked_uses for rep in reports):
            out.add({"count": "blocked uses count", "free": "blocked uses do not count",
                     "open": "blocked uses unspecified"}[a.blocked_uses])
        for t in a.triggers:
            if t.timing == "immediately" and any((u.ability, u.actor) in rep.fired_triggers
                                                 for rep in reports):
                where = "night" if phase.is_night else "day"
                out.add(f"trigger on {t.event.key} immediately ({where})")
            if t.timing == "next" and pending_for(state, a.key, u.actor, phase):
                out.add("trigger next phase (played)")
        team = team_of(scenario, a) if kind == "team" or a.for_team else None
        if team is not None:
            if not team.leaders:
                out.add("team without leader")
            elif any(state.alive[s] and state.roles[s] in team.leaders for s in range(len(state.roles))):
                out.add("team with leader")
            elif team.leader_fallback and team_decider(scenario, state, team, choices)[0] is not None:
                out.add("team leader left, then any")
            if team.except_when is not None and \
                    set(listed_members(state, team)) != set(team_members(scenario, state, team, choices)):
                out.add("team member out (except)")
    for rep in reports:
        for h in rep.holes:
            if h.kind == holes.BLOCK_CYCLE:
                out.add("block cycle of two" if len(h.seats) == 2 else "block cycle of three or more")
        if rep.due_next:
            out.add("trigger next phase (recorded)")
        if rep.winner:
            out.add("win")
        if rep.rule_rounds > 1:
            out.add("rule acts in a later round")
        if "priority" in rep.rules:
            out.add("priority")
        if any(r.startswith("when wins are checked") for r in rep.rules):
            out.add("win readings disagree")
        if any(" appears " in r for r in rep.rules):
            out.add("appearance")
        for rule in scenario.rules:
            if rule.name.text in rep.rules:
                if rule.variables:
                    out.add("rule for")
                if rule.unless:
                    out.add("rule unless")
                if rule.overrides:
                    out.add("rule overrides")
                if rule.at:
                    out.add("rule at")
    return frozenset(out)

