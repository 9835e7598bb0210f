"""The syntax tree of a spec: what was written, where, before any name is resolved.

Every node is a frozen dataclass with a `span`, left out of equality (see `spanned`), so a
spec re-formatted or moved around compares equal to the original.
"""

from __future__ import annotations

from dataclasses import dataclass

from .source import Span, spanned


@dataclass(frozen=True)
class Name:
    text: str  # as written, for display
    key: str  # normalised, for lookup (see text.name_key)
    span: Span = spanned()


@dataclass(frozen=True)
class RuleRef:
    id: str
    span: Span = spanned()


Cites = tuple[RuleRef, ...]


# ------------------------------------------------------------------ expressions

@dataclass(frozen=True)
class Num:
    value: int
    span: Span = spanned()


@dataclass(frozen=True)
class Str:
    value: str
    span: Span = spanned()


@dataclass(frozen=True)
class Bool:
    value: bool
    span: Span = spanned()


@dataclass(frozen=True)
class Ref:
    name: Name
    span: Span = spanned()


@dataclass(frozen=True)
class Attr:
    obj: "Expr"
    attr: Name
    span: Span = spanned()


@dataclass(frozen=True)
class Call:
    func: Name
    args: tuple["Expr", ...]
    span: Span = spanned()


@dataclass(frozen=True)
class BinOp:
    op: str  # and, or, +, -, *
    left: "Expr"
    right: "Expr"
    span: Span = spanned()


@dataclass(frozen=True)
class Not:
    operand: "Expr"
    span: Span = spanned()


@dataclass(frozen=True)
class Compare:
    op: str  # == != < <= > >= in "not in"
    left: "Expr"
    right: "Expr"
    span: Span = spanned()


@dataclass(frozen=True)
class SetLit:
    items: tuple["Expr", ...]
    span: Span = spanned()


@dataclass(frozen=True)
class Count:
    var: Name
    cond: "Expr"
    span: Span = spanned()
    within: "Expr | None" = None  # `count(r in SET where …)`; None: every player


@dataclass(frozen=True)
class ByCase:
    low: int | None  # None: the `else` arm
    high: int | None
    value: "Expr"
    span: Span = spanned()


@dataclass(frozen=True)
class ByTable:
    subject: "Expr"
    cases: tuple[ByCase, ...]
    span: Span = spanned()


@dataclass(frozen=True)
class CaseArm:
    cond: "Expr | None"  # None: the `else` arm
    value: "Expr"
    span: Span = spanned()


@dataclass(frozen=True)
class Cases:
    arms: tuple[CaseArm, ...]
    span: Span = spanned()


Expr = Num | Str | Bool | Ref | Attr | Call | BinOp | Not | Compare | SetLit | Count | ByTable | Cases


# ------------------------------------------------------------------ effects

@dataclass(frozen=True)
class Effect:
    """One step of the effect vocabulary: `kill shot`, `save from shot, revenge on target`.

    `verb` is the keyword; `name` its single name argument (a kind, a role, an item, a
    memory, a counter); `names` a list argument (the kinds of `save from`); `value` an
    expression argument (`learn`, `set`, `announce`); `on` the player(s) it applies to,
    defaulting to the ability's target.
    """

    verb: str
    name: Name | None = None
    names: tuple[Name, ...] = ()
    value: "Expr | None" = None
    on: "Expr | None" = None
    span: Span = spanned()
    # `link together`: the players it applies to are linked to each other, not to the user
    # (`name` is then, as for any `link … with KIND`, the kind of exit the link carries).
    together: bool = False


@dataclass(frozen=True)
class IfEffect:
    cond: Expr
    then: tuple["AnyEffect", ...]
    otherwise: tuple["AnyEffect", ...]
    span: Span = spanned()


@dataclass(frozen=True)
class AfterEffect:
    count: int
    unit: Name  # a phase: night, day
    body: tuple["AnyEffect", ...]
    span: Span = spanned()


AnyEffect = Effect | IfEffect | AfterEffect


# ------------------------------------------------------------------ clauses
# A clause is one line inside a declaration's braces. Declarations keep their clauses in
# order; the resolver checks which may repeat and which must appear.

@dataclass(frozen=True)
class Clause:
    """A clause with a keyword and its arguments, generic over the simple cases."""

    keyword: str
    names: tuple[Name, ...] = ()
    strings: tuple[str, ...] = ()
    value: "Expr | None" = None
    number: int | None = None
    cites: Cites = ()
    span: Span = spanned()
    schedules: tuple["CheckSchedule", ...] = ()  # `wins checked after … or after …`
    tie: "TieSpec | None" = None  # `tie …`


@dataclass(frozen=True)
class TieSpec:
    """A tie rule as written: `chosen by sheriff`, `revote then no_exit`."""

    rule: Name
    roles: tuple[Name, ...] = ()  # `by ROLE, …`
    item: Name | None = None  # `by holder of ITEM`
    then: "TieSpec | None" = None
    span: Span = spanned()


@dataclass(frozen=True)
class Actor:
    kind: str  # role, team, moderator, holder, drawer
    name: Name | None
    span: Span = spanned()
    roles: tuple[Name, ...] = ()  # `by nato, godfather`: every role that may use it


@dataclass(frozen=True)
class PhaseRef:
    phase: Name
    exact: int | None = None
    start: int | None = None  # `from N`
    moment: str | None = None  # before / after the vote
    span: Span = spanned()


@dataclass(frozen=True)
class Trigger:
    event: Name
    by: tuple[Name, ...]
    timing: str | None  # immediately / next
    timing_phase: Name | None
    span: Span = spanned()


@dataclass(frozen=True)
class Choice:
    kind: str  # role, side, player, variant, option
    names: tuple[Name, ...]
    binds: Name
    span: Span = spanned()


@dataclass(frozen=True)
class Limit:
    kind: str  # count, no_repeat
    count: int | None = None
    per: Name | None = None
    on_self: bool = False
    span: Span = spanned()


@dataclass(frozen=True)
class AbilityClause:
    keyword: str  # by, for_team, at, on, target, targets, choose, limit, when, effect, ...
    actor: Actor | None = None
    team: Name | None = None
    phases: tuple[PhaseRef, ...] = ()
    trigger: Trigger | None = None
    count: "Expr | None" = None
    filter: "Expr | None" = None
    choice: Choice | None = None
    limit: Limit | None = None
    cond: "Expr | None" = None
    effects: tuple[AnyEffect, ...] = ()
    text: str | None = None
    cites: Cites = ()
    span: Span = spanned()
    mode: str | None = None  # `blocked uses count|do not count|unspecified "why"`: count, free, open


@dataclass(frozen=True)
class CompEntry:
    role: Name
    count: int
    span: Span = spanned()


# ------------------------------------------------------------------ declarations

@dataclass(frozen=True)
class ScenarioDecl:
    name: Name
    label: str | None
    clauses: tuple[Clause, ...]
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class SideDecl:
    name: Name
    label: str | None
    kind: str  # town, dark, independent
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class RoleDecl:
    name: Name
    label: str | None
    clauses: tuple[Clause, ...]
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class TeamDecl:
    name: Name
    label: str | None
    clauses: tuple[Clause, ...]
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class CompositionDecl:
    players: int
    label: str | None
    entries: tuple[CompEntry, ...]
    cites: Cites
    span: Span = spanned()
    players_span: Span = spanned()
    name: Name | None = None  # an alternative of the setup, as reports and queries call it


@dataclass(frozen=True)
class PhasesDecl:
    clauses: tuple[Clause, ...]
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class AbilityDecl:
    name: Name
    label: str | None
    clauses: tuple[AbilityClause, ...]
    cites: Cites
    is_card: bool = False
    span: Span = spanned()


@dataclass(frozen=True)
class RuleDecl:
    name: Name
    label: str | None
    variables: tuple[Name, ...]
    cond: Expr
    then: tuple[AnyEffect, ...]
    unless: tuple[Expr, ...]
    overrides: tuple[Name, ...]
    under: tuple[Name, ...]
    at: tuple[PhaseRef, ...]
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class DayDecl:
    label: str | None
    clauses: tuple[Clause, ...]
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class CheckSchedule:
    """`after day, night cites …`: the check points of one reading of when wins are checked."""

    points: tuple[Name, ...]
    cites: Cites = ()
    span: Span = spanned()


@dataclass(frozen=True)
class WinDecl:
    """`win SIDE when COND [checked after … or after …]`, or a win the rulebook does not
    write: `win SIDE unspecified "why" [when COND]` (`unspecified` holds the why; `cond`,
    when given, is where the unwritten win is in question)."""

    side: Name
    label: str | None
    cond: Expr | None
    cites: Cites
    span: Span = spanned()
    schedules: tuple[CheckSchedule, ...] = ()  # its own readings; () follows the phases'
    unspecified: str | None = None


@dataclass(frozen=True)
class PriorityDecl:
    order: tuple[Name, ...]  # highest first
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class SettingDecl:
    name: Name
    label: str | None
    type: str  # bool, int, enum, set
    low: int | None
    high: int | None
    options: tuple[Name, ...]
    default: Expr
    cites: Cites
    span: Span = spanned()
    # `set of role` (side, kind): what a set-valued setting holds; its value is a set of those.
    element: Name | None = None


@dataclass(frozen=True)
class AssumeDecl:
    name: Name
    label: str | None
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class ItemDecl:
    name: Name
    label: str | None
    variants: tuple[tuple[Name, str | None], ...]
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class KindDecl:
    name: Name
    label: str | None
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class MemoryDecl:
    name: Name
    label: str | None
    type: str  # player, players, int, role
    initial: Expr | None
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class WakeDecl:
    phase: Name
    order: tuple[Name, ...]
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class ResolveDecl:
    first: tuple[Name, ...]
    then: tuple[Name, ...]
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class PrecheckDecl:
    severity: str
    message: str
    cond: Expr
    cites: Cites
    span: Span = spanned()


@dataclass(frozen=True)
class AcknowledgeDecl:
    """`acknowledge MC207 on guard_protect, hostage "why"`: a finding the spec accepts."""
    code: Name
    on: tuple[Name, ...]
    reason: str
    cites: Cites
    span: Span = spanned()


Decl = (ScenarioDecl | SideDecl | RoleDecl | TeamDecl | CompositionDecl | PhasesDecl
        | AbilityDecl | RuleDecl | DayDecl | WinDecl | PriorityDecl | SettingDecl | AssumeDecl
        | ItemDecl | KindDecl | MemoryDecl | WakeDecl | ResolveDecl | PrecheckDecl | AcknowledgeDecl)


@dataclass(frozen=True)
class Spec:
    path: str
    decls: tuple[Decl, ...]


# ------------------------------------------------------------------ queries

@dataclass(frozen=True)
class PlayerRef:
    """`@3` (seat 3), `doctor` (the only doctor), `citizen@2` (the second citizen)."""

    role: Name | None
    index: int | None
    span: Span = spanned()

    def __str__(self) -> str:
        if self.role is None:
            return f"@{self.index}"
        return self.role.text + (f"@{self.index}" if self.index is not None else "")


@dataclass(frozen=True)
class StateItem:
    """One line of a query's `state { … }`: dead, counter, role, side, holds, memory, used, link."""

    verb: str
    player: PlayerRef | None = None
    name: Name | None = None
    other: Name | None = None
    number: int | None = None
    players: tuple[PlayerRef, ...] = ()
    span: Span = spanned()


@dataclass(frozen=True)
class Use:
    """A choice in a phase: an ability used, or the day's vote (`ability` is None)."""

    ability: Name | None
    by: PlayerRef | None = None
    on: tuple[PlayerRef, ...] = ()
    values: tuple[Name, ...] = ()
    vote: str | None = None  # player, none, tie
    span: Span = spanned()
    votes: int | None = None  # `vote P with N`: the votes cast for P (each of the tied)
    counts: tuple[tuple[PlayerRef, int], ...] = ()  # `…, Q with 3`: the others' votes
    pick: PlayerRef | None = None  # `vote tie P, Q then P`: the one the tie sends out
    retie: bool = False  # `vote tie P, Q then tie`: the second vote ties again
    ballots: tuple[PlayerRef, ...] | None = None  # `vote P by Q, R`: who voted for P
    moment: str | None = None  # `… before vote` / `… after vote`: when in the day it acts


@dataclass(frozen=True)
class PhaseChoices:
    phase: Name
    number: int | None
    uses: tuple[Use, ...]
    span: Span = spanned()


@dataclass(frozen=True)
class Expectation:
    """One `expect` line. `kind` is leaves, stays, exits, role, side, counter, winner,
    no_winner, no_announcement, announces, reveals, verdict, learns, learns_nothing, illegal
    or answer; the other fields are the parts that kind has."""

    kind: str
    player: PlayerRef | None = None
    name: Name | None = None  # a kind of exit, role, side, counter or shown value
    value: str | None = None
    span: Span = spanned()
    number: int | None = None  # `exits P = N`, `counter P NAME = N`
    phase: "tuple[Name, int | None] | None" = None  # `in night 2`
    about: PlayerRef | None = None  # `learns P VALUE about Q`


@dataclass(frozen=True)
class Query:
    name: Name
    label: str | None
    players: tuple[PlayerRef, ...]
    composition: int | None
    settings: tuple[tuple[Name, "Expr"], ...]
    start: tuple[Name, int | None] | None
    state: tuple[StateItem, ...]
    phases: tuple[PhaseChoices, ...]
    expectations: tuple[Expectation, ...]
    notes: tuple[str, ...]
    span: Span = spanned()
    gap: str | None = None  # a known disagreement with the rulebook, and why
    open: "OpenQuestion | None" = None  # `can …` / `must …`: asked of the encoding
    unlisted: bool = False  # `unlisted players …`: a seating no composition lists
    unlisted_count: int | None = None  # `unlisted composition N { … }`: the players it is for
    composition_name: Name | None = None  # `composition NAME`: a named alternative


@dataclass(frozen=True)
class OpenQuestion:
    """`can winner jack within 3`: is there a game (after the given phases) that reaches the
    goal? `must stays leon`: does every game? `can winner none within 3`: is there a game
    that nobody has won after its 3 rounds?"""

    mode: str  # can, must
    goal: str  # winner, nobody, stays, leaves
    side: Name | None = None
    player: PlayerRef | None = None
    within: int | None = None
    span: Span = spanned()
    assuming: "tuple[Assumed, ...]" = ()  # what every game searched does after the given phases


@dataclass(frozen=True)
class Assumed:
    """One line of an open question's `assuming { … }`: `vote none` (no day of the games
    searched votes anybody out), `no vote P, …` (no day's vote names them, alone or tied) or
    `no ABILITY [by P] [on P, …]` (nobody uses it, by P, on any of those players)."""

    kind: str  # vote_none, no_vote, no_use
    ability: Name | None = None
    by: PlayerRef | None = None
    on: tuple[PlayerRef, ...] = ()
    span: Span = spanned()
