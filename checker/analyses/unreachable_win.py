"""`unreachable-win`: a side whose win condition no game within the bound reaches."""

from __future__ import annotations

from .. import registry
from ..findings import Finding
from .encoded import Encoded


def analyse(scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    for win_side in dict.fromkeys(w.side.key for w in scenario.wins):
        side = scenario.side_by_key[win_side]
        win = next(w for w in scenario.wins if w.side.key == win_side)
        verdicts = []
        for enc in encodings:
            if enc.error:
                out.append(enc.unsupported(f"whether {side.display} can win"))
                verdicts.append("unsupported")
                continue
            sid = enc.game.ids.sides.index(win_side)
            status, t, result = enc.first(
                lambda t, enc=enc, sid=sid: [enc.game.states[t + 1]["winner"] == sid, enc.clean_until(t)],
                fast=True)
            if status == "unknown":
                out.append(enc.inconclusive(f"whether {side.display} can win", f"the solver gave up ({result.reason})",
                                            win.span))
            verdicts.append(status)
        if verdicts and all(v == "unsat" for v in verdicts):
            c = registry.CODES[registry.UNREACHABLE_WIN]
            where = "; ".join(e.where for e in encodings)
            proofs = [_prove(enc, win_side) for enc in encodings]
            if all(status == "proved" for status, _, _ in proofs):
                depth = max(k for _, k, _ in proofs)
                comps = ", ".join(str(e.comp.players) for e in encodings)
                # Proved for every length: a side that can never win is a defect of the
                # rulebook, not a matter of the bound, so it is an error.
                out.append(Finding(c.code, c.kind, "error",
                                   f"{side.display} cannot win in any game the rules decide, of any "
                                   f"length (composition {comps}, default settings: none within "
                                   f"{_rounds(encodings[0])}, and induction over {depth} phase"
                                   f"{'s' if depth != 1 else ''} rules out every later one)",
                                   win.span, rules=tuple(r.id for r in win.cites)))
                continue
            why = next((reason for status, _, reason in proofs if status != "proved"), None)
            note = f"; no proof for every length ({why})" if why else ""
            out.append(Finding(c.code, c.kind, c.severity,
                               f"{side.display} cannot win in any game the rules decide within the bound "
                               f"({where}); longer games were not searched{note}",
                               win.span, rules=tuple(r.id for r in win.cites)))
    return out


def _prove(enc: Encoded, side: str):
    """k-induction (encode/induction.py) on "this side has not won"; never raises for a
    construct the free-start encoding lacks: the bounded finding then stands."""
    from ..encode.induction import prove_never
    from ..encode.terms import Unsupported
    try:
        status, k, why = prove_never(enc, enc.game.ids.sides.index(side))
    except Unsupported as exc:
        return "open", None, f"the induction step does not support {exc}"
    if status == "unknown":
        return "open", None, f"the solver gave up on the induction step ({why})"
    return status, k, why


def _rounds(enc: Encoded) -> str:
    b = enc.options.bound
    return f"{b} round{'s' if b != 1 else ''}"
