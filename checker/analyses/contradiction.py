"""`contradiction`: two applicable rules conclude opposite things, neither an exception of the
other."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import holes, registry
from ..findings import Finding, Related
from . import found_game, game_of, replayed
from .encoded import Encoded

if TYPE_CHECKING:
    from ..model import Scenario


def analyse(scenario: Scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    seen: set[tuple[str, str]] = set()
    rules = {r.name.key: r for r in scenario.rules}
    for enc in encodings:
        if enc.error:
            out.append(enc.unsupported("whether rules contradict each other"))
            continue
        pairs: list[tuple[str, str]] = []
        for pv in game_of(enc.deepest()).vars:
            for cond, seat, leave_rule, stay_rule in pv.contradictions:
                if (leave_rule, stay_rule) not in pairs:
                    pairs.append((leave_rule, stay_rule))
        for pair in pairs:
            if pair in seen:
                continue
            def clash(e: Encoded, t: int, pair: tuple[str, str] = pair) -> list:
                return [c for c, s, a, b in game_of(e).vars[t].contradictions if (a, b) == pair]
            found = enc.search_after_clean(clash)
            short = enc.unanswered(found, f"whether rules {pair[0]} and {pair[1]} clash")
            if short is not None:
                out.append(short)
            if found.status != "sat":
                continue
            at, t, result = found_game(found)
            game = game_of(at)
            w = at.witness(result, t, f"{pair[0]} against {pair[1]}")
            # The replay must show this very pair of rules clashing, not just any clash.
            confirmed = any(h.kind == holes.CONTRADICTION and (h.source, h.other) == pair
                            for o in replayed(w).outcomes for h in o.holes)
            if not confirmed:
                out.append(at.inconclusive(f"rules {pair[0]} and {pair[1]}",
                                            "internal error: the solver's game did not replay", witness=w))
                continue
            seen.add(pair)
            leave, stay = rules.get(pair[0]), rules.get(pair[1])
            primary = leave or stay
            c = registry.CODES[registry.CONTRADICTION]
            ids = tuple(dict.fromkeys([r.id for r in (leave.cites if leave else ())] +
                                      [r.id for r in (stay.cites if stay else ())]))
            out.append(Finding(c.code, c.kind, c.severity,
                               f"rule {pair[0]} says a player leaves and rule {pair[1]} says they stay, "
                               f"and neither overrides the other (reached at {game.phases[t]}, {found.where})",
                               primary.span if primary else scenario.span,
                               (Related(f"rule {pair[1]}", stay.span),) if stay and leave else (),
                               ids, at.witness_json(w)))
    return out
