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

Uses of two blocking abilities the spec leaves unordered can block each other too (a cycle
of blocks across abilities: the Jailer jails the Beauty who charms him). Each order lets the
block that resolves first take effect and stop the other, so the orders give exactly the
two readings; the rules do not say which holds. Such a cycle is reported here, naming both
abilities and both players, and not as an `ambiguous-order` (which sets the cycle's players
aside); a declared order (`resolve`, `wake`) breaks it. It is found the same way, from the
encoding's pv.cycles (blocking.block_cycles), and confirmed by the interpreter's block-cycle
hole for the two abilities (Resolver._block_cycles).
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
        cyclers = [a for a in scenario.abilities if in_block_cycles(scenario, a)]
        for i, a in enumerate(sorted(cyclers, key=lambda a: a.key)):
            for b in sorted(cyclers, key=lambda a: a.key)[i + 1:]:
                found = _first_cycle(enc, a, b)
                if found is not None:
                    out.append(found)
    return out


def _first_cycle(enc: Encoded, a: Ability, b: Ability) -> Finding | None:
    """The first reachable phase where users of a and b (unordered) block each other."""
    def cycle_at(e: Encoded, t: int) -> list:
        return [c for c, x, y, _, _ in game_of(e).vars[t].cycles if (x.key, y.key) == (a.key, b.key)]
    seen = _witnessed(enc, a, cycle_at, lambda w: _cycle_holes(w.answer.outcomes if w.answer else [], a, b),
                      f"{a.display} and {b.display} block each other",
                      lambda phase: f"users of {a.display} and {b.display} that block each other on {phase}",
                      f"whether users of {a.display} and {b.display} can block each other")
    if not isinstance(seen, _Seen):
        return seen
    pair = seen.holes[0].seats
    assert pair is not None  # a block-cycle hole names its two players
    return _cycle_finding(seen.enc.sc, game_of(seen.enc).seats, a, b, pair, seen.w, seen.phase, seen.where)


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


def _cycle_finding(scenario: Scenario, seats: tuple[str, ...], a: Ability, b: Ability, pair: tuple[int, int],
                   w: Witness, phase: Phase, where: str) -> Finding:
    c = registry.CODES[registry.AMBIGUOUS_RESOLUTION]
    answer = replayed(w)
    names = Names(scenario, seats)
    x, y = pair
    data = evidence(w, scenario, seats)

    def heading(i: int, names: Names, last: Report) -> list[str]:
        held = [f"{a.display} by {names.seat(x)} takes effect"] if y in last.blocked and x not in last.blocked \
            else [f"{b.display} by {names.seat(y)} takes effect"] if x in last.blocked and y not in last.blocked \
            else []
        order = " → ".join(names.step(s) for s in last.order if s != "deaths")
        return [f"reading {i}: " + "; ".join(held + [f"order: {order}"])]
    data["outcomes"] = last_phase_outcomes(scenario, seats, answer.outcomes, heading)
    ids = tuple(dict.fromkeys(r.id for ab in (a, b) for r in ab.clause_cites + ab.cites))
    ids += tuple(r.id for d in scenario.wakes for r in d.cites if r.id not in ids)
    roles = [r.key for ab in (a, b) if ab.actor is not None
             for r in (ab.actor.roles or (ab.actor.name,)) if r is not None]
    return Finding(c.code, c.kind, c.severity,
                   f"{a.display} by {names.seat(x)} and {b.display} by {names.seat(y)} block each other on "
                   f"a reachable {phase}, with no declared order between {a.display} and {b.display}: "
                   f"{len(answer.outcomes)} consistent outcomes (whichever block resolves first takes "
                   f"effect and stops the other); the rules do not say which block takes effect ({where})",
                   a.name_span or a.span,
                   (Related(b.display, b.name_span or b.span),)
                   + tuple(Related(f"{scenario.role_by_key[r].display}", scenario.role_by_key[r].span)
                           for r in dict.fromkeys(roles) if r in set(seats)),
                   ids, data)


def _cycle_holes(outcomes: list[Outcome], a: Ability, b: Ability) -> list[Hole]:
    """The block-cycle holes of `a` and `b` in the last phase of the outcomes."""
    return [h for o in outcomes for h in o.reports[-1].holes
            if h.kind == holes.BLOCK_CYCLE and (h.source, h.other) == (a.key, b.key)]


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
