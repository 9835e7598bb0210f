"""What a tied vote does, as the interpreter plays it: the possible results of a tie under the
day's tie rule (one of the tied out, all of them, nobody, or a hole), narrowed by the query's
pick (`vote tie P, Q then P`, `then tie`).

The encoding states the same in `encode/vote.py` (`tie_effect`)."""

from __future__ import annotations

from dataclasses import dataclass

from .. import holes
from ..evaluate import State
from ..holes import Hole
from ..model import TieRule


@dataclass(frozen=True)
class TieResult:
    out: tuple[int, ...] = ()  # the seats the tie sends out (none: nobody leaves)
    hole: Hole | None = None  # what the rules leave open, when they do


def has_chooser(rule: TieRule, state: State) -> bool:
    """A living player who breaks the tie: one holding a role of `rule.roles`, or the item."""
    return any(state.alive[s] and (state.roles[s] in rule.roles
                                   or (rule.item is not None and (rule.item, s) in state.items))
               for s in range(len(state.alive)))


def tie_results(rule: TieRule, state: State, tied: tuple[int, ...], names: str,
                pick: int | None = None, retie: bool = False) -> list[TieResult]:
    """Every result the rule allows for these tied players. A pick fixes the one the draw,
    the tie-breaker or the second vote sends out; `retie` says the second vote tied again."""
    kind = rule.kind
    if kind == "no_exit":
        return [TieResult()]
    if kind == "all_leave":
        return [TieResult(tuple(tied))]
    if kind == "chosen" and not has_chooser(rule, state):
        return [TieResult(hole=holes.no_tie_breaker(case=names))]
    if kind in ("random", "chosen"):
        return [TieResult((s,)) for s in tied if pick is None or s == pick]
    if kind == "revote":
        # The second vote, among the tied: it sends one of them out, or ties again.
        if retie:
            return tie_results(rule.second, state, tied, names)
        one = [TieResult((s,)) for s in tied if pick is None or s == pick]
        if pick is not None:
            return one
        return list(dict.fromkeys(one + tie_results(rule.second, state, tied, names)))
    return [TieResult(hole=holes.open_tie(case=names))]


def pick_problem(rule: TieRule, tied: tuple[int, ...], pick: int | None, retie: bool) -> str | None:
    """Why the query's pick does not fit the tie rule, or None."""
    if retie and rule.kind != "revote":
        return f"only a revote can tie again (`then tie`); the rule here is `tie {rule.kind}`"
    if pick is not None:
        if rule.kind not in ("random", "chosen", "revote"):
            return f"a tie under `tie {rule.kind}` sends out nobody in particular: `then P` has nothing to pick"
        if pick not in tied:
            return "the player a tie sends out (`then P`) must be one of the tied"
    return None
