"""The scenario model (IR): a spec after name resolution and validation.

Every reference here is known to resolve. Expressions and effects keep their AST form (their
names are checked, and they carry spans for findings); declarations are normalised so that
later stages (setup checks, the interpreter, the encoder) read fields instead of clauses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from . import ast
from .source import Span, spanned
from .vocabulary import calls, decides_exits, is_blocking, verbs

PHASE_NAMES = ("intro_day", "intro_night", "blind_day", "day", "night")
NIGHT_PHASES = ("intro_night", "night")
DAY_PHASES = ("intro_day", "blind_day", "day")
PERIODS = ("game", "night", "day", "round")
TIE_RULES = ("no_exit", "revote", "random", "all_leave", "undecided", "chosen")
WIN_CHECK_POINTS = ("day", "night", "exit", "vote", "deaths")
BUILTIN_KINDS = ("vote", "kick")


@dataclass(frozen=True)
class Side:
    key: str
    text: str
    label: str | None
    kind: str  # town, dark, independent
    cites: ast.Cites
    span: Span = spanned()

    @property
    def display(self) -> str:
        return self.label or self.text


@dataclass(frozen=True)
class Appearance:
    value: str
    to_roles: tuple[str, ...]
    cites: ast.Cites
    span: Span = spanned()


@dataclass(frozen=True)
class Counter:
    key: str
    initial: ast.Expr
    span: Span = spanned()


@dataclass(frozen=True)
class Role:
    key: str
    text: str
    label: str | None
    akas: tuple[str, ...]
    side: str | None  # a side key; None when the side is chosen in play
    side_choices: tuple[str, ...]
    counts_as: str | None  # the side whose numbers it counts in; "" counts for nobody
    plain: bool
    max: int | None
    appearances: tuple[Appearance, ...]
    counters: tuple[Counter, ...]
    cites: ast.Cites
    span: Span = spanned()

    @property
    def display(self) -> str:
        return self.label or self.text

    @property
    def counted_side(self) -> str | None:
        return self.side if self.counts_as is None else (self.counts_as or None)


@dataclass(frozen=True)
class Team:
    key: str
    label: str | None
    members_side: str | None
    members: tuple[str, ...]  # role keys, when listed one by one
    options: tuple[str, ...]  # ability keys: the team uses one of them per `per`
    per: str | None
    leaders: tuple[str, ...]
    leader_fallback: bool
    cites: ast.Cites
    span: Span = spanned()
    option_cites: tuple[str, ...] = ()  # rule ids behind `one of … per …`
    leader_cites: tuple[str, ...] = ()
    # `except p where COND`: a member for whom COND holds (read as a legality condition is,
    # on the state at the start of the phase and the phase's choices) is out of the team
    # for that phase: he neither decides for it nor acts for it.
    except_var: str | None = None
    except_when: "ast.Expr | None" = None
    except_cites: tuple[str, ...] = ()


@dataclass(frozen=True)
class Composition:
    players: int
    label: str | None
    entries: tuple[tuple[str, int], ...]  # (role key, count) in the order written
    entry_spans: tuple[Span, ...]
    cites: ast.Cites
    span: Span = spanned()
    players_span: Span = spanned()
    name: ast.Name | None = None  # a named alternative of the setup (`composition 7 cop {…}`)

    @property
    def total(self) -> int:
        return sum(n for _, n in self.entries)

    @property
    def title(self) -> str:
        """How reports and queries call it: `7 cop_doctor` when named, else `7`."""
        return f"{self.players} {self.name.text}" if self.name is not None else str(self.players)

    @property
    def ref(self) -> str:
        """How a query selects it: `composition cop_doctor`, or `composition 7`."""
        return self.name.text if self.name is not None else str(self.players)

    def seats(self) -> tuple[str, ...]:
        return tuple(role for role, n in self.entries for _ in range(n))


@dataclass(frozen=True)
class StartOption:
    phases: tuple[str, ...]
    when: ast.Expr | None
    span: Span = spanned()


@dataclass(frozen=True)
class Phases:
    starts: tuple[StartOption, ...]
    cycle: tuple[str, ...]
    wins_checked: tuple[str, ...]
    cites: ast.Cites
    span: Span = spanned()
    # Every reading of when wins are checked (`wins checked after … or after …`): each a
    # tuple of check points. One reading is the usual case; several disagree only where a win
    # is met at the check points of one and not of another.
    readings: tuple[tuple[str, ...], ...] = ()
    reading_cites: tuple[str, ...] = ()  # the rule ids the `wins checked` line cites


@dataclass(frozen=True)
class Ability:
    key: str
    text: str
    label: str | None
    is_card: bool
    actor: ast.Actor | None
    for_team: str | None
    phases: tuple[ast.PhaseRef, ...]
    triggers: tuple[ast.Trigger, ...]
    target_count: ast.Expr | None  # None: no target
    target_filter: ast.Expr | None
    target_up_to: bool
    choices: tuple[ast.Choice, ...]
    limits: tuple[ast.Limit, ...]
    conditions: tuple[ast.Expr, ...]
    effects: tuple[ast.AnyEffect, ...]
    optional: bool
    clause_cites: tuple[ast.RuleRef, ...]
    cites: ast.Cites
    span: Span = spanned()
    name_span: Span = spanned()
    clauses: tuple[ast.AbilityClause, ...] = field(default=(), compare=False, repr=False)
    # Whether a use a block takes away counts against the limits: count, free, or open (the
    # rulebook does not say; `blocked_why` says so) — see `blocked uses …`.
    blocked_uses: str = "count"
    blocked_why: str | None = None
    # `mandatory`: a use must be made whenever one is legal; with no legal use the
    # obligation lapses for that phase.
    mandatory: bool = False

    @property
    def display(self) -> str:
        return self.label or self.text

    def cites_of(self, keyword: str, match: Callable[..., bool] | None = None) -> tuple[str, ...]:
        """Rule ids cited by this ability's clauses of one keyword (and its own), for the
        answers that say which rule forbade or decided something."""
        ids = [r.id for c in self.clauses if c.keyword == keyword
               and (match is None or match(c)) for r in c.cites]
        ids += [r.id for r in self.cites]
        return tuple(dict.fromkeys(ids))


@dataclass(frozen=True)
class TieRule:
    """What a tied vote does. `chosen`: the first living player holding one of `roles` (or
    the item) sends one of the tied out; `revote`: the tied face a second vote, which sends one
    of them out or ties again, and `then` (else `undecided`) is what a second tie does."""

    kind: str  # one of TIE_RULES
    roles: tuple[str, ...] = ()
    item: str | None = None
    then: "TieRule | None" = None

    @property
    def second(self) -> "TieRule":
        """The rule for a second tie, after a revote."""
        return self.then if self.then is not None else TieRule("undecided")

    @property
    def may_remove(self) -> bool:
        """Whether a tie under this rule can send one of the tied out."""
        return self.kind in ("random", "all_leave", "chosen", "revote")


@dataclass(frozen=True)
class Day:
    label: str | None
    vote: str | None  # majority, quorum
    quorum: ast.Expr | None
    tie: str | None
    exits: int
    exit_mode: str | None
    candidates: tuple[tuple[int | None, ast.Expr], ...]  # (day number or every day, filter)
    clause_cites: tuple[ast.RuleRef, ...]
    cites: ast.Cites
    span: Span = spanned()
    vote_cites: tuple[ast.RuleRef, ...] = ()
    candidate_cites: tuple[tuple[ast.RuleRef, ...], ...] = ()  # per `candidates` clause
    tie_rule: TieRule | None = None  # the `tie` line in full (`tie` is its kind)
    weight: ast.Expr | None = None  # `weight EXPR`: a voter's votes (`voter` bound): a tallied vote


@dataclass(frozen=True)
class Acknowledgement:
    """A finding the spec accepts: its code, the elements it must involve, and why."""
    code: str
    names: tuple[str, ...]  # as written, for messages
    targets: tuple[Span, ...]  # the declarations named after `on`
    reason: str
    cites: tuple[ast.RuleRef, ...]
    span: Span | None = field(default=None, compare=False, hash=False, repr=False)


@dataclass(frozen=True)
class Scenario:
    path: str
    key: str
    text: str
    label: str | None
    source: str | None
    prefix: str | None
    language: str | None
    sides: tuple[Side, ...]
    roles: tuple[Role, ...]
    teams: tuple[Team, ...]
    compositions: tuple[Composition, ...]
    phases: Phases | None
    abilities: tuple[Ability, ...]
    rules: tuple[ast.RuleDecl, ...]
    day: Day | None
    wins: tuple[ast.WinDecl, ...]
    priorities: tuple[ast.PriorityDecl, ...]
    settings: tuple[ast.SettingDecl, ...]
    assumptions: tuple[ast.AssumeDecl, ...]
    items: tuple[ast.ItemDecl, ...]
    kinds: tuple[ast.KindDecl, ...]
    memories: tuple[ast.MemoryDecl, ...]
    wakes: tuple[ast.WakeDecl, ...]
    resolves: tuple[ast.ResolveDecl, ...]
    prechecks: tuple[ast.PrecheckDecl, ...]
    cites: tuple[ast.RuleRef, ...] = ()  # every rule id cited anywhere, in order
    span: Span | None = field(default=None, compare=False, hash=False, repr=False)
    acknowledgements: tuple[Acknowledgement, ...] = ()
    # Wins the rulebook does not write (`win SIDE unspecified "why" [when COND]`): reported as
    # undefined at a check point where COND holds, never read as "cannot win".
    open_wins: tuple[ast.WinDecl, ...] = ()
    # Abilities whose history a spec reads (`idle(p, A)`): the state counts, per player, the
    # phases of A in a row in which he made no use of it.
    idle_abilities: tuple[str, ...] = ()
    # Abilities whose count of uses a spec reads (`uses(A)`): with those a per-game limit or
    # open blocked uses read, the only ones whose uses the encoding's state counts.
    counted_abilities: tuple[str, ...] = ()

    def win_readings(self, win: ast.WinDecl) -> tuple[tuple[str, ...], ...]:
        """The readings of when this win is checked: its own, else the phases'."""
        if win.schedules:
            return tuple(tuple(n.key for n in s.points) for s in win.schedules)
        if self.phases is not None and self.phases.readings:
            return self.phases.readings
        return ((self.phases.wins_checked if self.phases else ()),)

    @property
    def display(self) -> str:
        return self.label or self.text

    @cached_property
    def role_by_key(self) -> dict[str, Role]:
        return {r.key: r for r in self.roles}

    @cached_property
    def side_by_key(self) -> dict[str, Side]:
        return {s.key: s for s in self.sides}

    @cached_property
    def ability_by_key(self) -> dict[str, Ability]:
        return {a.key: a for a in self.abilities}

    # ---------------------------------------------------------- static facts
    # Computed once per resolved spec, for both implementations of the game.

    def team_of(self, ability: Ability) -> Team | None:
        """The team whose action the ability is (`by team T`, or `for team T`)."""
        actor = ability.actor
        key = ability.for_team or (actor.name.key if actor and actor.kind == "team" and actor.name else None)
        return next((t for t in self.teams if t.key == key), None)

    @cached_property
    def resolve_edges(self) -> frozenset[tuple[str, str]]:
        """The resolution order the spec declares (`resolve A before B`), as pairs of steps
        (ability keys, and `deaths`): a team stands for its options and abilities, an effect
        verb for every ability that has it."""
        def steps(name: str) -> set[str]:
            if name in self.ability_by_key:
                return {name}
            team = next((t for t in self.teams if t.key == name), None)
            if team is not None:
                return set(team.options) | {a.key for a in self.abilities if self.team_of(a) is team}
            if name == "deaths":
                return {"deaths"}
            return {a.key for a in self.abilities if name in verbs(a.effects)}
        return frozenset((x, y) for d in self.resolves for a in d.first for b in d.then
                         for x in steps(a.key) for y in steps(b.key) if x != y)

    @cached_property
    def reads_choices(self) -> bool:
        """Whether a target filter or condition reads the phase's other choices (`chosen`)."""
        return any(calls(x, "chosen") for a in self.abilities
                   for x in (a.target_filter, *a.conditions) if x is not None) \
            or any(t.except_when is not None and calls(t.except_when, "chosen") for t in self.teams)

    def choice_domain(self, choice: ast.Choice, players: int) -> list:
        """Every value a `choose` can name: roles, sides, the options listed, the item's
        variants, or seats."""
        if choice.kind == "role":
            return [r.key for r in self.roles]
        if choice.kind == "side":
            return [s.key for s in self.sides]
        if choice.kind == "option":
            return [nm.key for nm in choice.names]
        if choice.kind == "variant":
            item = next(i for i in self.items if i.name.key == choice.names[0].key)
            return [v.key for v, _ in item.variants]
        return list(range(players))

    def rule_stage(self, rule: ast.RuleDecl) -> str:
        """When a rule acts in a resolution: `exit` (it decides who leaves, at the deaths),
        `blocking` (after each blocking step) or `late` (after the deaths)."""
        return self._rule_stages[rule.name.key]

    @cached_property
    def _rule_stages(self) -> dict[str, str]:
        return {r.name.key: "exit" if decides_exits(r.then) else "blocking" if is_blocking(r.then)
                else "late" for r in self.rules}

    def cited_ids(self) -> list[str]:
        """Every rule id the spec cites, in order of first appearance."""
        return list(dict.fromkeys(ref.id for ref in self.cites))
