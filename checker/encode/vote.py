"""The vote (as Player._vote): its cause, there before any step of the resolution at the vote,
and the hole of a quorum table with no row for the number alive.

A vote is nobody (kind 0), one player (kind 1, `vote_target`) or a tie between two players
(kind 2, `tie`), whatever the tie rule: the tied are the players the rules then act on (the
candidates they must be, the triggers they set off), and `tie random` draws one of them
(`vote_target`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import ast, holes
from ..holes import Hole
from .passes import Pass
from .terms import And, Events, Not, Or, View

if TYPE_CHECKING:
    from .phase_vars import PhaseVars
    from .unroll import Game


def vote_causes(p: Pass, vote: PhaseVars) -> None:
    """The day's vote out: a cause of kind `vote` on the player voted, and the `voted` event;
    with no quorum for this many alive the vote decides nothing (nobody is voted out)."""
    game, pv = p.game, p.pv
    k = vote.vote_kind
    day = game.sc.day
    gap = quorum_gap(game, day.quorum, p.S) if day.quorum is not None else game.B(False)
    if day.quorum is not None:
        pv.undefined.append((And(vote.active, k != 0, gap), Hole(
            holes.NO_QUORUM, "the vote: there is no quorum for this many players alive", holes.DAY)))
        if game.vote_states and vote.vote_state is None:  # what `vote P with N` is held against
            vote.vote_state = p.S
    for s in range(p.n):
        on = And(vote.active, voted_out(game, vote, s), Not(gap))
        p.intents.attacks.append(("vote", "vote", s, on))
        p.event(("voted", s), on)


def voted_out(game: Game, pv: PhaseVars, s: int):
    """Whether the day's vote sends seat s out: voted out alone, or the player a tie sends out
    (`tie random`: the one drawn, `vote_target`; `tie all_leave`: each of the tied)."""
    k, x = pv.vote_kind, pv.vote_target
    parts = [And(k == 1, x == s)]
    tie = game.sc.day.tie
    if tie == "random":
        parts.append(And(k == 2, x == s))
    elif tie == "all_leave":
        parts.append(And(k == 2, Or(pv.tie[0] == s, pv.tie[1] == s)))
    return Or(parts)


def tied(pv: PhaseVars, s: int):
    """Seat s is one of the day's tied players."""
    return And(pv.vote_kind == 2, Or(pv.tie[0] == s, pv.tie[1] == s))


def quorum_at_vote(game: Game, pv: PhaseVars):
    """(the votes the day's quorum asks for, whether no row of it covers the number alive),
    as the state stands at the vote; None without a quorum, or in a game not built with
    `vote_states`. Built only when asked (a query's `vote P with N`)."""
    quorum = game.sc.day.quorum if game.sc.day is not None else None
    if quorum is None or pv.vote_state is None:
        return None
    S = pv.vote_state
    needed = game.compiler.value(quorum, View(game, S, Events(game.ctx), {"__holes": []}))
    return needed, quorum_gap(game, quorum, S)


def quorum_gap(game: Game, quorum, S: dict):
    """When no row of the quorum table covers the number alive."""
    if not isinstance(quorum, ast.ByTable) or any(case.low is None for case in quorum.cases):
        return game.B(False)
    subject = game.compiler.value(quorum.subject, View(game, S, Events(game.ctx), {"__holes": []}))
    return Not(Or([And(subject >= case.low, subject <= case.high) for case in quorum.cases]))
