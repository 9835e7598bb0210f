"""`undefined`: a reachable situation where the rules decide nothing for what must be decided."""

from __future__ import annotations

from .. import registry
from ..findings import Finding
from .encoded import Encoded


def analyse(scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    seen: set[str] = set()
    for enc in encodings:
        if enc.error:
            out.append(enc.unsupported("whether the rules leave a situation undecided"))
            continue
        game = enc.game
        reasons = []
        for pv in game.vars:
            for cond, why in pv.undefined:
                if why not in reasons:
                    reasons.append(why)
        for why in reasons:
            if why in seen:
                continue
            status, t, result = enc.first_after_clean(
                lambda t, why=why: [c for c, w in game.vars[t].undefined if w == why])
            if status == "unknown":
                out.append(enc.inconclusive(f"whether '{why}' can happen", f"the solver gave up ({result.reason})"))
                continue
            if status != "sat":
                continue
            w = enc.witness(result, t, why)
            if w.answer.verdict not in ("undefined", "ambiguous"):
                out.append(enc.inconclusive(f"'{why}'", "internal error: the solver's game did not replay", witness=w))
                continue
            seen.add(why)
            c = registry.CODES[registry.UNDEFINED]
            span, rules = _where(scenario, why)
            out.append(Finding(c.code, c.kind, c.severity,
                               f"the rules do not decide {why} (reached at {game.phases[t]}, {enc.where})",
                               span, rules=rules, witness=enc.witness_json(w)))
    return out


def _where(scenario, why: str):
    """The spec line behind a hole, from its description."""
    for r in scenario.rules:
        if why.startswith(f"rule {r.name.text}:"):
            return r.span, tuple(c.id for c in r.cites)
    for a in scenario.abilities:
        if why.startswith(a.display + ":"):
            return a.span, tuple(dict.fromkeys(r.id for r in a.clause_cites + a.cites))
    for w in scenario.wins:
        if why.startswith(f"when the win of {w.side.text} is checked:"):
            ids = [c.id for c in w.cites] + [c.id for s in w.schedules for c in s.cites]
            if not w.schedules and scenario.phases is not None:
                ids += list(scenario.phases.reading_cites)
            return (w.span if w.schedules else scenario.phases.span), tuple(dict.fromkeys(ids))
    for w in scenario.open_wins:
        if why.startswith(f"whether {w.side.text} has won:"):
            return w.span, tuple(c.id for c in w.cites)
    for team in scenario.teams:
        if why.startswith(f"who decides for team {team.key} "):
            return team.span, tuple(dict.fromkeys(team.leader_cites + tuple(r.id for r in team.cites)))
    if "quorum" in why or "tie" in why:
        day = scenario.day
        return day.span, tuple(r.id for r in day.vote_cites)
    return scenario.span, ()
