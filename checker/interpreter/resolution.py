"""Resolving a phase: the meaning of the effect vocabulary and of rules with exceptions.

A phase's uses are grouped into steps, one per ability, resolved in three stages:

1. Blocking steps (abilities that block, unblock or protect from blocks) run first, in the
   order `resolve A before B` gives; where the spec gives none, every order is tried and each
   distinct outcome kept, with the order that gave it. A block takes away every later action
   of the blocked player that night; a player protected from blocks when the block resolves
   is not blocked.
2. Every other step acts together, against the state as it was when the phase began: what
   they change (roles, counters, items, memories, links) is applied only after stage 3.
   An ability triggered by an attack (`on kill by shot immediately`) acts in this stage too.
3. Deaths: who leaves is decided by the rules (below), then the changes of stage 2 apply,
   then the rules that change state without deciding exits.

Effects mostly record intentions (an attack, a save, a protection); who leaves is decided
once, at the `deaths` step that closes the resolution:

* an attack `kill K` is a default cause for its target to leave by K;
* `save from K…` and `protect from K…` defeat the default causes of those kinds;
* a rule (`rule … then stay`/`leave K`) outranks every default. A `stay` that `overrides`
  abilities defeats only their causes; a `stay` without `overrides` defeats all of them;
* two applicable rules concluding opposite things, neither overriding the other, are a
  contradiction: both outcomes are kept, each naming its rule.

A block cancels the uses of the blocked player's steps that come after it; a player who is
protected from `block` when the block resolves is not blocked.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from .. import ast
from .. import holes
from ..evaluate import Env, EvalError, Evaluator, State, Value
from ..holes import Hole
from ..model import Ability, Scenario
from ..narrow import effect_name, effect_text, present
from ..phases import Phase, rule_applies_at
from ..rule_rounds import max_rounds
from ..vocabulary import SHIELDS, STATE_WRITES, block_rings, flat, in_block_cycles, is_blocking, verbs
from .bind import BoundUse
from .legal import actor_roles, pending_for, seat_name

# What an effect acts for: the ability used, or the rule that applied.
Source = Ability | ast.RuleDecl
# (seat, the rule that makes him leave, its kind of exit, the rule that makes him stay)
Contradiction = tuple[int, str, str, str]

MAX_ORDERS = 50_000  # search nodes; past this the answer says the orders were not all tried


@dataclass(frozen=True)
class Attack:
    target: int
    kind: str
    source: str  # the ability (or rule) that caused it
    actor: int | None


@dataclass(frozen=True)
class Defense:
    target: int
    kinds: frozenset | None  # None: every kind
    source: str


@dataclass
class Report:
    """What happened in one phase, for the moderator's log and the answer."""

    phase: Phase
    order: list[str] = field(default_factory=list)
    exits: list[tuple[int, str, str]] = field(default_factory=list)  # (seat, kind, decided by)
    survived: list[tuple[int, str]] = field(default_factory=list)  # (seat, why)
    blocked: list[int] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    learned: list[tuple[int | None, int | None, str]] = field(default_factory=list)
    announcements: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)  # names of rules and abilities that decided
    cites: list[str] = field(default_factory=list)  # rulebook ids behind them
    holes: list[Hole] = field(default_factory=list)  # what the rules leave undecided
    winner: str | None = None
    vote: str | None = None
    due_next: set = field(default_factory=set)  # (ability, seat, phase kind) triggered for later
    fired: set = field(default_factory=set)  # rule bindings that already acted this phase
    checkpoints: list = field(default_factory=list)  # states right after a night's deaths (`deaths`)
    blocked_uses: set = field(default_factory=set)  # (ability, seat) of uses a block took away
    fired_triggers: set = field(default_factory=set)  # (ability, seat) acting on their trigger
    # (seat, role or side key shown) of each `reveal`: what a query's `expect reveals` reads,
    # the announcement being the moderator's words for it
    reveals: list[tuple[int, str | None]] = field(default_factory=list)
    declared: list[str] = field(default_factory=list)  # sides a `win SIDE` effect declared winners
    triggered: set = field(default_factory=set)  # (ability, seat) whose trigger to act at once happened
    # (why, rule ids): a counted vote the state at the vote cannot give, so no outcome
    refused: tuple | None = None
    rule_rounds: int = 0  # the most rounds of a stage's rules in which a rule acted (fire_rules)
    # How many outcomes the rules allow for the phase from the state it started in (an order
    # or a draw they leave open), set by Player.answer: a game's log then says it follows one.
    readings: int = 1

    def key(self) -> tuple:
        # What happened, not the order it was written down in: two orders that differ only
        # in when an announcement was made are one outcome.
        return (tuple(sorted(self.exits)), tuple(sorted(self.survived)), tuple(sorted(self.blocked)),
                tuple(sorted(self.learned, key=repr)), tuple(sorted(self.announcements)),
                tuple(sorted(self.changes)), tuple(sorted(self.holes)), self.winner,
                tuple(sorted(self.declared)))

    def decided(self, name: str, cites: Iterable[str] = ()) -> None:
        if name not in self.rules:
            self.rules.append(name)
        for c in cites:
            if c not in self.cites:
                self.cites.append(c)


@dataclass
class Scratch:
    """The resolution in progress: the state plus the intentions recorded so far."""

    state: State
    report: Report
    events: set = field(default_factory=set)
    blocked: set = field(default_factory=set)
    shields: dict = field(default_factory=dict)  # seat -> set of effects it is protected from
    attacks: list = field(default_factory=list)
    defenses: list = field(default_factory=list)
    strict: list = field(default_factory=list)  # ("leave"|"stay", seat, kind, source, overrides)
    triggered: set = field(default_factory=set)  # (ability, seat) whose trigger happened
    cancelled_uses: set = field(default_factory=set)  # (ability, seat)
    fired_rules: set = field(default_factory=set)
    decided_strict: list = field(default_factory=list)  # rule conclusions at the last decision
    buffering: bool = False  # stage 2: state changes wait in `writes` until after the deaths
    writes: list = field(default_factory=list)
    frozen_events: frozenset | None = None  # what stage 2's conditions see: stage 1's events
    hits: set = field(default_factory=set)  # (ability, user, seat): a use's block that took (block cycles)

    def clone(self) -> "Scratch":
        report = Report(self.report.phase, list(self.report.order), list(self.report.exits),
                        list(self.report.survived), list(self.report.blocked),
                        list(self.report.cancelled), list(self.report.learned),
                        list(self.report.announcements), list(self.report.changes),
                        list(self.report.rules), list(self.report.cites),
                        list(self.report.holes), self.report.winner, self.report.vote,
                        set(self.report.due_next), set(self.report.fired),
                        list(self.report.checkpoints), set(self.report.blocked_uses),
                        set(self.report.fired_triggers), list(self.report.reveals),
                        list(self.report.declared), set(self.report.triggered))
        return Scratch(self.state.clone(), report, set(self.events), set(self.blocked),
                       {k: set(v) for k, v in self.shields.items()}, list(self.attacks),
                       list(self.defenses), list(self.strict), set(self.triggered),
                       set(self.cancelled_uses), set(self.fired_rules),
                       list(self.decided_strict), self.buffering, list(self.writes),
                       self.frozen_events, set(self.hits))

    def key(self) -> tuple:
        return (frozenset(self.events), frozenset(self.blocked),
                tuple(sorted((k, tuple(sorted(v))) for k, v in self.shields.items())),
                tuple(self.attacks), tuple(self.defenses), tuple(self.strict),
                frozenset(self.triggered), frozenset(self.cancelled_uses),
                frozenset(self.fired_rules), self.state.key(),
                self.report.key(), frozenset(self.hits), frozenset(self.report.blocked_uses))


class Resolver:
    def __init__(self, scenario: Scenario, phase: Phase, moment: str | None = None):
        self.sc = scenario
        self.phase = phase
        self.moment = moment
        self.abilities = scenario.ability_by_key
        self.rules = [r for r in scenario.rules
                      if not r.at or any(rule_applies_at(ref, phase, moment) for ref in r.at)]
        self.exit_rules = [r for r in self.rules if scenario.rule_stage(r) == "exit"]
        self.blocking_rules = [r for r in self.rules if scenario.rule_stage(r) == "blocking"]
        self.late_rules = [r for r in self.rules if scenario.rule_stage(r) == "late"]
        self.edges = scenario.resolve_edges
        self.truncated = False
        self.checkpoint = False  # keep the state after the deaths, for wins checked after deaths

    def _is_blocking(self, step: str) -> bool:
        return is_blocking(self.abilities[step].effects)

    # -------------------------------------------------------------- entry point

    def resolve(self, state: State, uses: list[BoundUse], extra: list[Callable[[Scratch], None]] | None = None,
                fired: set | None = None) -> list[Scratch]:
        """Every distinct outcome of the uses, over every order of the blocking steps the
        spec leaves open."""
        report = Report(self.phase)
        start = Scratch(state, report)
        start.fired_rules = set(fired or ())
        start.events |= set(state.events)
        for cause in extra or []:
            cause(start)
        by_step: dict[str, list[BoundUse]] = {}
        # Within a step, uses go by seat: the order a query lists them in means nothing.
        for u in sorted(uses, key=lambda u: (u.ability, -1 if u.actor is None else u.actor, u.targets)):
            by_step.setdefault(present(u.ability, "the ability of a use (not a vote)"), []).append(u)
        blocking = sorted(s for s in by_step if self._is_blocking(s))
        acting = self._acting_order([s for s in by_step if s not in blocking])
        edges = {(a, b) for a, b in self.edges if a in blocking and b in blocking}
        after_blocks: list[Scratch] = []
        seen: set = set()
        self.nodes = 0

        def walk(scratch: Scratch, remaining: frozenset[str]) -> None:
            self.nodes += 1
            if self.nodes > MAX_ORDERS:
                self.truncated = True
                return
            if not remaining:
                after_blocks.append(scratch)
                return
            memo = (remaining, scratch.key())
            if memo in seen:
                return
            seen.add(memo)
            ready = sorted(s for s in remaining
                           if not any(b == s and a in remaining for a, b in edges))
            for step in ready:
                for nxt in self.run_step(scratch.clone(), step, by_step[step]):
                    self.fire_rules(nxt, self.blocking_rules)
                    walk(nxt, remaining - {step})

        self.fire_rules(start, self.blocking_rules)
        walk(start, frozenset(blocking))
        cycles = self._block_cycles(after_blocks)
        for scratch in after_blocks:
            scratch.report.holes.extend(cycles)
        results: dict[tuple, Scratch] = {}
        for scratch in after_blocks:
            scratch.buffering = True
            scratch.frozen_events = frozenset(scratch.events)
            branches = [scratch]
            for step in acting:
                branches = [n for b in branches for n in self.run_step(b, step, by_step[step])]
            for b in branches:
                b.report.order.append("deaths")
                for done in self.deaths(b):
                    results.setdefault(done.report.key() + (done.state.key(),), done)
        outcomes = list(results.values())
        if self.truncated:
            for o in outcomes:
                o.report.holes.append(holes.truncated())
        return outcomes

    def _block_cycles(self, after_blocks: list[Scratch]) -> list[Hole]:
        """Users of k >= 2 blocking abilities the spec leaves unordered whose blocks form a
        ring (vocabulary.block_rings): x's use of A links to y's use of B when, in some order
        with A before B, x's block took and y's use of B was taken away by a block; a ring of
        such links through k abilities and k players is a block cycle. The orders give its
        readings (which of its uses take effect); the hole marks every outcome of the phase
        (encode.blocking.block_cycles asks the same of the encoding)."""
        eligible = {a.key for a in self.sc.abilities if in_block_cycles(self.sc, a)}
        links = set()  # ((A, x), (B, y)): an order with A before B where x's A took y's B away
        for sc in after_blocks:
            order = sc.report.order
            for a, x, y in sc.hits:
                for b, seat in sc.report.blocked_uses:
                    if seat == y != x and a != b and a in eligible and b in eligible and \
                            order.index(a) < order.index(b):
                        links.add(((a, x), (b, y)))
        st = after_blocks[0].state if after_blocks else None
        out = []
        for ring in block_rings(links):
            assert st is not None
            out.append(holes.block_cycle([(a, self.abilities[a].display, x, self.sc.role_by_key[
                st.dealt[x] if st.dealt else st.roles[x]].display) for a, x in ring]))
        return out

    def _acting_order(self, steps: list[str]) -> list[str]:
        """Stage 2 acts together; only a triggered ability must follow the attacks that can
        trigger it, so the order is the steps' names with those after their triggers."""
        triggered = {s for s in steps if any(t.timing == "immediately" and t.event.key in ACTING_EVENTS
                                             for t in self.abilities[s].triggers)}
        return sorted(s for s in steps if s not in triggered) + sorted(triggered)

    # -------------------------------------------------------------- steps

    def run_step(self, sc: Scratch, step: str, uses: list[BoundUse]) -> list[Scratch]:
        sc.report.order.append(step)
        ability = self.abilities[step]
        active = []
        for u in uses:
            if u.actor is not None:  # a choice made, taken effect or not; a team's is everyone's
                team = ability.actor is not None and ability.actor.kind == "team"
                for seat in (range(len(sc.state.roles)) if team else (u.actor,)):
                    sc.events.add(("acted", seat, step))
            if not ability.is_card and any(t.timing == "immediately" for t in ability.triggers) and \
                    not any(p.phase.key == self.phase.kind for p in ability.phases) and \
                    not pending_for(sc.state, step, u.actor, self.phase) and \
                    (step, u.actor) not in sc.triggered:
                continue  # it waits for its trigger (Player.play says when it never came)
            if not ability.is_card and any(t.timing == "immediately" for t in ability.triggers) and \
                    not any(p.phase.key == self.phase.kind for p in ability.phases):
                sc.report.fired_triggers.add((step, u.actor))
            if ability.is_card and u.actor not in sc.state.drawn and ("drawn", u.actor) not in sc.events \
                    and ("voted", u.actor) not in sc.events:
                sc.report.cancelled.append(f"{ability.display} by {self.name(sc, u.actor)}: no card was drawn")
                continue
            if (step, u.actor) in sc.cancelled_uses:
                sc.report.cancelled.append(f"{ability.display} by {self.name(sc, u.actor)}: cancelled")
                continue
            actor_blocked = u.actor is not None and u.actor in sc.blocked and \
                (ability.actor is None or ability.actor.kind != "moderator")
            if actor_blocked:
                sc.report.cancelled.append(f"{ability.display} by {self.name(sc, u.actor)}: blocked")
                sc.report.blocked_uses.add((step, u.actor))
                continue
            active.append(u)
        if not active:
            return [sc]
        branches = self._simultaneous_blocks(sc, ability, active)
        out = []
        for scratch, acting in branches:
            for u in acting:
                scratch.events.add(("used", step))
                for t in u.targets:
                    scratch.events.add(("targeted", t, step))
                    self._trigger(scratch, "targeted", t, step)  # `on targeted [by ABILITY]`
                self.apply(scratch, ability.effects, self.env(u), ability, u.actor)
            out.append(scratch)
        return out

    def _simultaneous_blocks(self, sc: Scratch, ability: Ability,
                             uses: list[BoundUse]) -> list[tuple[Scratch, list[BoundUse]]]:
        """Uses of one step act together; when they block each other, every consistent
        choice of who is blocked is an outcome (mutual blocks can have several, or none)."""
        if len(uses) < 2 or "block" not in verbs(ability.effects):
            return [(sc, uses)]
        actors = {u.actor for u in uses}
        targets_of = {}
        for u in uses:
            probe = sc.clone()
            self.apply(probe, ability.effects, self.env(u), ability, u.actor)
            targets_of[u] = probe.blocked - sc.blocked
        candidates = sorted(set().union(*targets_of.values()) & actors)
        consistent = []
        for r in range(len(candidates) + 1):
            for combo in itertools.combinations(candidates, r):
                chosen = set(combo)
                produced = set().union(*(targets_of[u] for u in uses if u.actor not in chosen)) & actors
                if produced == chosen:
                    consistent.append(chosen)
        if not consistent:
            sc.report.holes.append(holes.mutual_none(ability.display, ability.key))
            return [(sc, uses)]
        out = []
        for chosen in consistent:
            branch = sc.clone() if len(consistent) > 1 else sc
            if len(consistent) > 1:
                names = ", ".join(self.name(branch, s) for s in sorted(chosen)) or "nobody"
                branch.report.holes.append(holes.mutual_several(ability.display, names, ability.key))
            out.append((branch, [u for u in uses if u.actor not in chosen]))
        return out

    def env(self, u: BoundUse) -> Env:
        env: Env = {"actor": u.actor, "targets": frozenset(u.targets),
               "target": u.targets[0] if u.targets else None}
        env.update(u.value_map())
        return env

    def name(self, sc: Scratch, seat: int | None) -> str:
        return seat_name(self.sc, sc.state, seat)

    def value(self, sc: Scratch, expr: ast.Expr | None, env: Env) -> Value:
        return self.evaluator(sc).value(expr, env)

    def evaluator(self, sc: Scratch) -> Evaluator:
        """An evaluator of the scratch state with the events expressions may see now."""
        if sc.buffering and sc.frozen_events is not None:
            sc.state.events = sc.frozen_events  # stage 2 acts together: no step sees another
        else:
            sc.state.events = frozenset(sc.events)
        return Evaluator(self.sc, sc.state)

    # -------------------------------------------------------------- effects

    def apply(self, sc: Scratch, effects: Iterable[ast.AnyEffect], env: Env, source: Source,
              actor: int | None) -> None:
        for e in effects:
            self.apply_one(sc, e, env, source, actor)

    def _seats(self, sc: Scratch, e: ast.Effect, env: Env) -> list[int]:
        if e.on is None:
            value = env.get("targets") if env.get("targets") else env.get("target")
        else:
            value = self.value(sc, e.on, env)
        if value is None:
            return []
        if isinstance(value, (set, frozenset, tuple, list)):
            return sorted(value)
        return [value]

    def apply_one(self, sc: Scratch, e: ast.AnyEffect, env: Env, source: Source, actor: int | None) -> None:
        src = source.name.key if isinstance(source, ast.RuleDecl) else source.key
        if isinstance(e, ast.IfEffect):
            try:
                branch = e.then if self.value(sc, e.cond, env) else e.otherwise
            except EvalError as exc:
                sc.report.holes.append(holes.no_row(_display(source), src, case=str(exc)))
                return
            self.apply(sc, branch, env, source, actor)
            return
        if isinstance(e, ast.AfterEffect):
            sc.state.delayed = sc.state.delayed + ((e.unit.key, e.count, e.body, tuple(env.items()), src),)
            sc.report.changes.append(f"{_display(source)}: takes effect after {e.count} {e.unit.text}")
            return
        v = e.verb
        if v in ("nothing",):
            return
        if v == "unspecified":
            sc.report.holes.append(holes.unspecified(_display(source), effect_text(e), src))
            return
        if v == "announce":
            sc.report.announcements.append(effect_text(e))
            return
        try:
            self._apply_verb(sc, e, env, source, src, actor)
        except EvalError as exc:
            # A value the rules do not give (a table with no row for it, in `set`, `learn`
            # or `on`): the rulebook leaves the effect undecided, as it does for an `if`.
            sc.report.holes.append(holes.no_row(_display(source), src, case=str(exc)))

    def _apply_verb(self, sc: Scratch, e: ast.Effect, env: Env, source: Source, src: str,
                    actor: int | None) -> None:
        v = e.verb
        if v == "learn":
            answer = self.value(sc, e.value, env)
            sc.report.learned.append((actor, None, str(answer)))
            return
        if v == "win":
            # A declared winner: the phase's win check weighs it with the conditions met
            # (Player._check_wins), whatever the schedule, and the game ends with the phase.
            side = effect_name(e).key
            if side not in sc.report.declared:
                sc.report.declared.append(side)
            return
        if v == "cancel":
            ability = effect_name(e).key
            for seat in self._seats(sc, e, env):
                sc.cancelled_uses.add((ability, seat))
            return
        seats = self._seats(sc, e, env)
        if v == "link" and e.together:
            env = {**env, "_group": tuple(seats)}  # linked to each other: the group is one value
        for seat in seats:
            self.apply_to(sc, e, seat, env, source, src, actor)

    def apply_to(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
                 actor: int | None) -> None:
        """One effect on one seat: an intention recorded, a block, or a change of state (which,
        while the steps act together, waits in `writes` until after the deaths)."""
        v = e.verb
        if sc.buffering and v in STATE_WRITES:
            if v == "give" and not e.names:
                env = {**env, "_variant": self._chosen_variant(source, env, effect_name(e).key)}
            if v == "set":  # acting together: the value is the phase start's, not another write's
                env = {**env, "_value": self.value(sc, e.value, env)}
            sc.writes.append((e, seat, dict(env), source, src, actor))
            return
        getattr(self, APPLY[v])(sc, e, seat, env, source, src, actor)

    def _kill(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
              actor: int | None) -> None:
        name = effect_name(e)
        sc.attacks.append(Attack(seat, name.key, src, actor))
        sc.events.add(("kill", seat, name.key))
        if actor is not None:
            sc.events.add(("attacked_by", seat, actor))
        self._trigger(sc, "kill", seat, name.key)

    def _save(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
              actor: int | None) -> None:
        kinds = frozenset(n.key for n in e.names)
        sc.defenses.append(Defense(seat, None if (not kinds or "any" in kinds) else kinds, src))
        sc.events.add(("save", seat))

    def _protect(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
                 actor: int | None) -> None:
        for n in e.names:
            sc.events.add(("protect", seat, n.key))
            if n.key in SHIELDS:
                sc.shields.setdefault(seat, set()).add(n.key)
            else:
                kinds = None if n.key in ("any", "kill") else frozenset({n.key})
                sc.defenses.append(Defense(seat, kinds, src))

    def _block(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
               actor: int | None) -> None:
        sc.events.add(("block", seat))
        if "block" in sc.shields.get(seat, ()):
            sc.report.changes.append(f"{self.name(sc, seat)} was protected from a block")
        else:
            if actor is not None and isinstance(source, Ability):
                sc.hits.add((src, actor, seat))
            sc.blocked.add(seat)
            sc.events.add(("blocked", seat))
            if seat not in sc.report.blocked:
                sc.report.blocked.append(seat)

    def _unblock(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
                 actor: int | None) -> None:
        sc.blocked.discard(seat)
        sc.events.discard(("blocked", seat))

    def _inquire(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
                 actor: int | None) -> None:
        sc.events.add(("inquire", seat))
        sc.report.learned.append((actor, seat, self.appearance(sc, seat, actor)))

    def _convert(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
                 actor: int | None) -> None:
        name = effect_name(e)
        st = sc.state
        if "convert" in sc.shields.get(seat, ()):
            return
        role = self.sc.role_by_key[name.key]
        before = self.name(sc, seat)
        st.roles[seat] = role.key
        if role.side is not None:
            st.sides[seat] = role.side
        for c in role.counters:
            st.counters[seat].setdefault(c.key, self.value(sc, c.initial, {}))
        sc.report.changes.append(f"{before} becomes {role.display}")

    def _reveal(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
                actor: int | None) -> None:
        name = effect_name(e)
        st = sc.state
        st.revealed = st.revealed | {seat}
        what = name.key
        if what == "role":
            shown = self.sc.role_by_key[st.roles[seat]].display
            sc.report.reveals.append((seat, st.roles[seat]))
        else:
            side = st.sides[seat]
            shown = self.sc.side_by_key[side].display if side else "no side"
            sc.report.reveals.append((seat, side))
        sc.report.announcements.append(f"@{seat + 1} is {shown}")

    def _link(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
              actor: int | None) -> None:
        st = sc.state
        for who, to, kind in link_pairs(e, seat, env, actor):
            st.links[who] = to
            if kind is None:
                st.link_kinds.pop(who, None)
            else:
                st.link_kinds[who] = kind
            sc.report.changes.append(f"{self.name(sc, who)} is linked to {self.name(sc, to)}"
                                     + (f", and follows him out ({self._kind(kind)})" if kind else ""))

    def _kind(self, key: str) -> str:
        decl = next((k for k in self.sc.kinds if k.name.key == key), None)
        return decl.label or decl.name.text if decl is not None else key

    def _followers(self, sc: Scratch, result: dict[int, tuple[str, str]]) -> None:
        """`link … with KIND`: a player linked to one who leaves in this resolution leaves too,
        by the link's kind, unless he leaves anyway (by his own cause); followed along chains.
        The links made in this phase hold already (they wait with the other changes of state,
        but bind the deaths of the phase that makes them)."""
        st = sc.state
        links, kinds = dict(st.links), dict(st.link_kinds)
        for e, seat, env, _source, _src, actor in sc.writes:
            if e.verb == "link":
                for who, to, kind in link_pairs(e, seat, env, actor):
                    links[who] = to
                    if kind is None:
                        kinds.pop(who, None)
                    else:
                        kinds[who] = kind
        if not kinds:
            return
        changed = True
        while changed:
            changed = False
            for who in range(len(st.roles)):
                kind = kinds.get(who)
                if kind is None or who in result or not st.alive[who] or links.get(who) not in result:
                    continue
                result[who] = (kind, self._link_source(kind))
                changed = True

    def _link_source(self, kind: str) -> str:
        """The ability (or rule) whose links carry this kind of exit, for the report."""
        owners: list[Source] = [*self.sc.abilities, *self.sc.rules]
        for owner in owners:
            effects = owner.effects if isinstance(owner, Ability) else owner.then
            if any(e.verb == "link" and e.name is not None and e.name.key == kind for e in flat(effects)):
                return owner.key if isinstance(owner, Ability) else owner.name.key
        return "link"

    def _revive(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
                actor: int | None) -> None:
        st = sc.state
        if not st.alive[seat]:
            st.alive[seat] = True
            st.left_by[seat] = None
            sc.report.changes.append(f"{self.name(sc, seat)} returns to the game")
            sc.events.add(("revived", seat))
            self._trigger(sc, "revived", seat, None)  # `on revived`

    def _give(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
              actor: int | None) -> None:
        name = effect_name(e)
        st = sc.state
        variant = e.names[0].key if e.names else env.get("_variant") or \
            self._chosen_variant(source, env, name.key)
        st.items[(name.key, seat)] = variant
        sc.report.changes.append(f"{self.name(sc, seat)} receives {self._item(name.key)}"
                                 + (f" ({self._item(name.key, variant)})" if variant else ""))

    def _lose(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
              actor: int | None) -> None:
        name = effect_name(e)
        st = sc.state
        if st.items.pop((name.key, seat), None) is not None:
            sc.report.changes.append(f"{self.name(sc, seat)} no longer holds {self._item(name.key)}")

    def _mark_unmark(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
                     actor: int | None) -> None:
        name = effect_name(e)
        st = sc.state
        v = e.verb
        decl = next(m for m in self.sc.memories if m.name.key == name.key)
        if decl.type == "players":
            current = set(st.memories.get(decl.name.key) or ())
            current = current | {seat} if v == "mark" else current - {seat}
            st.memories[decl.name.key] = frozenset(current)
        else:
            st.memories[decl.name.key] = seat if v == "mark" else None

    def _consume(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
                 actor: int | None) -> None:
        name = effect_name(e)
        st = sc.state
        counters = st.counters[seat]
        if counters.get(name.key, 0) > 0:
            counters[name.key] -= 1
            sc.report.changes.append(f"{self.name(sc, seat)}: {name.text} {counters[name.key]}")

    def _set(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
             actor: int | None) -> None:
        name = effect_name(e)
        st = sc.state
        value = env["_value"] if "_value" in env else self.value(sc, e.value, env)
        if name.key in st.counters[seat]:
            st.counters[seat][name.key] = value
        elif name.key == "side" and not any(m.name.key == "side" for m in self.sc.memories):
            st.sides[seat] = value
            shown = self.sc.side_by_key[value].display if value else "no side"
            sc.report.changes.append(f"{self.name(sc, seat)} plays for {shown}")
        else:
            st.memories[name.key] = value

    def _leave(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
               actor: int | None) -> None:
        name = effect_name(e)
        overrides = tuple(n.key for n in getattr(source, "overrides", ()))
        sc.strict.append(("leave", seat, name.key, src, overrides))

    def _stay(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
              actor: int | None) -> None:
        overrides = tuple(n.key for n in getattr(source, "overrides", ()))
        sc.strict.append(("stay", seat, None, src, overrides))

    def _draw(self, sc: Scratch, e: ast.Effect, seat: int, env: Env, source: Source, src: str,
              actor: int | None) -> None:
        st = sc.state
        sc.events.add(("drawn", seat))
        st.drawn = st.drawn | {seat}
        sc.report.changes.append(f"{self.name(sc, seat)} draws a card")

    def _item(self, key: str, variant: str | None = None) -> str:
        item = next((i for i in self.sc.items if i.name.key == key), None)
        if item is None:
            return variant or key
        if variant is None:
            return item.label or item.name.text
        return next((label or v.text for v, label in item.variants if v.key == variant), variant)

    def _chosen_variant(self, source: Source, env: Env, item: str) -> str | None:
        if isinstance(source, Ability):
            for ch in source.choices:
                if ch.kind == "variant" and ch.names[0].key == item:
                    return env.get(ch.binds.key)
        return None

    def _trigger(self, sc: Scratch, event: str, seat: int, kind: str | None) -> None:
        """Record the abilities of this player that the event triggers: now, or in a later
        phase (`next night`)."""
        role = sc.state.roles[seat]
        for a in self.sc.abilities:
            if a.actor is None or a.actor.kind not in ("role", "holder"):
                continue
            # A holder's ability (`by holder of badge`): the player holding the item when the
            # event happens (a `give` or `lose` of this phase waits until after its deaths).
            if a.actor.kind == "holder" and \
                    (present(a.actor.name, "the item of `by holder of ITEM`").key, seat) not in sc.state.items:
                continue
            if a.actor.kind == "role" and role not in set(actor_roles(a)):
                continue
            for t in a.triggers:
                if t.event.key == event and (not t.by or kind in {n.key for n in t.by}):
                    if t.timing == "next" and t.timing_phase is not None:
                        sc.report.due_next.add((a.key, seat, t.timing_phase.key))
                    else:
                        sc.triggered.add((a.key, seat))

    def appearance(self, sc: Scratch, seat: int, inquirer: int | None) -> str:
        """How a player appears to an inquiring role: the role's declared appearance to that
        role, else the player's side."""
        st = sc.state
        role = self.sc.role_by_key[st.roles[seat]]
        if inquirer is not None:
            for a in role.appearances:
                if st.roles[inquirer] in a.to_roles:
                    sc.report.decided(f"{role.text} appears {a.value}", [c.id for c in a.cites])
                    return a.value
        side = st.sides[seat]
        return self.sc.side_by_key[side].display if side else "no side"

    # -------------------------------------------------------------- rules

    def bindings(self, rule: ast.RuleDecl, n: int) -> Iterator[tuple[int, ...]]:
        return itertools.product(range(n), repeat=len(rule.variables))

    def applicable(self, sc: Scratch, rule: ast.RuleDecl) -> list[Env]:
        """The variable bindings for which a rule applies now."""
        out = []
        # One evaluator for every binding: asking changes nothing, so the events are
        # frozen once, not once per seat (most of godfather_jack's stalemate playouts).
        ev = self.evaluator(sc)
        for combo in self.bindings(rule, len(sc.state.roles)):
            env = {v.key: s for v, s in zip(rule.variables, combo)}
            try:
                if ev.value(rule.cond, env) and not any(ev.value(u, env) for u in rule.unless):
                    out.append(env)
            except EvalError as exc:
                sc.report.holes.append(holes.no_row(f"rule {rule.name.text}", rule.name.key, case=str(exc)))
        return out

    def fire_rules(self, sc: Scratch, rules: Sequence[ast.RuleDecl]) -> None:
        """Rules whose conclusions are not exits act when they apply, until nothing changes:
        those that block after each blocking step, the others after the deaths. In rounds,
        each in declaration order: a rule's bindings are read before any of them acts, and
        each binding acts once a phase. Rules that feed each other and still apply anew after
        as many rounds as there are rules are a hole (rule_rounds.max_rounds)."""
        limit = max_rounds(rules)
        changed = True
        rounds = 0
        while changed:
            if rounds == limit:
                for rule in rules:
                    if any((rule.name.key, tuple(sorted(env.items()))) not in sc.fired_rules
                           for env in self.applicable(sc, rule)):
                        sc.report.holes.append(holes.unsettled(rule.name.text, rule.name.key, limit))
                return
            changed = False
            rounds += 1
            for rule in rules:
                for env in self.applicable(sc, rule):
                    key = (rule.name.key, tuple(sorted(env.items())))
                    if key in sc.fired_rules:
                        continue
                    sc.fired_rules.add(key)
                    sc.report.decided(rule.name.text, [c.id for c in rule.cites])
                    sc.report.rule_rounds = max(sc.report.rule_rounds, rounds)
                    self.apply(sc, rule.then, env, rule, None)
                    changed = True

    # -------------------------------------------------------------- deaths

    def deaths(self, sc: Scratch) -> list[Scratch]:
        """Decide who leaves. Rules may depend on who leaves (`leaves(p)`), so decide,
        apply the rules again with that decision, and repeat until nothing changes."""
        sc.frozen_events = None  # the deaths see every intention of the phase
        leaving: dict[int, tuple[str, str]] = {}
        outcomes = []
        for _ in range(len(sc.state.roles) + 2):
            trial = sc.clone()
            for seat in leaving:
                trial.events.add(("left", seat))
            decided, contradictions = self.decide(trial)
            if decided == leaving and not contradictions:
                return [self.commit(trial, decided)]
            if contradictions:
                for choice in self._contradiction_branches(trial, decided, contradictions):
                    outcomes.append(self.commit(choice[0], choice[1]))
                return outcomes
            leaving = decided
        sc.report.holes.append(holes.unstable())
        return [self.commit(sc, leaving)]

    def _contradiction_branches(self, sc: Scratch, decided: dict[int, tuple[str, str]], contradictions: list[Contradiction]
                                ) -> list[tuple[Scratch, dict[int, tuple[str, str]]]]:
        out = []
        for seat, leave_rule, kind, stay_rule in contradictions:
            for leaves in (True, False):
                branch = sc.clone()
                result = dict(decided)
                if leaves:
                    result[seat] = (kind, leave_rule)
                else:
                    result.pop(seat, None)
                branch.report.holes.append(holes.contradiction(
                    leave_rule, stay_rule, self.name(sc, seat), leave_rule if leaves else stay_rule))
                out.append((branch, result))
        return out

    def decide(self, sc: Scratch) -> tuple[dict[int, tuple[str, str]], list[Contradiction]]:
        """{seat: (kind, decided by)} for every player who leaves, and the contradictions."""
        strict = list(sc.strict)
        for rule in self.exit_rules:
            for env in self.applicable(sc, rule):
                probe = Scratch(sc.state.clone(), Report(self.phase), set(sc.events))
                self.apply(probe, [e for e in flat(rule.then) if e.verb in ("leave", "stay")],
                           env, rule, None)
                strict.extend(probe.strict)
                sc.report.decided(rule.name.text, [c.id for c in rule.cites])
        sc.decided_strict = strict
        result, contradictions = {}, []
        seats = sorted({c.target for c in sc.attacks} | {s[1] for s in strict})
        for seat in seats:
            mine = [s for s in strict if s[1] == seat]
            present = {s[3] for s in mine}
            overridden = {o for s in mine for o in s[4] if o in present and o != s[3]}
            mine = [s for s in mine if s[3] not in overridden]
            leaves = [s for s in mine if s[0] == "leave"]
            blanket = [s for s in mine if s[0] == "stay" and not s[4]]
            scoped = {o for s in mine if s[0] == "stay" for o in s[4]}
            if leaves and blanket:
                contradictions.append((seat, leaves[0][3], leaves[0][2], blanket[0][3]))
                continue
            if leaves:
                result[seat] = (leaves[0][2], leaves[0][3])
                continue
            if blanket:
                if any(c.target == seat for c in sc.attacks):
                    sc.report.decided(blanket[0][3])
                continue
            for cause in (c for c in sc.attacks if c.target == seat):
                if cause.source in scoped:
                    continue
                if any(d.target == seat and (d.kinds is None or cause.kind in d.kinds)
                       for d in sc.defenses):
                    continue
                result[seat] = (cause.kind, cause.source)
                break
        self._followers(sc, result)
        return result, contradictions

    def commit(self, sc: Scratch, leaving: dict[int, tuple[str, str]]) -> Scratch:
        sc.buffering = False
        sc.frozen_events = None
        st = sc.state
        for seat in sorted(leaving):
            kind, by = leaving[seat]
            if not st.alive[seat]:
                continue
            st.alive[seat] = False
            st.left_by[seat] = kind
            sc.events.add(("left", seat))
            sc.report.exits.append((seat, kind, by))
            sc.report.decided(by, self._cites_of(by))
            self._trigger(sc, "leave", seat, kind)
        attacked = sorted({c.target for c in sc.attacks})
        for seat in attacked:
            if seat not in leaving and any(c.target == seat for c in sc.attacks):
                why = [d.source for d in sc.defenses if d.target == seat]
                why += [s[3] for s in sc.decided_strict if s[1] == seat and s[0] == "stay"]
                sc.report.survived.append((seat, ", ".join(dict.fromkeys(why)) or "nothing stopped it"))
                for name in why:
                    sc.report.decided(name, self._cites_of(name))
        # Side effects of the exit rules that applied (reveal, convert, consume …).
        for rule in self.exit_rules:
            others = [e for e in rule.then if not (isinstance(e, ast.Effect) and e.verb in ("leave", "stay"))]
            if not others:
                continue
            for env in self.applicable(sc, rule):
                key = (rule.name.key, tuple(sorted(env.items())))
                if key not in sc.fired_rules:
                    sc.fired_rules.add(key)
                    self.apply(sc, others, env, rule, None)
        writes, sc.writes = sc.writes, []
        for e, seat, env, source, src, actor in writes:
            self.apply_to(sc, e, seat, env, source, src, actor)
        if self.checkpoint:
            sc.report.checkpoints.append(sc.state.clone())
        self.fire_rules(sc, self.late_rules)
        sc.report.triggered |= sc.triggered
        return sc

    def _cites_of(self, name: str) -> list[str]:
        if name in self.abilities:
            ability = self.abilities[name]
            return list(dict.fromkeys(list(ability.cites_of("effect")) + list(ability.cites_of("on"))))
        rule = next((r for r in self.sc.rules if r.name.key == name), None)
        return [c.id for c in rule.cites] if rule else []


# Trigger events that happen among the actions of a resolution (an attack, being named by a
# use): an ability acting at once on them acts after the steps that can set them off.
ACTING_EVENTS = frozenset({"kill", "targeted"})
# Trigger events decided when a resolution closes (an exit, a return): an ability acting at
# once on them acts in a further resolution right after it.
CLOSING_EVENTS = frozenset({"leave", "revived"})

# Verbs that act on the phase as a whole, in Resolver.apply_one.
APPLY_WHOLE = frozenset({"nothing", "unspecified", "announce", "learn", "win", "cancel"})
# The handler of each verb that acts on a seat, in Resolver.apply_to.
APPLY = {
    "kill": "_kill",
    "save": "_save",
    "protect": "_protect",
    "block": "_block",
    "unblock": "_unblock",
    "inquire": "_inquire",
    "convert": "_convert",
    "reveal": "_reveal",
    "link": "_link",
    "revive": "_revive",
    "give": "_give",
    "lose": "_lose",
    "mark": "_mark_unmark",
    "unmark": "_mark_unmark",
    "consume": "_consume",
    "set": "_set",
    "leave": "_leave",
    "stay": "_stay",
    "draw": "_draw",
}


def link_pairs(e: ast.Effect, seat: int, env: Env, actor: int | None) -> list[tuple[int, int, str | None]]:
    """What a `link` on one seat links: (who, to whom, the kind of exit it carries). A plain
    `link` links the user to the seat; `link together` links the players it applies to each
    to the next by seat, the last to the first (two players: to each other)."""
    kind = e.name.key if e.name is not None else None
    if not e.together:
        return [] if actor is None else [(actor, seat, kind)]
    group = sorted(env.get("_group", ()))
    if len(group) < 2 or seat not in group:
        return []
    return [(seat, group[(group.index(seat) + 1) % len(group)], kind)]


def _display(source: Source) -> str:
    if isinstance(source, ast.RuleDecl):
        return f"rule {source.name.text}"
    return source.display
