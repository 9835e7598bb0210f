"""Open what-if questions, asked of the encoding: `can winner jack within 2` (is there a game,
after the query's phases, that reaches the goal?) and `must stays leon` (does every game?).

The answer is `yes` or `no` within the bound, each shown with a game where one exists (a
game that reaches the goal, or a counterexample), replayed through the interpreter; or
`inconclusive` when the solver gives up. Only games the rules fully decide count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import z3

from ..encode.solver import Limits, check, make_solver
from ..encode.terms import Unsupported
from ..encode.unroll import NONE, Game
from ..encode.vote import tied
from ..interpreter.bind import BoundQuery, BoundUse
from ..interpreter.play import Answer, Player
from ..model import Scenario
from .differential import counted_votes, fix_choices
from .witness import model_of

if TYPE_CHECKING:
    from ..ast import OpenQuestion, Query
    from ..encode.induction import Windows
    from ..evaluate import State
    from ..interpreter.play import Outcome
    from ..phases import Phase

DEFAULT_WITHIN = 2
LIMITS = Limits(timeout=120)  # an open question's, unless the caller gives its own


class Reuse:
    """The games the open questions of one run share: questions that start from the same
    state (the same players, settings and given start) are phases of one game, built once
    and as far as the longest of them needs, with one solver fed a phase at a time. A
    question of fewer phases than the solver holds gets a solver of its own over the same
    terms (the building, not the solving, is what a fresh game per question repeats).
    Proved counting facts (encode/lemmas.py) are stated in the games that start where the
    composition starts."""

    def __init__(self, scenario: Scenario, limits: Limits):
        self.sc = scenario
        self.limits = limits
        self.games: dict[tuple, _Shared] = {}
        self.windows: dict[tuple, Windows] = {}
        self.planned: dict[tuple, int] = {}

    def plan(self, bound: BoundQuery) -> None:
        """Say in advance that `bound` will be asked: its game is then built long enough for
        every question that shares it, once."""
        key, length = _key(bound), _length(bound)
        self.planned[key] = max(self.planned.get(key, 0), length)

    def solver_for(self, bound: BoundQuery, first: int, length: int) -> tuple[Game, z3.Solver, bool]:
        """(game, solver, shared) with the game's first `length` phases in the solver, and only
        those; `shared`: the solver is the game's own, which later questions go on feeding."""
        key = _key(bound)
        entry = self.games.get(key)
        if entry is None or len(entry.game.phases) < length:
            longest = max(length, self.planned.get(key, 0), len(entry.game.phases) if entry else 0)
            game = Game(self.sc, bound.seats, longest, start=bound.state,
                        first_phase=first, symmetry=False, built=0, vote_states=_counted(bound))
            entry = _Shared(game, make_solver(game.ctx, self.limits, finite=game.finite), self._facts(bound, first))
            self.games[key] = entry
        game = entry.game
        while len(game.vars) < length:
            game.extend()
        if entry.fed > length:
            solver = make_solver(game.ctx, self.limits, finite=game.finite)
            _feed(solver, game, entry.facts, 0, length)
            return game, solver, False
        _feed(entry.solver, game, entry.facts, entry.fed, length)
        entry.fed = length
        return game, entry.solver, True

    def _facts(self, bound: BoundQuery, first: int) -> Windows | None:
        """The proved facts' windows, for a game that starts where the composition starts
        (from a state set by hand, a well-formed state's facts need not hold)."""
        from ..evaluate import initial_state
        from ..encode.induction import Windows

        start = initial_state(self.sc, bound.seats, bound.state.settings)
        if first != 0 or bound.state.key() != start.key():
            return None
        key = (bound.seats, tuple(sorted(bound.state.settings.items(), key=repr)))
        if key not in self.windows:
            self.windows[key] = Windows(self.sc, bound.seats, self.limits, bound.state.settings)
        return self.windows[key]


def _first(bound: BoundQuery) -> int:
    return bound.phases[0][0].index if bound.phases else bound.state.phase_index + 1


def _length(bound: BoundQuery) -> int:
    question = bound.query.open
    return len(bound.phases) + 2 * ((question.within if question is not None else None) or DEFAULT_WITHIN)


def _key(bound: BoundQuery) -> tuple:
    """Questions with one key are phases of one game: the same players, first phase and start."""
    return (bound.seats, _first(bound), bound.state.key(),
            tuple(sorted(bound.state.settings.items(), key=repr)), _counted(bound))


def _counted(bound: BoundQuery) -> bool:
    """A given phase has a counted vote: its game keeps the states at the votes."""
    return any(counted_votes(uses) for _, uses in bound.phases)


class _Shared:
    def __init__(self, game: Game, solver: z3.Solver, facts: Windows | None):
        self.game = game
        self.solver = solver
        self.facts = facts
        self.fed = 0  # phases in the solver


def _feed(solver: z3.Solver, game: Game, windows: Windows | None, start: int, end: int) -> None:
    """Phases start..end-1 of the game (and what comes before its first phase) into the solver."""
    from ..encode.induction import clean
    from ..encode.lemmas import implied

    if end > start:
        solver.add(game.constraints[game.marks[start - 1] if start > 0 else 0:game.marks[end - 1]])
        # Every open question asks only games the rules decide (induction.clean: no undefined
        # outcome, contradiction or overlap), and a solver holds exactly the phases its
        # questions search: stated here once, not per question, where Z3 rewrote and
        # bit-blasted it again at every check.
        solver.add([c for pv in game.vars[start:end] for c in clean(pv)])
    if windows is not None:
        solver.add(implied(game, windows, start, end))


def answer_open(scenario: Scenario, bound: BoundQuery, limits: Limits = LIMITS,
                reuse: Reuse | None = None) -> Answer:
    q = bound.query
    question = q.open
    if question is None:
        raise ValueError(f"query {q.name.text} asks no open question (`can …`, `must …`)")
    within = question.within or DEFAULT_WITHIN
    first, length = _first(bound), _length(bound)
    player = Player(scenario)
    reuse = reuse or Reuse(scenario, limits)
    try:
        game, solver, shared = reuse.solver_for(bound, first, length)
    except Unsupported as exc:
        return _answer(q, "inconclusive", f"the Z3 encoding does not support {exc} yet", [], game=None)
    if shared:
        solver.push()
    try:
        return _ask(scenario, bound, question, game, solver, length, within, player)
    finally:
        if shared:
            solver.pop()


def _ask(scenario: Scenario, bound: BoundQuery, question: OpenQuestion, game: Game, solver: z3.Solver,
         length: int, within: int, player: Player) -> Answer:
    q = bound.query
    given = bound.phases
    states = [bound.state]
    for t, (phase, uses) in enumerate(given):
        fixed = fix_choices(game, game.vars[t], _completed(player, states, phase, uses), scenario)
        if fixed is None:
            return _answer(q, "inconclusive", "a given choice has no counterpart in the encoding", [], game)
        solver.add(fixed)
        # The next phase's choices are completed from the states this one can lead to.
        states = [st for before in states for st, _ in player.play(before, phase, uses)[0]] or states
    goal = _goal(game, question, bound, length)
    assumed = assumptions(game, question, bound, len(given), length)
    solver.add(assumed)
    target = goal if question.mode == "can" else z3.Not(goal)
    # A `must` under an assumption may hold of no game at all: the solver is asked again
    # without the target to tell, so the target goes in a scope of its own (only then: a
    # question without one is asked exactly as before).
    vacuity = question.mode == "must" and bool(question.assuming)
    if vacuity:
        solver.push()
    solver.add(target)
    result = check(solver)
    if vacuity:
        solver.pop()
    rounds = f"{within} round{'s' if within != 1 else ''} after the given phases"
    games = "game the rules decide" + (" and the assumption allows" if question.assuming else "")
    if result.status == "unknown":
        return _answer(q, "inconclusive", f"the solver gave up ({result.reason})", [], game)
    if result.status == "unsat":
        verdict = "no" if question.mode == "can" else "yes"
        how = "no" if question.mode == "can" else "every"
        detail = (f"{how} {games} within {rounds} "
                  + ("reaches it" if question.mode == "can" else "meets it")
                  + "; longer games were not searched")
        # `must` of no game at all is true of nothing in particular: say so.
        if vacuity and check(solver).status == "unsat":
            detail += f" (vacuously: there is no {games} within {rounds})"
        return _answer(q, verdict, detail, [], game)
    model = model_of(result)
    phases = _choices(bound, game, model, length)
    replayed = _replay(scenario, bound, game, model, phases)
    # The interpreter has the last word: a game the solver found that does not reach the
    # goal (or, for `must`, does not miss it) when played, or whose choices break the
    # assumption, is an encoding bug, never a yes/no.
    if not replayed or any(_reached(scenario, question, bound, o) != (question.mode == "can")
                           for o in replayed) \
            or not respects(scenario, question, bound, phases[len(given):]):
        return _answer(q, "inconclusive", "the game the solver found does not replay to the "
                       "same result in the interpreter (an encoding bug; please report it)", [], game)
    verdict = "yes" if question.mode == "can" else "no"
    what = "a game that reaches it" if question.mode == "can" else "a game where it fails (counterexample)"
    return _answer(q, verdict, f"{what}, within {rounds}", replayed, game)


def _completed(player: Player, states: list[State], phase: Phase, uses: list[BoundUse]) -> list[BoundUse]:
    """The given choices with the acting players the query leaves out filled in, as the
    interpreter fills them from the state the phase starts in. Where the states the game can
    be in disagree on who that is, the player is left for the encoding to find."""
    versions = [player.complete(st, phase, uses) for st in states]
    first = versions[0]
    if all(v == first for v in versions[1:]):
        return first
    return [u if all(v[i] == u for v in versions) else
            BoundUse(u.ability, None, u.targets, u.values, u.vote, False, u.span)
            for i, u in enumerate(first)]


def _goal(game: Game, question: OpenQuestion, bound: BoundQuery, length: int) -> z3.BoolRef:
    """The goal over the game's first `length` phases."""
    states = game.states[:length + 1]
    if question.goal == "winner":
        sid = game.ids.sides.index(_side(question))
        return z3.Or([st.winner == sid for st in states[1:]])
    if question.goal == "nobody":
        # A winner, once set, is kept: nobody has won at the end means nobody won at all.
        return states[-1].winner == NONE
    seat = _seat(game.sc, question, bound)
    if question.goal == "stays":
        return states[-1].alive[seat]
    return z3.Not(states[-1].alive[seat])


def _reached(scenario: Scenario, question: OpenQuestion, bound: BoundQuery, outcome: Outcome) -> bool:
    """Whether a game the interpreter played meets the goal, read as _goal reads it."""
    if question.goal == "winner":
        return any(r.winner == _side(question) for r in outcome.reports)
    if question.goal == "nobody":
        return all(r.winner is None for r in outcome.reports)
    seat = _seat(scenario, question, bound)
    alive = outcome.state.alive[seat]
    return alive if question.goal == "stays" else not alive


def _side(question: OpenQuestion) -> str:
    """The side of a `winner` goal: the grammar always names one."""
    if question.side is None:
        raise ValueError(f"a `{question.goal}` goal names no side")
    return question.side.key


def _seat(scenario: Scenario, question: OpenQuestion, bound: BoundQuery) -> int:
    """The seat of a `stays`/`leaves` goal's player (the names were checked before the
    question is asked: query_names.py)."""
    from ..interpreter.bind import Binder

    seat = Binder(scenario, "<query>").seat(question.player, bound.seats) if question.player is not None else None
    if seat is None:
        raise ValueError(f"a `{question.goal}` goal names no seat of the game")
    return seat


def assumptions(game: Game, question: OpenQuestion, bound: BoundQuery, first: int, length: int) -> z3.BoolRef:
    """The question's `assuming { … }` over phases first..length-1 of the game: the phases
    searched after the given ones."""
    from ..interpreter.bind import Binder

    binder = Binder(game.sc, "<query>")
    parts = []
    for pv in game.vars[first:length]:
        for a in question.assuming:
            if a.kind == "vote_none":
                if pv.vote_kind is not None:
                    parts.append(pv.vote_kind == 0)
                continue
            by = binder.seat(a.by, bound.seats) if a.by is not None else None
            on = [s for s in (binder.seat(r, bound.seats) for r in a.on) if s is not None]  # checked: all
            if a.kind == "no_vote":
                if pv.vote_kind is not None:  # named alone, or among the tied
                    parts += [z3.Not(z3.Or(z3.And(pv.vote_kind == 1, pv.vote_target == s), tied(pv, s)))
                              for s in on]
                continue
            for u in pv.uses:
                if a.ability is None or u.ability.key != a.ability.key:  # `no ABILITY …` names one
                    continue
                made = [u.used]
                if by is not None:
                    made.append(z3.BoolVal(u.actor == by, game.ctx) if isinstance(u.actor, int)
                                else z3.BoolVal(False, game.ctx) if u.actor is None else u.actor == by)
                if on:
                    chosen = [z3.And(u.count > j, x == s) if u.count is not None else x == s
                              for j, x in enumerate(u.targets) for s in on]
                    made.append(z3.Or(chosen) if chosen else z3.BoolVal(False, game.ctx))
                parts.append(z3.Not(z3.And(made)))
    return z3.And(parts) if parts else z3.BoolVal(True, game.ctx)


def respects(scenario: Scenario, question: OpenQuestion, bound: BoundQuery,
             phases: Sequence[tuple[Phase, list[BoundUse]]]) -> bool:
    """Whether the choices of the phases searched (as the interpreter plays them) keep to the
    question's `assuming { … }`: read from the choices, as `assumptions` states it."""
    from ..interpreter.bind import Binder

    binder = Binder(scenario, "<query>")
    for _, uses in phases:
        for a in question.assuming:
            if a.kind == "vote_none":
                if any(u.ability is None and u.vote != "none" for u in uses):
                    return False
                continue
            by = binder.seat(a.by, bound.seats) if a.by is not None else None
            on = {binder.seat(r, bound.seats) for r in a.on}
            if a.kind == "no_vote":
                if any(u.ability is None and u.vote in ("player", "tie") and on & set(u.targets)
                       for u in uses):
                    return False
                continue
            if a.ability is not None and any(u.ability == a.ability.key and (by is None or u.actor == by)
                   and (not on or on & set(u.targets)) for u in uses):
                return False
    return True


def _choices(bound: BoundQuery, game: Game, model: z3.ModelRef,
             length: int | None = None) -> list[tuple[Phase, list[BoundUse]]]:
    """The phases of the solver's game with their choices: the given ones, then the model's."""
    phases: list[tuple[Phase, list[BoundUse]]] = []
    for t, pv in enumerate(game.vars[:length]):
        if t < len(bound.phases):
            phases.append(bound.phases[t])
            continue
        uses: list[BoundUse] = []
        for u in pv.uses:
            if not z3.is_true(model.eval(u.used, model_completion=True)):
                continue
            actor = None if u.actor is None else model.eval(u.actor, model_completion=True).as_long() \
                if not isinstance(u.actor, int) else u.actor
            count = model.eval(u.count, model_completion=True).as_long() if u.count is not None else 0
            targets = tuple(model.eval(x, model_completion=True).as_long() for x in u.targets[:count])
            values = []
            for ch in u.ability.choices:
                v = model.eval(u.values[ch.binds.key], model_completion=True).as_long()
                table = {"role": game.ids.roles, "side": game.ids.sides, "variant": game.ids.all_variants,
                         "option": game.ids.options}.get(ch.kind)
                values.append((ch.binds.key, table[v] if table is not None else v))
            uses.append(BoundUse(u.ability.key, actor, targets, tuple(values), explicit_actor=True))
        if pv.vote_kind is not None:
            kind = model.eval(pv.vote_kind, model_completion=True).as_long()
            if kind == 1:
                uses.append(BoundUse(None, None, (model.eval(pv.vote_target, model_completion=True).as_long(),),
                                     (), "player"))
            elif kind == 2:
                tied = tuple(sorted(model.eval(x, model_completion=True).as_long() for x in pv.tie))
                uses.append(BoundUse(None, None, tied, (), "tie"))
            elif kind == 0 and model.eval(game.states[t].winner, model_completion=True).as_long() == NONE:
                uses.append(BoundUse(None, None, (), (), "none"))
        phases.append((pv.phase, uses))
    return phases


def _replay(scenario: Scenario, bound: BoundQuery, game: Game, model: z3.ModelRef,
            phases: list[tuple[Phase, list[BoundUse]]]) -> list[Outcome]:
    replay = BoundQuery(bound.query, bound.state, bound.seats, phases)
    outcomes = Player(scenario).answer(replay).outcomes
    # A drawn tie (`tie random`) has an outcome per tied player: the solver's game is the
    # one with its players alive and gone.
    last = game.states[len(phases)]
    alive = [z3.is_true(model.eval(a, model_completion=True)) for a in last.alive]
    return [o for o in outcomes if list(o.state.alive) == alive][:1] or outcomes[:1]


def _answer(q: Query, verdict: str, detail: str, outcomes: Sequence[Outcome], game: Game | None) -> Answer:
    answer = Answer(q.name.text, q.label, verdict, list(outcomes), [], [])
    answer.detail = detail
    return answer
