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
                lambda t, enc=enc, sid=sid: [enc.game.states[t + 1]["winner"] == sid, enc.clean_until(t)])
            if status == "unknown":
                out.append(enc.inconclusive(f"whether {side.display} can win", f"the solver gave up ({result.reason})",
                                            win.span))
            verdicts.append(status)
        if verdicts and all(v == "unsat" for v in verdicts):
            enc = encodings[0]
            c = registry.CODES[registry.UNREACHABLE_WIN]
            where = "; ".join(e.where for e in encodings)
            out.append(Finding(c.code, c.kind, c.severity,
                               f"{side.display} cannot win in any game the rules decide within the bound "
                               f"({where}); longer games were not searched",
                               win.span, rules=tuple(r.id for r in win.cites)))
    return out
