"""Progress for every length of game: from any state nobody has won, some legal choices lead,
within a cycle of phases and one more, to a win or to fewer players alive.

If that holds for every state a game the rules decide can reach, no game can get stuck: from
a reachable state, the choices that make progress lead to another reachable state with fewer
players alive (or a win), and the number alive cannot fall for ever. (A revival within the
continuation is allowed; what counts is the number alive at its end.)

The states are covered in two parts. The opening phases' states (up to the first phase past
every phase number the spec names, `generic_from`) are the game's own, from its start. Later
ones are over-approximated: any well-formed state at the first generic phase that satisfies
the invariants proved (`Proof.houdini`), and, for the later positions of the cycle, any
successor of one. Past that phase a phase of a kind behaves the same whatever its number, so
one position of each kind stands for all.

Each position is a forall-exists question, answered by counterexample-guided refinement:

* the proposer (A) looks for a state, nobody having won, from which none of the
  continuations found so far makes progress (each continuation is a copy of the phases with
  its choices as constants and its state values as fresh variables: wherever those choices
  are legal, they do not make progress);
* the responder (B) takes that state, pinned, and looks for choices that make progress
  (nobody acting but the vote first: such a continuation works from many states); if it
  finds some, they join A's list.

A runs out of states: progress is proved there. B finds nothing: the state is a candidate,
for the caller to show stuck or to leave open.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import z3
from z3 import z3core as C

from .induction import PATTERN, alike_from, pin, state_terms, values_of
from .invariants import candidate_lemmas, crowded, keep_holding, lemma_term, one_holder
from ..model import Scenario
from ..narrow import present
from .phase_vars import NONE, PhaseVars
from .solver import Limits, Result, ask, make_solver, spent
from .state import SymState
from .terms import count_of
from .unroll import Game

MAX_REFINEMENTS = 200  # continuations per position before the proof is called inconclusive
# Solver work (Z3's rlimit count, summed over the proposer's questions) a position may take:
# a count, not seconds, so that the same spec gives the same verdict on any machine. The
# largest bundled need is werewolf's (examples/rulebooks) last position of 10 players: 39M to
# 53M, as the terms' numbering moves Z3's heuristics (measured 2026-12-04 before and after
# the unread bookkeeping was dropped from the state); half as much again is left over.
BUDGET = 80_000_000


def constants(terms: Iterable[z3.ExprRef]) -> dict:
    """The uninterpreted constants (the variables) of some terms, by z3 id."""
    # Walked through the C API: a Python wrapper per node made this walk a fifth of the
    # stalemate analysis (each node is visited once; the root terms keep the nodes alive).
    out: dict = {}
    terms = list(terms)
    if not terms:
        return out
    ctx = terms[0].ctx
    ref = ctx.ref()
    seen: set = set()
    stack = [t.as_ast() for t in terms]
    while stack:
        node = stack.pop()
        i = C.Z3_get_ast_id(ref, node)
        if i in seen:
            continue
        seen.add(i)
        kind = C.Z3_get_ast_kind(ref, node)
        if kind == z3.Z3_QUANTIFIER_AST:
            stack.append(C.Z3_get_quantifier_body(ref, node))
            continue
        if kind != z3.Z3_APP_AST:
            continue
        app = C.Z3_to_app(ref, node)
        n = C.Z3_get_app_num_args(ref, app)
        if n:
            stack.extend(C.Z3_get_app_arg(ref, app, j) for j in range(n))
        else:
            decl = C.Z3_get_app_decl(ref, app)
            if C.Z3_get_decl_kind(ref, decl) == z3.Z3_OP_UNINTERPRETED:
                out[i] = z3.FuncDeclRef(decl, ctx)()
    return out


def _terms(states: Iterable[SymState]) -> list:
    return [term for st in states for _, term in state_terms(st)]


def _before(game: Game, t: int) -> int:
    """How many constraints say what the states up to t are."""
    return game.marks[t - 1] if t > 0 else game.start_constraints


class Segment:
    """Phases first..first+length-1 of a game, from its state `first`: the variables of that
    state, the choices of the phases, and the state variables the phases define (each by
    one equation, Game.equate), told apart so that the phases can be copied."""

    def __init__(self, game: Game, first: int, length: int):
        self.game, self.first, self.length = game, first, length
        self.states = game.states[first:first + length + 1]
        self.start = constants(_terms(self.states[:1]))
        self.derived = {i: v for i, v in constants(_terms(self.states[1:])).items() if i not in self.start}
        self.own = game.constraints[_before(game, first):_before(game, first + length)]
        every = constants(self.own + _terms(self.states[1:]))
        self.choices = [v for i, v in every.items() if i not in self.start and i not in self.derived]
        self.defining: set = set()
        for c in self.own:
            if z3.is_eq(c) and c.arg(0).get_id() in self.derived and c.arg(0).get_id() not in self.defining:
                self.defining.add(c.arg(0).get_id())
        self.claims: dict = {}
        self.mentioned: dict = {}

    def defines(self, c: z3.BoolRef) -> bool:
        return z3.is_eq(c) and c.arg(0).get_id() in self.defining

    def claim(self, upto: int) -> z3.BoolRef:
        """The first `upto` phases, wherever their choices are legal, make no progress; their
        state values defined by their equations (built once per length)."""
        if upto not in self.claims:
            own = self.game.constraints[_before(self.game, self.first):_before(self.game, self.first + upto)]
            defining = [c for c in own if self.defines(c)]
            legal = [c for c in own if not self.defines(c)]
            self.claims[upto] = z3.And(z3.And(defining), z3.Implies(z3.And(legal), z3.Not(self.progress(upto))))
        return self.claims[upto]

    def progress_at(self, states: list, t: int) -> z3.BoolRef:
        """State t (of the segment's): someone has won, or fewer players are alive than at its
        start with no overlap of wins on the way (an overlap is no win, and the states after
        one are not those the proof covers: _going_on)."""
        ctx = self.game.ctx
        fewer = count_of(states[t].alive, ctx) < count_of(states[0].alive, ctx)
        clear = [z3.Not(overlap(pv)) for pv in self.game.vars[self.first:self.first + t]]
        return z3.Or(states[t].winner != NONE, z3.And(fewer, *clear))

    def progress(self, upto: int | None = None) -> z3.BoolRef:
        upto = self.length if upto is None else upto
        return z3.Or([self.progress_at(self.states, t) for t in range(1, upto + 1)])

    def copy(self, model: z3.ModelRef, upto: int, tag: str) -> z3.BoolRef:
        """The model's choices in the first `upto` phases, as constants, do not make progress
        from the segment's start wherever they are legal. Its state values are fresh variables
        (`tag` + name), each defined by its equation, which always has a solution."""
        claim = self.claim(upto)
        choices, derived = self.variables(upto)
        subst = [(v, _value(model, v)) for v in choices]
        subst += [(v, z3.Const(tag + v.decl().name(), v.sort())) for v in derived]
        # One substitution of one term: the pairs are passed once, shared subterms visited once.
        return z3.substitute(claim, *subst)

    def variables(self, upto: int) -> tuple[list, list]:
        """The choices and the derived state values the claim of the first `upto` phases
        mentions (a copy substitutes only those)."""
        if upto not in self.mentioned:
            inside = constants([self.claim(upto)])
            self.mentioned[upto] = ([v for v in self.choices if v.get_id() in inside],
                                    [v for i, v in self.derived.items() if i in inside])
        return self.mentioned[upto]

    def first_progress(self, model: z3.ModelRef) -> int:
        for t in range(1, self.length + 1):
            if z3.is_true(model.eval(self.progress_at(self.states, t), model_completion=True)):
                return t
        raise ValueError("the model makes no progress")


def _value(model: z3.ModelRef, v: z3.ExprRef) -> z3.ExprRef:
    """The model's value of a variable; one the model leaves free takes its sort's default
    (as model_completion would)."""
    x = model.get_interp(v.decl())
    return x if x is not None else model.eval(v, model_completion=True)


class Proof:
    """Progress from every state a game the rules decide reaches with nobody winning, for one
    composition. Two games: the real one from the start, through the opening phases and a
    span more; and one from a free well-formed state at the first generic phase, long enough
    that each position of the cycle has a span after it."""

    def __init__(self, scenario: Scenario, seats: tuple[str, ...], limits: Limits):
        self.sc, self.seats, self.limits = scenario, seats, limits
        self.g = present(alike_from(scenario, seats), "the first phase from which phases are all alike")
        self.period = len(present(scenario.phases, "the phases").cycle)
        # How far a continuation may go: a cycle and one phase more, since a vote may need
        # the night before it (an accusation, a mark) and a phase can come up empty.
        self.span = self.period + 1
        self.real = Game(scenario, seats, self.g + self.span, symmetry=False)
        self.free = Game(scenario, seats, self.period - 1 + self.span, first_phase=self.g, symmetry=False,
                         free_start=True)
        self.lemmas: list = []
        self.given_up: list = []  # candidates Houdini dropped because the solver gave up on them
        self.searches: list = []

    def restricted(self) -> str | None:
        """Why some legal play is left out of a game of the proof (Game.restricted), unless
        the invariants show it never is."""
        games = (self.real, self.free)
        if all(one_holder(self.lemmas, a.key) for game in games for a in crowded(game)):
            return None
        return self.real.restricted or self.free.restricted

    def segments(self) -> list:
        """A Search per position (built once, kept between verdicts)."""
        if not self.searches:
            self.searches = [Search(segment, facts, self.limits) for segment, facts in self._segments()]
        return self.searches

    def _segments(self) -> Iterator[tuple[Segment, list]]:
        """(segment, what A knows of its first state) per position: in the opening phases,
        reached by the game; later, a free state at the first generic phase satisfying the
        invariants, and the states it leads to, nobody having won."""
        real, free = self.real, self.free
        for j in range(self.g):
            facts = real.constraints[:_before(real, j)] + _going_on(real, j)
            yield Segment(real, j, self.g + self.span - j), facts
        for i in range(self.period):
            facts = free.constraints[:_before(free, i)] + _going_on(free, i)
            facts += [free.states[t].winner == NONE for t in range(i)]
            facts += [lemma_term(lm, free, free.states[t]) for lm in self.lemmas for t in range(i + 1)]
            yield Segment(free, i, self.span), facts

    def houdini(self, candidates: list) -> None:
        """Keep the largest subset of the candidates that every state a game the rules decide
        reaches with nobody winning satisfies (k-induction, Houdini-style: drop what fails,
        until nothing does): they hold in the real game's states, and from the free state
        with them holding so far, each phase of the cycle keeps them. Candidates the solver
        gives up on are dropped (`given_up`), never kept."""
        # With some play left out of a phase (Game.restricted), the checks are exact only
        # from states where the one-holder lemmas hold: restricted() then asks for them all.
        todo = list(candidates)
        changed = True
        first = True
        while changed and todo:
            changed = False
            # A real state's check assumes no lemma: what held there holds of any subset, so
            # it is asked in the first pass only.
            for k in range(0 if first else len(self.real.states), len(self.real.states) + self.period):
                before = len(todo)
                # Each check assumes the lemmas as they stand now (a step's pre-state).
                game, facts, st = self._check(k, todo)
                todo, unsettled = _keep_holding(self.limits, todo, game, facts, st)
                self.given_up += unsettled
                changed = changed or len(todo) < before
            first = False
        self.lemmas = todo

    def _check(self, k: int, todo: list) -> tuple[Game, list, SymState]:
        """The k-th check: a state of the real game, or the state after position k - T of
        the free one (T the real game's states)."""
        real, free = self.real, self.free
        if k < len(real.states):
            return real, real.constraints + _going_on(real, k), real.states[k]
        i = k - len(real.states)
        facts = free.constraints[:_before(free, i + 1)] + _going_on(free, i + 1)
        facts += [free.states[t].winner == NONE for t in range(i + 1)]
        facts += [lemma_term(lm, free, free.states[t]) for lm in todo for t in range(i + 1)]
        return free, facts, free.states[i + 1]


class Search:
    """The refinement at one position: A's and B's solvers, kept between verdicts, so that a
    second verdict (with a candidate's line-up set aside) goes on from the first."""

    def __init__(self, segment: Segment, facts: list, limits: Limits):
        self.segment = segment
        game = segment.game
        self.a = make_solver(game.ctx, limits, preprocess=True)
        self.a.add(*facts, segment.states[0].winner == NONE)
        self.b = make_solver(game.ctx, limits, preprocess=True)
        self.b.add(*game.constraints)
        # Nobody acting but the vote (and the abilities that must be used) first: such a
        # continuation makes progress from many states, so few are needed.
        self.quiet = [z3.Not(u.used) for pv in game.vars[segment.first:segment.first + segment.length]
                      for u in pv.uses if not u.ability.mandatory]
        self.n = 0
        self.base: int | None = None
        self.proved = False

    def run(self, extra: list) -> tuple:
        """("proved",), ("candidate", values) or ("unknown", reason) from the segment's first
        state, with `extra` facts about it."""
        if self.proved:
            return ("proved",)  # set-aside states only shrink what A may propose
        segment, a, b = self.segment, self.a, self.b
        start = segment.states[0]
        while self.n < MAX_REFINEMENTS:
            ra = ask(a, *extra)
            # Z3 counts the work of the whole context: what this position spent is the rise.
            self.base = spent(a) if self.base is None else self.base
            if spent(a) - self.base > BUDGET:
                return "unknown", f"the proof ran out of its budget of solver work after {self.n} continuations"
            if ra.status != "sat":
                self.proved = ra.status == "unsat" and not extra
                return ("proved",) if ra.status == "unsat" else ("unknown", ra.reason)
            values = values_of(ra.model, start)
            here = pin(segment.game, start, values)
            rb = ask(b, *here, segment.progress(), *self.quiet)
            if rb.status == "unsat":
                rb = _quieter(b, [*here, segment.progress()], segment)
            if rb.status != "sat":
                return ("candidate", values) if rb.status == "unsat" else ("unknown", rb.reason)
            a.add(segment.copy(rb.model, segment.first_progress(rb.model), f"k{self.n}_"))
            self.n += 1
        return "unknown", f"more than {MAX_REFINEMENTS} continuations were needed"


def _quieter(solver: z3.Solver, goal: list, segment: Segment) -> Result:
    """Choices for the goal with few uses: those a model leaves unused stay so, and each use
    it makes is dropped where the goal still holds without it (as Encoded.quieter). A
    continuation that needs fewer actions makes progress from more states."""
    result = ask(solver, *goal)
    if result.status != "sat":
        return result
    uses = [u for pv in segment.game.vars[segment.first:segment.first + segment.length] for u in pv.uses]
    model = present(result.model, "a satisfying model")
    off = [z3.Not(u.used) for u in uses if not z3.is_true(model.eval(u.used, model_completion=True))]
    for u in uses:
        if z3.is_true(model.eval(u.used, model_completion=True)):
            again = ask(solver, *goal, *off, z3.Not(u.used))
            if again.status == "sat":
                result = again
                off.append(z3.Not(u.used))
    return result


def overlap(pv: PhaseVars) -> z3.BoolRef:
    """Two sides' conditions met in the phase with no priority: nobody wins, and what comes
    after is up to the moderator (win-overlap reports it)."""
    return pv.overlap if pv.overlap is not None else z3.BoolVal(False, present(pv.active, "the phase's `active`").ctx)


def _going_on(game: Game, t: int) -> list:
    """No phase before state t ended in an overlap of wins: the states the proof covers."""
    return [z3.Not(overlap(pv)) for pv in game.vars[:t]]


def _keep_holding(limits: Limits, todo: list, game: Game, facts: list, st: SymState) -> tuple[list, list]:
    """The lemmas of todo that hold in st whenever the facts do and nobody has won there
    (invariants.keep_holding, on a solver of its own), and those the solver gave up on."""
    solver = make_solver(game.ctx, limits, preprocess=True)
    solver.add(*facts, st.winner == NONE)
    return keep_holding(solver, todo, game, st, [])


def prove(scenario: Scenario, seats: tuple[str, ...], limits: Limits) -> tuple[Proof | None, str | None]:
    """A Proof of progress for the composition, its invariants found; or the reason none can
    be attempted."""
    if alike_from(scenario, seats) is None:
        return None, "the spec reads `round` other than against a number, so later phases are not all alike"
    proof = Proof(scenario, seats, limits)
    proof.houdini(candidate_lemmas(proof.real))
    return proof, None


def verdict(proof: Proof, excluded: list) -> tuple:
    """Whether every state a game the rules decide reaches, nobody having won, can make
    progress: ("proved", None, None), ("candidate", values, phase index) for a state from
    which the proof found none, or ("unknown", reason, None). States with the line-up (who
    is alive, roles, sides) of an excluded one are left out: a proof then proves nothing,
    and comes back "unknown"."""
    for search in proof.segments():
        segment = search.segment
        start = segment.states[0]
        skip = [z3.Not(z3.And(pin(segment.game, start, x, PATTERN))) for x in excluded]
        result = search.run(skip)
        if result[0] == "unknown":
            return "unknown", result[1], None
        if result[0] == "candidate":
            index = segment.first + (proof.g if segment.game is proof.free else 0)
            return "candidate", result[1], index
    if excluded:
        return "unknown", "states the search could not show stuck were set aside", None
    restricted = proof.restricted()
    if restricted is not None:
        # The opening states and the invariants are then over games that leave out some play.
        return "unknown", restricted, None
    return "proved", None, None
