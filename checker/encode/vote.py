"""The vote (as Player._vote): its cause, there before any step of the resolution at the vote,
and the hole of a quorum table with no row for the number alive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import ast, holes
from ..holes import Hole
from .passes import Pass
from .terms import And, Events, Not, Or, View

if TYPE_CHECKING:
    from .unroll import Game, PhaseVars


def vote_causes(p: Pass, vote: PhaseVars) -> None:
    """The day's vote out: a cause of kind `vote` on the player voted, and the `voted` event;
    with no quorum for this many alive the vote decides nothing (nobody is voted out)."""
    game, pv = p.game, p.pv
    k, x = vote.vote_kind, vote.vote_target
    day = game.sc.day
    gap = quorum_gap(game, day.quorum, p.S) if day.quorum is not None else game.B(False)
    if day.quorum is not None:
        pv.undefined.append((And(vote.active, k != 0, gap), Hole(
            holes.NO_QUORUM, "the vote: there is no quorum for this many players alive", holes.DAY)))
    for s in range(p.n):
        on = And(vote.active, k == 1, x == s, Not(gap))
        p.intents.attacks.append(("vote", "vote", s, on))
        p.event(("voted", s), on)


def quorum_gap(game: Game, quorum, S: dict):
    """When no row of the quorum table covers the number alive."""
    if not isinstance(quorum, ast.ByTable) or any(case.low is None for case in quorum.cases):
        return game.B(False)
    subject = game.compiler.value(quorum.subject, View(game, S, Events(game.ctx), {"__holes": []}))
    return Not(Or([And(subject >= case.low, subject <= case.high) for case in quorum.cases]))
