"""The game unrolled over a bounded number of phases, as Z3 constraints.

It follows the interpreter step by step (interpreter/resolution.py and play.py): the same
legality, the same three stages of a resolution, the same rules-with-exceptions deciding
exits, the same vote and win checks. Tests hold the two to agreement on generated games.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import z3

from .. import ast, holes
from ..evaluate import State, initial_state
from ..holes import Hole
from ..model import Ability, Scenario
from ..phases import Phase, matches, rule_applies_at, sequence
from ..vocabulary import (
    calls,
    decides_exits,
    flat,
    is_blocking,
    refers_to,
)
from .acting import acting_stage
from .blocking import MAX_READERS, blocking_stage
from .commit import commit
from .deaths import deaths
from .delayed import count_down, fall_due, owner_key
from .passes import Intents, Pass
from .ranges import Ranges
from .vote import vote_causes
from .roles import possible_roles
from .terms import (
    And,
    Compiler,
    Eq,
    Events,
    Ids,
    If,
    Implies,
    Not,
    Or,
    Seats,
    Unsupported,
    View,
    compare_op,
    count_of,
    number,
    pick,
    register_domain,
    truth,
)

NONE = -1


@dataclass(eq=False)
class Use:
    """One possible use in one phase: an ability by one actor (a seat, or -1 for a team or
    the moderator), with its choice variables."""

    ability: Ability
    key: int  # actor key as in the interpreter's use_key: seat, or -1
    used: z3.BoolRef
    actor: z3.ArithRef | int | None  # the acting seat (a term for teams), None for the moderator
    targets: list  # target seat terms
    count: z3.ArithRef | None  # how many of `targets` are chosen
    values: dict  # choice binding -> term
    moment: str | None
    env: dict | None = None
    blocked: z3.BoolRef | None = None  # used, and taken away by a block (for `blocked uses …`)
    void: z3.BoolRef | None = None  # made, but it takes no part: a team with nobody to decide

    @property
    def acts(self):
        """The use is made and takes part in the phase (as the interpreter's uses after it
        drops those no rule lets anybody decide)."""
        return self.used if self.void is None else And(self.used, Not(self.void))


@dataclass
class PhaseVars:
    phase: Phase
    uses: list[Use] = field(default_factory=list)
    vote_kind: z3.ArithRef | None = None  # 0 nobody, 1 a player, 2 a tie the rules leave open
    vote_target: z3.ArithRef | None = None
    tie: tuple = ()  # the two tied players, when vote_kind is 2
    order: z3.ArithRef | None = None
    perms: list = field(default_factory=list)
    undefined: list = field(default_factory=list)  # (condition, Hole)
    contradictions: list = field(default_factory=list)  # (condition, seat, leave rule, stay rule)
    overlap: z3.BoolRef | None = None
    winner: z3.ArithRef | None = None
    leaves: list = field(default_factory=list)  # per pass: [leave[s]]
    active: z3.BoolRef | None = None
    choice_free: list = field(default_factory=list)
    rule_hits: list = field(default_factory=list)  # (rule name, applies)
    perm_blocked: list = field(default_factory=list)  # per order of the blocking steps: blocked[s]
    # Uses of one blocking ability that block each other: (condition, ability, how many
    # consistent readings: "none" or "several"), for `ambiguous-resolution`
    mutual: list = field(default_factory=list)
    crowded: list = field(default_factory=list)  # blocking abilities with too many possible users
    checkpoint: dict | None = None  # the state right after the night's deaths (`after deaths`)
    fired: dict = field(default_factory=dict)  # id(use) -> its trigger has fired (uses that wait for one)
    choice_events: Events | None = None  # `chosen(p, A)` for legality conditions


class Game:
    """`length` phases of one composition, with settings fixed."""

    def __init__(self, scenario: Scenario, seats: tuple[str, ...], length: int,
                 settings: dict | None = None, ctx: z3.Context | None = None,
                 symmetry: bool = True, start: State | None = None, first_phase: int = 0,
                 free_start: bool = False, built: int | None = None):
        # free_start: the first state is any well-formed state (see _well_formed), not the
        # game's start; `start` then only fixes the settings and the phase sequence. For
        # induction proofs (encode/induction.py).
        self.sc = scenario
        self.seats = seats
        self.n = len(seats)
        self.ctx = ctx or z3.Context()
        self.ids = Ids(scenario)
        state0 = start if start is not None else initial_state(scenario, seats, settings)
        self.settings = dict(state0.settings)
        self.compiler = Compiler(self)
        self.constraints: list = []
        # Ranges of the integers (encode/ranges.py); `unranged` names those without one.
        self.ranges = Ranges()
        self.unranged: list[str] = []
        self.derived_ranges: list = []  # the constraints stating a state value's range (for tests)
        self.counter_names = sorted({c.key for r in scenario.roles for c in r.counters})
        all_phases = sequence(scenario, state0, first_phase + length)
        self.phases = all_phases[first_phase:first_phase + length]
        self._check_supported()
        # Per seat, the roles it can ever hold (encode/roles.py); until known, any role.
        self.roles_of = None
        self.roles_of = possible_roles(self, state0.roles)
        self.__dict__.pop("_slots", None)  # delay slots counted with every seat as an actor
        self.states = [self._state_vars(0)]
        if free_start:
            self._well_formed(self.states[0])
            self.unranged.append("a free start")
        else:
            mark = len(self.constraints)
            self._init(self.states[0], state0)
            # The start is known: its values are constants, folded into every term built on
            # them, rather than variables pinned by equations.
            pins = self.constraints[mark:]
            del self.constraints[mark:]
            self.states[0] = self._pinned(self.states[0], pins)
            if any(number(x) is None for x in _ints(self.states[0])):
                self.unranged.append("a start value that is not a constant")
        self.vars: list[PhaseVars] = []
        # marks[t]: how many constraints define the game up to phase t (inclusive), so a
        # solver can take the phases one at a time (incremental unrolling).
        self.marks: list[int] = []
        # built: how many phases to build now (the rest one at a time with `extend`, for a
        # question that may be answered before the last phase).
        for _ in range(len(self.phases) if built is None else min(built, len(self.phases))):
            self.extend()
        if symmetry and start is None and not free_start:
            assert len(self.vars) == len(self.phases), "symmetry breaking needs every phase built"
            self._break_symmetry()

    def extend(self) -> None:
        """Build the next phase (and the state after it)."""
        t = len(self.vars)
        nxt = self._state_vars(t + 1)
        self.states.append(nxt)
        self.vars.append(self._phase(t, self.phases[t], self.states[t], nxt))
        self.marks.append(len(self.constraints))

    # -------------------------------------------------------------- basics

    def B(self, v):
        return self.compiler.B(v)

    def I(self, v):
        return self.compiler.I(v)

    def bool(self, name):
        return z3.Bool(name, self.ctx)

    def int(self, name):
        return z3.Int(name, self.ctx)

    def ranged(self, name, lo: int, hi: int):
        """A choice variable with its domain: unconstrained values of an unused choice are
        as good as any, so the range is stated for every model, used or not."""
        v = self.int(name)
        self.add(And(v >= lo, v <= hi))
        self.ranges.declare(v, lo, hi)
        return v

    @property
    def restricted(self) -> str | None:
        """Why the game leaves out some legal play, or None: more than MAX_READERS players
        who could hold one blocking ability get one use of it a phase (_mutual_blocks). A
        game found is still a real game; "no game" is then no proof."""
        crowded = sorted({a.display for pv in self.vars for a in pv.crowded})
        if not crowded:
            return None
        return (f"the encoding lets only one player a phase use {', '.join(crowded)} (more than "
                f"{MAX_READERS} players could hold it)")

    @property
    def finite(self) -> bool:
        """Whether every integer of the game has a range (a finite-domain problem)."""
        return not self.unranged

    def add(self, c):
        if truth(c) is not True:  # constraints folded to `true` say nothing
            self.constraints.append(c)

    def _check_supported(self) -> None:
        sc = self.sc
        for a in sc.abilities:
            for e in flat(a.effects):
                if e.verb == "cancel":
                    raise Unsupported(f"the effect `{e.verb}`", e.span)
            for e in _walk_effects(a.effects):
                if isinstance(e, ast.AfterEffect):
                    if any(isinstance(x, ast.AfterEffect) for x in _walk_effects(e.body)):
                        raise Unsupported("delayed effects inside delayed effects", e.span)
                    if refers_to(e.body, "targets"):
                        raise Unsupported("delayed effects on a set of targets", e.span)
            if is_blocking(a.effects) and any(
                    not (e.verb in ("block", "unblock", "nothing", "kill", "save", "announce", "learn",
                                    "unspecified") or
                         (e.verb == "protect" and all(n.key == "block" for n in e.names)))
                    for e in flat(a.effects)):
                raise Unsupported("an ability that blocks and changes the state", a.span)
            for lim in a.limits:
                if lim.kind == "count" and not lim.on_self and lim.per.key != "game" and lim.count > 1:
                    raise Unsupported("more than one use per phase", lim.span)
            if a.blocked_uses != "count" and (is_blocking(a.effects) or a.triggers or a.is_card):
                raise Unsupported("`blocked uses …` on a blocking, triggered or card ability", a.span)
        for rule in sc.rules:
            for e in _walk_effects(rule.then):
                if isinstance(e, ast.AfterEffect) and (decides_exits(rule.then) or is_blocking(rule.then)):
                    raise Unsupported("delayed effects in rules that decide exits or block", rule.span)
        if sc.phases is None:
            raise Unsupported("a scenario without `phases`", sc.span)

    # -------------------------------------------------------------- state

    def _state_vars(self, t: int) -> dict:
        sc, n = self.sc, self.n
        p = f"t{t}_"
        st = {
            "alive": [self.bool(f"{p}alive{s}") for s in range(n)],
            "role": [self.int(f"{p}role{s}") for s in range(n)],
            "side": [self.int(f"{p}side{s}") for s in range(n)],
            "left_by": [self.int(f"{p}leftby{s}") for s in range(n)],
            "revealed": [self.bool(f"{p}revealed{s}") for s in range(n)],
            "drawn": [self.bool(f"{p}drawn{s}") for s in range(n)],
            "links": [self.int(f"{p}link{s}") for s in range(n)],
            "counters": [{c: self.int(f"{p}ctr_{c}_{s}") for c in self.counter_names} for s in range(n)],
            "items": {(i.name.key, s): self.int(f"{p}item_{i.name.key}_{s}") for i in sc.items for s in range(n)},
            "mset": {m.name.key: [self.bool(f"{p}mset_{m.name.key}_{s}") for s in range(n)]
                     for m in sc.memories if m.type == "players"},
            "mone": {m.name.key: self.int(f"{p}mone_{m.name.key}") for m in sc.memories if m.type == "player"},
            "mint": {m.name.key: self.int(f"{p}mint_{m.name.key}") for m in sc.memories if m.type == "int"},
            "uses": {}, "self_uses": {}, "last": {}, "pending": {}, "uses_open": {},
            "winner": self.int(f"{p}winner"),
            "delay": {}, "delay_target": {},
            # (win index, reading) -> still consistent with the game: wins with several readings
            "readings": {(i, r): self.bool(f"{p}reading_{i}_{r}")
                         for i, w in enumerate(sc.wins) for r in range(len(sc.win_readings(w)))
                         if len(sc.win_readings(w)) > 1},
        }
        for a, index, key, e in self.delay_slots():
            owner = owner_key(a)
            tag = "_".join(map(str, key)) if isinstance(key, tuple) else key
            st["delay"][(owner, index, key)] = self.int(f"{p}delay_{owner}_{index}_{tag}")
            st["delay_target"][(owner, index, key)] = self.int(f"{p}delaytgt_{owner}_{index}_{tag}")
        # `idle(p, A)`: per player, A's phases in a row with no use of it by him
        st["idle"] = {(a, s): self.int(f"{p}idle_{a}_{s}") for a in sc.idle_abilities for s in range(n)}
        for a in sc.abilities:
            for key in self.actor_keys(a):
                st["uses"][(a.key, key)] = self.int(f"{p}uses_{a.key}_{key}")
                st["self_uses"][(a.key, key)] = self.int(f"{p}selfuses_{a.key}_{key}")
                if a.blocked_uses == "open":
                    st["uses_open"][(a.key, key)] = self.int(f"{p}usesopen_{a.key}_{key}")
                    st["uses_open"][("self", a.key, key)] = self.int(f"{p}selfopen_{a.key}_{key}")
                for kind in sorted({r.phase.key for r in a.phases}):
                    st["last"][(a.key, key, kind)] = [self.bool(f"{p}last_{a.key}_{key}_{kind}_{s}") for s in range(n)]
            for trig in a.triggers:
                if trig.timing == "next":
                    for s in self.actor_keys(a):
                        kind = trig.timing_phase.key
                        st["pending"][(a.key, s, kind)] = self.bool(f"{p}pend_{a.key}_{s}_{kind}")
        return st

    def _init(self, st: dict, state0: State) -> None:
        ids = self.ids
        for s in range(self.n):
            self.add(st["alive"][s] == state0.alive[s])
            self.add(st["role"][s] == ids.roles.index(state0.roles[s]))
            self.add(st["side"][s] == ids.value("side", state0.sides[s]))
            self.add(st["left_by"][s] == ids.value("kind", state0.left_by[s]))
            self.add(st["revealed"][s] == (s in state0.revealed))
            self.add(st["drawn"][s] == (s in state0.drawn))
            self.add(st["links"][s] == state0.links.get(s, NONE))
            for c in self.counter_names:
                self.add(st["counters"][s][c] == state0.counters[s].get(c, 0))
        for (item, s), var in st["items"].items():
            variant = state0.items.get((item, s))
            self.add(var == (ids.value("variant", variant) if variant else NONE))
        for m, seats in st["mset"].items():
            members = state0.memories.get(m) or frozenset()
            for s in range(self.n):
                self.add(seats[s] == (s in members))
        for m, var in st["mone"].items():
            value = state0.memories.get(m)
            self.add(var == (NONE if value is None else value))
        for m, var in st["mint"].items():
            value = state0.memories.get(m)
            if value is None:
                raise Unsupported(f"a number memory without a starting value ({m})")
            self.add(var == value)
        for key, var in st["uses"].items():
            self.add(var == state0.uses.get(key, 0))
        for key, var in st["self_uses"].items():
            self.add(var == state0.self_uses.get(key, 0))
        for key, var in st["uses_open"].items():
            self.add(var == state0.uses_open.get(key, 0))
        for key, var in st["idle"].items():
            self.add(var == state0.idle.get(key, 0))
        for (a, k, kind), seats in st["last"].items():
            for s in range(self.n):
                self.add(Not(seats[s]) if not state0.last_targets.get((a, k)) else
                         seats[s] == (state0.last_targets[(a, k)][0][0] == kind and s in state0.last_targets[(a, k)][1]))
        for (a, s, kind), var in st["pending"].items():
            self.add(var == ((a, s, kind) in state0.pending))
        self.add(st["winner"] == NONE)
        for (i, r), var in st["readings"].items():
            self.add(var == (i not in state0.readings or r in state0.readings[i]))
        start = {}
        for unit, count, body, env, source in state0.delayed:
            start[self._slot_of(body, dict(env), source)] = (count, dict(env).get("target"))
        for key, var in st["delay"].items():
            count, target = start.get(key, (0, None))
            self.add(var == count)
            self.add(st["delay_target"][key] == (NONE if target is None else target))

    def delay_slots(self):
        """Every `after N …:` in an ability, per acting player: a countdown in the state."""
        if not hasattr(self, "_slots"):
            slots = []
            for a in self.sc.abilities:
                for index, e in enumerate(x for x in _walk_effects(a.effects) if isinstance(x, ast.AfterEffect)):
                    for key in self.actor_keys(a):
                        slots.append((a, index, key, e))
            # In rules, one slot per binding of the rule's variables.
            for rule in self.sc.rules:
                for index, e in enumerate(x for x in _walk_effects(rule.then) if isinstance(x, ast.AfterEffect)):
                    for combo in itertools.product(range(self.n), repeat=len(rule.variables)):
                        slots.append((rule, index, combo, e))
            self._slots = slots
        return self._slots

    def _slot_of(self, body, env: dict, source: str):
        """The countdown slot of a pending `after …` effect carried in a starting state."""
        for owner, index, key, e in self.delay_slots():
            if owner_key(owner) != source or e.body is not body:
                continue
            if isinstance(owner, ast.RuleDecl):
                if key == tuple(env.get(v.key) for v in owner.variables):
                    return (source, index, key)
            elif key == NONE or key == env.get("actor"):
                return (source, index, key)
        raise Unsupported("a pending delayed effect the encoding cannot place")

    def actor_keys(self, a: Ability) -> list[int]:
        """The seats that can ever use an ability: those dealt one of its roles, or any seat
        when some effect converts players to one of them (or the ability follows an item)."""
        if a.is_card:
            return list(range(self.n))
        if a.actor is None or a.actor.kind in ("team", "moderator"):
            return [NONE]
        if a.actor.kind != "role":
            return list(range(self.n))
        roles = {r.key for r in (a.actor.roles or (a.actor.name,))}
        if self.roles_of is None:
            return list(range(self.n))
        return [s for s in range(self.n) if roles & self.roles_of[s]]

    # -------------------------------------------------------------- one phase

    def _phase(self, t: int, phase: Phase, S: dict, S2: dict) -> PhaseVars:
        pv = PhaseVars(phase)
        pv.active = Eq(S["winner"], NONE)
        # As Player.play: `round` is the number of the day or night being played (0 in the
        # opening phases), seen by every expression of the phase.
        S = {**S, "round": self.I(phase.number if phase.kind in ("day", "night") else 0)}
        view0 = View(self, S, Events(self.ctx), {"__holes": []})
        moments = [None] if phase.is_night else ["before", "after"]
        for moment in moments:
            for a in self.sc.abilities:
                if (a.is_card and not a.phases) or not self._usable_in(a, phase, moment):
                    continue
                for key in self.actor_keys(a):
                    pv.uses.append(self._use_vars(t, a, key, moment, S, phase))
        if phase.kind == "day":
            for a in self.sc.abilities:
                if a.is_card and not a.phases:
                    for key in self.actor_keys(a):
                        pv.uses.append(self._use_vars(t, a, key, "vote", S, phase))
        if phase.kind == "day" and self.sc.day is not None and self.sc.day.vote is not None:
            pv.vote_kind = self.ranged(f"t{t}_votekind", 0, 2)
            pv.vote_target = self.ranged(f"t{t}_votetarget", NONE, self.n - 1)
            pv.tie = (self.ranged(f"t{t}_tie0", NONE, self.n - 1), self.ranged(f"t{t}_tie1", NONE, self.n - 1))
            self._vote_legal(pv, S, phase, view0)
        for u in pv.uses:
            self.add(Implies(u.used, pv.active))
            self._legal(u, pv, S, phase, view0)
        self._team_once(pv)
        self._card_once(pv)
        cur, due = count_down(self, S, phase)
        # As Player.play: a use of an ability that acts only on its trigger waits for the
        # resolution of the phase in which the trigger happens; pv.fired says when it did.
        waiting = [u for u in pv.uses if self.on_trigger_only(u.ability, phase)]
        pv.fired = {id(u): self.B(False) for u in waiting}
        if phase.is_night:
            cur = self._pass(t, "n", pv, cur, [u for u in pv.uses], None, due=due)
        else:
            cur = self._pass(t, "b", pv, cur, [u for u in pv.uses if u.moment == "before"], None,
                             due=due)
            if pv.vote_kind is not None:
                cur = self._pass(t, "v", pv, cur, [u for u in pv.uses if u.moment == "vote"] + waiting, pv)
            cur = self._pass(t, "a", pv, cur, [u for u in pv.uses if u.moment == "after"] + waiting, None)
        for flag in view0.env["__holes"]:
            pv.undefined.append((flag, Hole(holes.NO_ROW, "a table with no row for this case")))
        cur = self._bookkeep(pv, S, cur, phase)
        winner, overlap = self._wins(cur, phase, pv, S, t)
        cur = dict(cur)
        cur["winner"] = winner
        pv.winner = winner
        pv.overlap = overlap
        self._equate(S2, cur, S, pv.active)
        return pv

    def _usable_in(self, a: Ability, phase: Phase, moment) -> bool:
        for ref in a.phases:
            if matches(ref, phase, moment):
                return True
        for trig in a.triggers:
            if trig.timing == "next" and trig.timing_phase.key == phase.kind and moment in (None, "before"):
                return True
            if trig.timing == "immediately" and moment in (None, "before"):
                return True
        return False

    def _max_targets(self, a: Ability) -> int:
        return max_targets(a)

    def _choice_range(self, c) -> tuple[int, int] | None:
        """The values a `choose` can take (or nobody/nothing), as _legal allows them."""
        ids = self.ids
        if c.kind == "variant":
            values = [ids.value("variant", x) for x in ids.variants[c.names[0].key]]
        elif c.kind == "option":
            values = [ids.value("option", nm.key) for nm in c.names]
        elif c.kind == "player":
            values = [self.n - 1]
        elif c.kind in ("role", "side"):
            values = [len(ids.roles) - 1 if c.kind == "role" else len(ids.sides) - 1]
        else:
            return None
        return (min(values + [NONE]), max(values))

    def _unranged(self, name):
        self.unranged.append(name)
        return self.int(name)

    def _use_vars(self, t, a: Ability, key: int, moment, S, phase) -> Use:
        p = f"t{t}_{a.key}_{key}_"
        used = self.bool(p + "used")
        actor = None
        if a.actor is not None and a.actor.kind == "team":
            actor = self.ranged(p + "actor", NONE, self.n - 1)
        elif key != NONE:
            actor = key
        most = self._max_targets(a)
        targets = [self.ranged(p + f"tgt{j}", NONE, self.n - 1) for j in range(most)]
        count = self.ranged(p + "count", 0, most) if a.target_count is not None else None
        values = {}
        for c in a.choices:
            span = self._choice_range(c)
            name = p + f"val_{c.binds.key}"
            values[c.binds.key] = self.ranged(name, *span) if span else self._unranged(name)
        return Use(a, key, used, actor, targets, count, values, moment)

    # -------------------------------------------------------------- legality

    def env_of(self, u: Use) -> dict:
        if u.env is not None:
            return u.env
        env = {"actor": u.actor if u.actor is not None else self.I(NONE)}
        if u.targets:
            env["target"] = u.targets[0]
            env["targets"] = Seats([Or([And(j < u.count, tj == s) for j, tj in enumerate(u.targets)])
                                    for s in range(self.n)])
        env.update(u.values)
        u.env = env
        return env

    def _team(self, a: Ability):
        key = a.for_team or (a.actor.name.key if a.actor and a.actor.kind == "team" else None)
        return next((t for t in self.sc.teams if t.key == key), None)

    def _member(self, team, S, s):
        ids = self.ids
        conds = []
        if team.members_side:
            conds.append(Eq(S["side"][s], ids.sides.index(team.members_side)))
        for r in team.members:
            conds.append(Eq(S["role"][s], ids.roles.index(r)))
        return Or(conds) if conds else self.B(False)

    def _decider(self, team, S):
        """(decider exists, allowed(seat)) for a team, as in legal.team_decider."""
        ids = self.ids
        living = [And(self._member(team, S, s), S["alive"][s]) for s in range(self.n)]
        leader_alive = []
        allowed_by_leader = []
        for leader in team.leaders:
            rid = ids.roles.index(leader)
            has = [And(living[s], Eq(S["role"][s], rid)) for s in range(self.n)]
            leader_alive.append(Or(has))
            # The lowest seat with this leader's role, when no earlier leader is alive.
            first = [And(has[s], *[Not(has[j]) for j in range(s)]) for s in range(self.n)]
            allowed_by_leader.append(first)
        any_leader = Or(leader_alive) if leader_alive else self.B(False)
        fallback = not team.leaders or team.leader_fallback
        exists = Or(any_leader, Or(living)) if fallback else any_leader

        def allowed(seat_index):
            options = []
            for i, first in enumerate(allowed_by_leader):
                earlier = [Not(x) for x in leader_alive[:i]]
                options.append(And(*earlier, leader_alive[i], first[seat_index]))
            if fallback:
                options.append(And(Not(any_leader), living[seat_index]))
            return Or(options) if options else self.B(False)
        return exists, allowed

    def _legal(self, u: Use, pv: PhaseVars, S: dict, phase: Phase, view0: View) -> None:
        conds, table_gaps, open_limits = self._legality(u, pv, S, phase)
        for hole in table_gaps:
            pv.undefined.append((And(u.used, hole), Hole(holes.NO_ROW, f"{u.ability.display}: a table "
                                                         "with no row for this case", u.ability.key)))
        for cond, why in open_limits:
            pv.undefined.append((And(pv.active, u.used, cond), Hole(holes.OPEN_LIMIT, why, u.ability.key)))
        self.add(Implies(u.used, And(conds)))
        if u.ability.mandatory:
            self._obligation(u, pv, S, phase)

    def _obligation(self, u: Use, pv: PhaseVars, S: dict, phase: Phase) -> None:
        """As interpreter/obligations.py: a mandatory use must be made whenever some choice of
        targets and values would be legal (with none legal, the obligation lapses). Each
        candidate use is the legality of the use with constants for its choices, so the
        conditions fold; a team's decider is left to the team's own legality."""
        a = u.ability
        n = self.n
        counts = [0]
        if a.target_count is not None:
            most = len(u.targets)
            counts = list(range(1, most + 1))
        domains = [self._choice_values(ch) for ch in a.choices]
        actor = u.actor
        if a.actor is not None and a.actor.kind == "team":
            # The team's decider, as the interpreter's default actor: the first allowed seat.
            _, allowed = self._decider(self._team(a), S)
            actor = self.I(NONE)
            for seat in range(n - 1, -1, -1):
                actor = If(allowed(seat), self.I(seat), actor)
        options = []
        for count in counts:
            for targets in itertools.combinations(range(n), count):
                for values in itertools.product(*domains):
                    if len(options) >= self.MAX_OBLIGATION_CANDIDATES:
                        raise Unsupported(f"a mandatory ability with more than "
                                          f"{self.MAX_OBLIGATION_CANDIDATES} possible uses", a.span)
                    shadow = Use(a, u.key, self.B(True), actor,
                                 [self.I(t) for t in targets] + [self.I(NONE)] * (len(u.targets) - count),
                                 self.I(count) if u.count is not None else None,
                                 {ch.binds.key: self.I(v) for ch, v in zip(a.choices, values)}, u.moment)
                    conds, _, _ = self._legality(shadow, pv, S, phase, original=u)
                    options.append(And(conds))
        legal = Or(options) if options else self.B(False)
        team = self._team(a)
        if team is not None and a.key in team.options:
            # A team's one action: any of its options meets the obligation.
            made = Or([x.used for x in pv.uses if x.ability.key in team.options])
        else:
            made = u.used
        self.add(Implies(And(pv.active, legal), made))

    MAX_OBLIGATION_CANDIDATES = 5000

    def _choice_values(self, c) -> list[int]:
        ids = self.ids
        if c.kind == "variant":
            return [ids.value("variant", x) for x in ids.variants[c.names[0].key]]
        if c.kind == "option":
            return [ids.value("option", nm.key) for nm in c.names]
        if c.kind == "player":
            return list(range(self.n))
        return list(range(len(ids.roles) if c.kind == "role" else len(ids.sides)))

    def _legality(self, u: Use, pv: PhaseVars, S: dict, phase: Phase, original: Use | None = None):
        """(the conditions for u's choices to be legal, the table holes they met, the open
        limits as (condition, why)). `original`: for a candidate use standing in for one of
        the phase's uses (an obligation), the use it stands for, which is not one of the
        others that could trigger it."""
        a = u.ability
        c = self.compiler
        conds = []
        ids = self.ids
        n = self.n
        in_phase = any(matches(ref, phase, u.moment if phase.is_day else None) for ref in a.phases)
        if a.is_card:
            # As the interpreter: a card is played by a player holding one, or by today's
            # voted player (who draws it at the vote; the resolution checks the draw).
            voted_today = And(pv.vote_kind == 1, pv.vote_target == u.key) \
                if pv.vote_kind is not None else self.B(False)
            in_phase = True
            conds.append(Or(S["drawn"][u.key], voted_today))
        immediate = [t for t in a.triggers if t.timing == "immediately"]
        trigger_ok = self._trigger_possible(original or u, pv, immediate) if immediate else self.B(False)
        pend = S["pending"].get((a.key, u.key, phase.kind), self.B(False)) if u.key != NONE else self.B(False)
        conds.append(Or(self.B(in_phase), pend, trigger_ok))
        if a.actor is not None and a.actor.kind == "role":
            roles = [ids.roles.index(r.key) for r in (a.actor.roles or (a.actor.name,))] \
                if a.actor.roles else [ids.roles.index(a.actor.name.key)]
            conds.append(Or([Eq(S["role"][u.key], r) for r in roles]))
            conds.append(Or(S["alive"][u.key], pend, trigger_ok))
        elif a.actor is not None and a.actor.kind == "team":
            team = self._team(a)
            exists, allowed = self._decider(team, S)
            conds.append(And(u.actor >= 0, u.actor < n))
            if team.leaders and not team.leader_fallback and original is None:
                # As legal.check: with every leader gone and no fallback, the rules name
                # nobody to decide; a use named by a living member is a hole, and takes no
                # part in the phase.
                living = [And(self._member(team, S, s), S["alive"][s]) for s in range(n)]
                conds.append(Or([And(u.actor == s, Or(allowed(s), And(Not(exists), living[s])))
                                 for s in range(n)]))
                u.void = Not(exists)
                pv.undefined.append((And(pv.active, u.used, u.void), Hole(
                    holes.LEADERLESS, f"who decides for team {team.key} once its leaders have left "
                    "(the rules name nobody)", team.key)))
            else:
                conds.append(exists)
                conds.append(Or([And(u.actor == s, allowed(s)) for s in range(n)]))
        elif a.actor is not None and a.actor.kind == "holder":
            conds.append(compare_op(">=", S["items"][(a.actor.name.key, u.key)], 0))
            conds.append(S["alive"][u.key])
        if a.for_team and u.key != NONE:
            conds.append(self._member(self._team(a), S, u.key))
        env = self.env_of(u)
        table_gaps: list = []
        open_limits: list = []
        view = View(self, S, self._choice_events(pv), {**env, "__holes": table_gaps})
        for choice in a.choices:
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
        if a.target_count is not None:
            before = len(table_gaps)
            count = c.value(a.target_count, view)
            gap = Or(table_gaps[before:]) if len(table_gaps) > before else self.B(False)
            most = len(u.targets)
            if a.target_up_to:
                ok = And(u.count >= 1, u.count <= count)
            else:
                ok = u.count == count
            # A table with no row for this case: the rules give no number (a hole, as in the
            # interpreter, which then takes the choice as given).
            conds.append(Or(ok, And(gap, u.count >= 1, u.count <= most)))
            for j, tj in enumerate(u.targets):
                chosen = j < u.count
                conds.append(Implies(chosen, And(tj >= 0, tj < n)))
                conds.append(Implies(Not(chosen), tj == NONE))
                for i in range(j):
                    conds.append(Implies(chosen, tj != u.targets[i]))
                if a.target_filter is not None:
                    ok = c.value(a.target_filter, view.with_env(target=tj))
                    conds.append(Implies(chosen, ok))
        for cond in a.conditions:
            conds.append(c.value(cond, view))
        ukey = (a.key, u.key)
        targets_set = env.get("targets")
        for lim in a.limits:
            if lim.kind == "no_repeat":
                last = S["last"].get((a.key, u.key, phase.kind))
                if last is not None and targets_set is not None:
                    conds.append(Not(Or([And(last[s], targets_set.member[s]) for s in range(n)])))
                continue
            open_ = a.blocked_uses == "open"
            why = f"{a.display}: whether its blocked use counts against its limit ({a.blocked_why})"
            if lim.on_self:
                if targets_set is not None and u.actor is not None:
                    on_self = targets_set.contains(u.actor)
                    done = S["self_uses"][ukey]
                    if open_:
                        conds.append(Implies(on_self, done - S["uses_open"][("self",) + ukey] < lim.count))
                        open_limits.append((And(on_self, done >= lim.count), why))
                    else:
                        conds.append(Implies(on_self, done < lim.count))
                continue
            if lim.per.key == "game":
                if open_:
                    conds.append(S["uses"][ukey] - S["uses_open"][ukey] < lim.count)
                    open_limits.append((S["uses"][ukey] >= lim.count, why))
                else:
                    conds.append(S["uses"][ukey] < lim.count)
        return conds, table_gaps, open_limits

    def _choice_events(self, pv: PhaseVars) -> Events:
        """What legality conditions see: `chosen(p, A)`, whom the phase's uses of A name."""
        if pv.choice_events is None:
            pv.choice_events = Events(self.ctx)
            if self._reads_choices():
                for v in pv.uses:
                    targets = self.env_of(v).get("targets")
                    if targets is not None:
                        for s in range(self.n):
                            pv.choice_events.add(("chosen", s, v.ability.key),
                                                 And(v.used, targets.member[s]))
        return pv.choice_events

    def _reads_choices(self) -> bool:
        if not hasattr(self, "_chosen_read"):
            exprs = [x for a in self.sc.abilities for x in (a.target_filter, *a.conditions) if x is not None]
            self._chosen_read = any(calls(x, "chosen") for x in exprs)
        return self._chosen_read

    def _trigger_possible(self, u: Use, pv: PhaseVars, triggers) -> z3.BoolRef:
        """As play._can_trigger_now: another use that can attack this user (or, for
        `on leave`, anything that can remove someone)."""
        options = []
        for t in triggers:
            kinds = {n.key for n in t.by}
            for other in pv.uses:
                if other is u:
                    continue
                hits = any(e.verb == "kill" and (not kinds or e.name.key in kinds) for e in flat(other.ability.effects))
                if not hits:
                    continue
                if t.event.key == "kill" and u.key != NONE:
                    options.append(And(other.used, Or([And(j < other.count, tj == u.key)
                                                             for j, tj in enumerate(other.targets)])))
                if t.event.key == "leave":
                    options.append(other.used)
            # The day's vote on this user: it can remove him (`on leave`, by vote or any
            # means), and it is the event of `on voted`.
            if pv.vote_kind is not None and u.key != NONE and (
                    t.event.key == "voted" or (t.event.key == "leave" and (not kinds or "vote" in kinds))):
                options.append(And(pv.vote_kind == 1, pv.vote_target == u.key))
        return Or(options) if options else self.B(False)

    def _card_once(self, pv: PhaseVars) -> None:
        """As legal.check: a card is one object, played by one player in a phase."""
        for a in self.sc.abilities:
            if a.is_card:
                flags = [u.used for u in pv.uses if u.ability.key == a.key]
                if len(flags) > 1:
                    self.add(compare_op("<=", count_of(flags, self.ctx), 1))

    def _team_once(self, pv: PhaseVars) -> None:
        for team in self.sc.teams:
            if not team.options:
                continue
            flags = [u.used for u in pv.uses if u.ability.key in team.options]
            if len(flags) > 1:
                self.add(compare_op("<=", count_of(flags, self.ctx), 1))

    def _vote_legal(self, pv: PhaseVars, S: dict, phase: Phase, view0: View) -> None:
        day = self.sc.day
        k, x = pv.vote_kind, pv.vote_target
        tie_open = day.tie not in ("no_exit", "random", "all_leave")
        self.add(Or(k == 0, k == 1, And(k == 2, self.B(tie_open))))
        self.add(Implies(Not(pv.active), k == 0))
        if day.exit_mode == "required":
            self.add(Implies(pv.active, k != 0))  # a day after the game has ended is not played
        self.add(Implies(k == 1, And(x >= 0, x < self.n, pick(x, S["alive"]))))
        self.add(Implies(k != 1, x == NONE))
        a, b = pv.tie
        self.add(Implies(k == 2, And(a >= 0, a < b, b < self.n, pick(a, S["alive"]), pick(b, S["alive"]))))
        for on_day, flt in day.candidates:
            if on_day is not None and on_day != phase.number:
                continue
            for who, kinds in ((x, (1,)), (a, (2,)), (b, (2,))):
                ok = self.compiler.value(flt, View(self, S, Events(self.ctx), {"candidate": who, "__holes": []}))
                self.add(Implies(Or([k == kd for kd in kinds]), ok))
        if k is not None:
            pv.undefined.append((And(pv.active, k == 2), Hole(holes.TIE, "what a tied vote does", holes.DAY)))

    # -------------------------------------------------------------- resolution

    def _pass(self, t, tag, pv: PhaseVars, S: dict, uses: list[Use], vote: PhaseVars | None,
              gate: dict | None = None, due=()) -> dict:
        """One resolution (a night, or one moment of a day), in the interpreter's stages:
        effects falling due, the vote, the blocking steps in every open order, the other steps
        together, the deaths, the state after them. Returns that state.

        Abilities triggered at once by their user's exit (`on leave by gun immediately`) act
        in a second resolution right after this one, as in the interpreter."""
        if gate is None:
            return self._pass_and_what_exits_set_off(t, tag, pv, S, uses, vote, due)
        # A pass that exits set off keeps the phase's saves and protections (as
        # Player._after_leaving).
        intents = Intents(defenses=list(S.get("__defenses", ())) if tag.endswith("2") else [])
        p = Pass(self, t, tag, pv, S, Events(self.ctx), intents)
        for u in uses:  # `acted(p, A)`: a choice made this phase, taken effect or not
            if u.actor is not None:
                for s in range(self.n):  # a team's use counts for every player
                    p.event(("acted", s, u.ability.key),
                            And(u.acts, Eq(u.actor, s, self.ctx) if not _team_use(u) else self.B(True)))
        fall_due(p, due)
        if vote is not None:
            vote_causes(p, vote)  # its cause is there before any step, as in the interpreter
        blocked = blocking_stage(p, uses)
        acting_stage(p, uses, blocked, gate)
        leave, kind_of, rule_hits = deaths(p)
        return commit(p, leave, kind_of, rule_hits)

    def _pass_and_what_exits_set_off(self, t, tag, pv: PhaseVars, S: dict, uses: list[Use],
                                     vote: PhaseVars | None, due) -> dict:
        gate = {}
        later = []
        for u in uses:
            if self.leave_triggered(u.ability) and not any(
                    matches(r, pv.phase, u.moment) for r in u.ability.phases):
                gate[u] = S["pending"].get((u.ability.key, u.key, pv.phase.kind), self.B(False))
                later.append(u)
        st = self._pass(t, tag, pv, S, uses, vote, gate, due)
        if not later:
            return st
        fired = {}
        for u in later:
            before = pv.fired.get(id(u), self.B(False))
            fired[u] = And(Not(gate[u]), Not(before), self.left_by_trigger(u, S, pv.leaves[-1], st))
            if id(u) in pv.fired:
                pv.fired[id(u)] = Or(before, And(u.used, fired[u]))
        return self._pass(t, tag + "2", pv, st, later, None, fired)
    def bindings(self, rule, state, events, no_leaves: bool = False):
        """Each binding of a rule's variables to seats, with the condition under which the
        rule applies then (`if …` and not any `unless …`), as the interpreter's
        Resolver.applicable does."""
        for combo in itertools.product(range(self.n), repeat=len(rule.variables)):
            env = {v.key: s for v, s in zip(rule.variables, combo)}
            cond, view = self.applies(rule, env, state, events, no_leaves)
            yield combo, env, cond, view

    def applies(self, rule, env: dict, state, events, no_leaves: bool = False):
        """(when the rule applies under this binding, the view it was judged in)."""
        view = View(self, state, events, {**env, "__holes": [], "__no_leaves": no_leaves})
        cond = self.compiler.value(rule.cond, view)
        for unless in rule.unless:
            cond = And(cond, Not(self.compiler.value(unless, view)))
        return cond, view

    def leave_triggered(self, a: Ability) -> bool:
        return any(t.event.key == "leave" and t.timing == "immediately" for t in a.triggers)

    def left_by_trigger(self, u: Use, S, leave, st) -> z3.BoolRef:
        """Whether this pass removed the use's actor in a way its trigger names."""
        if u.key == NONE:
            return self.B(False)
        options = []
        for t in u.ability.triggers:
            if t.event.key != "leave" or t.timing != "immediately":
                continue
            kinds = [self.ids.value("kind", nm.key) for nm in t.by]
            options.append(And(leave[u.key], Or([Eq(st["left_by"][u.key], k) for k in kinds])
                                  if kinds else self.B(True)))
        return Or(options) if options else self.B(False)

    def on_trigger_only(self, a: Ability, phase: Phase) -> bool:
        """As Player._on_trigger_only: an ability that acts only when its trigger happens."""
        return not a.is_card and any(t.timing == "immediately" for t in a.triggers) \
            and not any(r.phase.key == phase.kind for r in a.phases)

    def trigger_hit(self, u: Use, events: Events) -> z3.BoolRef:
        """Whether this pass's events trigger the use: an attack of a kind its `on kill`
        names on its user, or the vote on him (`on voted`)."""
        F = self.B(False)
        parts = []
        for tr in u.ability.triggers:
            if tr.timing != "immediately" or u.key == NONE:
                continue
            if tr.event.key == "kill":
                kinds = sorted({nm.key for nm in tr.by}) or self.ids.kinds
                parts += [events.get(("kill", u.key, k), F) for k in kinds]
            elif tr.event.key == "voted":
                parts.append(events.get(("voted", u.key), F))
        return Or(parts) if parts else F

    def is_triggered_by_kill(self, a: Ability) -> bool:
        return any(t.timing == "immediately" and t.event.key == "kill" for t in a.triggers)

    def declared_edges(self, steps) -> set:
        return {(a, b) for a, b in self.sc.resolve_edges if a in steps and b in steps}

    def rules_now(self, phase: Phase, tag: str):
        moment = {"n": None, "b": "before", "v": "vote", "a": "after"}[tag[0]]
        return [r for r in self.sc.rules if not r.at or any(rule_applies_at(ref, phase, moment) for ref in r.at)]

    def guarded(self, effects, view: View, guard=None):
        """Flatten `if` effects into (effect, condition) pairs."""
        guard = self.B(True) if guard is None else guard
        for e in effects:
            if isinstance(e, ast.IfEffect):
                cond = self.compiler.value(e.cond, view)
                yield from self.guarded(e.then, view, And(guard, cond))
                yield from self.guarded(e.otherwise, view, And(guard, Not(cond)))
            else:
                yield e, guard

    def on(self, e: ast.Effect, view: View, u: Use | None, s: int) -> z3.BoolRef:
        """Whether seat s is one the effect applies to."""
        if e.on is None:
            targets = view.env.get("targets")
            if targets is not None:
                return targets.member[s]
            target = view.env.get("target")
            return Eq(target, s) if target is not None else self.B(False)
        value = self.compiler.value(e.on, view)
        return self.compiler.seats_of(value).member[s]

    def _bookkeep(self, pv: PhaseVars, S, cur, phase: Phase) -> dict:
        st = dict(cur)
        st["uses"] = dict(cur["uses"])
        st["self_uses"] = dict(cur["self_uses"])
        st["last"] = dict(cur["last"])
        st["pending"] = dict(cur["pending"])
        for key in sorted(st["uses"]):
            a_key, actor_key = key
            mine = [u for u in pv.uses if u.ability.key == a_key and u.key == actor_key]
            if not mine:
                continue
            used = Or([u.acts for u in mine])
            mode = mine[0].ability.blocked_uses
            F = self.B(False)
            if mode == "free":  # a use a block took away does not count
                used = Or([And(u.acts, Not(u.blocked if u.blocked is not None else F)) for u in mine])
            st["uses"][key] = If(used, cur["uses"][key] + 1, cur["uses"][key])
            self_hit = Or([And(u.acts, self.env_of(u)["targets"].contains(u.actor),
                                     Not(u.blocked) if mode == "free" and u.blocked is not None else self.B(True))
                              for u in mine if u.targets and u.actor is not None] or [F])
            st["self_uses"][key] = If(self_hit, cur["self_uses"][key] + 1, cur["self_uses"][key])
            if mode == "open":
                st["uses_open"] = dict(st["uses_open"])
                taken = Or([u.blocked for u in mine if u.blocked is not None] or [F])
                st["uses_open"][key] = If(taken, cur["uses_open"][key] + 1, cur["uses_open"][key])
                taken_self = Or([And(u.blocked, self.env_of(u)["targets"].contains(u.actor))
                                    for u in mine if u.blocked is not None and u.targets and u.actor is not None] or [F])
                skey = ("self",) + key
                st["uses_open"][skey] = If(taken_self, cur["uses_open"][skey] + 1, cur["uses_open"][skey])
            lk = (a_key, actor_key, phase.kind)
            if lk in st["last"]:
                u = mine[0]
                targets = self.env_of(u).get("targets")
                st["last"][lk] = [And(u.acts, targets.member[s]) if targets is not None else self.B(False)
                                  for s in range(self.n)]
        if st["idle"]:
            st["idle"] = dict(cur["idle"])
            for a_key, s in sorted(st["idle"]):
                if any(r.phase.key == phase.kind for r in self.sc.ability_by_key[a_key].phases):
                    acted = Or([And(u.acts, Eq(u.actor, s, self.ctx) if not _team_use(u) else self.B(True))
                                for u in pv.uses if u.ability.key == a_key and u.actor is not None]
                               or [self.B(False)])
                    st["idle"][(a_key, s)] = If(acted, self.I(0), cur["idle"][(a_key, s)] + 1)
        cards = [u for u in pv.uses if u.ability.is_card]
        if cards:
            st["drawn"] = list(cur["drawn"])
            for u in cards:
                st["drawn"][u.key] = And(st["drawn"][u.key], Not(u.acts))
        for key in list(st["pending"]):
            if key[2] == phase.kind:
                # Triggers recorded in this phase for a later phase of the same kind stay.
                fired_now = And(cur["pending"][key], Not(S["pending"][key]))
                st["pending"][key] = fired_now
        return st

    def _due_states(self, points, st, phase: Phase, pv: PhaseVars):
        """As play._due_states: (when, state) pairs a schedule looks at in this phase."""
        out = []
        if "deaths" in points and phase.is_night and pv.checkpoint is not None:
            out.append((self.B(True), pv.checkpoint))
        due = self.B(not points or ("day" in points and phase.is_day) or ("night" in points and phase.is_night))
        if "exit" in points:
            due = Or(due, Or([z for leaves in pv.leaves for z in leaves] or [self.B(False)]))
        if "vote" in points and phase.is_day and pv.vote_kind is not None:
            due = Or(due, Or([And(pv.leaves[1][s], pv.vote_target == s) for s in range(self.n)])
                        if len(pv.leaves) > 1 else self.B(False))
        out.append((due, st))
        return out

    def _met(self, cond, states, cache: dict):
        """Whether a condition holds at one of the (when, state) check points."""
        parts = []
        for due, state in states:
            if z3.is_false(due):
                continue
            key = (id(cond), id(state))
            if key not in cache:
                cache[key] = self.compiler.value(cond, View(self, state, Events(self.ctx), {"__holes": []}))
            parts.append(z3.And(due, cache[key]))
        return z3.Or(parts) if parts else self.B(False)

    def _wins(self, st, phase: Phase, pv: PhaseVars, S: dict, t: int):
        cache: dict = {}
        holds = {}
        st["readings"] = dict(st["readings"])
        schedules = {self.sc.win_readings(w) for w in self.sc.wins}
        simple = len(schedules) <= 1 and all(len(r) == 1 and "deaths" not in r[0] for r in schedules)
        if simple:
            # One schedule for every win: one `due`, as the encoding always had it.
            points = next(iter(schedules))[0] if schedules else self.sc.phases.wins_checked
            due = self._due_states(points, st, phase, pv)[-1][0]
            view = View(self, st, Events(self.ctx), {"__holes": []})
            for win in self.sc.wins:
                cond = self.compiler.value(win.cond, view)
                holds[win.side.key] = Or(holds.get(win.side.key, self.B(False)), cond)
        else:
            due = self.B(True)  # each win's own check points are in `holds`
        for i, win in enumerate(() if simple else self.sc.wins):
            readings = self.sc.win_readings(win)
            met = [self._met(win.cond, self._due_states(points, st, phase, pv), cache) for points in readings]
            if len(readings) == 1:
                won = met[0]
            else:
                # Several readings: the game follows one answer, and keeps the readings that gave it.
                won = self.bool(f"t{t}_won_{i}")
                live = [S["readings"][(i, r)] for r in range(len(readings))]
                self.add(Or([And(live[r], met[r] == won) for r in range(len(readings))]))
                for r in range(len(readings)):
                    st["readings"][(i, r)] = And(live[r], met[r] == won)
                yes = Or([And(live[r], met[r]) for r in range(len(readings))])
                no = Or([And(live[r], Not(met[r])) for r in range(len(readings))])
                pv.undefined.append((And(pv.active, yes, no), Hole(
                    holes.READINGS, f"when the win of {win.side.text} is checked: the readings "
                    + " / ".join("after " + ", ".join(p) for p in readings) + " disagree", win.side.key)))
            holds[win.side.key] = Or(holds.get(win.side.key, self.B(False)), won)
        sides = list(holds)
        winner = self.I(NONE)
        overlap = self.B(False)
        if not sides:
            self._open_wins(st, phase, pv, cache, self.I(NONE))
            return If(pv.active, self.I(NONE), st["winner"]), overlap
        # One side: it wins. Several: a priority that covers them all decides, else overlap.
        pair_overlaps = []
        for i, a in enumerate(sides):
            for b in sides[i + 1:]:
                if not any({a, b} <= {nm.key for nm in p.order} for p in self.sc.priorities):
                    pair_overlaps.append(And(holds[a], holds[b]))
        overlap = And(due, Or(pair_overlaps or [self.B(False)]))
        ranked = sides
        for prio in self.sc.priorities:
            order = [nm.key for nm in prio.order]
            ranked = sorted(sides, key=lambda x: order.index(x) if x in order else len(order))
            break
        for side in reversed(ranked):
            alone = And(holds[side], *[Not(holds[o]) for o in sides if o != side]) \
                if not self.sc.priorities else holds[side]
            winner = If(alone, self.I(self.ids.sides.index(side)), winner)
        winner = If(And(due, Not(overlap)), winner, self.I(NONE))
        self._open_wins(st, phase, pv, cache, winner)
        return winner, overlap

    def _open_wins(self, st, phase: Phase, pv: PhaseVars, cache: dict, winner) -> None:
        """As play._open_wins: a win the rulebook does not write is in question wherever its
        `when` holds at a check point and nobody has won."""
        for win in self.sc.open_wins:
            states = [x for points in self.sc.win_readings(win) for x in self._due_states(points, st, phase, pv)]
            if win.cond is None:
                asked = z3.Or([due for due, _ in states] or [self.B(False)])
            else:
                asked = self._met(win.cond, states, cache)
            pv.undefined.append((z3.And(pv.active, winner == NONE, asked), Hole(
                holes.OPEN_WIN, f"whether {win.side.text} has won: {win.unspecified}", win.side.key)))

    def delayed_index(self, effects, e: ast.AfterEffect) -> int:
        """The number of a delayed effect among those of its owner (its countdown slot)."""
        return [x for x in _walk_effects(effects) if isinstance(x, ast.AfterEffect)].index(e)

    def checks_deaths(self) -> bool:
        return any("deaths" in points for w in self.sc.wins + self.sc.open_wins
                   for points in self.sc.win_readings(w))

    def _equate(self, S2, cur, S, active) -> None:
        """The next state: a fresh variable equal to the phase's result where it changes; the
        old term itself where it cannot change (and the constant where it is one), so known
        values stay folded from phase to phase."""
        def eq(table, key, b, old):
            value = If(active, b, old)
            if value.eq(old) or truth(value) is not None or number(value) is not None:
                table[key] = value
            else:
                var = table[key]
                self.add(var == value)
                if var.sort_kind() == z3.Z3_INT_SORT:
                    span = self.ranges.of(value)
                    if span is None:
                        self.unranged.append(str(var))
                    else:
                        fact = And(var >= span[0], var <= span[1])
                        self.add(fact)
                        self.derived_ranges.append(fact)
                        self.ranges.declare(var, *span)
        for name in ("alive", "role", "side", "left_by", "revealed", "links", "drawn"):
            for s in range(self.n):
                eq(S2[name], s, cur[name][s], S[name][s])
        for s in range(self.n):
            for c in self.counter_names:
                eq(S2["counters"][s], c, cur["counters"][s][c], S["counters"][s][c])
        for table in ("items", "mone", "mint", "uses", "self_uses", "pending", "delay", "delay_target",
                      "readings", "uses_open", "idle"):
            for key in S2[table]:
                eq(S2[table], key, cur[table][key], S[table][key])
        for table in ("mset", "last"):
            for key in S2[table]:
                for s in range(self.n):
                    eq(S2[table][key], s, cur[table][key][s], S[table][key][s])
        eq(S2, "winner", cur["winner"], S["winner"])

    def _pinned(self, st: dict, pins: list) -> dict:
        """st with every variable that a pin (`var == constant`, `not var`) fixes replaced by
        the constant; pins of any other shape stay constraints."""
        fixed = {}
        for c in pins:
            var = value = None
            if z3.is_eq(c) and z3.is_const(c.arg(0)) and c.arg(0).decl().kind() == z3.Z3_OP_UNINTERPRETED:
                var, value = c.arg(0), c.arg(1)
                if truth(value) is None and number(value) is None:
                    var = None
            elif z3.is_not(c) and z3.is_const(c.arg(0)) and c.arg(0).decl().kind() == z3.Z3_OP_UNINTERPRETED:
                var, value = c.arg(0), self.B(False)
            if var is None or var.get_id() in fixed:
                self.add(c)
                continue
            fixed[var.get_id()] = value

        def walk(x):
            if isinstance(x, dict):
                return {k: walk(v) for k, v in x.items()}
            if isinstance(x, list):
                return [walk(v) for v in x]
            if isinstance(x, z3.ExprRef):
                return fixed.get(x.get_id(), x)
            return x
        return walk(st)

    # -------------------------------------------------------------- a free start

    def _well_formed(self, st: dict) -> None:
        """What every reachable state satisfies, whatever the game so far: values in their
        ranges, the dead with a way of leaving, per-game limits not exceeded. Used instead of
        _init when the first state is left free (induction proofs); the constraints are
        over-approximations, so a proof from them holds for every reachable state."""
        ids, n = self.ids, self.n
        sets = {e.name.key for a in self.sc.abilities for e in flat(a.effects) if e.verb == "set"}
        sets |= {e.name.key for r in self.sc.rules for e in flat(r.then) if e.verb == "set"}
        roles_of = dict(enumerate(self.roles_of))
        ceiling = {}
        for r in self.sc.roles:
            for c in r.counters:
                if isinstance(c.initial, ast.Num) and ceiling.get(c.key, 0) is not None:
                    ceiling[c.key] = max(ceiling.get(c.key, 0), c.initial.value)
                else:
                    ceiling[c.key] = None
        self._small_domains(st, roles_of)
        for s in range(n):
            self.add(Or([st["role"][s] == ids.roles.index(r) for r in sorted(roles_of[s])]))
            self.add(And(st["side"][s] >= NONE, st["side"][s] < len(ids.sides)))
            self.add(If(st["alive"][s], st["left_by"][s] == NONE,
                           And(st["left_by"][s] >= NONE, st["left_by"][s] < len(ids.kinds))))
            self.add(And(st["links"][s] >= NONE, st["links"][s] < n))
            for c in self.counter_names:
                if c in sets:
                    continue
                self.add(st["counters"][s][c] >= 0)
                if ceiling.get(c) is not None:
                    self.add(st["counters"][s][c] <= ceiling[c])
        for (item, s), var in st["items"].items():
            self.add(Or([var == NONE] + [var == ids.value("variant", v) for v in ids.variants[item]]))
        for var in st["mone"].values():
            self.add(And(var >= NONE, var < n))
        for (a_key, k), var in st["uses"].items():
            self.add(var >= 0)
            self.add(And(st["self_uses"][(a_key, k)] >= 0, st["self_uses"][(a_key, k)] <= var))
            a = self.sc.ability_by_key[a_key]
            caps = [lim.count for lim in a.limits if lim.kind == "count" and not lim.on_self
                    and lim.per.key == "game"]
            if caps:
                self.add(var <= min(caps))
        for (owner, index, key), var in st["delay"].items():
            e = next(e for a, i, k, e in self.delay_slots() if (owner_key(a), i, k) == (owner, index, key))
            self.add(And(var >= 0, var <= e.count))
            self.add(And(st["delay_target"][(owner, index, key)] >= NONE,
                            st["delay_target"][(owner, index, key)] < n))
        self.add(And(st["winner"] >= NONE, st["winner"] < len(ids.sides)))

    SMALL_DOMAIN = 2  # roles a seat can have, at most, for its role to become a choice term

    def _small_domains(self, st: dict, roles_of: dict) -> None:
        """A seat's role, when it can be only a few roles, as a constant or as an If-chain
        If(c1, r1, If(c2, r2, r0)) whose comparisons with a role fold to the choices that give
        it (terms.register_domain): a rule about another role then costs nothing for that
        seat, as it would from a known start. The same values as the variable with its range
        constraint."""
        ids = self.ids
        for s in range(self.n):
            values = sorted(ids.roles.index(r) for r in roles_of[s])
            if len(values) == 1:
                st["role"][s] = self.I(values[0])
            elif len(values) <= self.SMALL_DOMAIN:
                choices = [self.bool(f"t0_rolechoice{s}_{i}") for i in range(1, len(values))]
                term, conditions, earlier = self.I(values[0]), {}, []
                for i in range(len(values) - 1, 0, -1):
                    term = z3.If(choices[i - 1], self.I(values[i]), term)
                for i in range(1, len(values)):
                    conditions[values[i]] = And(*earlier, choices[i - 1])
                    earlier.append(Not(choices[i - 1]))
                conditions[values[0]] = And(*earlier)
                register_domain(term, conditions)
                st["role"][s] = term

    # -------------------------------------------------------------- symmetry

    def _break_symmetry(self) -> None:
        """Seats dealt the same role are interchangeable: any game has a twin in which they
        leave in seat order. Only one of the twins is searched."""
        for i, j in self._twins():
            for st in self.states:
                # If the later seat has left, so has the earlier one.
                self.add(Implies(Not(st["alive"][j]), Not(st["alive"][i])))

    def _twins(self) -> list[tuple[int, int]]:
        groups: dict[str, list[int]] = {}
        for s, role in enumerate(self.seats):
            groups.setdefault(role, []).append(s)
        return [(i, j) for seats in groups.values() for i, j in zip(seats, seats[1:])]

    def symmetry(self, st: dict) -> list:
        """The symmetry-breaking constraints on one state (as _break_symmetry), for a solver
        that takes the phases one at a time."""
        return [c for i, j in self._twins()
                if truth(c := Implies(Not(st["alive"][j]), Not(st["alive"][i]))) is not True]


def max_targets(a: Ability) -> int:
    """The most targets an ability can take: its number, or the largest in its table."""
    def bound(e):
        if isinstance(e, ast.Num):
            return e.value
        if isinstance(e, ast.Cases):
            return max(bound(arm.value) for arm in e.arms)
        if isinstance(e, ast.ByTable):
            return max(bound(c.value) for c in e.cases)
        raise Unsupported("a number of targets that is not a number or a table", e.span)
    return bound(a.target_count) if a.target_count is not None else 0


def _team_use(u: Use) -> bool:
    """A use of an ability `by team NAME`: `idle` and `acted` count it for every player."""
    return u.ability.actor is not None and u.ability.actor.kind == "team"


def _ints(st: dict) -> list:
    """Every integer term of a state, in its tables."""
    out = []

    def walk(x):
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)
        elif isinstance(x, z3.ArithRef):
            out.append(x)
    walk(st)
    return out


def _walk_effects(effects):
    for e in effects:
        yield e
        if isinstance(e, ast.IfEffect):
            yield from _walk_effects(e.then)
            yield from _walk_effects(e.otherwise)
        elif isinstance(e, ast.AfterEffect):
            yield from _walk_effects(e.body)
