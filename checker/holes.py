"""Holes: what the rules leave undecided, as values.

Both implementations report a hole with its kind, the moderator's words for it, and the
declaration it comes from (an ability, a rule, a team, a side, or the day). Analyses read the
kind and the source, never the words: a finding is placed at its declaration, and a witness is
confirmed by the kind of hole its replay shows.
"""

from __future__ import annotations

from dataclasses import dataclass

UNSPECIFIED = "unspecified"  # an `unspecified "…"` effect
NO_ROW = "no-row"  # a table or `cases` with no row for the case, or a value the rules do not give
NO_VOTE = "no-vote"  # a day vote in a scenario that has none
NO_QUORUM = "no-quorum"  # no vote quorum for this many players alive
TIE = "tie"  # a tied vote with no tie rule
CONTRADICTION = "contradiction"  # two rules conclude opposite things, neither an exception
MUTUAL_NONE = "mutual-none"  # uses of one ability block each other with no consistent reading
MUTUAL_SEVERAL = "mutual-several"  # … or with several
READINGS = "readings"  # the readings of when a win is checked disagree
OPEN_WIN = "open-win"  # whether a side whose win the rulebook does not write has won
OVERLAP = "overlap"  # two sides meet their win conditions and no priority decides
LEADERLESS = "leaderless"  # the rules name nobody to decide for a team
UNSTABLE = "unstable"  # who leaves depends on itself with no stable answer
TRUNCATED = "truncated"  # too many resolution orders to try them all
OPEN_LIMIT = "open-limit"  # a use allowed only if a blocked use does not count
UNSETTLED = "unsettled"  # rules that feed each other still apply anew after as many rounds as rules

KINDS = (UNSPECIFIED, NO_ROW, NO_VOTE, NO_QUORUM, TIE, CONTRADICTION, MUTUAL_NONE, MUTUAL_SEVERAL,
         READINGS, OPEN_WIN, OVERLAP, LEADERLESS, UNSTABLE, TRUNCATED, OPEN_LIMIT, UNSETTLED)

DAY = "day"  # the source of the day's holes (the `day` block)


@dataclass(frozen=True, order=True)
class Hole:
    kind: str
    message: str  # the moderator's words
    source: str = ""  # the key of the declaration behind it: ability, rule, team, side, or `day`
    other: str = ""  # a second declaration where two are involved (the stay rule of a contradiction)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind of hole: {self.kind}")

    def __str__(self) -> str:
        return self.message


# ------------------------------------------------------------------ the words, from one place
#
# Both implementations make their holes here, so a hole the encoding reports (MC203) reads as
# the one the interpreter shows when it replays the game (tests/test_holes.py).


def unsettled(rule: str, source: str, count: int) -> Hole:
    """A rule that still applies anew after `count` rounds of its stage's rules."""
    return Hole(UNSETTLED, f"rule {rule}: it still applies anew after {count} round"
                f"{'s' if count != 1 else ''} of the rules (rules that feed each other are "
                "followed for as many rounds as there are rules)", source)


def unspecified(shown: str, what: str, source: str) -> Hole:
    """An `unspecified "…"` effect of an ability or a rule (`shown`: its name as shown)."""
    return Hole(UNSPECIFIED, f"{shown}: {what}", source)
