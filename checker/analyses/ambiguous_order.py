"""`ambiguous-order`: two steps the spec leaves unordered that give different outcomes on a
reachable night, depending on which resolves first.

Only blocking steps can disagree in this semantics (everything else acts together), so the
solver looks for a reachable phase where two orders of the blocking steps block different
players (or cancel different uses), and the difference touches a player who acts that phase
(or the use cancelled). The interpreter then replays
that phase in every order; only a replay with two distinct outcomes is reported, both shown.

Players whose blocks of unordered abilities form a ring (a block cycle: two who block each
other, or more, each blocking the next) are `ambiguous-resolution`'s: the orders then differ
by which of the ring's blocks take effect, reported there with every reading. So a player of
a cycle (pv.cycles) is set aside here where the cycle holds; an order that blocks any other
player differently is still found.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import z3

from .. import registry
from ..crosscheck.witness import last_phase_outcomes, model_of
from ..findings import Finding, Related
from . import game_of, replayed
from .encoded import Encoded

if TYPE_CHECKING:
    from ..crosscheck.witness import Witness
    from ..encode.phase_vars import PhaseVars
    from ..encode.unroll import Prefix
    from ..interpreter.resolution import Report
    from ..model import Scenario
    from ..moderator_log import Names
    from ..phases import Phase

ATTEMPTS = 4


def analyse(scenario: Scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    seen: set[tuple[str, ...]] = set()
    for shallow in encodings:
        # Every phase of the longest game the search asks (a night of round 3 can have
        # steps, or players acting, that round 1 lacks).
        enc = shallow.deepest()
        game = game_of(enc)
        for t, pv in enumerate(game.vars):
            if len(pv.perm_blocked) < 2:
                continue
            steps = tuple(pv.perms[0])
            if steps in seen:
                continue
            diff = _differences(game, pv)
            if not diff:
                continue
            found = _ask(scenario, enc, t, steps, [z3.Or(diff), enc.clean_until(t - 1)])
            if found is not None:
                out.append(found)
                if found.code != registry.INCONCLUSIVE:
                    seen.add(steps)
    return out


def _differences(game: Prefix, pv: PhaseVars) -> list:
    """Two orders block a player differently, and he acts in the phase (on his own or as
    his team's chosen member), or cancel a use that is made one way and not the other. A
    player blocking in a block cycle is not counted where the cycle holds (ambiguous-resolution
    reports it)."""
    diff = []
    F = z3.BoolVal(False, game.ctx)
    in_cycle = [z3.Or([F] + [c for c, hole in pv.cycles if s in hole.seats]) for s in range(game.n)]
    for i, j in itertools.combinations(range(len(pv.perm_blocked)), 2):
        for s in range(game.n):
            acts = [u.used for u in pv.uses if u.key == s]
            team = [z3.And(u.used, u.actor == s) for u in pv.uses
                    if u.actor is not None and not isinstance(u.actor, int)]
            if not acts and not team:
                continue
            diff.append(z3.And(z3.Xor(pv.perm_blocked[i][s], pv.perm_blocked[j][s]), z3.Or(acts + team),
                               z3.Not(in_cycle[s])))
        diff += _cancels_differ(game, pv, i, j)
    return diff


def _ask(scenario: Scenario, enc: Encoded, t: int, steps: tuple[str, ...], goal: list) -> Finding | None:
    """A game whose phase t the interpreter finds ambiguous in the order of `steps`; each
    game where the different blocks change no outcome is set aside, ATTEMPTS times, after
    which the question is inconclusive (never a pass)."""
    game = game_of(enc)
    what = f"whether the order of {', '.join(steps)} matters"
    enc.solver.push()
    try:
        for _ in range(ATTEMPTS):
            result = enc.ask(goal)
            if result.status == "unsat":
                return None
            if result.status == "unknown":
                return enc.inconclusive(what, f"the solver gave up ({result.reason})")
            w = enc.witness(result, t, "the order of " + ", ".join(steps))
            outcomes = replayed(w).outcomes
            orders = {tuple(o.reports[-1].order) for o in outcomes}
            if replayed(w).verdict == "ambiguous" and len(outcomes) > 1 and len(orders) > 1:
                return _finding(scenario, enc, steps, game.phases[t], w)
            # Not a real disagreement: ask for a different game.
            enc.solver.add(z3.Not(z3.And([u.used == z3.BoolVal(z3.is_true(
                model_of(result).eval(u.used, model_completion=True)), game.ctx)
                for pv2 in game.vars[: t + 1] for u in pv2.uses])))
    finally:
        enc.solver.pop()
    return enc.inconclusive(what, f"on {game.phases[t]}, {ATTEMPTS} games where the orders block a player "
                                  "differently give the same outcome in every order, and no further game "
                                  "was searched")


def _cancels_differ(game: Prefix, pv: PhaseVars, i: int, j: int) -> list:
    """Two orders that cancel a use one way and not the other (`cancel ABILITY`)."""
    F = z3.BoolVal(False, game.ctx)
    ci, cj = pv.perm_cancelled[i], pv.perm_cancelled[j]
    out = []
    for a in sorted(set(ci) | set(cj)):
        for s in range(game.n):
            made = [u.used if isinstance(u.actor, int) else z3.And(u.used, u.actor == s)
                    for u in pv.uses if u.ability.key == a and u.actor is not None
                    and (not isinstance(u.actor, int) or u.actor == s)]
            if made:
                out.append(z3.And(z3.Xor(ci.get(a, [F] * game.n)[s], cj.get(a, [F] * game.n)[s]),
                                  z3.Or(made)))
    return out


def _finding(scenario: Scenario, enc: Encoded, steps: tuple[str, ...], phase: Phase, w: Witness) -> Finding:
    abilities = [scenario.ability_by_key[s] for s in steps]
    c = registry.CODES[registry.AMBIGUOUS_ORDER]
    names = " and ".join(a.display for a in abilities)
    ids = tuple(dict.fromkeys(r.id for a in abilities for r in a.clause_cites + a.cites))
    ids += tuple(r.id for d in scenario.wakes for r in d.cites if r.id not in ids)
    return Finding(c.code, c.kind, c.severity,
                   f"{names} have no declared order, and on a reachable {phase} the two orders "
                   f"give different outcomes ({enc.where})",
                   abilities[0].name_span or abilities[0].span,
                   tuple(Related(f"{a.display}", a.name_span or a.span) for a in abilities[1:]),
                   ids, _witness(enc, w))


def _witness(enc: Encoded, w: Witness) -> dict:
    def heading(i: int, names: Names, last: Report) -> list[str]:
        return [f"order: {' → '.join(names.step(s) for s in last.order if s != 'deaths')}"]
    data = enc.witness_json(w)
    data["outcomes"] = last_phase_outcomes(enc.sc, game_of(enc).seats, replayed(w).outcomes, heading)
    return data
