"""`unreachable-win`: a side whose win condition no game within the bound reaches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import registry
from ..findings import Finding
from . import game_of
from .encoded import Encoded

if TYPE_CHECKING:
    from ..ast import WinDecl
    from ..model import Scenario, Side
    from .encoded import Search


def analyse(scenario: Scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    for win_side in dict.fromkeys(w.side.key for w in scenario.wins):
        side = scenario.side_by_key[win_side]
        win = next(w for w in scenario.wins if w.side.key == win_side)
        verdicts: list[str] = []
        searched: list[Search] = []
        for enc in encodings:
            if enc.error:
                out.append(enc.unsupported(f"whether {side.display} can win"))
                verdicts.append("unsupported")
                continue
            sid = game_of(enc).ids.sides.index(win_side)
            def won(e: Encoded, t: int, sid: int = sid) -> list:
                return [game_of(e).states[t + 1].winner == sid, e.clean_until(t)]
            found = enc.search(won, fast=True)
            if found.status == "unknown":
                why = found.result.reason if found.result is not None else None
                out.append(enc.inconclusive(f"whether {side.display} can win",
                                            f"the solver gave up ({why})", win.span))
            verdicts.append(found.status)
            searched.append(found)
        if verdicts and all(v == "unsat" for v in verdicts):
            out.append(_finding(side, win, win_side, searched))
    return out


def _finding(side: Side, win: WinDecl, win_side: str, searched: list[Search]) -> Finding:
    c = registry.CODES[registry.UNREACHABLE_WIN]
    proofs = [_prove(found.enc, win_side) for found in searched]
    if all(status == "proved" for status, _, _ in proofs):
        depth = max(k for _, k, _ in proofs if k is not None)
        comps = ", ".join(f.enc.comp.title for f in searched)
        # Proved for every length: a side that can never win is a defect of the
        # rulebook, not a matter of the bound, so it is an error.
        return Finding(c.code, c.kind, "error",
                       f"{side.display} cannot win in any game the rules decide, of any "
                       f"length (composition {comps}, default settings: none within "
                       f"{_rounds(searched[0].enc)}, and induction over {depth} phase"
                       f"{'s' if depth != 1 else ''} rules out every later one)",
                       win.span, rules=tuple(r.id for r in win.cites))
    where = "; ".join(f.enc.where for f in searched)
    why = next((reason for status, _, reason in proofs if status != "proved"), None)
    note = f"; no proof for every length ({why})" if why else ""
    short = next((f.gave_up for f in searched if f.gave_up), None)
    stop = f"; a longer game was not searched ({short})" if short else "; longer games were not searched"
    return Finding(c.code, c.kind, c.severity,
                   f"{side.display} cannot win in any game the rules decide within the bound "
                   f"({where}){stop}{note}",
                   win.span, rules=tuple(r.id for r in win.cites))


def _prove(enc: Encoded, side: str) -> tuple[str, int | None, str | None]:
    """k-induction (encode/induction.py) on "this side has not won"; never raises for a
    construct the free-start encoding lacks: the bounded finding then stands."""
    from ..encode.invariants import proved_never
    from ..encode.terms import Unsupported
    try:
        status, k, why = proved_never(enc, game_of(enc).ids.sides.index(side))
    except Unsupported as exc:
        return "open", None, f"the induction step does not support {exc}"
    if status == "unknown":
        return "open", None, f"the solver gave up on the induction step ({why})"
    return status, k, why


def _rounds(enc: Encoded) -> str:
    b = enc.options.bound
    return f"{b} round{'s' if b != 1 else ''}"
