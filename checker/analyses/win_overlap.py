"""`win-overlap`: a reachable state where two sides' win conditions hold and no priority decides."""

from __future__ import annotations

from typing import TYPE_CHECKING

import z3

from .. import holes, registry
from ..findings import Finding, Related
from . import found_game, game_of, replayed
from .encoded import Encoded

if TYPE_CHECKING:
    from ..encode.unroll import Game, Prefix
    from ..model import Scenario


def analyse(scenario: Scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    for enc in encodings:
        if enc.error:
            out.append(enc.unsupported("whether two sides can win at once"))
            continue
        found = enc.search(_goal, quiet=True, event=_event)
        short = enc.unanswered(found, "whether two sides can win at once")
        if short is not None:
            out.append(short)
        if found.status != "sat":
            continue
        enc, t, result = found_game(found)
        game = game_of(enc)
        w = enc.witness(result, t, "two sides win at once")
        overlaps = [h for o in replayed(w).outcomes for h in o.holes if h.kind == holes.OVERLAP]
        if not overlaps:
            out.append(enc.inconclusive("a win overlap", "internal error: the solver's game did not replay", witness=w))
            continue
        c = registry.CODES[registry.WIN_OVERLAP]
        out.append(Finding(c.code, c.kind, c.severity,
                           f"{overlaps[0]}, after {game.phases[t]} ({found.where})",
                           scenario.wins[0].span,
                           tuple(Related(f"win {w2.side.text}", w2.span) for w2 in scenario.wins[1:]),
                           tuple(r.id for win in scenario.wins for r in win.cites),
                           enc.witness_json(w)))
    return out


def _goal(enc: Encoded, t: int) -> list:
    """Two sides' conditions hold after phase t, in a game the rules decide up to it."""
    return [enc.clean_until(t - 1)] + _event(game_of(enc), t)


def _event(game: Game | Prefix, t: int) -> list:
    """Two sides' conditions hold after phase t of `game`, which leaves nothing else open."""
    pv = game.vars[t]
    gaps = [z3.Not(c) for c, _ in pv.undefined] + [z3.Not(c) for c, *_ in pv.contradictions]
    return [pv.overlap if pv.overlap is not None else z3.BoolVal(False, game.ctx)] + gaps
