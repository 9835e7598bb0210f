"""The variables of one phase in the encoding: each possible use with its choice variables,
and what the phase's resolution leaves for the analyses (holes, contradictions, wins, …)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import z3

from ..model import Ability
from ..phases import Phase
from .state import SymState
from .terms import And, Events, Not

if TYPE_CHECKING:
    from .vote import TieEffect

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
    def acts(self) -> z3.BoolRef:
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
    retie: z3.BoolRef | None = None  # `tie revote`: the second vote ties again
    tie_effect: TieEffect | None = None  # what the tie does at the vote
    ballots: list | None = None  # a tallied vote (`weight`): per seat, he voted for vote_target
    order: z3.ArithRef | None = None
    perms: list = field(default_factory=list)
    undefined: list = field(default_factory=list)  # (condition, Hole)
    contradictions: list = field(default_factory=list)  # (condition, seat, leave rule, stay rule)
    overlap: z3.BoolRef | None = None
    winner: z3.ArithRef | None = None
    leaves: list = field(default_factory=list)  # per pass: [leave[s]]
    vote_leaves: list | None = None  # the vote pass's leave[s]
    active: z3.BoolRef | None = None
    choice_free: list = field(default_factory=list)
    rule_hits: list = field(default_factory=list)  # (rule name, applies)
    perm_blocked: list = field(default_factory=list)  # per order of the blocking steps: blocked[s]
    perm_cancelled: list = field(default_factory=list)  # per order: {ability: cancelled[s]}
    # Uses of one blocking ability that block each other: (condition, ability, how many
    # consistent readings: "none" or "several"), for `ambiguous-resolution`
    mutual: list = field(default_factory=list)
    # Users of unordered blocking abilities whose blocks form a ring: (condition, the
    # block-cycle hole, naming them), for `ambiguous-resolution` (blocking.block_cycles)
    cycles: list = field(default_factory=list)
    crowded: list = field(default_factory=list)  # blocking abilities with too many possible users
    checkpoint: SymState | None = None  # the state right after the night's deaths (`after deaths`)
    fired: dict = field(default_factory=dict)  # id(use) -> its trigger has fired (uses that wait for one)
    # (rule, binding) -> where that binding of a rule has acted this phase (each acts once a
    # phase, in whichever resolution it first applies: Resolver.fire_rules, Resolver.commit)
    rules_fired: dict = field(default_factory=dict)
    choice_events: Events | None = None  # `chosen(p, A)` for legality conditions
    # ability -> (the state read, what its candidate uses' conditions make of it: legality.py)
    candidate_memo: dict = field(default_factory=dict)
    # team -> (the state read, seat -> whether the seat is in the team this phase: legality.py)
    member_memo: dict = field(default_factory=dict)
    clean_memo: tuple | None = None  # what induction.clean made of the phase, and of how much
    # the state at the day's vote, where a query's `vote P with N` is held against the
    # quorum (encode.vote.quorum_at_vote)
    vote_state: SymState | None = None
    declared: dict = field(default_factory=dict)  # side -> [when a `win SIDE` effect declares it]

    def declare(self, side: str, cond: z3.BoolRef) -> None:
        """A `win SIDE` effect acts under cond: the phase's win check weighs it (wins.py)."""
        self.declared.setdefault(side, []).append(cond)
    link_kind: list = field(default_factory=list)  # per seat, the exit its link carries at the start
    # id(use) -> its trigger happened in the phase, used or not (for obligations on a trigger)
    happened: dict = field(default_factory=dict)


def team_use(u: Use) -> bool:
    """A use of an ability `by team NAME`: `idle` and `acted` count it for every player."""
    return u.ability.actor is not None and u.ability.actor.kind == "team"
