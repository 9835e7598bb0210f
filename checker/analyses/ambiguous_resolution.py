"""`ambiguous-resolution`: players whose blocks block each other (A blocks B while B blocks
A), so that the night has several consistent outcomes, or none.

Uses of one step act together, so they can depend on each other this way: the question
arises where two players can hold one blocking ability, dealt it or made holders by a
conversion. The encoding resolves such a step as the interpreter does (every consistent
reading of who is blocked is an outcome; with none, all act: blocking.mutual_blocks; when
more could act at once than it follows, Encoded.unfollowed says so) and marks the phases
where the readings are several or none. The first such phase after a game the rules decide
is the finding; its witness is replayed through the interpreter, which shows every reading
as an outcome.

Uses of blocking abilities the spec leaves unordered can block each other too, in a ring (a
cycle of blocks across abilities: the Jailer jails the Beauty who charms him; or the Jailer
jails the Beauty, who charms the Witch, who hexes the Jailer). Each order lets the block
that resolves first take effect and stop the next use; the orders give the consistent
readings (which of the ring's uses take effect: docs/language.md, "Block cycles"), and the
rules do not say which holds. Such a cycle is reported here, naming its abilities and
players and listing every reading the replay shows, and not as an `ambiguous-order` (which
sets the cycle's players aside); a declared order (`resolve`, `wake`) breaks it where it
leaves some use of the ring unable to stop the next. It is found the same way, from the
encoding's pv.cycles (blocking.block_cycles), one search per ring of abilities, and
confirmed by the interpreter's block-cycle hole for that ring (Resolver._block_cycles).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import holes, registry
from ..crosscheck.witness import evidence, last_phase_outcomes
from ..findings import Finding, Related
from ..moderator_log import Names
from ..vocabulary import in_block_cycles, verbs
from . import found_game, game_of, replayed

if TYPE_CHECKING:
    from ..crosscheck.witness import Witness
    from ..holes import Hole
    from ..interpreter.play import Outcome
    from ..interpreter.resolution import Report
    from ..model import Ability, Scenario
    from ..phases import Phase
    from .encoded import Encoded


def analyse(scenario: Scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    blockers = [a for a in scenario.abilities if "block" in verbs(a.effects)
                and a.actor is not None and a.actor.kind == "role" and not a.is_card]
    for enc in encodings:
        for a in blockers:
            # Several readings (the rules do not say which block holds) and none (each
            # reading undoes itself) are different holes: each is looked for.
            for kind in ("several", "none"):
                found = _first(enc, a, kind)
                if found is not None:
                    out.append(found)
        if sum(in_block_cycles(scenario, a) for a in scenario.abilities) < 2:
            continue  # no two abilities a ring could go through
        deepest = game_of(enc.deepest())
        for ring in sorted({holes.ring_abilities(h) for pv in deepest.vars for _, h in pv.cycles}):
            found = _first_cycle(enc, tuple(scenario.ability_by_key[k] for k in ring))
            if found is not None:
                out.append(found)
    return out


def _first_cycle(enc: Encoded, ring: tuple[Ability, ...]) -> Finding | None:
    """The first reachable phase where users of the ring's abilities (unordered) block each
    other in that ring (in its order, each the next one's user)."""
    keys = tuple(a.key for a in ring)
    shown = _listed([a.display for a in ring])

    def cycle_at(e: Encoded, t: int) -> list:
        return [c for c, h in game_of(e).vars[t].cycles if holes.ring_abilities(h) == keys]
    seen = _witnessed(enc, ring[0], cycle_at, lambda w: _cycle_holes(w.answer.outcomes if w.answer else [], keys),
                      f"{shown} block each other",
                      lambda phase: f"users of {shown} that block each other on {phase}",
                      f"whether users of {shown} can block each other")
    if not isinstance(seen, _Seen):
        return seen
    return _cycle_finding(seen.enc.sc, game_of(seen.enc).seats, ring, seen.holes[0].seats, seen.w, seen.phase,
                          seen.where)


@dataclass(frozen=True)
class _Seen:
    """A witness game, replayed with the hole looked for."""

    enc: Encoded
    w: Witness
    phase: Phase
    where: str
    holes: list[Hole]


def _witnessed(enc: Encoded, a: Ability, conditions_at: Callable[[Encoded, int], list],
               holes_of: Callable[[Witness], list[Hole]], label: str, unreplayed: Callable[[Phase], str],
               question: str) -> _Seen | Finding | None:
    """The first reachable phase where conditions_at holds (after a game the rules decide),
    replayed by the interpreter with the holes `holes_of` finds: None where no phase of the
    deepest game has the conditions, an unanswered or inconclusive finding, or the witness
    (`label`: its name; `unreplayed`: what an inconclusive says did not replay)."""
    deepest = enc.deepest()
    if not any(conditions_at(deepest, t) for t in range(len(game_of(deepest).vars))):
        return None  # never two holders at once, or the abilities are ordered
    found = enc.search_after_clean(conditions_at)
    if found.status != "sat":
        return enc.unanswered(found, question, a.name_span or a.span)
    at, t, result = found_game(found)
    phase = game_of(at).phases[t]
    w = at.witness(result, t, label)
    seen = holes_of(w)
    if not seen:
        return at.inconclusive(
            unreplayed(phase),
            "the solver's game does not replay through the interpreter with that hole (an encoding bug)",
            a.name_span or a.span, witness=w)
    return _Seen(at, w, phase, found.where, seen)


def _cycle_finding(scenario: Scenario, seats: tuple[str, ...], ring: tuple[Ability, ...], users: tuple[int, ...],
                   w: Witness, phase: Phase, where: str) -> Finding:
    c = registry.CODES[registry.AMBIGUOUS_RESOLUTION]
    answer = replayed(w)
    names = Names(scenario, seats)
    data = evidence(w, scenario, seats)
    uses = [(a.key, x) for a, x in zip(ring, users)]

    def said(taking: tuple) -> str:
        if not taking:
            return "none of them takes effect"
        return _listed([f"{a.display} by {names.seat(x)}" for a, x in zip(ring, users) if (a.key, x) in taking]) \
            + (" takes effect" if len(taking) == 1 else " take effect")
    # A reading: the ring's uses that take effect (no block took them away), outcome by outcome.
    readings = [tuple(u for u in uses if u not in o.reports[-1].blocked_uses) for o in answer.outcomes]
    distinct = list(dict.fromkeys(readings))  # numbered as the outcomes first show them

    def heading(i: int, names: Names, last: Report) -> list[str]:
        order = " → ".join(names.step(s) for s in last.order if s != "deaths")
        return [f"reading {distinct.index(readings[i - 1]) + 1}: {said(readings[i - 1])}; order: {order}"]
    data["outcomes"] = last_phase_outcomes(scenario, seats, answer.outcomes, heading)
    ids = tuple(dict.fromkeys(r.id for ab in ring for r in ab.clause_cites + ab.cites))
    ids += tuple(r.id for d in scenario.wakes for r in d.cites if r.id not in ids)
    roles = [r.key for ab in ring if ab.actor is not None
             for r in (ab.actor.roles or (ab.actor.name,)) if r is not None]
    who = _listed([f"{a.display} by {names.seat(x)}" for a, x in zip(ring, users)])
    how = "each other" if len(ring) == 2 else \
        "each other in a ring (each blocks the next one's user, the last the first's)"
    rule = "whichever block resolves first takes effect and stops the other" if len(ring) == 2 else \
        "whichever block resolves first takes effect and stops the next; a stopped block blocks nobody"
    which = "which block takes effect" if len(ring) == 2 else "which blocks take effect"
    # Of more than two, some may be ordered (`resolve`), just not enough to break the ring.
    unordered = f"with no declared order between {_listed([a.display for a in ring])}" if len(ring) == 2 else \
        f"with no declared order among {_listed([a.display for a in ring])} that breaks the ring"
    return Finding(c.code, c.kind, c.severity,
                   f"{who} block {how} on a reachable {phase}, {unordered}: {len(distinct)} consistent "
                   f"readings ({rule}): "
                   + "; ".join(f"{i}. {said(r)}" for i, r in enumerate(distinct, 1))
                   + f"; {len(answer.outcomes)} consistent outcomes; the rules do not say {which} ({where})",
                   ring[0].name_span or ring[0].span,
                   tuple(Related(b.display, b.name_span or b.span) for b in ring[1:])
                   + tuple(Related(f"{scenario.role_by_key[r].display}", scenario.role_by_key[r].span)
                           for r in dict.fromkeys(roles) if r in set(seats)),
                   ids, data)


def _listed(items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def _cycle_holes(outcomes: list[Outcome], keys: tuple[str, ...]) -> list[Hole]:
    """The block-cycle holes of the ring of abilities `keys` in the last phase of the outcomes."""
    return [h for o in outcomes for h in o.reports[-1].holes
            if h.kind == holes.BLOCK_CYCLE and holes.ring_abilities(h) == keys]


def _first(enc: Encoded, a: Ability, kind: str) -> Finding | None:
    def mutual_at(e: Encoded, t: int) -> list:
        return [c for c, ability, k in game_of(e).vars[t].mutual if ability.key == a.key and k == kind]
    what = "several consistent readings" if kind == "several" else "no consistent reading"
    seen = _witnessed(enc, a, mutual_at, lambda w: _mutual_holes(w.answer.outcomes if w.answer else [], a),
                      f"uses of {a.display} that block each other",
                      lambda phase: f"uses of {a.display} that block each other on {phase} with {what}",
                      f"whether uses of {a.display} that block each other can have {what}")
    if not isinstance(seen, _Seen):
        return seen
    return _finding(seen.enc.sc, game_of(seen.enc).seats, a, seen.w, seen.phase, seen.where)


def _finding(scenario: Scenario, seats: tuple[str, ...], a: Ability, w: Witness, phase: Phase,
             where: str) -> Finding:
    c = registry.CODES[registry.AMBIGUOUS_RESOLUTION]
    answer = replayed(w)
    several = any(h.kind == holes.MUTUAL_SEVERAL for h in _mutual_holes(answer.outcomes, a))
    what = (f"{len(answer.outcomes)} consistent outcomes (each reading blocks a different player); "
            "the rules do not say which block takes effect" if several else
            "no consistent outcome (every choice of which blocks take effect undoes itself); the "
            "rules do not say what happens")
    data = evidence(w, scenario, seats)
    def heading(i: int, names: Names, last: Report) -> list[str]:
        return [f"reading {i}"]
    data["outcomes"] = last_phase_outcomes(scenario, seats, answer.outcomes, heading)
    ids = tuple(dict.fromkeys(r.id for r in a.clause_cites + a.cites))
    # A blocker held by role (analyse): its roles, or the one it names.
    named = (a.actor.roles or (a.actor.name,)) if a.actor is not None else ()
    holders = {r.key for r in named if r is not None}
    return Finding(c.code, c.kind, c.severity,
                   f"uses of {a.display} by two players who block each other on a reachable {phase} "
                   f"have {what} ({where})",
                   a.name_span or a.span,
                   tuple(Related(f"{scenario.role_by_key[r].display}", scenario.role_by_key[r].span)
                         for r in sorted(set(seats) & holders)),
                   ids, data)


def _mutual_holes(outcomes: Sequence[Outcome], a: Ability) -> list[Hole]:
    """The holes of mutual blocks by uses of `a` in the last phase of the outcomes."""
    return [h for o in outcomes for h in o.reports[-1].holes
            if h.kind in (holes.MUTUAL_SEVERAL, holes.MUTUAL_NONE) and h.source == a.key]
