"""Facts a phase always keeps, derived from the spec and checked by the solver, then stated
in the unrolled game so that the solver need not rediscover them in every question.

A long game that nobody has won is refuted by counting: "each day removes a player", "a
player who has left does not come back", "uses only grow". The solver can derive each of
these from the phase's constraints, but it does so again in every question and at every
phase, and on the anchors' Gangster core refuting eight rounds costs about 15,000 conflicts
where a hand-written encoding that states the day count needs 12. Nothing here is written
per scenario: the candidates are the same for every spec (every state value that never
falls or never rises across a phase; a phase kind that always removes someone while the
game runs), and each is kept only if the solver proves it over one phase from any
well-formed state (the free start of encode/induction.py), which every reachable state is.
So a fact added to the game is implied by the game's own constraints: the answers do not
change, only the work to reach them (tests/test_lemmas.py checks both on the bundled specs).
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from ..narrow import present
from .induction import Windows, alike_from, alike_phase, state_terms
from .solver import ask
from .state import SymState
from .terms import Implies, Not, Or
from .unroll import Game, Prefix

MAX_ROUNDS = 40  # Houdini rounds per phase: each drops the candidates one model violates


@dataclass(frozen=True)
class Fact:
    """One fact about a phase: ("rises", path) the value at path never falls across it
    (a boolean: once true, stays true); ("falls", path) never rises; ("removes",) while
    nobody has won, at least one living player leaves."""

    kind: str
    path: tuple = ()


def candidates(st: SymState) -> list[Fact]:
    """The counting facts: a phase kind that always removes someone, and per seat, that a
    player who has left stays out. (Measured on the anchors' core: the day count alone takes
    refuting ten rounds from 4.6 s to 0.5 s; stating also that uses only grow, or any other
    monotone value, changed nothing but the cost of proving the facts.)"""
    return [Fact("removes")] + [Fact("falls", path) for path, _ in state_terms(st, ("alive",))]


def stays_out(st: SymState) -> set[Fact]:
    """The candidates that say, per seat, that a player who has left stays out."""
    return set(candidates(st)[1:])


def phase_facts(windows: Windows, j: int) -> list[Fact]:
    """The facts proved for phase j (a position as `implied` numbers them), proved once and
    kept on `windows`."""
    if j not in windows.facts:
        windows.facts[j] = proved_facts(windows, j)
    return windows.facts[j]


def stated(game: Game | Prefix, t: int, fact: Fact) -> z3.BoolRef:
    """The fact about phase t of `game` (an unrolled game or a free-start window)."""
    before, after = game.states[t], game.states[t + 1]
    if fact.kind == "removes":
        n = game.n
        # alive after + dead before <= n - 1: at least one of the living leaves.
        terms = [(after.alive[s], 1) for s in range(n)] + [(Not(before.alive[s]), 1) for s in range(n)]
        return Implies(game.vars[t].active, z3.PbLe(terms, n - 1))
    x, y = _term(before, fact.path), _term(after, fact.path)
    if z3.is_bool(x):
        return Implies(x, y) if fact.kind == "rises" else Implies(y, x)
    return y >= x if fact.kind == "rises" else y <= x


def _term(st: SymState, path: tuple) -> z3.ExprRef:
    for p, term in state_terms(st, (path[0],)):
        if p == path:
            return term
    raise KeyError(path)


def proved_facts(windows: Windows, j: int) -> list[Fact]:
    """The candidates that hold across phase j from any well-formed state: Houdini's loop, a
    question for a state and choices that break any of them, until none can. ([] when the
    solver gives up: only proved facts are ever stated.)"""
    game, solver = windows.get(j, 1)
    facts = candidates(game.states[0])
    claims = {f: stated(game, 0, f) for f in facts}
    for _ in range(MAX_ROUNDS):
        result = ask(solver, Or([Not(c) for c in claims.values()]))
        if result.status == "unsat":
            return list(claims)
        if result.status != "sat":
            return []
        model = present(result.model, "the model of a sat answer")
        broken = [f for f, c in claims.items() if not z3.is_true(model.eval(c, model_completion=True))]
        for f in broken:
            del claims[f]
        if not claims:
            return []
    return []


def implied(game: Game | Prefix, windows: Windows, start: int = 0, end: int | None = None) -> list:
    """The proved facts about phases start..end-1 of `game` (all by default), stated over
    its terms. A phase past every number the spec names is alike any phase one cycle later,
    so its facts are proved once per position in the cycle (and kept on `windows`); a spec
    that reads `round` other than against numbers has no such phases, and each phase is
    proved on its own."""
    end = len(game.vars) if end is None else end
    out = []
    for t in range(start, end):
        out += [stated(game, t, f) for f in phase_facts(windows, _position(game, t))]
    out += running_counts(game, windows, start, end)
    return [c for c in out if not z3.is_true(c)]


def running_counts(game: Game | Prefix, windows: Windows, start: int, end: int) -> list:
    """The day count summed, for the states after phases start..end-1: the players alive
    after phase t are at most those alive at the last state from which no player can come
    back, less one for each phase since then that removes someone and was played.

    It follows from the facts of each phase (a phase that removes someone takes one from the
    count; one where every seat's `alive` only falls takes none), so it adds no constraint
    the game lacks; but stated per phase only, the solver must add those steps up in every
    question, which on the anchors' core costs thousands of conflicts for a game of eight
    rounds nobody has won, where one sum per state leaves a count to compare."""
    n = game.n
    falls = stays_out(game.states[0])
    out = []
    base = 0
    played: list[z3.BoolRef] = []
    for t in range(end):
        facts = set(windows.facts.get(_position(game, t), ()))
        if not falls <= facts:
            base, played = t + 1, []
            continue
        if Fact("removes") in facts:
            played.append(game.vars[t].active)
        if t < start or not played:
            continue
        after, at_base = game.states[t + 1], game.states[base]
        terms = ([(after.alive[s], 1) for s in range(n)] + [(a, 1) for a in played]
                 + [(Not(at_base.alive[s]), 1) for s in range(n)])
        out.append(z3.PbLe(terms, n))
    return out


def _position(game: Game | Prefix, t: int) -> int:
    """The phase whose facts hold for phase t of `game` (as implied numbers them)."""
    g = alike_from(game.sc, game.seats)
    index = game.first_phase + t
    return index if g is None else alike_phase(index, g, len(present(game.sc.phases, "the phases").cycle))
