"""Open what-if questions, asked of the encoding: `can winner jack within 2` (is there a game,
after the query's phases, that reaches the goal?) and `must stays leon` (does every game?).

The answer is `yes` or `no` within the bound, each shown with a game where one exists (a
game that reaches the goal, or a counterexample), replayed through the interpreter; or
`inconclusive` when the solver gives up. Only games the rules fully decide count.
"""

from __future__ import annotations

import z3

from ..encode.solver import Limits, check, make_solver
from ..encode.terms import Unsupported
from ..encode.unroll import NONE, Game
from ..interpreter.bind import BoundQuery, BoundUse
from ..interpreter.play import Answer, Player
from ..model import Scenario
from .differential import fix_choices

DEFAULT_WITHIN = 2


def answer_open(scenario: Scenario, bound: BoundQuery, limits: Limits = Limits(timeout=120)) -> Answer:
    q = bound.query
    question = q.open
    within = question.within or DEFAULT_WITHIN
    given = bound.phases
    first = given[0][0].index if given else bound.state.phase_index + 1
    player = Player(scenario)
    try:
        game = Game(scenario, bound.seats, len(given) + 2 * within, start=bound.state,
                    first_phase=first, symmetry=False)
    except Unsupported as exc:
        return _answer(q, "inconclusive", f"the Z3 encoding does not support {exc} yet", [], game=None)
    solver = make_solver(game.ctx, limits, finite=game.finite)
    solver.add(game.constraints)
    states = [bound.state]
    for t, (phase, uses) in enumerate(given):
        fixed = fix_choices(game, game.vars[t], _completed(player, states, phase, uses), scenario)
        if fixed is None:
            return _answer(q, "inconclusive", "a given choice has no counterpart in the encoding", [], game)
        solver.add(fixed)
        # The next phase's choices are completed from the states this one can lead to.
        states = [st for before in states for st, _ in player.play(before, phase, uses)[0]] or states
    goal = _goal(game, question, bound)
    clean = []
    for pv in game.vars:
        clean += [z3.Not(c) for c, _ in pv.undefined] + [z3.Not(c) for c, *_ in pv.contradictions]
        clean.append(z3.Not(pv.overlap))
    solver.add(z3.And(clean))
    target = goal if question.mode == "can" else z3.Not(goal)
    solver.add(target)
    result = check(solver)
    rounds = f"{within} round{'s' if within != 1 else ''} after the given phases"
    if result.status == "unknown":
        return _answer(q, "inconclusive", f"the solver gave up ({result.reason})", [], game)
    if result.status == "unsat":
        verdict = "no" if question.mode == "can" else "yes"
        how = "no game" if question.mode == "can" else "every game"
        return _answer(q, verdict, f"{how} the rules decide within {rounds} "
                       + ("reaches it" if question.mode == "can" else "meets it")
                       + "; longer games were not searched", [], game)
    replayed = _replay(scenario, bound, game, result.model)
    # The interpreter has the last word: a game the solver found that does not reach the
    # goal (or, for `must`, does not miss it) when played is an encoding bug, never a yes/no.
    if not replayed or any(_reached(scenario, question, bound, o) != (question.mode == "can")
                           for o in replayed):
        return _answer(q, "inconclusive", "the game the solver found does not replay to the "
                       "same result in the interpreter (an encoding bug; please report it)", [], game)
    verdict = "yes" if question.mode == "can" else "no"
    what = "a game that reaches it" if question.mode == "can" else "a game where it fails (counterexample)"
    return _answer(q, verdict, f"{what}, within {rounds}", replayed, game)


def _completed(player: Player, states: list, phase, uses: list[BoundUse]) -> list[BoundUse]:
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


def _goal(game: Game, question, bound) -> z3.BoolRef:
    from ..interpreter.bind import Binder

    if question.goal == "winner":
        sid = game.ids.sides.index(question.side.key)
        return z3.Or([st["winner"] == sid for st in game.states[1:]])
    if question.goal == "nobody":
        # A winner, once set, is kept: nobody has won at the end means nobody won at all.
        return game.states[-1]["winner"] == NONE
    seat = Binder(game.sc, "<query>").seat(question.player, bound.seats)
    if question.goal == "stays":
        return game.states[-1]["alive"][seat]
    return z3.Not(game.states[-1]["alive"][seat])


def _reached(scenario: Scenario, question, bound: BoundQuery, outcome) -> bool:
    """Whether a game the interpreter played meets the goal, read as _goal reads it."""
    from ..interpreter.bind import Binder

    if question.goal == "winner":
        return any(r.winner == question.side.key for r in outcome.reports)
    if question.goal == "nobody":
        return all(r.winner is None for r in outcome.reports)
    seat = Binder(scenario, "<query>").seat(question.player, bound.seats)
    alive = outcome.state.alive[seat]
    return alive if question.goal == "stays" else not alive


def _replay(scenario, bound: BoundQuery, game: Game, model) -> list:
    phases = []
    for t, pv in enumerate(game.vars):
        if t < len(bound.phases):
            phases.append(bound.phases[t])
            continue
        uses = []
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
            elif kind == 0 and model.eval(game.states[t]["winner"], model_completion=True).as_long() == NONE:
                uses.append(BoundUse(None, None, (), (), "none"))
        phases.append((pv.phase, uses))
    replay = BoundQuery(bound.query, bound.state, bound.seats, phases)
    return Player(scenario).answer(replay).outcomes[:1]


def _answer(q, verdict: str, detail: str, outcomes, game) -> Answer:
    answer = Answer(q.name.text, q.label, verdict, list(outcomes), [], [])
    answer.detail = detail
    return answer
