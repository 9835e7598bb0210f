"""A tallied vote (a `day` with `weight`): whether the votes cast for the player voted out
reach what the day needs, each voter counting his weight. The encoding states the same in
`encode/vote.py` (`tally_legal`)."""

from __future__ import annotations

from typing import Callable

from .. import ast
from ..evaluate import EvalError, Evaluator, State
from ..model import Scenario
from .bind import BoundUse
from .legal import seat_name


def weights(scenario: Scenario, state: State, weight: ast.Expr) -> dict[int, int] | None:
    """Each living player's votes (the day's `weight`), on the state the day starts in (None:
    a weight with no value for some player, a table with no row)."""
    ev = Evaluator(scenario, state)
    try:
        return {s: int(ev.value(weight, {"voter": s}))
                for s in range(len(state.alive)) if state.alive[s]}
    except EvalError:
        return None


def tally_problem(scenario: Scenario, state: State, vote: BoundUse) -> str | None:
    """Why the votes cannot send this player out, or None. Without `by …` the ballots are the
    players' choice: the result stands if some ballots reach what is needed."""
    day = scenario.day
    if day is None or day.weight is None or vote.vote != "player":
        return None
    w = weights(scenario, state, day.weight)
    if w is None:
        return None
    if vote.ballots is not None:
        for v in vote.ballots:
            if v not in w:
                return f"{seat_name(scenario, state, v)} has left the game and cannot vote"
        tally = sum(w[v] for v in vote.ballots)
    else:
        tally = sum(x for x in w.values() if x > 0)
    if day.vote == "majority":
        total = sum(w.values())
        if 2 * tally > total:
            return None
        need = f"more than half of the {total} votes"
    elif day.vote == "plurality":
        if tally >= 1:  # the others' ballots may go elsewhere or nowhere: he can have the most
            return None
        need = "votes"
    else:
        try:
            quorum = int(Evaluator(scenario, state).value(day.quorum, {}))
        except EvalError:
            return None  # no quorum for this many alive: a hole, reported at the vote
        if tally >= quorum:
            return None
        need = f"{quorum} votes"
    who = seat_name(scenario, state, vote.targets[0])
    return f"{who} has {tally} vote{'s' if tally != 1 else ''}, and {need} are needed to send him out"


def vote_total(scenario: Scenario, start: State, at_vote: State) -> int | None:
    """The votes the players alive at the vote cast: one each, or each his `weight` (judged on
    the state the day starts in, as a tallied vote's ballots are); None where a weight has no
    value. The encoding states the same in `encode/vote.py` (`votes_at_vote`)."""
    day = scenario.day
    living = [s for s in range(len(at_vote.alive)) if at_vote.alive[s]]
    if day is None or day.weight is None:
        return len(living)
    ev = Evaluator(scenario, start)
    try:
        return sum(int(ev.value(day.weight, {"voter": s})) for s in living)
    except EvalError:
        return None


def count_problem(vote: BoundUse, name: Callable[[int], str] = lambda s: f"@{s + 1}") -> str | None:
    """Why a counted vote's own numbers contradict the result it names, or None: the player
    voted out has the most votes, alone (a player with as many makes a tie), and the tied
    have the most between them (a player with as many is among the tied)."""
    if vote.votes is None or not vote.counts:
        return None
    n = vote.votes
    for seat, m in vote.counts:
        if vote.vote == "player" and m > n:
            return (f"{name(seat)} has {m} votes, more than the {n} of {name(vote.targets[0])}: "
                    f"the player with the most votes is the one voted out")
        if vote.vote == "player" and m == n:
            return (f"{name(vote.targets[0])} and {name(seat)} have {n} votes each: that is a "
                    f"tie (`vote tie @{vote.targets[0] + 1}, @{seat + 1} with {n}`)")
        if vote.vote == "tie" and m > n:
            return (f"{name(seat)} has {m} votes, more than the {n} of each of the tied: the "
                    "tie is among the players with the most votes")
        if vote.vote == "tie" and m == n:
            return f"{name(seat)} has {n} votes too: he is one of the tied"
    return None
