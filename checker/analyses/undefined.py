"""`undefined`: a reachable situation where the rules decide nothing for what must be decided."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import holes, registry
from ..findings import Finding
from ..holes import Hole
from . import found_game, game_of, replayed
from .encoded import Encoded

if TYPE_CHECKING:
    from ..model import Scenario
    from ..source import Span


def analyse(scenario: Scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    seen: set[str] = set()
    for enc in encodings:
        if enc.error:
            out.append(enc.unsupported("whether the rules leave a situation undecided"))
            continue
        reasons: list[Hole] = []
        for pv in game_of(enc.deepest()).vars:
            for cond, hole in pv.undefined:
                if hole not in reasons:
                    reasons.append(hole)
        for hole in reasons:
            why = hole.message
            if why in seen:
                continue
            def reached(e: Encoded, t: int, hole: Hole = hole) -> list:
                return [c for c, h in game_of(e).vars[t].undefined if h == hole]
            found = enc.search_after_clean(reached)
            short = enc.unanswered(found, f"whether '{why}' can happen")
            if short is not None:
                out.append(short)
            if found.status != "sat":
                continue
            at, t, result = found_game(found)
            game = game_of(at)
            w = at.witness(result, t, why)
            if replayed(w).verdict not in ("undefined", "ambiguous", "contradiction"):
                out.append(at.inconclusive(f"'{why}'", "internal error: the solver's game did not replay", witness=w))
                continue
            seen.add(why)
            c = registry.CODES[registry.UNDEFINED]
            span, rules = _where(scenario, hole)
            out.append(Finding(c.code, c.kind, c.severity,
                               f"the rules do not decide {why} (reached at {game.phases[t]}, {found.where})",
                               span, rules=rules, witness=at.witness_json(w)))
    return out


def _where(scenario: Scenario, hole: Hole) -> tuple[Span | None, tuple[str, ...]]:
    """The spec line behind a hole: the declaration it comes from, and its rule ids."""
    source = hole.source
    if hole.kind == holes.READINGS:
        win = next(w for w in scenario.wins if w.side.key == source)
        ids = [c.id for c in win.cites] + [c.id for s in win.schedules for c in s.cites]
        # Readings of the win's own schedule, else of the `wins checked` line.
        if win.schedules or scenario.phases is None:
            return win.span, tuple(dict.fromkeys(ids))
        ids += list(scenario.phases.reading_cites)
        return scenario.phases.span, tuple(dict.fromkeys(ids))
    if hole.kind == holes.OPEN_WIN:
        win = next(w for w in scenario.open_wins if w.side.key == source)
        return win.span, tuple(c.id for c in win.cites)
    if hole.kind == holes.LEADERLESS:
        team = next(t for t in scenario.teams if t.key == source)
        return team.span, tuple(dict.fromkeys(team.leader_cites + tuple(r.id for r in team.cites)))
    if source == holes.DAY and scenario.day is not None:
        return scenario.day.span, tuple(r.id for r in scenario.day.vote_cites)
    rule = next((r for r in scenario.rules if r.name.key == source), None)
    if rule is not None:
        return rule.span, tuple(c.id for c in rule.cites)
    ability = scenario.ability_by_key.get(source)
    if ability is not None:
        return ability.span, tuple(dict.fromkeys(r.id for r in ability.clause_cites + ability.cites))
    return scenario.span, ()
