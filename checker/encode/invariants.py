"""Invariants of the states games reach, found when a proof needs them.

A k-induction step (encode/induction.py) starts from any well-formed state, and most
well-formed states are no game's: a citizen playing for the mafia, a memory no ability
writes holding a player, two Killers where the composition has one. From such a state a
rule can apply that no game ever reaches, and the proof fails. The candidates below are what
the states of most games satisfy; Houdini's loop keeps the largest subset that every state a
game reaches with nobody winning satisfies: the game's own states up to the first generic
phase (every later phase is alike one of a cycle), then, from a free state at each position
of the cycle where they all hold, the state after it (drop what fails, until nothing does).
Nothing is written per scenario: the candidates are the same for every spec, and only what
the solver proves is assumed.

The questions the analyses ask are about games the rules decide (no hole, no clash, no
overlap on the way: induction.clean), and their proofs may assume what every state such a
game reaches satisfies. In them a win's readings never part (a reading is dropped only where
the readings disagree, which is a hole), so "every reading of win i is still followed" holds
there where it need not in every game. `find(clean=True)` proves the candidates over the
games in which no win's readings part (`unparted`): those include every game the rules
decide, and stating that one kind of hole absent costs the solver far less than all of them
(Houdini on night_of_mafia's ten players: 9.5M of solver work, against 28M with every hole
stated and 7.7M with none).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import z3

from .induction import PROOF_PHASES, Windows, alike_from, clean, no_win_holds, per_scenario, prove_absent, win_holds
from .phase_vars import NONE, PhaseVars
from .solver import Budget, Limits, ask, make_solver
from .state import SymState
from .terms import Events, View, count_of
from .unroll import Game
from .. import holes
from ..model import Scenario
from ..narrow import actor_roles, present
from ..vocabulary import sides_set


# Solver work the search for a composition's invariants may spend, in questions' resource
# limits: the candidates are a few hundred on the largest bundled spec, and each step
# question is a free-start phase of the whole game.
HOUDINI_WORK = 5


def lemma_term(lemma: tuple, game: Game, st: SymState) -> z3.BoolRef:
    """A candidate invariant of the states nobody has won:
    ("no-win",) no side's condition holds;
    ("no-win-unless-overlap",) none does unless two that no priority orders do (an overlap
        leaves the game going);
    ("no-open-win",) no condition of a win the rulebook leaves open holds;
    ("one-holder", a) at most one living player holds a's role;
    ("one-holder-unless", a, m) at most one player holds a's role and may still use or pass
        it on: alive, holding a card he has not played, gone but not in memory m (so that he
        may come back), or the actor of a pending `after` effect that converts (a Face Off
        the Matador plays gives his role to its target a day later; Constantine returns the
        dead, except those `unreturnable` holds);
    ("left-if-in", m, s) seat s is out while memory m holds it;
    ("reading", i) some reading of win i is still followed;
    ("all-readings", i) every reading of win i is still followed (in games the rules decide);
    ("alive", s) seat s is alive;
    ("undrawn", s) seat s holds no card it has not played;
    ("role", s, r) seat s holds role r;
    ("unmarked", m, s) seat s is not in memory m;
    ("side", s, r) a seat holding role r has r's side (or one it may choose);
    ("mutual-link", s) a link of seat s that carries an exit is returned by its partner, with
        the same kind (as `link together` makes it for two players);
    ("linked-same-side", s) seat s and the partner of such a link play for one side."""
    ctx = game.ctx
    if lemma[0] == "no-win":
        holds = list(win_holds(game, st).values())
        return z3.Not(z3.Or(holds)) if holds else z3.BoolVal(True, ctx)
    if lemma[0] == "no-win-unless-overlap":
        return no_win_holds(game, st)
    if lemma[0] == "no-open-win":
        view = View(game, st, Events(ctx), {"__holes": []})
        return z3.Not(z3.Or([game.compiler.value(w.cond, view) for w in game.sc.open_wins]))
    if lemma[0] == "alive":
        return st.alive[lemma[1]]
    if lemma[0] == "undrawn":
        return z3.Not(st.drawn[lemma[1]])
    if lemma[0] == "role":
        return st.roles[lemma[1]] == game.ids.roles.index(lemma[2])
    if lemma[0] == "unmarked":
        return z3.Not(st.memories_set[lemma[1]][lemma[2]])
    if lemma[0] == "reading":
        return z3.Or([x for (i, _), x in st.readings.items() if i == lemma[1]])
    if lemma[0] == "all-readings":
        return z3.And([x for (i, _), x in st.readings.items() if i == lemma[1]])
    if lemma[0] == "mutual-link":
        s, n, none = lemma[1], game.n, game.I(NONE)
        kinds = present(st.link_kinds, "the links' kinds")
        kind, partner = kinds[s], st.links[s]
        back = [z3.And(partner == t, st.links[t] == s, kinds[t] == kind)
                for t in range(n) if t != s]
        return z3.Implies(kind != none, z3.Or(back) if back else z3.BoolVal(False, ctx))
    if lemma[0] == "linked-same-side":
        s, none = lemma[1], game.I(NONE)
        kind, partner = present(st.link_kinds, "the links' kinds")[s], st.links[s]
        same = [z3.And(partner == t, st.sides[t] == st.sides[s]) for t in range(game.n) if t != s]
        return z3.Implies(kind != none, z3.Or(same) if same else z3.BoolVal(False, ctx))
    if lemma[0] == "left-if-in":
        return z3.Implies(st.memories_set[lemma[1]][lemma[2]], z3.Not(st.alive[lemma[2]]))
    if lemma[0] == "one-holder-unless":
        holds = _holding(game, st, lemma[1])
        kept = st.memories_set[lemma[2]]
        may = [z3.And(holds[s], z3.Or(st.alive[s], z3.Not(kept[s]), st.drawn[s])) for s in range(game.n)]
        converting = game.converting_delays()
        passing = [z3.And(holds[key], count > 0) for (owner, index, key), count in sorted(st.delayed_counts.items())
                   if isinstance(key, int) and key != NONE and (owner, index) in converting]
        return count_of(may + passing, ctx) <= 1
    if lemma[0] == "one-holder":
        holds = _holding(game, st, lemma[1])
        return count_of([z3.And(st.alive[s], holds[s]) for s in range(game.n)], ctx) <= 1
    _, s, r = lemma
    role = game.sc.role_by_key[r]
    sides = [role.side] if role.side is not None else list(role.side_choices)
    sides = [x for x in dict.fromkeys(sides + named_sides(game.sc)) if x in game.sc.side_by_key]
    ids = game.ids
    return z3.Implies(st.roles[s] == ids.roles.index(r),
                      z3.Or([st.sides[s] == ids.value("side", x) for x in sides]))


@per_scenario
def named_sides(scenario: Scenario) -> list[str]:
    """The sides effects put players on by name (`set side = lovers`), which a player of any
    role may come to play for."""
    return sorted({x for a in scenario.abilities for x in sides_set(a.effects)}
                  | {x for rule in scenario.rules for x in sides_set(rule.then)})


def _holding(game: Game, st: SymState, ability_key: str) -> list:
    """Per seat: whether it holds one of the roles that make the ability's actor."""
    ability = game.sc.ability_by_key[ability_key]
    wanted = [game.ids.roles.index(r.key) for r in actor_roles(present(ability.actor, "a held ability's actor"))]
    return [z3.Or([st.roles[s] == r for r in wanted]) for s in range(game.n)]


def one_holder(lemmas: list, ability_key: str) -> bool:
    """Whether the lemmas say that at most one living player holds the ability's role: a
    "one-holder" lemma, or a "one-holder-unless" one (the living are among those it counts)."""
    return any(lm[:2] in (("one-holder", ability_key), ("one-holder-unless", ability_key)) for lm in lemmas)


def holder_candidates(game: Game) -> list[tuple]:
    """Where a blocking ability the encoding follows for one user a phase is not proved to
    have one living holder: what could make it so, to be proved given the invariants found
    (find): one holder among those who may still hold the role or pass it on, for each
    memory that may keep the dead from coming back, and who is out while in a memory."""
    memories = sorted(game.states[0].memories_set)
    out: list[tuple] = [("one-holder", a.key) for a in crowded(game)]
    out += [("one-holder-unless", a.key, m) for a in crowded(game) for m in memories]
    out += [("left-if-in", m, s) for m in memories for s in range(game.n)]
    return out


def candidate_lemmas(game: Game) -> list[tuple]:
    """What the states of most games satisfy, to be proved or dropped (Proof.houdini). A
    free state can break them (everybody gone with nobody declared the winner, a citizen on
    the mafia's side) and then has no way forward that a reachable state would have."""
    out: list[tuple] = [("no-win",), ("no-win-unless-overlap",)] if game.sc.wins else []
    out += [("no-open-win",)] if game.sc.open_wins else []
    out += [("one-holder", a.key) for a in crowded(game)]
    out += [("reading", i) for i in _read_wins(game)]
    out += [("alive", s) for s in range(game.n)]  # a player no rule can remove
    out += [("unmarked", m, s) for m in sorted(game.states[0].memories_set) for s in range(game.n)]
    for s in range(game.n):
        out += [("side", s, r) for r in sorted(present(game.roles_of, "the roles a seat can hold")[s])]
    if game.links_carry_exits:
        out += [("mutual-link", s) for s in range(game.n)] + [("linked-same-side", s) for s in range(game.n)]
    return out


def _read_wins(game: Game) -> list[int]:
    """The wins (by index) checked at several moments, each with readings to follow."""
    return sorted({i for i, _ in game.states[0].readings})


def step_candidates(game: Game, decided: bool = False) -> list[tuple]:
    """The candidates of the invariants the proofs for every length assume (`find`): those of
    candidate_lemmas, and who keeps his role and who never draws a card. godfather_jack's
    Beautiful Mind clashes with the life glass only where Jack plays the card, which he never
    draws: with these, induction rules that out in one phase, where without them the step
    reached it from a state no game reaches, four rounds deep. (The progress proof keeps
    candidate_lemmas alone: with these too, its questions on night_of_mafia's twelve
    players went past the resource limit.) `decided`: the candidates of the states of games
    the rules decide (find's `clean`), which add that a win's readings never part."""
    out = candidate_lemmas(game)
    if decided:
        out += [("all-readings", i) for i in _read_wins(game)]
    if any(a.is_card for a in game.sc.abilities):
        out += [("undrawn", s) for s in range(game.n)]
    roles_of = present(game.roles_of, "the roles a seat can hold")
    out += [("role", s, r) for s in range(game.n) for r in sorted(roles_of[s])]
    return out


def crowded(game: Game) -> list:
    """The blocking abilities of which the game lets only one player a phase make a use
    (Game.restricted): where at most one living player holds each (a "one-holder" lemma),
    nothing is left out."""
    return sorted({a.key: a for pv in game.vars for a in pv.crowded}.values(), key=lambda a: a.key)


class Invariants:
    """The candidates proved for one composition (`lemmas`), or why none could be (`failed`:
    the search spent its budget of solver work, or the game is too short to reach the first
    generic phase)."""

    def __init__(self, lemmas: list, failed: str | None = None, given_up: list | None = None):
        self.lemmas = lemmas
        self.failed = failed
        self.given_up = given_up or []  # candidates dropped because the solver gave up on them

    def at(self, game: Game, st: SymState) -> list:
        """The invariants over a state of `game` (which nobody has won)."""
        return [lemma_term(lm, game, st) for lm in self.lemmas]


def find(enc: Any, budget: Budget | None = None, clean: bool = False) -> Invariants:
    """The invariants of the encoding's composition, found once and kept on its one game
    (every depth of it shares them, as the free-start windows). `budget`: the solver work
    the search may spend, if not HOUDINI_WORK questions' worth (charged there). `clean`: the
    invariants of the states games the rules decide reach (every phase before clean)."""
    from .induction import windows_of

    holder = getattr(enc, "full", enc)
    kept = getattr(holder, "_invariants", None)
    if kept is None:
        kept = holder._invariants = {}
    if clean not in kept:
        windows = windows_of(enc)
        found = _houdini(enc, windows, budget, clean)
        if budget is not None and found.failed is not None:
            return found  # a caller's smaller budget: another may still find them with its own
        if found.failed is None and any(not one_holder(found.lemmas, a.key) for a in crowded(enc.game)):
            more = _houdini(enc, windows, budget, clean, holder_candidates(enc.game), found.lemmas)
            if more.failed is None:
                found = Invariants(found.lemmas + [lm for lm in more.lemmas if lm not in found.lemmas],
                                   given_up=found.given_up + more.given_up)
        kept[clean] = found
    return kept[clean]


def _houdini(enc: Any, windows: Windows, budget: Budget | None, clean_games: bool = False,
             candidates: list | None = None, proved: list | None = None) -> Invariants:
    """Houdini's loop over `candidates` (step_candidates by default), each step assuming
    also the invariants already `proved` (inductive on their own, so the union of both is)."""
    g = alike_from(enc.sc, enc.game.seats)
    real = enc.deepest()
    if g is None or len(real.game.states) <= g:
        return Invariants([], "the game is not encoded up to the phase from which phases are all alike")
    game = real.game
    todo = step_candidates(game, decided=clean_games) if candidates is None else list(candidates)
    proved = proved or []
    given_up: list = []
    budget = budget if budget is not None else Budget(HOUDINI_WORK * enc.options.rlimit)
    # The game's own states, each asked of the phases up to it only (one solver, given the
    # constraints a phase at a time): the model's broken candidates are dropped.
    solver = make_solver(game.ctx, Limits(enc.options.timeout, enc.options.rlimit), finite=game.finite)
    added = 0
    for t in range(g + 1):
        upto = game.marks[t - 1] if t > 0 else game.start_constraints
        solver.add(*game.constraints[added:upto])
        if clean_games and t > 0:
            solver.add(*unparted(game.vars[t - 1]))  # this solver asks of the real game alone
        added = upto
        st = game.states[t]
        todo, unsettled = keep_holding(solver, todo, game, st, [st.winner == NONE], budget)
        given_up += unsettled
    period = len(enc.sc.phases.cycle)
    changed = True
    while changed and todo:
        changed = False
        for j in range(g, g + period):
            game, solver = windows.get(j, 1)
            before, after = game.states[0], game.states[1]
            assumed = [before.winner == NONE, after.winner == NONE]
            assumed += [lemma_term(lm, game, before) for lm in proved + todo]
            # The window's solver is shared: the phase decided is stated in a scope of its
            # own, once for all of this step's questions (not with each of them).
            with _stating(solver, unparted(game.vars[0]) if clean_games else []):
                kept, unsettled = keep_holding(solver, todo, game, after, assumed, budget)
            given_up += unsettled
            changed = changed or len(kept) < len(todo)
            todo = kept
    if budget.exhausted:
        return Invariants([], "the search for invariants spent its budget of solver work")
    return Invariants(todo, given_up=given_up)


@contextlib.contextmanager
def _stating(solver: z3.Solver, facts: list) -> Iterator[None]:
    """The facts added to the solver while inside, in a scope of their own (none: no scope)."""
    if not facts:
        yield
        return
    solver.push()
    solver.add(*facts)
    try:
        yield
    finally:
        solver.pop()


def unparted(pv: PhaseVars) -> list:
    """No win's readings part in the phase (no READINGS hole): implied by induction.clean."""
    return [z3.Not(c) for c, hole in pv.undefined if hole.kind == holes.READINGS]


def keep_holding(solver: z3.Solver, todo: list, game: Game, st: SymState, facts: list,
                 budget: Budget | None = None) -> tuple[list, list]:
    """The candidates of todo that hold in st whenever the facts do (those false in a model
    are dropped, one model at a time), and those dropped because the solver gave up on them.

    A question the solver gives up on is asked again of each half of its candidates, down to
    one: a large disjunction of broken invariants can be far harder to refute than its parts.
    Dropping a candidate is always sound (Houdini's loop then asks again without assuming
    it); keeping one is only ever on the solver's proof. With a `budget`, its work is charged
    there, and once it is spent every candidate left unproved is dropped."""
    order = {lm: i for i, lm in enumerate(todo)}
    kept: list = []
    given_up: list = []
    pending = [list(todo)]
    while pending:
        group = pending.pop()
        while group:
            terms = [lemma_term(lm, game, st) for lm in group]
            goal = (*facts, z3.Or([z3.Not(x) for x in terms]))
            r = budget.ask(solver, *goal) if budget is not None else ask(solver, *goal)
            if r.status == "unsat":
                kept += group
                break
            if r.status == "unknown":
                if len(group) == 1:
                    given_up += group
                else:
                    half = len(group) // 2
                    pending += [group[half:], group[:half]]
                break
            # A state the facts allow: every candidate false in it is broken, in any group.
            def true_in(lms: list, model: z3.ModelRef = r.model) -> list:
                return [lm for lm in lms if z3.is_true(model.eval(lemma_term(lm, game, st), model_completion=True))]
            group = true_in(group)
            pending = [true_in(g) for g in pending]
    return sorted(kept, key=order.__getitem__), sorted(given_up, key=order.__getitem__)


def strengthening(enc: Any, budget: Budget | None = None,
                  clean: bool = True) -> Callable[[], Callable[[Game, SymState], list] | None]:
    """For induction.prove_absent's `invariants`: the composition's invariants, found on the
    first call (within `budget`, if given), or None when none could be. `clean` (as find's):
    for a proof whose windows are decided before the event (prove_absent's clean_before),
    which the games its base case searched are too."""
    def get() -> Callable[[Game, SymState], list] | None:
        inv = find(enc, budget, clean)
        return inv.at if inv.failed is None and inv.lemmas else None
    return get


def proved_never(enc: Any, sid: int, kmax: int = PROOF_PHASES) -> tuple[str, int | None, str | None]:
    """Whether side `sid` can never win in a game the rules decide, of any length, given
    that the bounded search found no such game within the encoding's L phases.
    As induction.prove_absent: ("proved", k, None), ("unknown", None, reason), or why not."""
    def event(game: Game, i: int) -> list:
        return [game.states[i + 1].winner == sid] + clean(game.vars[i])
    return prove_absent(enc, event, kmax, what="the win", invariants=strengthening(enc))
