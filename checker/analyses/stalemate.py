"""`stalemate`: a reachable state where nobody has won and no sequence of legal choices can
end the game.

1. A progress proof for every length (encode/progress.py): from every state a game reaches
   with nobody winning, some choices lead within a cycle and one phase to a win or to fewer
   players alive. Then every game can end, and nothing is reported.
2. A state the proof cannot rule out is searched for: Z3 proposes a state at the end of the
   bound that a game the rules decide reaches with nobody winning (a stuck state reached
   earlier is still stuck there), any line-up within the bound, then the candidate's
   line-up in a game of DEEPEST rounds. From exactly that state, a free-start game of M
   further phases (the phases up to the point where later phases are all alike, then two
   cycles) asks whether any choices lead to a win; if so, it is excluded (by who is alive,
   roles and sides) and another is proposed, up to ATTEMPTS times.
3. Otherwise, a proof that the state is stuck for every length: the set of states that
   agree with it on who is alive, roles, sides, counters, items and memories (uses only
   growing) must be closed (from any state in it, every phase leads back into it with
   nobody winning). If the sets grow too large to close, the finding says "no side can win
   within M further phases" and is a warning.
4. The witness is the shortest game reaching a stuck state with the same players, replayed.
5. Neither a proof nor a stuck game: inconclusive (MC200), never a pass.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

import z3

from .. import registry
from ..encode import progress
from ..encode.induction import (
    FIXED,
    GROWING,
    PATTERN,
    generic_from,
    living,
    mentions_round,
    pin,
    values_of,
    windows_of,
)
from ..encode.induction import state_terms as state_terms_of
from ..encode.solver import Limits, Result, ask, make_solver, spent
from ..encode.state import SymState
from ..encode.terms import Unsupported
from ..encode.unroll import NONE, Game
from ..errors import SpecError
from ..findings import Finding, Related
from ..narrow import present
from .encoded import Encoded

if TYPE_CHECKING:
    from ..evaluate import State
    from ..model import Scenario
    from ..phases import Phase

ATTEMPTS = 6  # candidate states per encoding searched
CANDIDATES = 32  # states the proof cannot rule out, searched for before the verdict is inconclusive
# ... within this much solver work (times the resource limit of one question), counted as Z3
# counts it: which states the proof proposes first is the solver's whim, so a stuck line-up
# may come after many that no game reaches (each such question is cheap on a small spec: the
# Commando copy with the Guard on the mafia side finds its stuck line-up at the 14th, in
# one question's work), while on seed 003 each costs more than a question.
CANDIDATE_WORK = 8
DEEPEST = 3  # rounds: the longest games searched for a stuck state the proof could not rule out
PLAYOUTS = 16  # random games from a candidate before the solver is asked
PLAYOUT_CYCLES = 6  # their length, in cycles (a day and a night)
CLASSES = 12  # groups of states in a candidate invariant


def analyse(scenario: Scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    for enc in encodings:
        try:
            out += _composition(scenario, enc)
        except Unsupported as exc:
            out.append(enc.inconclusive("whether a game can get stuck",
                                        f"the free-start encoding does not support {exc} yet"))
    return out


def _composition(scenario: Scenario, enc: Encoded) -> list[Finding]:
    what = "whether a game can get stuck"
    limits = Limits(enc.options.timeout, enc.options.rlimit)
    proof, why = progress.prove(scenario, enc.prefix.seats, limits)
    if proof is None:
        return [enc.inconclusive(what, f"no proof that every game can end: {why}")]
    excluded: list = []
    deeper = None
    start = _work(enc, proof)
    for _ in range(CANDIDATES):
        if excluded and _work(enc, proof) - start > CANDIDATE_WORK * enc.options.rlimit:
            break
        status, detail, index = progress.verdict(proof, excluded)
        if status == "proved":
            return []  # no stuck game, for every length: nothing to report
        if status == "unknown":
            if enc.unfollowed() is not None:
                return []  # the pipeline reports the play this encoding leaves out
            break
        # A state the proof could not rule out: look for a game reaching a stuck state, within
        # the bound (any line-up), then deeper with its line-up; if none, the next such state.
        found = _search(scenario, enc, []) if deeper is None else None
        deeper = deeper if deeper is not None else _deeper(enc)
        if found is None and deeper:
            found = _search(scenario, deeper[0], _line_up(deeper[0], detail))
        if found is not None:
            return [found]
        excluded.append(detail)
    if not excluded:
        return [enc.inconclusive(what, f"no proof that every game can end: {detail}")]
    who = living(enc.prefix, excluded[0])
    searched = deeper[0].options.bound if deeper else enc.options.bound
    return [enc.inconclusive(what, f"no proof that every game can end: from states the proof cannot rule "
                                   f"out (such as {who} alive), no choices make progress within a cycle, "
                                   f"and no game within {searched} rounds reaches a "
                                   f"stuck state; {enc.horizon().text}")]


def _work(enc: Encoded, proof: progress.Proof) -> int:
    """The solver work spent so far by the searches and the proof (each context counted once:
    Z3 counts a context's work, whichever solver did it)."""
    solvers = {id(s.ctx): s for s in [enc.solver] + [x.a for x in proof.segments()]}
    return sum(spent(s) for s in solvers.values())


def _deeper(enc: Encoded) -> list:
    """An encoding of DEEPEST rounds, if that is longer than the encoding's bound."""
    if enc.options.bound >= DEEPEST:
        return []
    # The composition's one game, grown (Encoded.at_bound): not a second game built anew.
    deeper = enc.at_bound(DEEPEST)
    return [] if isinstance(deeper, str) else [deeper]


def _line_up(enc: Encoded, values: dict) -> list:
    """The game's last state has the candidate's line-up (who is alive, roles, sides) and
    marks (the memories of players): a line-up alone is excluded by the first state of it
    the search finds that can still end."""
    game = enc.prefix
    return pin(game, game.states[len(game.vars)], values, PATTERN + ("memories_set",))


def _search(scenario: Scenario, enc: Encoded, extra: list) -> Finding | None:
    """A stuck game within the encoding's bound: Z3 proposes a state at the end of the bound
    (a stuck state reached earlier is still stuck there) that a game the rules decide
    reaches with nobody winning; each that can still end is excluded, up to ATTEMPTS."""
    game = enc.prefix
    L = len(game.vars)
    final = game.states[L]
    excluded: list = []
    for _ in range(ATTEMPTS):
        result = enc.ask([final.winner == NONE, enc.clean_until(L - 1)] + extra + excluded)
        if result.status == "unknown":
            return enc.inconclusive("whether a game can get stuck", f"the solver gave up ({result.reason})")
        if result.status == "unsat":
            return None
        X = values_of(result.model, final)
        state = _state_after(enc, result, L - 1)
        verdict = ("escapes",) if _escapes_by_play(enc, state, L) else _stuck(enc, X, L, state)
        if verdict[0] == "unknown":
            return enc.inconclusive("whether a game can get stuck", f"the solver gave up ({verdict[1]})")
        if verdict[0] == "escapes":
            excluded.append(z3.Not(z3.And(pin(game, final, X, PATTERN))))
            continue
        t, result, verdict = _earliest(enc, X, L, result, verdict)
        return _finding(scenario, enc, t, result, verdict)
    return None


def _state_after(enc: Encoded, result: Result, upto: int) -> State | None:
    """The interpreter's state after phases 0..upto of the model's game, replayed (None when
    the replay ends the game or does not come out as one state nobody has won)."""
    from ..crosscheck.witness import extract, replay
    w = extract(enc.prefix, result.model, upto=upto, name="candidate")
    try:
        answer = replay(enc.prefix, w)
    except SpecError:
        return None
    open_ = [o for o in answer.outcomes if o.winner is None]
    return open_[0].state if open_ else None


def _escapes_by_play(enc: Encoded, start_state: State | None, L: int) -> bool:
    """Whether random games through the interpreter, from the candidate state, reach a win.
    A game that ends is proof enough that the state is not stuck, and playing is far cheaper
    than asking the solver over several phases from a free start (which can give up on a
    scenario as large as seed 003). Seeded, so the search is the same on every run."""
    from ..crosscheck.differential import random_uses
    from ..interpreter.play import Player

    game, sc = enc.prefix, enc.sc
    if start_state is None:
        return False
    phases = _interpreter_phases(enc, L + PLAYOUT_CYCLES * len(present(sc.phases, "the phases").cycle))
    if not _same_phases(phases[:L], game.phases[:L]):
        return False
    player = Player(sc)
    rng = random.Random(0)
    for _ in range(PLAYOUTS):
        state = start_state.clone()
        for phase in phases[L:]:
            for _ in range(10):
                results, problems = player.play(state, phase, random_uses(sc, state, phase, rng))
                if results and not problems:
                    break
            else:
                results, _ = player.play(state, phase, [])
            if not results:
                break
            if any(report.winner for _, report in results):
                return True
            state = results[0][0]
    return False


def _stuck(enc: Encoded, X: dict, start: int, state: State | None = None) -> tuple:
    """("escapes",), ("closed", M, invariant), ("bounded", M) or ("unknown", reason) for the
    state X before phase index `start` (`state`: the same state in the interpreter, if known)."""
    sc = enc.sc
    windows = windows_of(enc)
    g = generic_from(sc, enc.prefix.seats, start)
    period = len(present(sc.phases, "the phases").cycle)
    lead = g - start
    M = lead + 2 * period
    if state is not None and _escapes_from(enc, X, state, start, M):
        return ("escapes",)
    game, solver = windows.get(start, M)
    base = pin(game, game.states[0], X)
    result = ask(solver, *base, z3.Or([st.winner != NONE for st in game.states[1:]]))
    if result.status != "unsat":
        return ("escapes",) if result.status == "sat" else ("unknown", result.reason)
    if game.restricted:
        return ("unknown", game.restricted)
    if mentions_round(sc):
        return ("bounded", M)
    for parts, growing in ((FIXED, GROWING), (PATTERN, ())):
        closed = _closure(enc, X, parts, growing, game, solver, base, lead, g, period)
        if closed == "win":
            # A later phase may give someone the win after all (or only from a state the
            # game never reaches): no claim either way.
            return ("escapes",)
        if closed is not None:
            return ("closed", M, closed)
    return ("bounded", M)


def _escapes_from(enc: Encoded, X: dict, state: State, start: int, M: int) -> bool:
    """Whether some choices lead from X to a win within M phases, asked of a game that starts
    from X as constants (folded into every term, far cheaper to build and to solve than the
    free-start window pinned to X). Only a `sat` is taken: the interpreter's state must give
    exactly X, and any other answer leaves the question to the free-start window."""
    game = enc.prefix
    try:
        const = Game(enc.sc, game.seats, M, start=state, first_phase=start, symmetry=False, built=0)
    except Unsupported:
        return False
    if not _same_phases(const.phases, _interpreter_phases(enc, start + M)[start:]):
        return False
    if _constant_values(const.states[0]) != X:
        return False
    # Phase by phase: a win within fewer phases is a win within M, and the later phases,
    # the costly ones to build, are then never built.
    solver = make_solver(const.ctx, Limits(enc.options.timeout, enc.options.rlimit),
                         finite=enc.prefix.finite and const.finite)
    solver.add(const.constraints)
    added = len(const.constraints)
    for _ in range(M):
        try:
            const.extend()
        except Unsupported:
            return False
        solver.add(const.constraints[added:])
        added = len(const.constraints)
        result = ask(solver, const.states[-1].winner != NONE)
        if result.status == "sat":
            return True
    return False


def _interpreter_phases(enc: Encoded, length: int) -> list[Phase]:
    """The game's first `length` phases as the interpreter sequences them."""
    from ..evaluate import initial_state
    from ..phases import sequence
    return sequence(enc.sc, initial_state(enc.sc, enc.prefix.seats), length)


def _same_phases(a: Sequence[Phase], b: Sequence[Phase]) -> bool:
    """Whether two phase lists (interpreter's or encoder's) name the same phases."""
    return [(p.kind, p.number) for p in a] == [(p.kind, p.number) for p in b]


def _constant_values(st: SymState) -> dict | None:
    """values_of for a state whose terms are all constants (None if one is not)."""
    out = {}
    for path, term in state_terms_of(st):
        v = z3.simplify(term)
        if z3.is_true(v) or z3.is_false(v):
            out[path] = z3.is_true(v)
        elif z3.is_int_value(v):
            out[path] = v.as_long()
        else:
            return None
    return out


def _closure(enc: Encoded, X: dict, parts: Sequence[str], growing: Sequence[str], game: Game,
             solver: z3.Solver, base: list, lead: int, g: int, period: int) -> int | str | None:
    """The states reachable from X, grouped by their values on `parts` (uses only grow): a
    closed union of such groups is an inductive invariant in which nobody wins. Grows the
    union from X's group, one question at a time; returns the number of groups, "win" when a
    group leads to a win (perhaps only from a state the game never reaches), or None when the
    union grows past CLASSES or the solver gives up."""
    windows = windows_of(enc)
    keep = {p for p, _ in state_terms_of(game.states[0], parts)}
    classes = [{p: v for p, v in X.items() if p in keep}]

    def inside(gm: Game, st: SymState) -> z3.BoolRef:
        return z3.And(z3.Or([z3.And(pin(gm, st, c, parts)) for c in classes]),
                      *pin(gm, st, X, (), growing))
    for t in range(1, lead + 1):
        while True:
            result = ask(solver, *base, z3.Not(inside(game, game.states[t])))
            if result.status != "sat":
                if result.status == "unknown":
                    return None
                break
            classes.append(values_of(result.model, game.states[t], parts))
            if len(classes) > CLASSES:
                return None
    changed = True
    while changed:
        changed = False
        for offset in range(period):
            step, step_solver = windows.get(g + offset, 1)
            s0, s1 = step.states[0], step.states[1]
            result = ask(step_solver, inside(step, s0), s0.winner == NONE,
                                 z3.Or(s1.winner != NONE, z3.Not(inside(step, s1))))
            if result.status == "unsat":
                continue
            if result.status == "unknown":
                return None
            if present(result.model, "the model of a sat answer").eval(s1.winner, model_completion=True).as_long() != NONE:
                return "win"
            classes.append(values_of(result.model, s1, parts))
            if len(classes) > CLASSES:
                return None
            changed = True
    return len(classes)


def _earliest(enc: Encoded, X: dict, L: int, result: Result, verdict: tuple) -> tuple[int, Result, tuple]:
    """The shortest game that reaches a stuck state with the same players (alive, roles,
    sides): earlier phases are tried first, each stuck state checked again."""
    game = enc.prefix
    for t in range(L - 1):
        here = game.states[t + 1]
        found = enc.ask([here.winner == NONE, enc.clean_until(t)] + pin(game, here, X, PATTERN))
        if found.status != "sat":
            continue
        Y = values_of(found.model, here)
        again = _stuck(enc, Y, t + 1, _state_after(enc, found, t))
        if again[0] in ("closed", "bounded") and (again[0] == "closed" or verdict[0] == "bounded"):
            return t, found, again
    return L - 1, result, verdict


def _finding(scenario: Scenario, enc: Encoded, t: int, result: Result, verdict: tuple) -> Finding:
    game = enc.prefix
    w = enc.witness(result, t, "a game nobody can end")
    outcomes = [o for o in (w.answer.outcomes if w.answer else []) if o.winner is None]
    if not outcomes:
        return enc.inconclusive("a stuck game", "internal error: the solver's game did not replay", witness=w)
    state = outcomes[0].state
    from ..moderator_log import Names
    names = Names(scenario, game.seats)
    living = [names.seat(s, state.roles) for s in range(game.n) if state.alive[s]]
    who = ", ".join(living) if living else "nobody"
    why = _why(scenario, state)
    c = registry.CODES[registry.STALEMATE]
    phase = game.phases[t]
    if verdict[0] == "closed":
        groups = verdict[2]
        claim = ("no sequence of choices gives anyone the win, so no game from here ever ends "
                 f"(proved for every length: the states reachable from here fall in {groups} "
                 f"group{'s' if groups != 1 else ''} of line-ups, and from any state in them every "
                 "phase leads back into them with nobody winning)")
        severity = c.severity
    else:
        claim = (f"no side can win within {verdict[1]} further phases, whatever the choices; longer "
                 "continuations were not searched")
        severity = "warning"
    message = f"after {phase} the game can be stuck: {who} remain, nobody has won, and {claim}"
    if why:
        message += f"; {why}"
    message += f" ({enc.where})"
    wins = scenario.wins
    return Finding(c.code, c.kind, severity, message,
                   wins[0].span if wins else scenario.span,
                   tuple(Related(f"win {x.side.text}", x.span) for x in wins[1:]),
                   tuple(dict.fromkeys(r.id for x in wins for r in x.cites)),
                   enc.witness_json(w))


def _why(scenario: Scenario, state: State) -> str:
    """What the interpreter can tell about the stuck state: who can be voted, which win
    conditions fail."""
    from ..evaluate import EvalError, Evaluator
    ev = Evaluator(scenario, state)
    parts = []
    day = scenario.day
    alive = [s for s in range(len(state.roles)) if state.alive[s]]
    if day is not None and day.vote is not None and day.candidates and alive:
        try:
            votable = [s for s in alive if all(ev.value(flt, {"candidate": s}) for number, flt in day.candidates
                                               if number is None)]
            if not votable:
                parts.append("no living player can be voted out (the day's candidate rule excludes them all)")
        except (EvalError, KeyError, TypeError):
            pass
    failing = []
    for win in scenario.wins:
        try:
            if not ev.value(win.cond, {}):
                failing.append(scenario.side_by_key[win.side.key].display)
        except (EvalError, KeyError, TypeError):
            pass
    if failing:
        parts.append("the win conditions of " + ", ".join(dict.fromkeys(failing)) + " do not hold")
    return "; ".join(parts)
