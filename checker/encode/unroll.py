"""The game unrolled over a bounded number of phases, as Z3 constraints.

It follows the interpreter step by step (interpreter/resolution.py and play.py): the same
legality, the same three stages of a resolution, the same rules-with-exceptions deciding
exits, the same vote and win checks. Tests hold the two to agreement on generated games.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Container, Iterator, Sequence
from typing import Any

import z3

from .. import ast, holes
from ..evaluate import State, initial_state
from ..holes import Hole
from ..model import Ability, Scenario
from ..narrow import actor_roles, effect_name, per_game_caps, present, self_caps
from ..phases import Phase, matches, rule_applies_at, sequence
from ..vocabulary import (
    calls,
    decides_exits,
    flat,
    is_blocking,
    refers_to,
    verbs,
)
from . import bookkeep, legality, wins
from .acting import acting_stage
from .blocking import MAX_READERS, blocking_stage
from .commit import commit
from .deaths import deaths
from .delayed import count_down, fall_due, owner_key
from .passes import Intents, Pass, acted_events
from .phase_vars import NONE, PhaseVars, Use
from .ranges import Ranges
from .vote import vote_causes
from .roles import possible_roles
from .state import DelayKey, Path, SymState
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
    number,
    register_domain,
    truth,
)



class Game:
    """`length` phases of one composition, with settings fixed."""

    def __init__(self, scenario: Scenario, seats: tuple[str, ...], length: int,
                 settings: dict | None = None, ctx: z3.Context | None = None,
                 symmetry: bool = True, start: State | None = None, first_phase: int = 0,
                 free_start: bool = False, built: int | None = None, vote_states: bool = False,
                 over_approximate: bool = False):
        # free_start: the first state is any well-formed state (see _well_formed), not the
        # game's start; `start` then only fixes the settings and the phase sequence. For
        # induction proofs (encode/induction.py).
        # vote_states: keep each day's state at its vote, for a query's `vote P with N`
        # (encode.vote.quorum_at_vote). Only on request: terms kept alive that a game does not
        # need change which the solver finds first, so other games stay exactly as they were.
        self.vote_states = vote_states
        # over_approximate: where the exact encoding leaves some play out (Game.restricted),
        # allow more outcomes than the rules instead (blocking.mutual_blocks). Only for games
        # asked to show that something never happens (the induction windows): a "no" of
        # such a game holds for the rules, a game it finds need not be one.
        self.over_approximate = over_approximate
        self.sc = scenario
        self.seats = seats
        self.n = len(seats)
        self.ctx = ctx or z3.Context()
        self.ids = Ids(scenario)
        state0 = start if start is not None else initial_state(scenario, seats, settings)
        self.start_state = state0
        self.settings = dict(state0.settings)
        self.compiler = Compiler(self)
        self.table_holes: list = []  # (gaps, hole, guard): see table_view
        self.constraints: list = []
        # Ranges of the integers (encode/ranges.py); `unranged` names those without one.
        self.ranges = Ranges()
        self.unranged: list[str] = []
        self.derived_ranges: list = []  # the constraints stating a state value's range (for tests)
        self.counter_names = sorted({c.key for r in scenario.roles for c in r.counters})
        all_phases = sequence(scenario, state0, first_phase + length)
        self.phases = all_phases[first_phase:first_phase + length]
        # Per kind, the number of the last phase of that kind before the game's first (0: none).
        self.numbered_before = {ph.kind: ph.number for ph in all_phases[:first_phase]}
        self.first_phase = first_phase
        self._check_supported()
        # Per seat, the roles it can ever hold (encode/roles.py); until known, any role.
        self.roles_of = None
        self.roles_of = possible_roles(self, state0.roles)
        self.__dict__.pop("_slots", None)  # delay slots counted with every seat as an actor
        self.states = [self.state_vars(0)]
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
        # How many constraints say what the first state is, before any phase.
        self.start_constraints = len(self.constraints)
        # marks[t]: how many constraints define the game up to phase t (inclusive), so a
        # solver can take the phases one at a time (incremental unrolling).
        self.marks: list[int] = []
        # built: how many phases to build now (the rest one at a time with `extend`, for a
        # question that may be answered before the last phase).
        for _ in range(len(self.phases) if built is None else min(built, len(self.phases))):
            self.extend()
        # Symmetry breaking (symmetry_breaking) is kept out of `constraints`, whose marks say
        # where each phase ends: a game grown phase by phase then holds exactly the
        # constraints of one built at that length, in the same order, whichever length came
        # first (Prefix adds the symmetry breaking of its own states).
        self.symmetric = symmetry and start is None and not free_start

    def grow(self, length: int) -> None:
        """Make the game `length` phases long (built with `extend`): a search that found
        nothing in the first phases asks the same game's later ones, and the phases built
        stay as they are. A solver over a prefix takes Prefix.constraints."""
        if length <= len(self.phases):
            return
        first = self.first_phase
        self.phases = sequence(self.sc, self.start_state, first + length)[first:first + length]
        while len(self.vars) < length:
            self.extend()

    def extend(self) -> None:
        """Build the next phase (and the state after it)."""
        t = len(self.vars)
        nxt = self.state_vars(t + 1)
        self.states.append(nxt)
        self.vars.append(self._phase(t, self.phases[t], self.states[t], nxt))
        self.marks.append(len(self.constraints))

    # -------------------------------------------------------------- basics

    def B(self, v: bool) -> z3.BoolRef:
        return self.compiler.B(v)

    def I(self, v: int) -> z3.ArithRef:
        return self.compiler.I(v)

    # Z3 variables (not named `bool` and `int`: the class body's annotations read those as
    # the builtins).
    def bool_var(self, name: str) -> z3.BoolRef:
        return z3.Bool(name, self.ctx)

    def int_var(self, name: str) -> z3.ArithRef:
        return z3.Int(name, self.ctx)

    def ranged(self, name: str, lo: int, hi: int) -> z3.ArithRef:
        """A choice variable with its domain: unconstrained values of an unused choice are
        as good as any, so the range is stated for every model, used or not."""
        v = self.int_var(name)
        self.add(And(v >= lo, v <= hi))
        self.ranges.declare(v, lo, hi)
        return v

    def decremented(self, cond: z3.BoolRef, value: z3.ArithRef) -> z3.ArithRef:
        """`value` less one where `cond` holds and it is above zero (as the interpreter's
        `consume` and countdowns), with its range stated: it does not fall below zero on the
        way, which intervals alone (one less, or the same) would lose a bit of every phase
        (Kane's inquiry, once consumable, was -198..1 after ten rounds)."""
        out = If(And(cond, compare_op(">", value, 0)), value - 1, value)
        span = self.ranges.of(value)
        if span is not None and number(out) is None:
            lo, hi = span
            self.ranges.declare(out, lo - 1 if lo >= 1 else lo, hi)
        return out

    @property
    def restricted(self) -> str | None:
        """Why the game leaves out some legal play, or None: of the uses of one blocking
        ability that more than MAX_READERS players could hold, at most MAX_READERS act
        together in a phase (blocking.mutual_blocks). A game found is still a real game; "no
        game" is then no proof."""
        crowded = sorted({a.display for pv in self.vars for a in pv.crowded})
        if not crowded:
            return None
        return (f"the encoding lets at most {MAX_READERS} players a phase use {', '.join(crowded)} "
                f"together (more than {MAX_READERS} players could hold it)")

    @property
    def finite(self) -> bool:
        """Whether every integer of the game has a range (a finite-domain problem)."""
        return not self.unranged

    def add(self, c: z3.BoolRef) -> None:
        if truth(c) is not True:  # constraints folded to `true` say nothing
            self.constraints.append(c)

    def _check_supported(self) -> None:
        sc = self.sc
        for a in sc.abilities:
            for e in _walk_effects(a.effects):
                if isinstance(e, ast.AfterEffect):
                    if any(isinstance(x, ast.AfterEffect) for x in _walk_effects(e.body)):
                        raise Unsupported("delayed effects inside delayed effects", e.span)
                    if refers_to(e.body, "targets"):
                        raise Unsupported("delayed effects on a set of targets", e.span)
            if is_blocking(a.effects) and any(
                    not (e.verb in ("block", "unblock", "cancel", "nothing", "kill", "save", "announce",
                                    "learn", "unspecified", "win") or
                         (e.verb == "protect" and all(n.key == "block" for n in e.names)))
                    for e in flat(a.effects)):
                raise Unsupported("an ability that blocks and changes the state", a.span)
            for lim in a.limits:
                if lim.kind == "count" and not lim.on_self and present(lim.per, "a limit's period").key != "game" \
                        and present(lim.count, "a limit's count") > 1:
                    raise Unsupported("more than one use per phase", lim.span)
            if a.blocked_uses != "count" and (is_blocking(a.effects) or a.triggers or a.is_card):
                raise Unsupported("`blocked uses …` on a blocking, triggered or card ability", a.span)
        for rule in sc.rules:
            for e in _walk_effects(rule.then):
                if isinstance(e, ast.AfterEffect) and (decides_exits(rule.then) or is_blocking(rule.then)):
                    raise Unsupported("delayed effects in rules that decide exits or block", rule.span)
        if any(calls((r.cond, r.unless, r.then), "attacked_by") for r in sc.rules) or \
                any(calls((a.target_filter, a.conditions, a.effects), "attacked_by") for a in sc.abilities):
            for a in sc.abilities:
                if a.actor is not None and a.actor.kind == "team" and any(
                        isinstance(e, ast.AfterEffect) and any(x.verb == "kill" for x in flat(e.body))
                        for e in _walk_effects(a.effects)):
                    # A delay keeps its target, not which member made the team's use.
                    raise Unsupported("`attacked_by` of a team's delayed attack", a.span)
        if sc.phases is None:
            raise Unsupported("a scenario without `phases`", sc.span)

    # -------------------------------------------------------------- state

    def state_vars(self, t: int | str) -> SymState:
        sc, n = self.sc, self.n
        p = f"t{t}_"
        st = SymState(
            alive=[self.bool_var(f"{p}alive{s}") for s in range(n)],
            roles=[self.int_var(f"{p}role{s}") for s in range(n)],
            sides=[self.int_var(f"{p}side{s}") for s in range(n)],
            left_by=[self.int_var(f"{p}leftby{s}") for s in range(n)],
            revealed=[self.bool_var(f"{p}revealed{s}") for s in range(n)],
            drawn=[self.bool_var(f"{p}drawn{s}") for s in range(n)],
            links=[self.int_var(f"{p}link{s}") for s in range(n)],
            counters=[{c: self.int_var(f"{p}ctr_{c}_{s}") for c in self.counter_names} for s in range(n)],
            items={(i.name.key, s): self.int_var(f"{p}item_{i.name.key}_{s}") for i in sc.items for s in range(n)},
            memories_set={m.name.key: [self.bool_var(f"{p}mset_{m.name.key}_{s}") for s in range(n)]
                          for m in sc.memories if m.type == "players"},
            memories_one={m.name.key: self.int_var(f"{p}mone_{m.name.key}") for m in sc.memories if m.type == "player"},
            memories_int={m.name.key: self.int_var(f"{p}mint_{m.name.key}") for m in sc.memories if m.type == "int"},
            uses={}, self_uses={}, last_targets={}, pending={}, uses_open={},
            winner=self.int_var(f"{p}winner"),
            delayed_counts={}, delayed_targets={},
            # (win index, reading) -> still consistent with the game: wins with several readings
            readings={(i, r): self.bool_var(f"{p}reading_{i}_{r}")
                      for i, w in enumerate(sc.wins) for r in range(len(sc.win_readings(w)))
                      if len(sc.win_readings(w)) > 1},
            # the kind of exit a seat's link carries (`link … with KIND`), or NONE; only where
            # a link can carry one (so no state, free or not, has one otherwise)
            link_kinds=[self.int_var(f"{p}linkkind{s}") for s in range(n)] if self.links_carry_exits else None,
            idle={}, counter_given={},
        )
        # The variables are made in this order (the order their names were always made in).
        for a, index, key, e in self.delay_slots():
            owner = owner_key(a)
            tag = "_".join(map(str, key)) if isinstance(key, tuple) else key
            st.delayed_counts[(owner, index, key)] = self.int_var(f"{p}delay_{owner}_{index}_{tag}")
            st.delayed_targets[(owner, index, key)] = self.int_var(f"{p}delaytgt_{owner}_{index}_{tag}")
        # `idle(p, A)`: per player, A's phases in a row with no use of it by him
        st.idle.update({(a, s): self.int_var(f"{p}idle_{a}_{s}") for a in sc.idle_abilities for s in range(n)})
        # A counter a conversion gives a seat whose dealt role has none: whether it has been
        # given (Resolver._convert sets it to its initial value only the first time).
        st.counter_given.update({(s, c): self.bool_var(f"{p}given_{c}_{s}") for s, c in self.counter_gifts()})
        for a in sc.abilities:
            # Uses on oneself and the last targets are read by `limit … on self` and `limit no
            # repeat` alone: an ability without one keeps neither (on the anchors' Gangster
            # core they were half of a night's terms, and every one a variable per seat).
            on_self = any(lim.on_self for lim in a.limits)
            no_repeat = any(lim.kind == "no_repeat" for lim in a.limits)
            counted = self.counts_uses(a)
            for key in self.actor_keys(a):
                if counted:
                    st.uses[(a.key, key)] = self.int_var(f"{p}uses_{a.key}_{key}")
                if on_self:
                    st.self_uses[(a.key, key)] = self.int_var(f"{p}selfuses_{a.key}_{key}")
                if a.blocked_uses == "open":
                    st.uses_open[(a.key, key)] = self.int_var(f"{p}usesopen_{a.key}_{key}")
                    st.uses_open[("self", a.key, key)] = self.int_var(f"{p}selfopen_{a.key}_{key}")
                for kind in sorted({r.phase.key for r in a.phases}) if no_repeat else ():
                    st.last_targets[(a.key, key, kind)] = [self.bool_var(f"{p}last_{a.key}_{key}_{kind}_{s}")
                                                           for s in range(n)]
            for trig in a.triggers:
                if trig.timing == "next":
                    for s in self.actor_keys(a):
                        kind = present(trig.timing_phase, "the phase of a `next` trigger").key
                        st.pending[(a.key, s, kind)] = self.bool_var(f"{p}pend_{a.key}_{s}_{kind}")
        return st

    def counts_uses(self, a: Ability) -> bool:
        """Whether the state counts a player's uses of `a`: only where something reads the
        count (a per-game limit, blocked uses left open, `uses(A)`). An unread count that
        grows every phase widens its range a bit per phase, and no two phases' states look
        alike (on the anchors' Gangster core, two of the night's abilities)."""
        return bool(per_game_caps(a.limits)) or a.blocked_uses == "open" or a.key in self.sc.counted_abilities

    def use_cap(self, path: Path) -> int | None:
        """The most a use count at `path` of the state can be, when a limit bounds it: a use
        with the count at a `limit N per game` (or N uses on oneself, for the count of those)
        is not legal, so the count never passes N (or its value at the start). None where
        blocked uses are open (a blocked use counts, the limit reads the others)."""
        if path[0] not in ("uses", "self_uses"):
            return None
        a = self.sc.ability_by_key[path[1][0]]
        if a.blocked_uses == "open":
            return None
        caps = per_game_caps(a.limits) if path[0] == "uses" else self_caps(a.limits)
        return min(caps) if caps else None

    def start_last(self, state: State, key: tuple, kind: str) -> frozenset:
        """The seats `limit no repeat` keeps the game's first phase of `kind` from choosing:
        those the state's last use of the ability (`key`) named, if it was made in the phase
        of that kind just before (as legal.previous_index); a use in an earlier one forbids
        nothing."""
        last = state.last_targets.get(key)
        if not last or last[0] != (kind, self.numbered_before.get(kind, 0)):
            return frozenset()
        return frozenset(last[1])

    def _init(self, st: SymState, state0: State) -> None:
        ids = self.ids
        for s in range(self.n):
            self.add(st.alive[s] == state0.alive[s])
            self.add(st.roles[s] == ids.roles.index(state0.roles[s]))
            self.add(st.sides[s] == ids.value("side", state0.sides[s]))
            self.add(st.left_by[s] == ids.value("kind", state0.left_by[s]))
            self.add(st.revealed[s] == (s in state0.revealed))
            self.add(st.drawn[s] == (s in state0.drawn))
            self.add(st.links[s] == state0.links.get(s, NONE))
            if st.link_kinds is not None:
                self.add(Eq(st.link_kinds[s], self.I(ids.value("kind", state0.link_kinds.get(s)))))
            for c in self.counter_names:
                self.add(st.counters[s][c] == state0.counters[s].get(c, 0))
        for (item, s), var in st.items.items():
            self.add(var == ids.item_value((item, s) in state0.items, state0.items.get((item, s))))
        for m, seats in st.memories_set.items():
            members = state0.memories.get(m) or frozenset()
            for s in range(self.n):
                self.add(seats[s] == (s in members))
        for m, var in st.memories_one.items():
            value = state0.memories.get(m)
            self.add(var == (NONE if value is None else value))
        for m, var in st.memories_int.items():
            value = state0.memories.get(m)
            if value is None:
                raise Unsupported(f"a number memory without a starting value ({m})")
            self.add(var == value)
        for key, var in st.uses.items():
            self.add(var == state0.uses.get(key, 0))
        for key, var in st.self_uses.items():
            self.add(var == state0.self_uses.get(key, 0))
        for key, var in st.uses_open.items():
            self.add(var == state0.uses_open.get(key, 0))
        for key, var in st.idle.items():
            self.add(var == state0.idle.get(key, 0))
        for (s, c), var in st.counter_given.items():
            self.add(var == (c in state0.counters[s]))
        for (a, k, kind), seats in st.last_targets.items():
            named = self.start_last(state0, (a, k), kind)
            for s in range(self.n):
                self.add(seats[s] == (s in named))
        for (a, s, kind), var in st.pending.items():
            self.add(var == ((a, s, kind) in state0.pending))
        self.add(st.winner == NONE)
        for (i, r), var in st.readings.items():
            self.add(var == (i not in state0.readings or r in state0.readings[i]))
        start = {}
        for unit, count, body, env, source in state0.delayed:
            start[self._slot_of(body, dict(env), source)] = (count, dict(env).get("target"))
        for slot, var in st.delayed_counts.items():
            count, target = start.get(slot, (0, None))
            self.add(var == count)
            self.add(st.delayed_targets[slot] == (NONE if target is None else target))

    @property
    def links_carry_exits(self) -> bool:
        """Whether some link can carry an exit: a `link … with KIND` in the spec, or one in
        the first state."""
        if not hasattr(self, "_links_carry"):
            owners = [a.effects for a in self.sc.abilities] + [r.then for r in self.sc.rules]
            self._links_carry = bool(self.start_state.link_kinds) or any(
                e.verb == "link" and e.name is not None for effects in owners for e in flat(effects))
        return self._links_carry

    @property
    def follow_depth(self) -> int:
        """How many players can follow one another out in a chain (Resolver._followers follows
        chains to the end): at most the players whose links can carry an exit, less one when
        every link is `link together` with a kind (then whom a follower follows carries one
        too). Those are the first state's, and per ability with such a link, its uses in the
        game times the players one use links: a bound the deaths need not go past."""
        if not hasattr(self, "_follow_depth"):
            owners = [(a, a.effects) for a in self.sc.abilities] + [(r, r.then) for r in self.sc.rules]
            links = [(o, e) for o, effects in owners for e in flat(effects) if e.verb == "link"]
            carriers = len(self.start_state.link_kinds)
            for owner, e in links:
                if e.name is not None:
                    carriers += self._most_uses(owner) * (self._group_size(owner) if e.together else 1)
            first = self.start_state
            paired = all(e.together and e.name is not None for _, e in links) and all(
                first.links.get(s) in first.link_kinds for s in first.link_kinds)
            self._follow_depth = max(0, min(self.n - 1, carriers - (1 if paired else 0)))
        return self._follow_depth

    def _most_uses(self, owner: Ability | ast.RuleDecl) -> int:
        """The most uses an ability has in a game (the seats that can hold it, times its
        phases or its per-game limit); a rule or an unbounded ability: every seat."""
        if not isinstance(owner, Ability) or owner.triggers or owner.is_card or owner.actor is None:
            return self.n
        if owner.actor.kind in ("team", "moderator"):
            holders = 1
        elif owner.actor.kind == "role":
            roles = {r.key for r in actor_roles(owner.actor)}
            holders = sum(1 for s in range(self.n) if roles & self.roles_of[s]) if self.roles_of else self.n
        else:
            return self.n
        caps = per_game_caps(owner.limits)
        if owner.phases and all(r.exact is not None for r in owner.phases):
            caps.append(len(owner.phases))
        return holders * min(caps) if caps else self.n

    def _group_size(self, owner: Ability | ast.RuleDecl) -> int:
        count = owner.target_count if isinstance(owner, Ability) else None
        return count.value if isinstance(count, ast.Num) else self.n

    def counter_gifts(self) -> list[tuple[int, str]]:
        """(seat, counter) where a conversion can give the seat a counter its dealt role lacks."""
        if self.roles_of is None:
            return []
        out = []
        for s, dealt in enumerate(self.seats):
            has = {c.key for c in self.sc.role_by_key[dealt].counters}
            for r in sorted(self.roles_of[s]):
                out += [(s, c.key) for c in self.sc.role_by_key[r].counters
                        if c.key not in has and (s, c.key) not in out]
        return out

    def delay_slots(self) -> list[tuple[Ability | ast.RuleDecl, int, int | tuple[int, ...], ast.AfterEffect]]:
        """Every `after N …:` in an ability, per acting player: a countdown in the state."""
        if not hasattr(self, "_slots"):
            slots: list[tuple[Ability | ast.RuleDecl, int, int | tuple[int, ...], ast.AfterEffect]] = []
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

    def converting_delays(self) -> frozenset[tuple[str, int]]:
        """The (owner, index) of every `after` effect whose body converts someone."""
        if not hasattr(self, "_converting"):
            self._converting = frozenset((owner_key(owner), index) for owner, index, _, e in self.delay_slots()
                                         if "convert" in verbs(e.body))
        return self._converting

    def _slot_of(self, body: tuple[ast.AnyEffect, ...], env: dict, source: str) -> DelayKey:
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
        roles = {r.key for r in actor_roles(a.actor)}
        if self.roles_of is None:
            return list(range(self.n))
        return [s for s in range(self.n) if roles & self.roles_of[s]]

    # -------------------------------------------------------------- one phase

    def _phase(self, t: int, phase: Phase, S: SymState, S2: SymState) -> PhaseVars:
        pv = PhaseVars(phase)
        pv.active = Eq(S.winner, NONE)
        self.table_holes = []  # (gaps, hole, guard) of the phase's views: see table_view
        pv.link_kind = list(S.link_kinds or ())
        # As Player.play: `round` is the number of the day or night being played (0 in the
        # opening phases), seen by every expression of the phase.
        S = dataclasses.replace(S, round=self.I(phase.number if phase.kind in ("day", "night") else 0))
        view0 = View(self, S, Events(self.ctx), {"__holes": []})
        moments = [None] if phase.is_night else ["before", "after"]
        for moment in moments:
            for a in self.sc.abilities:
                if (a.is_card and not a.phases) or not legality.usable_in(self, a, phase, moment):
                    continue
                for key in self.actor_keys(a):
                    pv.uses.append(legality.use_vars(self, t, a, key, moment, S, phase))
        if phase.kind == "day":
            for a in self.sc.abilities:
                if a.is_card and not a.phases:
                    for key in self.actor_keys(a):
                        pv.uses.append(legality.use_vars(self, t, a, key, "vote", S, phase))
        if phase.kind == "day" and self.sc.day is not None and self.sc.day.vote is not None:
            pv.vote_kind = self.ranged(f"t{t}_votekind", 0, 2)
            pv.vote_target = self.ranged(f"t{t}_votetarget", NONE, self.n - 1)
            pv.tie = (self.ranged(f"t{t}_tie0", NONE, self.n - 1), self.ranged(f"t{t}_tie1", NONE, self.n - 1))
            if self.sc.day.tie == "revote":
                pv.retie = z3.Bool(f"t{t}_retie", self.ctx)
            if self.sc.day.weight is not None:
                pv.ballots = [z3.Bool(f"t{t}_ballot{s}", self.ctx) for s in range(self.n)]
            legality.vote_legal(self, pv, S, phase, view0)
        for u in pv.uses:
            self.add(Implies(u.used, pv.active))
            legality.legal(self, u, pv, S, phase, view0)
        legality.once_a_day(self, pv)
        legality.team_once(self, pv)
        legality.card_once(self, pv)
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
        legality.trigger_obligations(self, pv, S, phase)
        for flag in view0.env["__holes"]:
            pv.undefined.append((flag, holes.no_row("the vote", holes.DAY)))
        for gaps, hole, guard in self.table_holes:
            for flag in gaps:
                if truth(flag) is not False:  # a table with an `else` has no gap: nothing to ask
                    pv.undefined.append((And(pv.active, guard, flag), hole))
        cur = bookkeep.bookkeep(self, pv, S, cur, phase)
        winner, overlap = wins.wins(self, cur, phase, pv, S, t)
        cur = dataclasses.replace(cur, winner=winner)
        pv.winner = winner
        pv.overlap = overlap
        self.equate(S2, cur, S, pv.active)
        return pv

    def env_of(self, u: Use) -> dict:
        if u.env is not None:
            return u.env
        env = {"actor": u.actor if u.actor is not None else self.I(NONE)}
        if u.targets:
            count = present(u.count, "how many targets a use chooses")
            env["target"] = u.targets[0]
            env["targets"] = Seats([Or([And(j < count, tj == s) for j, tj in enumerate(u.targets)])
                                    for s in range(self.n)])
        env.update(u.values)
        u.env = env
        return env

    def _pass(self, t: int, tag: str, pv: PhaseVars, S: SymState, uses: list[Use], vote: PhaseVars | None,
              gate: dict | None = None, due: Sequence[tuple] = ()) -> SymState:
        """One resolution (a night, or one moment of a day), in the interpreter's stages:
        effects falling due, the vote, the blocking steps in every open order, the other steps
        together, the deaths, the state after them. Returns that state.

        Abilities triggered at once by their user's exit (`on leave by gun immediately`) act
        in a second resolution right after this one, as in the interpreter."""
        if gate is None:
            return self._pass_and_what_exits_set_off(t, tag, pv, S, uses, vote, due)
        # A pass that exits set off keeps the phase's saves and protections (as
        # Player._after_leaving).
        intents = Intents(defenses=list(S.defenses) if tag.endswith("2") else [])
        p = Pass(self, t, tag, pv, S, Events(self.ctx), intents)
        for u in uses:  # `acted(p, A)`: a choice made this phase, taken effect or not
            for key, cond in acted_events(p, u):
                p.event(key, cond)
        fall_due(p, due)
        if vote is not None:
            vote_causes(p, vote)  # its cause is there before any step, as in the interpreter
        blocked = blocking_stage(p, uses)
        acting_stage(p, uses, blocked, gate)
        leave, kind_of, rule_hits = deaths(p)
        return commit(p, leave, kind_of, rule_hits)

    def _pass_and_what_exits_set_off(self, t: int, tag: str, pv: PhaseVars, S: SymState, uses: list[Use],
                                     vote: PhaseVars | None, due: Sequence[tuple]) -> SymState:
        gate: dict[Use, z3.BoolRef] = {}
        later = []
        for u in uses:
            if self.leave_triggered(u.ability) and not any(
                    matches(r, pv.phase, u.moment) for r in u.ability.phases):
                gate[u] = S.pending.get((u.ability.key, u.key, pv.phase.kind), self.B(False))
                later.append(u)
        st = self._pass(t, tag, pv, S, uses, vote, gate, due)
        if not later:
            return st
        fired = {}
        for u in later:
            before = pv.fired.get(id(u), self.B(False))
            fired[u] = And(Not(gate[u]), Not(before), self.left_by_trigger(u, S, pv.leaves[-1], st))
            if u.ability.mandatory:  # for the obligation on its trigger (legality.trigger_obligations)
                pv.happened[id(u)] = Or(pv.happened.get(id(u), self.B(False)),
                                        self.left_by_trigger(u, S, pv.leaves[-1], st))
            if id(u) in pv.fired:
                pv.fired[id(u)] = Or(before, And(u.used, fired[u]))
        return self._pass(t, tag + "2", pv, st, later, None, fired)
    def bindings(self, rule: ast.RuleDecl, state: SymState, events: Events, no_leaves: bool = False,
                 guard: z3.BoolRef | None = None) -> Iterator[tuple[tuple[int, ...], dict, z3.BoolRef, View]]:
        """Each binding of a rule's variables to seats, with the condition under which the
        rule applies then (`if …` and not any `unless …`), as the interpreter's
        Resolver.applicable does."""
        for combo in itertools.product(range(self.n), repeat=len(rule.variables)):
            env = {v.key: s for v, s in zip(rule.variables, combo)}
            cond, view = self.applies(rule, env, state, events, no_leaves, guard)
            yield combo, env, cond, view

    def applies(self, rule: ast.RuleDecl, env: dict, state: SymState, events: Events, no_leaves: bool = False,
                guard: z3.BoolRef | None = None) -> tuple[z3.BoolRef, View]:
        """(when the rule applies under this binding, the view its effects are read in: where
        it applies). A table with no row in its condition is a hole of the rule wherever the
        condition is judged (`guard`: only there), and the rule does not apply then, as the
        interpreter finds it (Resolver.applicable)."""
        hole = holes.no_row(f"rule {rule.name.text}", rule.name.key)
        view = self.table_view(state, events, {**env, "__no_leaves": no_leaves}, hole, guard)
        cond = self.compiler.value(rule.cond, view)
        for unless in rule.unless:  # as `any`: an exception is read while none before it holds
            cond = And(cond, Not(self.compiler.value(unless, self.compiler.under(view, unless, cond))))
        gaps = view.env["__holes"]
        if gaps:
            cond = And(cond, Not(Or(list(gaps))))
        return cond, view.with_env(__guard=cond)

    def table_view(self, state: SymState, events: Events, env: dict, hole: Hole,
                   guard: z3.BoolRef | None = None) -> View:
        """A view whose tables with no row for the case are holes of `hole`'s source, where
        `guard` holds (and the view's own `__guard`, where they are read); collected at the
        end of the phase (see _phase)."""
        gaps: list = []
        self.table_holes.append((gaps, hole, self.B(True) if guard is None else guard))
        return View(self, state, events, {**env, "__holes": gaps})

    def leave_triggered(self, a: Ability) -> bool:
        """As Player._leave_triggered: triggered at once by an exit or a return (`on leave`,
        `on revived`), it acts in a further pass right after the one that decides it."""
        return any(t.event.key in ("leave", "revived") and t.timing == "immediately" for t in a.triggers)

    def left_by_trigger(self, u: Use, S: SymState, leave: list, st: SymState) -> z3.BoolRef:
        """Whether this pass removed the use's actor in a way its trigger names (or, for
        `on revived`, brought him back)."""
        if u.key == NONE:
            return self.B(False)
        options = []
        for t in u.ability.triggers:
            if t.timing != "immediately":
                continue
            if t.event.key == "revived":
                options.append(And(Not(S.alive[u.key]), st.alive[u.key]))
                continue
            if t.event.key != "leave":
                continue
            kinds = [self.ids.value("kind", nm.key) for nm in t.by]
            options.append(And(leave[u.key], Or([Eq(st.left_by[u.key], k) for k in kinds])
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
            elif tr.event.key == "targeted":  # `on targeted [by ABILITY, …]`
                named = sorted({nm.key for nm in tr.by}) or sorted(self.sc.ability_by_key)
                parts += [events.get(("targeted", u.key, a), F) for a in named]
        return Or(parts) if parts else F

    def is_triggered_by_kill(self, a: Ability) -> bool:
        """As Resolver._acting_order: triggered at once by an event among the actions (an
        attack, being named), it acts after the steps that can set it off."""
        return any(t.timing == "immediately" and t.event.key in ("kill", "targeted") for t in a.triggers)

    def declared_edges(self, steps: Container[str]) -> set[tuple[str, str]]:
        return {(a, b) for a, b in self.sc.resolve_edges if a in steps and b in steps}

    def rules_now(self, phase: Phase, tag: str) -> list[ast.RuleDecl]:
        moment = {"n": None, "b": "before", "v": "vote", "a": "after"}[tag[0]]
        return [r for r in self.sc.rules if not r.at or any(rule_applies_at(ref, phase, moment) for ref in r.at)]

    def guarded(self, effects: Sequence[ast.AnyEffect], view: View,
                guard: z3.BoolRef | None = None) -> Iterator[tuple[ast.Effect | ast.AfterEffect, z3.BoolRef]]:
        """Flatten `if` effects into (effect, condition) pairs. An `if` whose condition has
        no value (a table with no row) is a hole, and neither branch acts (as
        Resolver.apply_one)."""
        guard = self.B(True) if guard is None else guard
        for e in effects:
            if isinstance(e, ast.IfEffect):
                gaps: list = []
                here = self.compiler.under(view, e.cond, guard).with_env(__holes=gaps)
                cond = self.compiler.value(e.cond, here)
                defined = self.B(True)
                if gaps:
                    holes_ = view.env.get("__holes")
                    if holes_ is not None:
                        holes_.extend(gaps)
                    defined = Not(Or(gaps))
                yield from self.guarded(e.then, view, And(guard, cond, defined))
                yield from self.guarded(e.otherwise, view, And(guard, Not(cond), defined))
            else:
                yield e, guard

    def on(self, e: ast.Effect, view: View, u: Use | None, s: int, guard: z3.BoolRef | None = None) -> z3.BoolRef:
        """Whether seat s is one the effect applies to (`guard`: where the effect is read,
        for the holes of a table in its `on`)."""
        return self.seats_on(e, view, u, guard)[s]

    def seats_on(self, e: ast.Effect, view: View, u: Use | None, guard: z3.BoolRef | None = None) -> list:
        """Per seat, whether it is one the effect applies to (`on`, read once for every seat)."""
        if e.on is None:
            targets = view.env.get("targets")
            if targets is not None:
                return list(targets.member)
            target = view.env.get("target")
            return [Eq(target, s) if target is not None else self.B(False) for s in range(self.n)]
        if guard is not None:
            view = self.compiler.under(view, e.on, guard)
        value = self.compiler.value(e.on, view)
        return list(self.compiler.seats_of(value).member)

    def delayed_index(self, effects: Sequence[ast.AnyEffect], e: ast.AfterEffect) -> int:
        """The number of a delayed effect among those of its owner (its countdown slot)."""
        return [x for x in _walk_effects(effects) if isinstance(x, ast.AfterEffect)].index(e)

    def checks_deaths(self) -> bool:
        return any("deaths" in points for w in self.sc.wins + self.sc.open_wins
                   for points in self.sc.win_readings(w))

    def equate(self, S2: SymState, cur: SymState, S: SymState, active: z3.BoolRef) -> None:
        """The next state: a fresh variable equal to the phase's result where it changes; the
        old term itself where it cannot change (and the constant where it is one), so known
        values stay folded from phase to phase."""
        def eq(path: Path, b: z3.ExprRef, old: z3.ExprRef) -> None:
            value = If(active, b, old)
            if value.eq(old) or truth(value) is not None or number(value) is not None:
                S2.put(path, value)
            else:
                var = S2.get(path)
                self.add(Eq(var, value))
                if var.sort_kind() == z3.Z3_INT_SORT:
                    span = self.ranges.of(value)
                    cap = self.use_cap(path)
                    if span is not None and cap is not None:
                        span = (span[0], max(span[0], min(span[1], cap)))
                    if span is None:
                        self.unranged.append(str(var))
                    else:
                        fact = And(var >= span[0], var <= span[1])
                        self.add(fact)
                        self.derived_ranges.append(fact)
                        self.ranges.declare(var, *span)
        for path in list(S2.slots()):  # in the fields' order: the constraints' order
            eq(path, cur.get(path), S.get(path))

    def _pinned(self, st: SymState, pins: list) -> SymState:
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

        return st.mapped(lambda x: fixed.get(x.get_id(), x))

    # -------------------------------------------------------------- a free start

    def _well_formed(self, st: SymState) -> None:
        """What every reachable state satisfies, whatever the game so far: values in their
        ranges, the dead with a way of leaving, per-game limits not exceeded. Used instead of
        _init when the first state is left free (induction proofs); the constraints are
        over-approximations, so a proof from them holds for every reachable state."""
        ids, n = self.ids, self.n
        sets = {effect_name(e).key for a in self.sc.abilities for e in flat(a.effects) if e.verb == "set"}
        sets |= {effect_name(e).key for r in self.sc.rules for e in flat(r.then) if e.verb == "set"}
        roles_of = dict(enumerate(present(self.roles_of, "the roles a seat can hold")))
        ceiling: dict[str, int | None] = {}
        for r in self.sc.roles:
            for ctr in r.counters:
                top = ceiling.get(ctr.key, 0)
                if isinstance(ctr.initial, ast.Num) and top is not None:
                    ceiling[ctr.key] = max(top, ctr.initial.value)
                else:
                    ceiling[ctr.key] = None
        self._small_domains(st, roles_of)
        for s in range(n):
            self.add(Or([st.roles[s] == ids.roles.index(r) for r in sorted(roles_of[s])]))
            self.add(And(st.sides[s] >= NONE, st.sides[s] < len(ids.sides)))
            self.add(If(st.alive[s], st.left_by[s] == NONE,
                           And(st.left_by[s] >= NONE, st.left_by[s] < len(ids.kinds))))
            self.add(And(st.links[s] >= NONE, st.links[s] < n))
            if st.link_kinds is not None:  # a kind some link can carry, or none
                owners = [a.effects for a in self.sc.abilities] + [r.then for r in self.sc.rules]
                carried = sorted({ids.value("kind", e.name.key) for effects in owners for e in flat(effects)
                                  if e.verb == "link" and e.name is not None}
                                 | {ids.value("kind", k) for k in self.start_state.link_kinds.values()})
                self.add(Or([Eq(st.link_kinds[s], self.I(k)) for k in [NONE] + carried]))
            for c in self.counter_names:
                if c in sets:
                    continue
                self.add(st.counters[s][c] >= 0)
                top = ceiling.get(c)
                if top is not None:
                    self.add(st.counters[s][c] <= top)
        for (item, s), var in st.items.items():
            values = [ids.value("variant", v) for v in ids.variants[item]] or [ids.no_variant]
            self.add(Or([var == NONE] + [var == v for v in values]))
        for var in st.memories_one.values():
            self.add(And(var >= NONE, var < n))
        for (a_key, k), var in st.uses.items():
            self.add(var >= 0)
            mine = st.self_uses.get((a_key, k))
            if mine is not None:
                self.add(And(mine >= 0, mine <= var))
            a = self.sc.ability_by_key[a_key]
            caps = per_game_caps(a.limits)
            if caps:
                self.add(var <= min(caps))
        for (owner, index, key), var in st.delayed_counts.items():
            e = next(e for a, i, k, e in self.delay_slots() if (owner_key(a), i, k) == (owner, index, key))
            self.add(And(var >= 0, var <= e.count))
            self.add(And(st.delayed_targets[(owner, index, key)] >= NONE,
                            st.delayed_targets[(owner, index, key)] < n))
        self.add(And(st.winner >= NONE, st.winner < len(ids.sides)))

    SMALL_DOMAIN = 2  # roles a seat can have, at most, for its role to become a choice term

    def _small_domains(self, st: SymState, roles_of: dict) -> None:
        """A seat's role, when it can be only a few roles, as a constant or as an If-chain
        If(c1, r1, If(c2, r2, r0)) whose comparisons with a role fold to the choices that give
        it (terms.register_domain): a rule about another role then costs nothing for that
        seat, as it would from a known start. The same values as the variable with its range
        constraint."""
        ids = self.ids
        for s in range(self.n):
            values = sorted(ids.roles.index(r) for r in roles_of[s])
            if len(values) == 1:
                st.roles[s] = self.I(values[0])
            elif len(values) <= self.SMALL_DOMAIN:
                choices = [self.bool_var(f"t0_rolechoice{s}_{i}") for i in range(1, len(values))]
                term, conditions = self.I(values[0]), {}
                earlier: list[z3.BoolRef] = []
                for i in range(len(values) - 1, 0, -1):
                    term = z3.If(choices[i - 1], self.I(values[i]), term)
                for i in range(1, len(values)):
                    conditions[values[i]] = And(*earlier, choices[i - 1])
                    earlier.append(Not(choices[i - 1]))
                conditions[values[0]] = And(*earlier)
                register_domain(term, conditions)
                st.roles[s] = term

    # -------------------------------------------------------------- symmetry

    def symmetry_breaking(self, states: Sequence[SymState]) -> list:
        """Seats dealt the same role are interchangeable: any game has a twin in which they
        leave in seat order. Only one of the twins is searched: if the later seat has left,
        so has the earlier one. Empty for a game asked without it (symmetry=False, a free or
        given start)."""
        if not self.symmetric:
            return []
        return [c for i, j in self._twins() for st in states
                if truth(c := Implies(Not(st.alive[j]), Not(st.alive[i]))) is not True]

    def whole(self) -> list:
        """Every constraint of the game: its phases' and the symmetry breaking."""
        return self.constraints + self.symmetry_breaking(self.states)

    def _twins(self) -> list[tuple[int, int]]:
        groups: dict[str, list[int]] = {}
        for s, role in enumerate(self.seats):
            groups.setdefault(role, []).append(s)
        return [(i, j) for seats in groups.values() for i, j in zip(seats, seats[1:])]

    def symmetry(self, st: SymState) -> list:
        """The symmetry-breaking constraints on one state, for a solver that takes the phases
        one at a time."""
        return self.symmetry_breaking([st])


def _ints(st: SymState) -> list:
    """Every integer term of a state, in its tables."""
    return [x for _, x in st.terms() if isinstance(x, z3.ArithRef)]


def _walk_effects(effects: Sequence[ast.AnyEffect]) -> Iterator[ast.AnyEffect]:
    for e in effects:
        yield e
        if isinstance(e, ast.IfEffect):
            yield from _walk_effects(e.then)
            yield from _walk_effects(e.otherwise)
        elif isinstance(e, ast.AfterEffect):
            yield from _walk_effects(e.body)


class Prefix:
    """The first `length` phases of a game, read as a game of that length: its phases, states
    and constraints stop there, and the rest is the game's. A search that deepens grows one
    game (Game.grow) and asks it through ever longer prefixes, rather than building the same
    phases again for each depth."""

    def __init__(self, game: Game, length: int):
        self.full = game
        self.vars = game.vars[:length]
        self.states = game.states[:length + 1]
        self.phases = game.phases[:length]
        self.marks = game.marks[:length]
        phases = game.constraints[:game.marks[length - 1]] if length else list(game.constraints)
        # In Game.whole's order, so a prefix of the whole length is the game itself.
        self.constraints = phases + game.symmetry_breaking(self.states)

    @property
    def restricted(self) -> str | None:
        return Game.restricted.fget(self)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.full, name)
