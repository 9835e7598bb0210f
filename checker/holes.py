"""Holes: what the rules leave undecided, as values.

Both implementations report a hole with its kind, the moderator's words for it, and the
declaration it comes from (an ability, a rule, a team, a side, or the day). Analyses read the
kind and the source, never the words: a finding is placed at its declaration, and a witness is
confirmed by the kind of hole its replay shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

UNSPECIFIED = "unspecified"  # an `unspecified "…"` effect
NO_ROW = "no-row"  # a table or `cases` with no row for the case, or a value the rules do not give
NO_VOTE = "no-vote"  # a day vote in a scenario that has none
NO_QUORUM = "no-quorum"  # no vote quorum for this many players alive
TIE = "tie"  # a tied vote with no tie rule
CONTRADICTION = "contradiction"  # two rules conclude opposite things, neither an exception
MUTUAL_NONE = "mutual-none"  # uses of one ability block each other with no consistent reading
MUTUAL_SEVERAL = "mutual-several"  # … or with several
# Users of k >= 2 blocking abilities the rules leave unordered whose blocks form a ring (a
# cycle of blocks across abilities: A's user blocks B's, B's blocks C's, ..., the last's
# blocks A's): each order lets a different set of the ring's blocks take effect. Its source
# is the first ability of the ring (the least key), its other the rest in ring order, joined
# by commas (ring_abilities reads them back), its seats the users in the same order.
BLOCK_CYCLE = "block-cycle"
READINGS = "readings"  # the readings of when a win is checked disagree
OPEN_WIN = "open-win"  # whether a side whose win the rulebook does not write has won
OVERLAP = "overlap"  # two sides meet their win conditions and no priority decides
LEADERLESS = "leaderless"  # the rules name nobody to decide for a team
UNSTABLE = "unstable"  # who leaves depends on itself with no stable answer
TRUNCATED = "truncated"  # too many resolution orders to try them all
OPEN_LIMIT = "open-limit"  # a use allowed only if a blocked use does not count
UNSETTLED = "unsettled"  # rules that feed each other still apply anew after as many rounds as rules

KINDS = (UNSPECIFIED, NO_ROW, NO_VOTE, NO_QUORUM, TIE, CONTRADICTION, MUTUAL_NONE, MUTUAL_SEVERAL,
         BLOCK_CYCLE, READINGS, OPEN_WIN, OVERLAP, LEADERLESS, UNSTABLE, TRUNCATED, OPEN_LIMIT, UNSETTLED)

DAY = "day"  # the source of the day's holes (the `day` block)


@dataclass(frozen=True, order=True)
class Hole:
    kind: str
    message: str  # the moderator's words
    source: str = ""  # the key of the declaration behind it: ability, rule, team, side, or `day`
    other: str = ""  # a second declaration where two are involved (the stay rule of a contradiction)
    seats: tuple = ()  # the players it concerns, where an analysis names them (a block cycle's users)
    # The case at hand, where a played game knows it (the number no table row covers, the
    # tied players): shown after the message, and no part of what the hole is.
    case: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind of hole: {self.kind}")

    def __str__(self) -> str:
        return f"{self.message} ({self.case})" if self.case else self.message


# ------------------------------------------------------------------ the words, from one place
#
# Both implementations make their holes here, so a hole the encoding reports (MC203) reads as
# the one the interpreter shows when it replays the game (tests/test_holes.py).


def unspecified(shown: str, what: str, source: str) -> Hole:
    """An `unspecified "…"` effect of an ability or a rule (`shown`: its name as shown)."""
    return Hole(UNSPECIFIED, f"{shown}: {what}", source)


def no_row(shown: str, source: str, case: str = "") -> Hole:
    """A table or `cases` with no row for the case, read by an ability, a rule or a win."""
    return Hole(NO_ROW, f"{shown}: a table with no row for this case", source, case=case)


def no_vote() -> Hole:
    return Hole(NO_VOTE, "the vote: the rulebook gives this scenario no day vote", DAY)


def no_quorum(case: str = "") -> Hole:
    return Hole(NO_QUORUM, "the vote: there is no quorum for this many players alive", DAY, case=case)


def open_tie(case: str = "") -> Hole:
    """A tied vote the tie rule says nothing about."""
    return Hole(TIE, "what a tied vote does", DAY, case=case)


def no_tie_breaker(case: str = "") -> Hole:
    """A tie to be broken by a player when nobody who may is left."""
    return Hole(TIE, "who breaks a tie when nobody who may is left", DAY, case=case)


def unstable() -> Hole:
    return Hole(UNSTABLE, "who leaves: it depends on itself, with no stable answer")


def readings(side: str, readings: list[str], source: str, case: str = "") -> Hole:
    """The readings of when a side's win is checked (`readings`: "after day, night", …)
    disagree on whether it has won."""
    return Hole(READINGS, f"when the win of {side} is checked: the readings "
                + " / ".join(readings) + " disagree", source, case=case)


def open_win(side: str, what: str, source: str) -> Hole:
    """A side whose win the rulebook does not write may have won (`what`: what it says)."""
    return Hole(OPEN_WIN, f"whether {side} has won: {what}", source)


def leaderless(team: str) -> Hole:
    return Hole(LEADERLESS, f"who decides for team {team} once its leaders have left "
                "(the rules name nobody)", team)


def open_limit(shown: str, why: str, source: str) -> Hole:
    """A use within its limit only if a blocked use before it does not count."""
    return Hole(OPEN_LIMIT, f"{shown}: whether its blocked use counts against its limit ({why})", source)


def unsettled(rule: str, source: str, count: int) -> Hole:
    """A rule that still applies anew after `count` rounds of its stage's rules."""
    return Hole(UNSETTLED, f"rule {rule}: it still applies anew after {count} round"
                f"{'s' if count != 1 else ''} of the rules (rules that feed each other are "
                "followed for as many rounds as there are rules)", source)


def contradiction(leave_rule: str, stay_rule: str, who: str, follows: str) -> Hole:
    """Two rules conclude opposite things, neither an exception of the other."""
    return Hole(CONTRADICTION, f"contradiction: rule {leave_rule} says {who} leaves, rule {stay_rule} "
                "says they stay, and neither is an exception of the other; this outcome follows "
                f"{follows}", leave_rule, stay_rule)


def mutual_none(shown: str, source: str) -> Hole:
    return Hole(MUTUAL_NONE, f"the uses of '{shown}' block each other with no consistent outcome", source)


def mutual_several(shown: str, blocked: str, source: str) -> Hole:
    return Hole(MUTUAL_SEVERAL, f"'{shown}': the uses block each other; one consistent reading blocks "
                f"{blocked}", source)


def block_cycle(ring: Sequence[tuple[str, str, int, str]]) -> Hole:
    """A ring of blocks across unordered abilities, in ring order from the least key: each
    (ability key, ability as shown, its user's seat, the role dealt to him as shown), the
    use of each blocking the next one's user and the last the first's."""
    names = [f"'{shown}' by {seat_label(seat, role)}" for _, shown, seat, role in ring]
    keys = [key for key, _, _, _ in ring]
    if len(ring) == 2:
        said = (f"{names[0]} and {names[1]} block each other, with no declared order: either block can "
                "be the one that takes effect")
    else:
        said = (", ".join(names[:-1]) + f" and {names[-1]} block each other in a ring (each blocks the next "
                "one's user, the last the first's), with no declared order: whichever resolves first takes "
                "effect and stops the next")
    return Hole(BLOCK_CYCLE, said, keys[0], ",".join(keys[1:]), tuple(seat for _, _, seat, _ in ring))


def ring_abilities(hole: Hole) -> tuple[str, ...]:
    """The keys of a block cycle's abilities, in ring order (its source, then its other)."""
    return (hole.source,) + tuple(hole.other.split(","))


def seat_label(seat: int, role: str) -> str:
    """A player as the holes name him: his seat and the role dealt to him (as shown)."""
    return f"@{seat + 1} ({role})"


def overlap(sides: list[str], first: str, second: str) -> Hole:
    """Sides (`sides`: as shown) meet their win conditions at once and no priority decides."""
    return Hole(OVERLAP, "both " + " and ".join(sides) + " meet their win conditions and no priority decides",
                first, second)


def truncated() -> Hole:
    return Hole(TRUNCATED, "too many resolution orders to try them all; the outcomes shown are some "
                "of the possible ones")
