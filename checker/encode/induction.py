"""Proofs for every length of game: k-induction and closed sets of states.

The bounded encoding (unroll.Game) answers "within K rounds". Two questions need more:

* `unreachable-win`: can a side never win, in a game of any length? By k-induction: the base
  case is the bounded search (no game of L phases reaches the win); the step takes any
  well-formed state (Game(free_start=True)), k phases the rules decide in which the side has
  not won, and asks whether the side can win in the next phase. If no window of k phases,
  starting anywhere from phase L-k+1 on, can, the side never wins.
* `stalemate`: is a reachable state stuck for ever? The candidate set is every state that
  agrees with it on who is alive, roles, sides, counters, items, memories (uses only grow);
  if no phase leads out of the set or to a win, from any state in it, the set is closed and
  nobody ever wins.

Phases differ by their number only through `at night 1`, `from day 2` and the like: from the
first phase past every such number (`generic_from`), a phase of a kind behaves the same
whatever its number, so one window per position in the cycle covers all later ones. A spec
that reads `round` in an expression has no such point: no proof is attempted.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import z3

from ..evaluate import initial_state
from ..holes import seat_label
from ..model import Scenario
from ..narrow import present
from ..phases import sequence
from ..vocabulary import refers_to
from .phase_vars import PhaseVars
from .solver import Budget, Limits, Result, ask, make_solver
from .state import SymState
from .terms import Events, View, negation
from .unroll import NONE, Game, Prefix

T = TypeVar("T")

# Components of a state that the stalemate's candidate set holds fixed (uses only grow).
FIXED = ("alive", "roles", "sides", "left_by", "revealed", "drawn", "links", "counters", "items",
         "memories_set", "memories_one", "memories_int")
GROWING = ("uses", "self_uses")
PATTERN = ("alive", "roles", "sides")


def state_terms(st: SymState, parts: Sequence[str] | None = None) -> list[tuple[tuple, z3.ExprRef]]:
    """The state's variables as (path, term), in a fixed order: two games of one composition
    give the same paths, so a state of one can be pinned in the other (SymState.terms)."""
    return st.terms(parts)


def values_of(model: z3.ModelRef, st: SymState, parts: Sequence[str] | None = None) -> dict:
    out = {}
    for path, term in state_terms(st, parts):
        v = model.eval(term, model_completion=True)
        out[path] = z3.is_true(v) if z3.is_bool(v) else v.as_long()
    return out


def pin(game: Game | Prefix, st: SymState, values: dict, parts: Sequence[str] | None = None, growing: Sequence[str] = (),
        shrinking: Sequence[str] = ()) -> list:
    """st equals the values on `parts`; on `growing`, st is at least the values; on
    `shrinking` (booleans), st is true only where the values are."""
    out = []
    for path, term in state_terms(st, shrinking):
        if path in values and not values[path]:
            out.append(z3.Not(term))
    for path, term in state_terms(st, parts):
        if path not in values:
            continue
        v = values[path]
        if isinstance(v, bool):
            out.append(term == z3.BoolVal(v, game.ctx))
        elif path[0] in growing:
            out.append(term >= v)
        else:
            out.append(term == v)
    for path, term in state_terms(st, growing):
        if path in values:
            out.append(term >= values[path])
    return out


def same(game: Game, a: SymState, b: SymState, parts: Sequence[str] | None,
         growing: Sequence[str] = ()) -> z3.BoolRef:
    """Two states of one game agree on `parts`; `growing` parts do not shrink."""
    pa, pb = dict(state_terms(a, parts)), dict(state_terms(b, parts))
    eqs = [pa[p] == pb[p] for p in pa]
    ga, gb = dict(state_terms(a, growing)), dict(state_terms(b, growing))
    eqs += [gb[p] >= ga[p] for p in ga]
    return z3.And(eqs) if eqs else z3.BoolVal(True, game.ctx)


def mentions_round(scenario: Scenario) -> bool:
    return any(refers_to(x, "round") for x in (scenario.abilities, tuple(scenario.rules), scenario.day,
                                               tuple(scenario.wins)))


def per_scenario(fn: Callable[..., T]) -> Callable[..., T]:
    """fn(scenario, *args) computed once per scenario object and arguments: these are static
    facts of a resolved spec, and the analyses and open questions ask them many times. Kept
    by identity (a Scenario holds lists, so it has no hash), and only while it lives."""
    memo: dict[tuple, tuple] = {}

    def once(scenario: Scenario, *args: Any) -> T:
        key = (id(scenario), *args)
        hit = memo.get(key)
        if hit is not None and hit[0]() is scenario:
            return hit[1]
        value = fn(scenario, *args)
        def forget(_: object, key: tuple = key) -> None:
            memo.pop(key, None)
        memo[key] = (weakref.ref(scenario, forget), value)
        return value
    once.__doc__ = fn.__doc__
    return once


@per_scenario
def round_numbers(scenario: Scenario) -> int | None:
    """Where `round` is only compared with numbers (`round <= 2`), the largest of them: past
    it, each comparison has one value in every phase, so later phases are again all alike.
    None when the spec reads `round` in any other way."""
    from .. import ast
    from ..vocabulary import nodes
    trees = (scenario.abilities, tuple(scenario.rules), scenario.day, tuple(scenario.wins))
    refs = compared = top = 0
    for x in nodes(trees):
        if isinstance(x, ast.Ref) and x.name.key == "round":
            refs += 1
        elif isinstance(x, ast.Compare) and x.op in ("==", "!=", "<", "<=", ">", ">="):
            sides = (x.left, x.right)
            if any(isinstance(y, ast.Ref) and y.name.key == "round" for y in sides):
                numbers = [y.value for y in sides if isinstance(y, ast.Num)]
                if numbers:
                    compared += 1
                    top = max(top, numbers[0])
    return top if refs == compared else None


def _numbers(scenario: Scenario) -> int:
    """The largest phase number any `at` reference names (0 when none does)."""
    top = 0
    refs = [ref for a in scenario.abilities for ref in a.phases]
    refs += [ref for r in scenario.rules for ref in (r.at or ())]
    for ref in refs:
        for v in (ref.exact, ref.start):
            if v is not None:
                top = max(top, v)
    if scenario.day is not None:
        for number, _ in scenario.day.candidates:
            if number is not None:
                top = max(top, number)
    return top


@per_scenario
def alike_from(scenario: Scenario, seats: tuple[str, ...]) -> int | None:
    """The first phase index from which phases are all alike (generic_from, `round` compared
    only with numbers), or None when the spec reads `round` some other way."""
    if round_numbers(scenario) is None:
        return None
    return generic_from(scenario, seats, 0, rounds=True)


def alike_phase(index: int, g: int, period: int) -> int:
    """The phase that stands for phase `index`: itself before g (alike_from), else the one of
    its kind in the first cycle from g (past g, phases a cycle apart are alike)."""
    return index if index < g else g + (index - g) % period


def generic_from(scenario: Scenario, seats: tuple[str, ...], index: int, rounds: bool = False) -> int:
    """The first phase index >= index from which every phase is of a cycle kind and past
    every phase number the spec names (with `rounds`, and every number `round` is compared
    with: see round_numbers)."""
    state0 = initial_state(scenario, seats)
    cycle = present(scenario.phases, "the phases").cycle
    top = _numbers(scenario)
    if rounds:
        top = max(top, round_numbers(scenario) or 0)
    # Past the opening phases, each cycle numbers its phases once: `top` cycles past the
    # opening reach every number, and a cycle more shows that they stay alike.
    seq = sequence(scenario, state0, index + (top + 2) * len(cycle) + 64)
    for g in range(index, len(seq) - len(cycle)):
        if all(p.kind in cycle and p.number > top for p in seq[g:]):
            return g
    raise ValueError(f"no phase past every phase number the spec names (up to {top}) within "
                     f"{len(seq)} phases")


def clean(pv: PhaseVars) -> list:
    """The phase leaves nothing to the moderator: none of its holes, contradictions or win
    overlap occurs. Every question and proof asks it of the phases before its goal, so the
    terms are made once a phase (and again only if the phase got more since: clean_size)."""
    key = clean_size(pv)
    if pv.clean_memo is None or pv.clean_memo[0] != key:
        conds = [c for c, _ in pv.undefined] + [c for c, *_ in pv.contradictions]
        if pv.overlap is not None:
            conds.append(pv.overlap)
        pv.clean_memo = (key, [negation(c) if isinstance(c, z3.BoolRef) else z3.Not(c) for c in conds])
    return list(pv.clean_memo[1])


def clean_size(pv: PhaseVars) -> tuple:
    """How much the phase has that `clean` rules out: what its terms were made for."""
    return len(pv.undefined), len(pv.contradictions), pv.overlap is not None


def win_holds(game: Game, st: SymState) -> dict:
    """Per side, whether its win condition holds in the state."""
    view = View(game, st, Events(game.ctx), {"__holes": []})
    holds: dict = {}
    for win in game.sc.wins:
        cond = game.compiler.value(win.cond, view)
        holds[win.side.key] = z3.Or(holds.get(win.side.key, z3.BoolVal(False, game.ctx)), cond)
    return holds


def no_win_holds(game: Game, st: SymState, overlap: bool = True) -> z3.BoolRef:
    """A state where nobody has won yet, after a phase where wins are checked: no side's
    condition holds, unless two hold that no priority orders (an overlap leaves no winner;
    `overlap` False: a state after a phase the rules decide, which has none)."""
    holds = win_holds(game, st)
    if not overlap:
        return z3.Not(z3.Or(list(holds.values()) or [z3.BoolVal(False, game.ctx)]))
    sides = list(holds)
    pairs = [z3.And(holds[a], holds[b]) for i, a in enumerate(sides) for b in sides[i + 1:]
             if not any({a, b} <= {nm.key for nm in p.order} for p in game.sc.priorities)]
    return z3.Or([z3.Not(z3.Or(list(holds.values()) or [z3.BoolVal(False, game.ctx)]))] + pairs)


def wins_checked_always(scenario: Scenario) -> bool:
    points = present(scenario.phases, "the phases").wins_checked
    return not points or ("day" in points and "night" in points)


class Windows:
    """Free-start games of one composition, built once and asked many questions. They may
    allow more outcomes than the rules (Game.over_approximate), so they are asked only to show
    that something never happens, or from a state a game of the rules reaches."""

    def __init__(self, scenario: Scenario, seats: tuple[str, ...], limits: Limits, settings: dict | None = None):
        self.sc = scenario
        self.seats = seats
        self.limits = limits
        self.settings = settings
        self.games: dict = {}
        self.facts: dict = {}  # phase index -> the counting facts proved there (encode/lemmas.py)

    def get(self, first: int, length: int) -> tuple[Game, z3.Solver]:
        key = (first, length)
        if key not in self.games:
            game = Game(self.sc, self.seats, length, settings=self.settings, first_phase=first, symmetry=False,
                        free_start=True, over_approximate=True)
            solver = make_solver(game.ctx, self.limits, preprocess=True)
            solver.add(game.constraints)
            self.games[key] = (game, solver)
        return self.games[key]


def windows_of(enc: Any) -> Windows:
    """The free-start games of an encoding, shared by the analyses that prove things."""
    # Kept on the composition's one game: every depth of it shares the windows.
    holder = getattr(enc, "full", enc)
    if getattr(holder, "_windows", None) is None:
        holder._windows = Windows(enc.sc, enc.game.seats, Limits(enc.options.timeout, enc.options.rlimit))
    return holder._windows


# How many phases a k-induction step spans at most (prove_absent). Three close commando's
# win overlap, which two leave open (a free state two phases before the overlap can reach it,
# none three before), and in less time than the search a round further that the open
# verdict then asks for (win-overlap on commando: 9.6 s against 14.0 s); on the other
# bundled specs' open questions the third phase costs 1-2 s and closes nothing.
PROOF_PHASES = 3


def prove_absent(enc: Any, event_at: Callable[[Game, int], list], kmax: int = PROOF_PHASES, what: str = "it",
                 clean_before: bool = True, invariants: Callable[[], Callable[[Game, SymState], list] | None] | None = None,
                 budget: Budget | None = None) -> tuple[str, int | None, str | None]:
    """k-induction: whether an event no game of the encoding's L phases shows (event_at(game,
    i): the conditions of the event at phase i of `game`, a list joined by `and`) can never
    happen, in a game the rules decide, of any length.

    The base case is the bounded search. The step takes any well-formed state where nobody
    has won, k-1 phases the rules decide without the event, and asks for the event in the
    next phase; windows start at every phase index from L-k+1 up to one cycle past the point
    where phases are all alike (generic_from, past every number `round` is compared with
    too), so every later phase is covered.
    `clean_before`: the bounded search asked only for games the rules decide up to the
    event, so the window's earlier phases may be taken as decided too.
    `invariants`: called once, at the first step that starts from a state the search cannot
    rule out, for the invariants of reachable states (a function of a game and a state to
    their terms, or None when none were found); from then on every window assumes them.
    `budget`: the solver work the step questions may spend (solver.Budget), when limited.
    ("proved", k, None), ("unknown", None, reason), or why no proof was found: (STEP, None,
    why) when the step reaches the event from a state the search cannot rule out (a longer
    search may show it reachable, or let the step start later), ("open", None, why) when no
    longer search can help (the windows leave play out, the spec reads `round`)."""
    def asked(solver: z3.Solver, *parts: z3.BoolRef) -> Result:
        return budget.ask(solver, *parts) if budget is not None else ask(solver, *parts)
    sc = enc.sc
    g = alike_from(sc, enc.game.seats)
    if g is None:
        return "open", None, "the spec reads `round`, so later phases are not all alike"
    L = len(enc.game.vars)
    period = len(sc.phases.cycle)
    strengthen = wins_checked_always(sc)
    stepped: str | None = None  # how the last step reached the event
    invariant = None
    for k in range(1, kmax + 1):
        starts = list(range(max(L - k + 1, 0), max(g, L - k + 1) + period))
        proved = True
        for j in starts:
            # A window past g is the one a cycle earlier: built once, whatever the depth.
            game, solver = windows_of(enc).get(alike_phase(j, g, period), k)
            if game.restricted:
                # A window that leaves some play out proves nothing: not worth a question.
                return "open", None, game.restricted
            pre = [game.states[0].winner == NONE]
            if strengthen:
                # Decided before the event, the window starts after a phase without an
                # overlap either (clean): no side's condition holds there at all.
                pre.append(no_win_holds(game, game.states[0], overlap=not clean_before))
            for i in range(k - 1):
                pre.append(z3.Not(z3.And(event_at(game, i))))
                if clean_before:
                    pre += clean(game.vars[i])
            event = event_at(game, k - 1)
            result = asked(solver, *pre, *event, *_assumed(invariant, game, k))
            if result.status == "sat" and invariants is not None:
                invariant, invariants = invariants(), None
                if invariant is not None:
                    result = asked(solver, *pre, *event, *_assumed(invariant, game, k))
            if result.status == "unknown":
                if stepped is not None:
                    # A shorter step's state is still the one to look at: said, with the
                    # deeper step the solver gave up on.
                    return STEP, None, f"{stepped}; over {k} phases the solver gave up ({result.reason})"
                return "unknown", None, result.reason
            if result.status == "sat":
                proved = False
                kind = "a state satisfying the invariants found" if invariant is not None else "a well-formed state"
                at = sequence(sc, enc.game.start_state, j + k)[j + k - 1]
                who = living(game, values_of(present(result.model, "the model of a sat answer"), game.states[0],
                                             ("alive", "roles")))
                stepped = f"{kind} the search cannot rule out (such as {who} alive) leads to {what} ({at})"
                break
        if proved:
            restricted = next((g.restricted for g, _ in windows_of(enc).games.values() if g.restricted), None)
            if restricted:
                return "open", None, restricted
            return "proved", k, None
    return STEP, None, stepped or f"no induction depth up to {kmax} closes"


def living(game: Game | Prefix, values: dict) -> str:
    """Who is alive in a state's values (values_of: alive and roles at least), with the roles
    they hold there, as the holes name players."""
    roles = [game.sc.role_by_key[game.ids.roles[values[("roles", s)]]].display for s in range(game.n)]
    alive = [seat_label(s, roles[s]) for s in range(game.n) if values[("alive", s)]]
    return ", ".join(alive) if alive else "nobody"


# prove_absent's answer when the induction step reaches the event from a state the bounded
# search has not ruled out (its counterexample).
STEP = "step"


def _assumed(invariant: Callable[[Game, SymState], list] | None, game: Game, k: int) -> list:
    """The invariants over a window's states: its first (nobody has won there), and each
    later one before the event where nobody has won yet."""
    if invariant is None:
        return []
    out = list(invariant(game, game.states[0]))
    for t in range(1, k):
        st = game.states[t]
        terms = invariant(game, st)
        if terms:
            out.append(z3.Implies(st.winner == NONE, z3.And(terms)))
    return out
