"""The one place solvers are made and asked: fixed seed, time limit and resource limit, and a
three-valued answer. `unknown` is never read as "no problem found"."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import math
import weakref
from collections.abc import Iterable, Iterator

import z3

DEFAULT_TIMEOUT = 30.0  # seconds per question
DEFAULT_RLIMIT = 50_000_000


@dataclass(frozen=True)
class Limits:
    timeout: float = DEFAULT_TIMEOUT
    rlimit: int = DEFAULT_RLIMIT
    seed: int = 0


@dataclass
class Result:
    status: str  # sat, unsat, unknown
    model: z3.ModelRef | None
    reason: str | None  # why unknown: the limit hit
    seconds: float


# Cheap rewriting before the SMT core: constants propagated, definitions `x == term` solved
# away, unconstrained parts dropped. The unrolled game is mostly such definitions, and the
# core alone spends its time rediscovering them (about 2-3x on the bundled specs).
PREPROCESS = ("simplify", "propagate-values", "solve-eqs", "elim-uncnstr")


def make_solver(ctx: z3.Context, limits: Limits, preprocess: bool = False,
                finite: bool = False) -> z3.Solver:
    """finite: every integer has a range (encode/ranges.py), so Z3's finite-domain solver
    applies: it bit-blasts to its SAT core, several times faster than the arithmetic one
    on the unrolled games (bench/benchmark.py --only gangster)."""
    # A fresh context per question keeps answers and timings independent of earlier calls.
    if finite:
        solver = z3.SolverFor("QF_FD", ctx=ctx)
    elif preprocess:
        solver = z3.Then(*(z3.Tactic(name, ctx=ctx) for name in PREPROCESS), z3.Tactic("smt", ctx=ctx),
                         ctx=ctx).solver()
    else:
        solver = z3.SolverFor("QF_LIA", ctx=ctx)
    # Z3 reads a timeout of 0 ms as "no limit": a tiny timeout must stay a limit.
    solver.set("timeout", max(1, math.ceil(limits.timeout * 1000)))
    set_rlimit(solver, limits.rlimit)
    solver.set("random_seed", limits.seed)
    # Z3 would take SIGINT for itself during a check and answer `unknown`: Ctrl-C would then
    # read as an inconclusive result and not stop the run. The command line handles it.
    solver.set("ctrl_c", False)
    return solver


# The resource limit each solver's questions have now (set_rlimit), for why_unknown: Z3 does
# not say how much work it was allowed.
_RLIMITS: "weakref.WeakKeyDictionary[z3.Solver, int]" = weakref.WeakKeyDictionary()


def set_rlimit(solver: z3.Solver, rlimit: int) -> None:
    """Limit the solver's questions to `rlimit` units of work each (every limit is set here)."""
    solver.set("rlimit", rlimit)
    _RLIMITS[solver] = rlimit


def why_unknown(raw: str, work: int, rlimit: int | None) -> str:
    """What a user can do with an `unknown`. Z3 words the same cause four ways depending on the
    solver ("max. resource limit exceeded", "canceled", "sat.canceled", and the finite-domain
    solver's "no reason given"); a question that used up its resource limit says so, with the
    option that raises it. Any other reason is passed on as Z3 gave it."""
    if raw == "timeout":
        return "time limit reached; --timeout raises it"
    if rlimit and work >= rlimit:
        return f"resource limit of {rlimit:,} reached; --rlimit raises it"
    return raw or "unknown"


def check(solver: z3.Solver, *assumptions: z3.BoolRef) -> Result:
    import time

    before = spent(solver)
    start = time.perf_counter()
    answer = solver.check(*assumptions)
    seconds = time.perf_counter() - start
    if answer == z3.sat:
        return Result("sat", solver.model(), None, seconds)
    if answer == z3.unsat:
        return Result("unsat", None, None, seconds)
    reason = why_unknown(solver.reason_unknown(), spent(solver) - before, _RLIMITS.get(solver))
    return Result("unknown", None, reason, seconds)


def ask(solver: z3.Solver, *parts: z3.BoolRef) -> Result:
    """Whether `parts` can hold together with what the solver already has; the solver is left
    as it was, so one encoding answers many questions."""
    solver.push()
    try:
        solver.add(*parts)
        return check(solver)
    finally:
        solver.pop()


def spent(solver: z3.Solver) -> int:
    """The solver work Z3 has counted so far (its rlimit count; of the whole context)."""
    stats = solver.statistics()
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0


class Budget:
    """Solver work a task may spend over many questions, counted as Z3 counts it (the rise of
    the rlimit count across each question), not in seconds: the same spec runs out at the
    same question on every machine."""

    def __init__(self, work: int):
        self.left = work

    @property
    def exhausted(self) -> bool:
        return self.left <= 0

    def ask(self, solver: z3.Solver, *parts: z3.BoolRef) -> Result:
        """`ask`, its work charged; a question asked with the budget spent is not asked (the
        answer is `unknown`, for the caller to treat as the solver giving up)."""
        if self.exhausted:
            return Result("unknown", None, "the budget of solver work was spent", 0.0)
        before = spent(solver)
        try:
            return ask(solver, *parts)
        finally:
            self.left -= spent(solver) - before


@contextlib.contextmanager
def sparing(solvers: Iterable[z3.Solver | None], rlimit: int, restore: int) -> Iterator[None]:
    """The solvers' questions limited to `rlimit` while inside, `restore` after: a try whose
    failure costs little (a longer game that may show a witness at once)."""
    live = [s for s in solvers if s is not None]
    for solver in live:
        set_rlimit(solver, rlimit)
    try:
        yield
    finally:
        for solver in live:
            set_rlimit(solver, restore)
