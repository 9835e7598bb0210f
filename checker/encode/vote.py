"""The vote (as Player._vote): its cause, there before any step of the resolution at the vote,
and the hole of a quorum table with no row for the number alive.

A vote is nobody (kind 0), one player (kind 1, `vote_target`) or a tie between two players
(kind 2, `tie`), whatever the tie rule: the tied are the players the rules then act on (the
candidates they must be, the triggers they set off). A tie rule that sends one of them out
(`tie random`, `tie chosen by …`, a revote's second vote) names him in `vote_target`; under
`tie revote`, `retie` says the second vote tied again (as interpreter/ties.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

import z3

from .. import ast, holes
from ..model import TieRule
from ..narrow import present, present_expr
from .passes import Pass
from .phase_vars import NONE
from .state import SymState
from .terms import And, Events, Implies, Not, Or, View

if TYPE_CHECKING:
    from .phase_vars import PhaseVars
    from .unroll import Game


def vote_causes(p: Pass, vote: PhaseVars) -> None:
    """The day's vote out: a cause of kind `vote` on the player voted, and the `voted` event;
    with no quorum for this many alive the vote decides nothing (nobody is voted out)."""
    game, pv = p.game, p.pv
    k = vote.vote_kind
    day = present(game.sc.day, "the day")
    gap = quorum_gap(game, day.quorum, p.S) if day.quorum is not None else game.B(False)
    if day.quorum is not None:
        pv.undefined.append((And(vote.active, k != 0, gap), holes.no_quorum()))
    if game.vote_states and vote.vote_state is None:  # what `vote P with N` is held against
        vote.vote_state = p.S
    for s in range(p.n):
        on = And(vote.active, voted_out(game, vote, s), Not(gap))
        p.intents.attacks.append(("vote", "vote", s, on))
        p.event(("voted", s), on)


OPEN_TIE = holes.open_tie()
NO_BREAKER = holes.no_tie_breaker()


@dataclass(frozen=True)
class TieEffect:
    """Under a tie (kind 2): when it sends `vote_target` out, when both tied, and when it is
    a hole, with what the rules leave open."""
    one: z3.BoolRef
    both: z3.BoolRef
    holes: tuple = ()  # (condition, the hole: what is open)


def tie_effect(game: Game, pv: PhaseVars, S: SymState, rule: TieRule, second: bool = False) -> TieEffect:
    """As interpreter/ties.tie_results, on the state at the vote."""
    T, F = game.B(True), game.B(False)
    kind = rule.kind
    if kind == "random":
        return TieEffect(T, F)
    if kind == "all_leave":
        return TieEffect(F, T)
    if kind == "no_exit":
        return TieEffect(F, F)
    if kind == "chosen":
        breaker = tie_breaker(game, S, rule)
        return TieEffect(breaker, F, ((Not(breaker), NO_BREAKER),))
    if kind == "revote" and not second:
        again = tie_effect(game, pv, S, rule.second, second=True)
        return TieEffect(Or(Not(pv.retie), And(pv.retie, again.one)), And(pv.retie, again.both),
                         tuple((And(pv.retie, c), why) for c, why in again.holes))
    return TieEffect(F, F, ((T, OPEN_TIE),))


def tie_breaker(game: Game, S: SymState, rule: TieRule) -> z3.BoolRef:
    """A living player who breaks a tie: holding one of the rule's roles, or its item."""
    ids = game.ids
    roles = [ids.roles.index(r) for r in rule.roles]
    out = []
    for s in range(game.n):
        holds = [S.roles[s] == r for r in roles]
        if rule.item is not None:
            holds.append(S.items[(rule.item, s)] >= 0)
        out.append(And(S.alive[s], Or(holds)))
    return Or(out)


def tie_rules(game: Game, pv: PhaseVars, S: SymState) -> None:
    """What a tie does at this day's vote, on the state the day starts in (as the legality of
    its choices): whom `vote_target` may name, the holes, and no tie that removes nobody
    where the rules require an exit."""
    day = present(game.sc.day, "the day")
    rule = day.tie_rule or TieRule("undecided")
    k, x = pv.vote_kind, pv.vote_target
    a, b = pv.tie
    eff = tie_effect(game, pv, S, rule)
    pv.tie_effect = eff
    game.add(Implies(And(k == 2, eff.one), Or(x == a, x == b)))  # the tied player sent out
    game.add(Implies(Not(Or(k == 1, And(k == 2, eff.one))), x == NONE))
    if pv.retie is not None:
        game.add(Implies(k != 2, Not(pv.retie)))
    if day.exit_mode == "required":
        # As the interpreter: a tie that removes nobody is a day with no exit.
        hole = Or([c for c, _ in eff.holes]) if eff.holes else game.B(False)
        game.add(Implies(And(pv.active, k == 2), Or(eff.one, eff.both, hole)))
    for cond, why in eff.holes:
        pv.undefined.append((And(pv.active, k == 2, cond), why))


def voted_out(game: Game, pv: PhaseVars, s: int) -> z3.BoolRef:
    """Whether the day's vote sends seat s out: voted out alone, or the player a tie sends out
    (the one drawn, picked or revoted, `vote_target`; under `tie all_leave`, each of the tied)."""
    k, x = pv.vote_kind, pv.vote_target
    parts = [And(k == 1, x == s)]
    tie = present(game.sc.day, "the day").tie
    if tie == "random":
        parts.append(And(k == 2, x == s))
    elif tie == "all_leave":
        parts.append(And(k == 2, Or(pv.tie[0] == s, pv.tie[1] == s)))
    elif tie in ("chosen", "revote"):
        eff = present(pv.tie_effect, "the tie's effect")
        parts += [And(k == 2, eff.one, x == s), And(k == 2, eff.both, Or(pv.tie[0] == s, pv.tie[1] == s))]
    return Or(parts)


def tied(pv: PhaseVars, s: int) -> z3.BoolRef:
    """Seat s is one of the day's tied players."""
    return And(pv.vote_kind == 2, Or(pv.tie[0] == s, pv.tie[1] == s))


def quorum_at_vote(game: Game, pv: PhaseVars) -> tuple[z3.ArithRef, z3.BoolRef] | None:
    """(the votes the day's quorum asks for, whether no row of it covers the number alive),
    as the state stands at the vote; None without a quorum, or in a game not built with
    `vote_states`. Built only when asked (a query's `vote P with N`)."""
    quorum = game.sc.day.quorum if game.sc.day is not None else None
    if quorum is None or pv.vote_state is None:
        return None
    S = pv.vote_state
    needed = game.compiler.value(quorum, View(game, S, Events(game.ctx), {"__holes": []}))
    return needed, quorum_gap(game, quorum, S)


def votes_at_vote(game: Game, pv: PhaseVars, S: SymState) -> z3.ArithRef | None:
    """As interpreter/tally.vote_total: the votes the players alive at the vote cast, one
    each or each his `weight` on the state the day starts in (S); None in a game not built
    with `vote_states`."""
    if pv.vote_state is None:
        return None
    alive = pv.vote_state.alive
    weight = present(game.sc.day, "the day").weight
    if weight is None:
        return z3.Sum([z3.If(alive[s], 1, 0) for s in range(game.n)])
    view = lambda s: View(game, S, Events(game.ctx), {"voter": s, "__holes": []})  # noqa: E731
    return z3.Sum([z3.If(alive[s], game.compiler.value(weight, view(s)), 0) for s in range(game.n)])


def tally_legal(game: Game, pv: PhaseVars, S: SymState) -> None:
    """As interpreter/tally.py: the ballots cast for the player voted out (each voter counting
    his `weight`, on the state the day starts in) reach a majority of all the living's votes,
    or the quorum, or (`vote plurality`) at least one; nobody casts a ballot unless somebody
    is voted out."""
    day = present(game.sc.day, "the day")
    weight = present_expr(day.weight, "the vote's weight")
    ballots = present(pv.ballots, "the ballots")
    k = pv.vote_kind
    view = lambda s: View(game, S, Events(game.ctx), {"voter": s, "__holes": []})  # noqa: E731
    w = [game.compiler.value(weight, view(s)) for s in range(game.n)]
    alive = S.alive
    tally = z3.Sum([z3.If(And(ballots[s], alive[s]), w[s], 0) for s in range(game.n)])
    for s in range(game.n):
        game.add(Implies(ballots[s], And(k == 1, alive[s])))
    if day.vote == "majority":
        total = z3.Sum([z3.If(alive[s], w[s], 0) for s in range(game.n)])
        game.add(Implies(k == 1, 2 * tally > total))
    elif day.vote == "plurality":
        game.add(Implies(k == 1, tally >= 1))
    else:
        gap = quorum_gap(game, day.quorum, S)
        quorum = game.compiler.value(day.quorum, View(game, S, Events(game.ctx), {"__holes": []}))
        game.add(Implies(And(k == 1, Not(gap)), tally >= quorum))


def quorum_gap(game: Game, quorum: ast.Expr | None, S: SymState) -> z3.BoolRef:
    """When no row of the quorum table covers the number alive."""
    if not isinstance(quorum, ast.ByTable) or any(case.low is None for case in quorum.cases):
        return game.B(False)
    subject = game.compiler.value(quorum.subject, View(game, S, Events(game.ctx), {"__holes": []}))
    return Not(Or([And(subject >= case.low, subject <= case.high) for case in quorum.cases]))
