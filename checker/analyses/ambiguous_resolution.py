"""`ambiguous-resolution`: uses of one blocking ability that block each other (A blocks B
while B blocks A), so that the night has several consistent outcomes, or none.

Only uses of one step can depend on each other this way: steps of different abilities run in
an order (declared, or each order tried: that is `ambiguous-order`). So the question arises
only where two players can hold one blocking ability. The Z3 encoding does not cover such
compositions yet (it reports them inconclusive), so this analysis asks the interpreter: along
the quietest game (nobody acts, nobody is voted) up to the bound, at the first phase where two
holders can use the ability, each blocks the other. The interpreter resolves that phase with
every consistent reading; a reading per outcome (or none at all) is the finding, with both
outcomes shown. Holders the search cannot pair (a composition with one holder where a
conversion could make another) are reported inconclusive, never passed over.
"""

from __future__ import annotations

import itertools

import z3

from .. import registry
from ..errors import SpecError
from ..evaluate import initial_state
from ..findings import Finding, Related
from ..interpreter.phases import matches, sequence, start_phases
from ..interpreter.resolution import _flat, _verbs
from ..encode.witness import Witness
from .encoded import Options, witness_json

MARK = "block each other"


def analyse(scenario, options: Options | None = None, encodings=()) -> list[Finding]:
    options = options or Options()
    encoded = {enc.comp.players: enc for enc in encodings}
    out = []
    blockers = [a for a in scenario.abilities if "block" in _verbs(a.effects)
                and a.actor is not None and a.actor.kind == "role" and not a.is_card]
    if not blockers:
        return out
    converts = {e.name.key for a in scenario.abilities for e in _flat(a.effects) if e.verb == "convert"}
    converts |= {e.name.key for r in scenario.rules for e in _flat(r.then) if e.verb == "convert"}
    for comp in scenario.compositions:
        if comp.total != comp.players:
            continue
        seats = comp.seats()
        where = f"composition {comp.players}, default settings, up to {options.bound} round" \
                f"{'s' if options.bound != 1 else ''}"
        for a in blockers:
            roles = {r.key for r in (a.actor.roles or (a.actor.name,))}
            holders = [s for s, role in enumerate(seats) if role in roles]
            if len(holders) < 2:
                if roles & converts:
                    second = _second_holder(encoded.get(comp.players), roles)
                    if second is not None:
                        out.append(_inconclusive(
                            a, f"whether uses of {a.display} can block each other ({where}) was not "
                            f"searched: {second}, and neither the Z3 encoding nor this search "
                            "follows two holders made by conversion yet"))
                continue
            found = _search(scenario, seats, a, holders, options)
            if isinstance(found, Finding):
                out.append(found)
                continue
            if found is None:
                out.append(_inconclusive(
                    a, f"whether uses of {a.display} can block each other ({where}) is not "
                    "decided: the Z3 encoding does not support several players dealt one blocking "
                    "ability yet, and the interpreter found no phase within the bound where two "
                    "holders could each block the other along the quietest game"))
                continue
            answer, phases, script, phase = found
            out.append(_finding(scenario, seats, a, answer, phases, script, phase, where))
    return out


def _second_holder(enc, roles) -> str | None:
    """Why a second holder cannot be ruled out within the bound, or None when the encoding
    shows that no reachable state has two living holders."""
    if enc is None:
        return "a conversion can give a second player the ability (the Z3 encoding of this composition is not available to rule it out)"
    ids = enc.game.ids.roles
    wanted = [ids.index(r) for r in sorted(roles) if r in ids]

    def two_holders(t):
        st = enc.game.states[t + 1]  # after phase t
        holds = [z3.And(st["alive"][s], z3.Or([st["role"][s] == r for r in wanted]))
                 for s in range(enc.game.n)]
        return [z3.Or([z3.And(holds[x], holds[y])
                       for x, y in itertools.combinations(range(enc.game.n), 2)])]
    status, t, _ = enc.first(two_holders)
    if status == "unsat":
        return None
    if status == "sat":
        return f"a conversion gives a second living player the ability by the end of {enc.game.phases[t]}"
    return "whether a conversion can give a second player the ability is not decided (the solver gave up)"


def _search(scenario, seats, a, holders, options: Options):
    """(answer, phases, script, phase) for the first phase of the quietest game where two
    holders' mutual blocks leave several or no consistent outcomes; None when none does."""
    state0 = initial_state(scenario, seats)
    length = len(start_phases(scenario, state0)) + 2 * options.bound
    phases = sequence(scenario, state0, length)
    has_vote = scenario.day is not None and scenario.day.vote is not None
    before = []
    for phase in phases:
        moments = [None] if phase.is_night else ["before", "after"]
        if any(matches(ref, phase, m) for ref in a.phases for m in moments):
            for x, y in itertools.combinations(holders, 2):
                mutual = [f"{a.key} by @{x + 1} on @{y + 1}", f"{a.key} by @{y + 1} on @{x + 1}"]
                script = _script(seats, before + [(phase, mutual)])
                answer = _play(scenario, script)
                if answer is None or answer.verdict == "illegal":
                    continue
                holes = [h for o in answer.outcomes for h in o.reports[-1].holes if MARK in h]
                if holes:
                    return answer, before + [(phase, mutual)], script, phase
        quiet = ["vote none"] if phase.is_day and has_vote else []
        before.append((phase, quiet))
    return None


def _script(seats, phases) -> str:
    lines = ['query mutual "uses that block each other" {', f"  composition {len(seats)}"]
    for phase, choices in phases:
        head = phase.kind + (f" {phase.number}" if phase.kind in ("day", "night") else "")
        lines.append(f"  {head} {{ {'  '.join(choices)} }}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _play(scenario, script: str):
    from ..interpreter.bind import Binder
    from ..interpreter.play import Player
    from ..queries import load_queries
    try:
        source, (query,) = load_queries(script)
        bound = Binder(scenario, source.path).bind(query)
    except SpecError:
        return None
    return Player(scenario).answer(bound)


def _finding(scenario, seats, a, answer, phases, script, phase, where) -> Finding:
    from ..report.answer import Names, phase_lines
    c = registry.CODES[registry.AMBIGUOUS_RESOLUTION]
    holes = [h for o in answer.outcomes for h in o.reports[-1].holes if MARK in h]
    several = any("one consistent reading" in h for h in holes)
    what = (f"{len(answer.outcomes)} consistent outcomes (each reading blocks a different player)"
            if several else "no consistent outcome")
    w = Witness(script, phases, answer)
    data = witness_json(w, scenario, seats)
    names = Names(scenario, seats)
    data["outcomes"] = []
    for i, o in enumerate(answer.outcomes, 1):
        data["outcomes"].append([f"reading {i}"] + phase_lines(names, o.reports[-1], seats))
    ids = tuple(dict.fromkeys(r.id for r in a.clause_cites + a.cites))
    return Finding(c.code, c.kind, c.severity,
                   f"uses of {a.display} by two players who block each other on a reachable {phase} "
                   f"have {what}; the rules do not say which block takes effect ({where})",
                   a.name_span or a.span,
                   tuple(Related(f"{scenario.role_by_key[r].display}", scenario.role_by_key[r].span)
                         for r in sorted({seats[s] for s in range(len(seats))} &
                                         {r.key for r in (a.actor.roles or (a.actor.name,))})),
                   ids, data)


def _inconclusive(a, message: str) -> Finding:
    return Finding(registry.INCONCLUSIVE, "inconclusive", "error", message, a.name_span or a.span)
