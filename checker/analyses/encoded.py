"""One encoded game shared by the analyses of a spec: built once per composition and bound,
asked many questions through the solver factory."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from collections.abc import Iterable, Iterator
from typing import Any, Callable

import z3

from .. import registry
from ..crosscheck.witness import Witness, evidence, extract, model_of, replay
from ..encode.blocking import MAX_READERS
from ..encode.horizon import Horizon, horizon as horizon_of
from ..encode.solver import Budget, Limits, Result, ask, check, make_solver, set_rlimit, sparing, spent
from ..encode.terms import Unsupported
from ..encode.unroll import Game, Prefix
from ..errors import SpecError
from ..findings import Finding, Related, Verdict
from ..model import Ability, Composition, Scenario
from ..narrow import actor_roles, present
from ..source import Span


# How deep the default check searches: a question no game of the first rounds answers is
# asked again of a game one round longer, up to this many rounds (`--bound K` searches
# exactly K). Past three rounds the unanswered questions of the largest bundled spec cost
# minutes; the depth reached is in every finding that holds only within it.
DEFAULT_DEPTH = 3
# How deep a question is followed past DEFAULT_DEPTH when the proof that no longer game shows
# it finds a state the search cannot rule out (Encoded.further): commando's missing quorum
# for three players alive first shows on day 4. Each round more is a longer game to build
# (godfather_jack: about 1.5 times the CPU of its whole check, followed to 6 rounds, for two
# questions that stay open), so one round past the default.
FURTHER_DEPTH = DEFAULT_DEPTH + 1


# The goal of a search at phase t of an encoding's game (the conditions, joined by `and`).
GoalAt = Callable[["Encoded", int], list]
# What a question asks at phase i of any game, a proof's free-start window included.
EventAt = Callable[[Any, int], list]


@dataclass
class Options:
    bound: int = 1  # rounds (a day and a night) after the opening phases
    deepen_to: int = DEFAULT_DEPTH  # rounds a question no game answers is asked to, at most
    # rounds a question is asked to past deepen_to, while its proof for every length finds a
    # state the search has not ruled out (Encoded.further)
    further_to: int = FURTHER_DEPTH
    # The resource limit is what bounds a question: it counts solver work, so the same
    # question gives the same answer on any machine. The timeout is only a safety net.
    timeout: float = 300.0
    rlimit: int = 20_000_000
    # Rewrite the constraints before the SMT core (solver.PREPROCESS): about twice as fast on
    # the bundled specs, with the same answers within the limits, but other games as models
    # (so analyses that describe a model, like stalemate's stuck line-up, may name others).
    preprocess: bool = False


@dataclass
class Depths:
    """What the encodings of one composition, one per depth, share: each depth as a search
    may ask it (`asked`: the encoding, or why it cannot be asked), each depth built
    (`built`, a witness search past the last asked depth included), and per number of
    holders, the phases the holders question has found clear."""

    asked: dict[int, "Encoded | str"] = field(default_factory=dict)
    built: dict[int, "Encoded"] = field(default_factory=dict)
    holders_clear: dict[int, int] = field(default_factory=dict)
    verdicts: list["Verdict"] = field(default_factory=list)  # the questions answered no, in order
    clean: dict[int, Any] = field(default_factory=dict)  # phase -> Encoded.clean_until's term
    # phase -> (its `decided` literal, the guard that gives it its meaning, the size of the
    # phase it was made for): see Encoded.clean_until.
    decided: dict[int, tuple] = field(default_factory=dict)
    # What each kind of extra work may still spend, made at its first use (`budget`): the
    # proofs for every length (PROOF_WORK), the proofs tried before a deeper search
    # (EARLY_WORK), the searches past the default depth (FURTHER_WORK).
    budgets: dict[str, Budget] = field(default_factory=dict)

    def budget(self, kind: str, work: int) -> Budget:
        """The composition's budget of `kind`, of `work` solver work when first asked for."""
        if kind not in self.budgets:
            self.budgets[kind] = Budget(work)
        return self.budgets[kind]


@dataclass(frozen=True)
class Search:
    """The answer to a question searched in ever longer games: ("sat", the phase, the model,
    the encoding it was found in), or "unsat"/"unknown" with the deepest encoding where
    no game answers. `gave_up`: why a longer game could not be asked (the solver gave up,
    or the longer game is not fully encoded), when the search stopped short of its depth."""

    status: str
    t: int | None
    result: Result | None
    enc: "Encoded"
    gave_up: str | None = None
    # Past a depth the solver gave up on, "sat" in a longer game: which depth is open (a
    # shorter game than the witness is then not ruled out).
    undecided: str | None = None
    # What the question asks at phase i of any game (a free-start window included): the
    # event a proof for every length rules out (Encoded.unanswered), when the search says no.
    event: EventAt | None = None
    # The proof for every length already tried at this depth (Encoded.further): prove_absent's
    # answer, which the verdict then reads (Encoded.settle).
    proof: tuple | None = None

    @property
    def depth(self) -> int:
        return self.enc.options.bound

    @property
    def where(self) -> str:
        """The encoding's `where`, and the depth left open below a witness found past it."""
        if self.undecided is None:
            return self.enc.where
        return f"{self.enc.where}; a shorter game is not ruled out ({self.undecided})"


class Encoded:
    def __init__(self, scenario: Scenario, composition: Composition, options: Options,
                 full: Game | None = None):
        self.sc = scenario
        self.comp = composition
        self.options = options
        self.error: Unsupported | None = None
        self.game: Prefix | None = None
        self.depths = Depths()  # shared by the encodings of one composition
        try:
            from ..evaluate import initial_state
            from ..phases import start_phases
            opening = len(start_phases(scenario, initial_state(scenario, composition.seats())))
            self.opening = opening
            self.length = opening + 2 * options.bound
            if full is None:
                full = Game(scenario, composition.seats(), self.length)
            else:
                full.grow(self.length)
        except Unsupported as exc:
            self.error = exc
            return
        # The game of this many rounds: a prefix of the one game every depth of the
        # composition shares (see at_bound).
        self.full = full
        self.game = Prefix(full, self.length)
        self.constraints = self.game.constraints
        self.solver = make_solver(self.game.ctx, Limits(options.timeout, options.rlimit), options.preprocess,
                                  finite=self.game.finite)
        self.solver.add(self.constraints)
        # Per solver of this encoding (by id), the phases whose `decided` guard it holds at
        # its base level (clean_until).
        self.guarded: dict[int, dict[int, tuple]] = {}
        self.clean_asked = -1  # the last phase clean_until was asked of (a solver made later guards it)
        self.guarded_clean = False  # clean_until as guarded literals (set for Encoded.past's tries)

    def unfollowed(self) -> str | None:
        """Why some play within the bound is left out of the encoding (Game.restricted: at
        most MAX_READERS uses a phase of a blocking ability more players could hold), when it
        can matter: more living holders than that at once within the bound. None when it
        cannot."""
        if self.prefix.restricted is None:
            return None
        if not hasattr(self, "_unfollowed"):
            why = self._many_holders(MAX_READERS + 1)
            self._unfollowed = None if why is None else f"{why}, and {self.prefix.restricted}"
        return self._unfollowed

    @property
    def prefix(self) -> Prefix:
        """The game, for an encoding that was built (the analyses set the others aside)."""
        if self.game is None:
            raise ValueError(f"{self.where} is not encoded: {self.error}")
        return self.game

    def horizon(self) -> Horizon:
        """How long the composition's games nobody has won can last (encode/horizon.py),
        worked out once for every depth and analysis; unknown where the encoding lacks a
        construct the free-start windows need."""
        from ..encode.induction import windows_of

        holder: Any = getattr(self, "full", self)  # the composition's one game, as windows_of
        kept = getattr(holder, "_horizon", None)
        if kept is None:
            try:
                kept = horizon_of(windows_of(self), self.opening)
            except Unsupported as exc:
                kept = Horizon(None, None, f"the free-start encoding does not support {exc}")
            holder._horizon = kept
        return kept

    @property
    def depth_limit(self) -> int:
        return max(self.options.bound, self.options.deepen_to)

    def at_bound(self, bound: int) -> Encoded | str:
        """The same composition encoded to `bound` rounds (built once, shared by every
        analysis), or why it cannot be asked: the encoding lacks a construct, or it leaves
        out some play more holders make (Encoded.unfollowed)."""
        if bound == self.options.bound:
            return self
        if bound not in self.depths.asked:
            enc = self.built(bound)
            why = f"the encoding does not support {enc.error}" if enc.error else enc.unfollowed()
            self.depths.asked[bound] = why if why else enc
        return self.depths.asked[bound]

    def built(self, bound: int) -> Encoded:
        """The composition encoded to `bound` rounds, whatever it leaves out: enough to look
        for a witness (a game found is a real game), not to say there is none."""
        if bound == self.options.bound:
            return self
        shared = self.depths.built
        if bound not in shared:
            enc = Encoded(self.sc, self.comp, replace(self.options, bound=bound), full=self.full)
            enc.depths = self.depths
            shared[bound] = enc
        return shared[bound]

    def deepest(self) -> Encoded:
        """The longest game a search can ask: events that only later phases can show (a rule
        of night 2) are listed from it."""
        enc = self
        for bound in range(self.options.bound + 1, self.depth_limit + 1):
            longer = self.at_bound(bound)
            if isinstance(longer, str):
                break
            enc = longer
        return enc

    def search_after_clean(self, conditions_at: Callable[[Any, int], list]) -> Search:
        """`search` for the earliest phase where one of conditions_at(enc, t) holds, after a
        game the rules decide up to it. conditions_at reads only `enc.game`: it is asked of
        an Encoded and of a proof's window (Window)."""
        def goal(enc: Encoded, t: int) -> list:
            here = conditions_at(enc, t)
            if not here:
                return [z3.BoolVal(False, enc.prefix.ctx)]
            return [z3.Or(here), enc.clean_until(t - 1)]

        def event(game: Game, i: int) -> list:  # in any game: a window of a proof too (encode/induction.py)
            here = conditions_at(Window(game), i)
            return [z3.Or(here) if here else z3.BoolVal(False, game.ctx)]
        return self.search(goal, quiet=True, event=event)

    def search(self, goal_at: GoalAt, fast: bool = False,
               quiet: bool = False, event: EventAt | None = None) -> Search:
        """`deepen`, the question's `event` kept with the answer (see Search.event); a "no"
        whose proof for every length does not close is followed further (`further`).

        A question no game of this encoding's rounds answers is tried by induction from there
        before any longer game is searched: where the step closes, the longer searches could
        only agree with it, and they are the dearest questions asked (godfather_nostradamus:
        its whole check 100 s → 55 s, the same verdicts, each now for every length from one
        round). Where it does not, the search goes deeper as before; these first tries have
        a budget of their own (EARLY_WORK), so that they never starve the proofs after it."""
        here = None
        if event is not None:
            status, t, result, open_before = self.first(lambda t: goal_at(self, t), fast, quiet)
            here = Search(status, t, result, self, event=event, undecided=open_before)
            if status == "unsat":
                proof = self.prove(here, early=True)
                if proof[0] == "proved":
                    return replace(here, proof=proof)
        found = replace(self.deepen(goal_at, fast, quiet, here), event=event)
        if found.status == "unsat" and found.gave_up is None and event is not None:
            return self.further(found, goal_at, fast, quiet)
        return found

    def further(self, found: Search, goal_at: GoalAt, fast: bool, quiet: bool) -> Search:
        """k-induction's other half. A question no game up to found's depth answers, whose
        induction step reaches the event from a state the search has not ruled out, is asked
        of a game one round longer, and so on up to Options.further_to rounds, within the
        composition's budget of solver work for it (FURTHER_WORK): the state may be
        reachable (a witness there is a finding the shorter search missed), and past a
        longer search the step's windows start later, from states more like the real ones.
        The proof's answer at the depth reached goes with the search (Search.proof)."""
        from ..encode.induction import STEP

        while True:
            proof = self.prove(found)
            found = replace(found, proof=proof)
            if proof[0] != STEP or found.depth >= self.options.further_to:
                return found
            budget = self.depths.budget("further", FURTHER_WORK * self.options.rlimit)
            longer = self.at_bound(found.depth + 1)
            if budget.exhausted or isinstance(longer, str):
                return found
            start, before = len(found.enc.prefix.vars), spent(longer.solver)
            with longer.sparing(min(self.options.rlimit, budget.left)):
                status, t, result, open_before = longer.first(lambda t: goal_at(longer, t), fast, quiet,
                                                              start=start)
            budget.left -= spent(longer.solver) - before
            if status == "sat":
                return Search(status, t, result, longer, event=found.event, undecided=open_before)
            if status != "unsat":
                return found
            found = Search(status, None, None, longer, event=found.event)

    def deepen(self, goal_at: GoalAt, fast: bool = False,
               quiet: bool = False, asked: Search | None = None) -> Search:
        """`first`, in ever longer games: a goal no game of this encoding's rounds reaches is
        asked of a game one round longer (its later phases only: the earlier ones are the
        same game), up to the depth of Options.deepen_to. goal_at(enc, t): the goal at phase
        t of that encoding's game. A depth the solver gives up on is not the end (`past`).
        `asked`: this encoding's own answer, when the caller has asked for it already."""
        if asked is None:
            status, t, result, open_before = self.first(lambda t: goal_at(self, t), fast, quiet)
            found = Search(status, t, result, self, undecided=open_before)
        else:
            found = replace(asked, event=None, proof=None)
        while found.status == "unsat" and found.depth < self.depth_limit:
            longer = self.at_bound(found.depth + 1)
            if isinstance(longer, str):
                return replace(found, gave_up=longer)
            start = len(found.enc.prefix.vars)
            status, t, result, open_before = longer.first(lambda t: goal_at(longer, t), fast, quiet, start=start)
            if status == "unknown":
                reason = result.reason if result is not None else "unknown"
                why = f"a game of {longer.options.bound} rounds: the solver gave up ({reason})"
                return self.past(found, longer, goal_at, why, fast, quiet)
            found = Search(status, t, result, longer, undecided=open_before)
        return found

    def past(self, found: Search, longer: Encoded, goal_at: GoalAt, why: str, fast: bool, quiet: bool) -> Search:
        """A question no game up to found's depth answers and the solver gave up on one
        round longer: shown by a game one round longer still, which is often far easier to
        find than a proof that there is none (the witness then says that a shorter game is
        not ruled out); else unanswered, which tries induction from found's depth."""
        # Only a witness is looked for, so what the longer encoding leaves out is no matter.
        deeper = longer.built(longer.options.bound + 1)
        budget = self.depths.budget("past", PAST_WORK * self.options.rlimit)
        if deeper.error is None and not budget.exhausted:
            deeper.guarded_clean = True
            start, before = len(longer.prefix.vars), spent(deeper.solver)
            with deeper.sparing(budget.left):
                # An earlier phase it gives up on only qualifies the witness (a shorter game is
                # not ruled out): no second solver for it.
                status, t, result, open_before = deeper.first(lambda t: goal_at(deeper, t), fast, quiet, start=start,
                                                              narrow_fallback=False)
            budget.left -= spent(deeper.solver) - before
            if status == "sat":
                return Search(status, t, result, deeper, undecided="; ".join(x for x in (why, open_before) if x))
        return replace(found, gave_up=why)

    @contextlib.contextmanager
    def sparing(self, rlimit: int) -> Iterator[None]:
        """This encoding's questions limited to `rlimit` while inside (solver.sparing), the
        solvers made meanwhile (the arithmetic one a question falls back on) included."""
        self._spare: int | None = rlimit
        try:
            with sparing([self.solver, getattr(self, "_fast", None), getattr(self, "_arithmetic", None)],
                         rlimit, self.options.rlimit):
                yield
        finally:
            self._spare = None
            for solver in (getattr(self, "_fast", None), getattr(self, "_arithmetic", None)):
                if solver is not None:
                    set_rlimit(solver, self.options.rlimit)

    @property
    def limits(self) -> Limits:
        """The limits of this encoding's questions (a smaller resource limit while sparing)."""
        return Limits(self.options.timeout, getattr(self, "_spare", None) or self.options.rlimit)

    def _many_holders(self, many: int) -> str | None:
        """Whether `many` living players can hold an ability at the start of a phase in which
        the encoding limits its uses. Each phase is asked of the game up to the phase before:
        where fewer hold it, the limit leaves nothing out, so up to the first phase with
        `many` holders the game as encoded is the rules' own (the later phases, whose limits
        could cut a game short, are no part of the question)."""
        game = self.prefix
        # One question a limited phase and ability, on which every encoded analysis of the
        # composition depends: a larger share of the solver's work than an analysis's.
        solver = make_solver(game.ctx, Limits(self.options.timeout, HOLDERS_WORK * self.options.rlimit), True)
        # The depths of a composition share one game: the phases a shallower depth found with
        # fewer holders are not asked again.
        clear = self.depths.holders_clear
        first = clear.get(many, 0)
        added = 0
        for t, pv in enumerate(game.vars):
            if t < first:
                continue
            upto = game.marks[t - 1] if t > 0 else 0
            for ability in sorted({a.key: a for a in pv.crowded}.values(), key=lambda a: a.key):
                solver.add(*game.constraints[added:upto])
                added = upto
                result = ask(solver, z3.Sum([z3.If(h, 1, 0) for h in self._holds(ability, t)]) >= many)
                if result.status == "sat":
                    return f"{many} living players can hold {ability.display} at once on {game.phases[t]}"
                if result.status == "unknown":
                    return (f"whether {many} living players can hold {ability.display} at once on "
                            f"{game.phases[t]} is not decided (the solver gave up: {result.reason})")
            clear[many] = t + 1
        return None

    def _holds(self, ability: Ability, t: int) -> list:
        """Per seat: a living holder of the ability at the start of phase t."""
        holders = actor_roles(present(ability.actor, f"the holder of {ability.key}"))  # a role's, being crowded
        wanted = [self.prefix.ids.roles.index(r.key) for r in holders]
        st = self.prefix.states[t]
        return [z3.And(st.alive[s], z3.Or([st.roles[s] == r for r in wanted])) for s in range(self.prefix.n)]

    @property
    def where(self) -> str:
        return f"{self.composition}, up to {self.options.bound} round{'s' if self.options.bound != 1 else ''}"

    @property
    def composition(self) -> str:
        return f"composition {self.comp.title}, default settings"

    def B(self, v: bool) -> z3.BoolRef:
        return z3.BoolVal(v, self.prefix.ctx)

    def clean_until(self, t: int) -> z3.BoolRef:
        """No phase up to t leaves anything to the moderator (holes, contradictions): a
        witness the rules decide from start to end. (True for t < 0: no phase yet.)

        With `guarded_clean` set, it is a literal, `decided t`, whose meaning each solver of the
        encoding holds at its base level: `decided i` implies that phase i is clean and
        `decided i-1`. Stated with each question instead, inside its scope, the conditions
        of every phase before the goal are rewritten and bit-blasted again each time, and the
        finite-domain solver cannot simplify with them: on one long game asked for a witness
        (Encoded.past) that is far dearer (godfather_nostradamus's win overlap after night 4:
        30-68 s and more than 60M of work asked that way, 5-10 s and 29M this way); on the
        many questions of the other searches the guards cost more than they save (the
        stalemate analysis of the same spec 13% slower with them, gangster's win overlap 27%)."""
        from ..encode.induction import clean

        t = min(max(t, -1), len(self.prefix.vars) - 1)
        if t < 0:
            return self.B(True)
        if self.guarded_clean:
            self.clean_asked = max(self.clean_asked, t)
            for solver in self._solvers():
                self._guard(solver, t)
            return self._decided(t)[0]
        # Asked before nearly every goal, of the phases every depth's prefix of the game
        # shares: made once a phase for them all.
        made = self.depths.clean
        if t not in made:
            parts = [c for pv in self.prefix.vars[: t + 1] for c in clean(pv)]
            made[t] = z3.And(parts) if parts else self.B(True)
        return made[t]

    def _decided(self, i: int) -> tuple:
        """Phase i's `decided` literal and its guard, made once for every depth (the phases
        are the one game's), and again if the phase has grown since (induction.clean_size)."""
        from ..encode.induction import clean, clean_size

        pv = self.prefix.vars[i]
        size = clean_size(pv)
        made = self.depths.decided.get(i)
        if made is None or made[2] != size:
            literal = z3.Bool(f"decided {i}", self.prefix.ctx)
            before = [self._decided(i - 1)[0]] if i > 0 else []
            made = (literal, z3.Implies(literal, z3.And(clean(pv) + before)), size)
            self.depths.decided[i] = made
        return made

    def _guard(self, solver: z3.Solver, t: int) -> None:
        """The guards of phases 0..t on the solver, at its base level. One added inside a
        scope is popped with it, so it is added again the next time."""
        held = self.guarded.setdefault(id(solver), {})
        for i in range(t + 1):
            literal, guard, size = self._decided(i)
            if held.get(i) != size:
                solver.add(guard)
                if solver.num_scopes() == 0:
                    held[i] = size

    def _solvers(self) -> list[z3.Solver]:
        """The solvers made for this encoding so far (`fast` and `arithmetic` are made on
        demand, and given the guards made until then)."""
        return [x for x in (self.solver, getattr(self, "_fast", None), getattr(self, "_arithmetic", None))
                if x is not None]

    @property
    def fast(self) -> z3.Solver:
        """A second solver on the same game, with the preprocessing of solver.PREPROCESS:
        about twice as fast, same answers, other games as models. For the analyses whose
        findings do not describe a model (which abilities are ever used, which sides can
        win); kept apart so that the main solver's history, which the stalemate search's
        candidates depend on, stays as it was."""
        if self.options.preprocess or self.prefix.finite:
            return self.solver
        if getattr(self, "_fast", None) is None:
            self._fast = make_solver(self.prefix.ctx, self.limits, True)
            self._fast.add(self.constraints)
            self._guard(self._fast, self.clean_asked)
        return self._fast

    def ask(self, *goal: object, fast: bool = False, fallback: bool = True) -> Result:
        """Whether the game can meet the goal (conditions joined by `and`). `fallback`: a
        question the finite-domain solver gives up on goes to the arithmetic one too."""
        parts = [g for item in goal for g in (item if isinstance(item, (list, tuple)) else [item])]
        result = ask(self.fast if fast else self.solver, *parts)
        if result.status == "unknown" and self.prefix.finite and fallback:
            # The two solvers give up on different questions (their resource limits count
            # different work): a question the finite-domain one cannot settle goes to the
            # arithmetic one before it is called inconclusive.
            again = ask(self.arithmetic, *parts)
            if again.status != "unknown":
                return again
        return result

    @property
    def arithmetic(self) -> z3.Solver:
        if getattr(self, "_arithmetic", None) is None:
            self._arithmetic = make_solver(self.prefix.ctx, self.limits, True)
            self._arithmetic.add(self.constraints)
            self._guard(self._arithmetic, self.clean_asked)
        return self._arithmetic

    def first(self, goal_at: Callable[[int], list], fast: bool = False, quiet: bool = False,
              start: int = 0, narrow_fallback: bool = True) -> tuple[str, int | None, Result | None, str | None]:
        """The earliest phase t >= start where goal_at(t) can hold: ("sat", t, result, open)
        with the shortest game (`open`: the earlier phases the solver gave up on, if any),
        ("unsat", None, None, None) within the bound, or ("unknown", None, result, None).

        The whole bound is asked first, so a goal no game reaches costs one question; only a
        reachable goal is narrowed down to its earliest phase (`narrow_fallback`: with the
        arithmetic solver too where the finite-domain one gives up)."""
        T = len(self.prefix.vars)
        goals = {t: z3.And(*_flat(goal_at(t))) for t in range(start, T)}
        if not goals:
            return "unsat", None, None, None
        overall = self.ask(z3.Or(list(goals.values())), fast=fast)
        if overall.status != "sat":
            return overall.status, None, (overall if overall.status == "unknown" else None), None
        model = model_of(overall)
        latest = next(t for t in goals if z3.is_true(model.eval(goals[t], model_completion=True)))
        best = (latest, overall)
        # An earlier phase the solver gives up on is not ruled out: the witness says so.
        open_before = []
        for t in range(start, latest):
            result = self.ask(goals[t], fast=fast, fallback=narrow_fallback)
            if result.status == "sat":
                best = (t, result)
                break
            if result.status == "unknown":
                open_before.append(f"after {self.prefix.phases[t]}: the solver gave up ({result.reason})")
        if quiet:
            best = (best[0], self.quieter(goals[best[0]], best[1], best[0], fast))
        return "sat", best[0], best[1], "; ".join(open_before) or None

    def quieter(self, goal: object, result: Result, t: int, fast: bool = False) -> Result:
        """A game for the same goal with fewer actions: the model's uses up to phase t are
        dropped, a phase at once and then one at a time, in the encoding's order, wherever
        the goal still holds without them. A witness should show the moderator only what the
        finding needs. The goal is added once; each try is a check under assumptions (the
        flags `not used`), not a push, add and pop."""
        solver = self.fast if fast else self.solver
        solver.push()
        try:
            solver.add(*_flat(goal))
            off: list[z3.BoolRef] = []

            def without(flags: list[z3.BoolRef]) -> bool:
                nonlocal result
                again = check(solver, *off, *flags)
                if again.status == "sat":
                    off.extend(flags)
                    result = again
                return again.status == "sat"
            for pv in self.prefix.vars[: t + 1]:
                used = {u.used.get_id() for u in pv.uses
                        if z3.is_true(model_of(result).eval(u.used, model_completion=True))}
                # What the game does not use stays unused, so a later, quieter game cannot
                # bring back an action here that was never tried without.
                off += [z3.Not(u.used) for u in pv.uses if u.used.get_id() not in used]
                flags = [z3.Not(u.used) for u in pv.uses if u.used.get_id() in used]
                # A whole phase at once first: most phases before the finding need nobody.
                if flags and not without(flags):
                    for flag in flags:
                        without([flag])
        finally:
            solver.pop()
        return result

    def witness(self, result: Result, t: int, label: str) -> Witness:
        """The model's game as a witness, replayed through the interpreter. If the replay
        cannot even be set up, the witness comes back with no answer: callers then report an
        internal inconclusive, as for any witness that does not replay."""
        w = extract(self.prefix, result.model, upto=t, label=label)
        try:
            replay(self.prefix, w)
        except SpecError as exc:
            from ..interpreter.play import Answer
            w.answer = Answer("witness", label, "unreplayable", [], [], [])
            w.answer.detail = "; ".join(d.message for d in exc.diagnostics)
        return w

    def witness_json(self, w: Witness) -> dict:
        return evidence(w, self.sc, self.prefix.seats)

    def inconclusive(self, what: str, reason: str, span: Span | None = None,
                     witness: Witness | None = None) -> Finding:
        """An undecided question. When a solver's game failed to replay, the game is attached:
        it is the evidence for the bug report."""
        c = registry.CODES[registry.INCONCLUSIVE]
        return Finding(c.code, c.kind, c.severity, f"{what} ({self.where}): {reason}",
                       span or self.sc.span,
                       witness=self.witness_json(witness) if witness is not None else None)

    def unanswered(self, found: Search, what: str, span: Span | None = None) -> Finding | None:
        """A question the search did not answer: the solver gave up, or no game answered it
        but the search stopped short of its depth (a longer game could not be built, or the
        solver gave up on it). Not a pass but an inconclusive finding that says how deep it
        searched and why it stopped. None when the search found a game or went the whole
        way."""
        if found.status == "unknown":
            reason = found.result.reason if found.result is not None else "unknown"
            return found.enc.inconclusive(what, f"the solver gave up ({reason})", span)
        if found.status != "unsat":
            return None
        if found.gave_up is None:
            self.depths.verdicts.append(self.settle(found, what))
            return None
        searched = _searched(found.depth)
        # The depth searched is a base case like any: induction from it needs no longer game.
        status, k, why = self.prove(found) if found.event is not None else ("open", None, None)
        if status == "proved":
            self.depths.verdicts.append(Verdict(
                what, found.enc.composition, found.depth, True,
                f"{searched}, and {_by_induction(k)} from there rules out every longer game "
                f"(the search stopped there: {found.gave_up})"))
            return None
        why = _unproved(status, why)
        unproved = f"; not proved for longer games: {why}" if why else ""
        return found.enc.inconclusive(
            what, f"{searched}, and a longer one was not searched ({found.gave_up}){unproved}; "
                  f"{found.enc.horizon().text}", span)

    def settle(self, found: Search, what: str) -> Verdict:
        """The verdict on a question no game up to the search's depth answers: for every
        length where k-induction (encode/induction.py, with the composition's invariants)
        rules out the event in longer games too, else within the depth, saying why not
        longer (`prove`, unless `further` tried it at this depth already)."""
        enc = found.enc
        searched = _searched(found.depth)

        def within(why: str | None) -> Verdict:
            detail = searched if why is None else f"{searched}; not proved for longer games: {why}"
            return Verdict(what, enc.composition, found.depth, False, f"{detail}; {enc.horizon().text}")
        status, k, why = (found.proof or self.prove(found)) if found.event is not None else ("open", None, None)
        if status == "proved":
            return Verdict(what, enc.composition, found.depth, True,
                           f"{searched}, and {_by_induction(k)} rules out every longer game")
        reach = enc.horizon()
        if reach.rounds is not None and found.depth >= reach.rounds:
            # The search went as far as any game goes: a proof for every length too.
            return Verdict(what, enc.composition, found.depth, True, f"{searched}, and {reach.text}")
        if found.event is None:
            return within(None)
        return within(_unproved(status, why))

    def prove(self, found: Search, early: bool = False) -> tuple[str, int | None, str | None]:
        """k-induction (encode/induction.py, with the composition's invariants) from found's
        depth: prove_absent's answer, a construct the step lacks or the composition's proofs
        having spent their budget (PROOF_WORK) being reasons like any other. `early`: a try
        before a deeper search (`search`), charged to a budget of its own (EARLY_WORK)."""
        from ..encode.induction import PROOF_PHASES, prove_absent
        from ..encode.invariants import strengthening

        budget = self.depths.budget("early", EARLY_WORK * self.options.rlimit) if early \
            else self.depths.budget("proof", PROOF_WORK * self.options.rlimit)
        if found.event is None:
            return "open", None, "the question asks nothing a longer game could show"
        if budget.exhausted:
            return "open", None, "the proofs of this composition spent their budget of solver work"
        try:
            # The invariants are the composition's, found once within a budget of their own
            # (invariants.HOUDINI_WORK): charged to the proofs' budget, finding them on
            # godfather_nostradamus spent it all before any step was asked.
            return prove_absent(found.enc, found.event, kmax=EARLY_PHASES if early else PROOF_PHASES,
                                what="it", invariants=strengthening(found.enc), budget=budget)
        except Unsupported as exc:
            return "open", None, f"the induction step does not support {exc}"

    def unsupported(self, what: str) -> Finding:
        exc = self.error
        return Finding(registry.INCONCLUSIVE, "inconclusive", "error",
                       f"{what} could not be checked: the Z3 encoding does not support {exc} yet",
                       (exc.span if exc is not None else None) or self.sc.span)


# The solver work the tries past a depth the solver gave up on (Encoded.past) may spend
# together, per composition, in questions' resource limits; each question of a try may spend
# what is left when it starts. A witness one round longer is often found at once (gangster's
# overlap on night 4, in under a second); godfather_nostradamus's, after night 4, takes 29M of
# work, more than one question's limit, where the proof that no game of 3 rounds shows it
# gives up and no shorter witness is known (2026-12-07).
PAST_WORK = 3

# The solver work the proofs for every length of one composition's "no" answers may spend
# together (Encoded.settle), in questions' resource limits. Past it, a verdict holds within
# the depth searched and says so.
PROOF_WORK = 1

# The solver work the searches past the default depth of one composition may spend together
# (Encoded.further), in questions' resource limits.
FURTHER_WORK = 3

# The solver work the proofs tried before a deeper search (Encoded.search) may spend together,
# per composition, in questions' resource limits: a try that fails is followed by the deeper
# search and a proof from its depth, charged to PROOF_WORK as before.
EARLY_WORK = 1
# How many phases the step of a proof tried before a deeper search spans at most: one, where
# every such proof on the bundled specs closes; a longer step is tried after the deeper search
# (PROOF_PHASES), so the tries that fail (a hole a longer game reaches) cost one phase's step.
EARLY_PHASES = 1

# How many times an analysis's resource limit the question of Encoded._many_holders gets.
HOLDERS_WORK = 5


class Window:
    """A game seen as an encoding, for the questions' conditions (conditions_at(enc, t) reads
    only enc.game): a free-start window of a proof is asked what the search asked."""

    def __init__(self, game: Game):
        self.game = game
        self.error = None


def _searched(depth: int) -> str:
    return f"no game of up to {depth} round{'s' if depth != 1 else ''} shows it"


def _by_induction(k: int | None) -> str:
    return f"induction over {k} phase{'s' if k != 1 else ''}"


def _unproved(status: str, why: str | None) -> str | None:
    """Why no proof for every length, as a verdict says it."""
    return f"the solver gave up on the induction step ({why})" if status == "unknown" else why


def _flat(goal: object) -> list:
    return [g for item in (goal if isinstance(goal, (list, tuple)) else [goal])
            for g in (item if isinstance(item, (list, tuple)) else [item])]


def related(spans: Iterable[tuple[str, Span]]) -> tuple[Related, ...]:
    return tuple(Related(msg, span) for msg, span in spans)
