"""Playing phases: a night, a day (its actions, the vote, what follows), win checks, and the
bookkeeping between phases (limits used, triggers pending, delayed effects)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from .. import holes
from .. import ast
from ..ast import AnyEffect
from ..evaluate import Env, EvalError, Evaluator, State, Value
from ..holes import Hole
from ..model import Ability, Scenario, TieRule
from ..narrow import effect_name, present
from ..phases import Phase, matches, use_moment
from ..vocabulary import flat
from . import obligations
from .bind import BoundQuery, BoundUse
from .legal import (
    Problem,
    ability_of,
    acting_team,
    check,
    default_actor,
    phase_choices,
    pending_for,
    seat_name,
    team_decider,
    use_key,
)
from .resolution import CLOSING_EVENTS, Attack, Report, Resolver, Scratch, Source
from .tally import count_problem, tally_problem, vote_total
from .ties import pick_problem, tie_results

MAX_BRANCHES = 256

# A state a phase can leave, with the report of what happened in it.
Played = tuple[State, Report]


@dataclass
class Outcome:
    state: State
    reports: list[Report] = field(default_factory=list)

    @property
    def winner(self) -> str | None:
        return self.reports[-1].winner if self.reports else None

    @property
    def holes(self) -> list[Hole]:
        return [h for r in self.reports for h in r.holes]


@dataclass
class Answer:
    name: str
    label: str | None
    # determined, ambiguous, undefined, contradiction, illegal (verdict_of); rejected (a
    # pre-start check stops the game);
    # yes, no, inconclusive (open questions)
    verdict: str
    outcomes: list[Outcome]
    problems: list[Problem]
    phases: list[Phase]
    detail: str | None = None  # for open questions: what the answer rests on
    prestart: tuple = ()  # the pre-start checks the seating failed (prestart.Failed)

    @property
    def rules(self) -> list[str]:
        ids: dict[str, None] = {}
        for p in self.problems:
            ids.update(dict.fromkeys(p.rules))
        for o in self.outcomes:
            for r in o.reports:
                ids.update(dict.fromkeys(r.cites))
        return list(ids)


def verdict_of(outcomes: list[Outcome], problems: list[Problem]) -> str:
    """illegal; contradiction (two rules conclude opposite things: an outcome follows each);
    undefined or ambiguous (a hole, with one outcome or several); ambiguous (several outcomes
    the rules allow, by the resolution order or a drawn tie); determined."""
    if any(not p.hole for p in problems):
        return "illegal"
    if any(h.kind == holes.CONTRADICTION for o in outcomes for h in o.holes):
        return "contradiction"
    if problems or any(o.holes for o in outcomes):
        return "undefined" if len(outcomes) <= 1 else "ambiguous"
    return "determined" if len(outcomes) == 1 else "ambiguous"


class Player:
    """Plays phases of one scenario."""

    def __init__(self, scenario: Scenario):
        self.sc = scenario

    # -------------------------------------------------------------- a whole query

    def answer(self, bound: BoundQuery) -> Answer:
        q = bound.query
        outcomes = [Outcome(bound.state)]
        problems: list[Problem] = []
        phases = [p for p, _ in bound.phases]
        for phase, uses in bound.phases:
            following = []
            refused: list[Problem] = []
            for outcome in outcomes:
                if outcome.winner is not None:
                    following.append(outcome)
                    continue
                results, found = self.play(outcome.state, phase, uses)
                if any(not p.hole for p in found):
                    # A move the rules refuse in one reading of an earlier choice they left
                    # open (an order, a drawn tie) ends that reading only: the game goes on in
                    # the readings where every move is legal, as in the encoding, where the
                    # order is one more choice of the game. Illegal when no reading is left.
                    refused.extend(p for p in found if p not in refused)
                    continue
                problems.extend(p for p in found if p not in problems)
                branches = _distinct([Outcome(state, outcome.reports + [report]) for state, report in results])
                for branch in branches:
                    branch.reports[-1].readings = len(branches)
                following += branches
            if not following:
                return Answer(q.name.text, q.label, "illegal", [],
                              problems + [p for p in refused if p not in problems], phases)
            outcomes = _distinct(following)[:MAX_BRANCHES]
        return Answer(q.name.text, q.label, verdict_of(outcomes, problems), outcomes, problems, phases)

    # -------------------------------------------------------------- one phase

    def play(self, state: State, phase: Phase, uses: list[BoundUse]
             ) -> tuple[list[tuple[State, Report]], list[Problem]]:
        state = state.clone()
        state.phase_index = phase.index
        state.events = frozenset()
        if phase.kind in ("day", "night"):
            state.round = phase.number
        uses = self.complete(state, phase, uses)
        problems = self._problems(state, phase, uses)
        if any(not p.hole for p in problems):
            return [], problems
        # A use nobody may decide (a team whose leaders have left, with no fallback) is a
        # hole, reported above, and takes no part in the phase.
        choices = phase_choices(uses)
        uses = [u for u in uses if (u.actor is not None or not self._needs_actor(u))
                and not self._leaderless(state, u, choices)]
        votes = [u for u in uses if u.ability is None]
        actions = [u for u in uses if u.ability is not None]
        extra = self._due_effects(state, phase)
        # An ability used only on its trigger (`on leave immediately`, `on voted immediately`)
        # acts in the resolution where its trigger happens: by day, the actions before the
        # vote, the vote, or the actions after it; until then it waits.
        waiting = [u for u in actions if self._on_trigger_only(u, phase)]
        if phase.is_night:
            results = self._resolve(state, phase, None, actions, extra)
        else:
            rest = [u for u in actions if u not in waiting]
            before = [u for u in rest if self._moment(u, phase) == "before"]
            after = [u for u in rest if self._moment(u, phase) == "after"]
            cards = [u for u in rest if self._moment(u, phase) == "vote"]
            start = state.clone()  # who may break a tie is judged at the start of the day
            results = self._resolve(state, phase, "before", before + waiting, extra)
            results = self._then(results, lambda st, rep: self._vote(
                st, phase, votes, rep, cards + _still_waiting(waiting, rep), start))
            results = self._then(results, lambda st, rep: self._resolve(
                st, phase, "after", after + _still_waiting(waiting, rep), [], rep))
        refused = [Problem(*r.refused) for _, r in results if r.refused is not None]
        if refused:
            # A counted vote the state at the vote cannot give (too many votes for the living,
            # or too few for the exit the rules require) leaves no outcome where it holds.
            results = [(st, r) for st, r in results if r.refused is None]
            if not results:
                return [], problems + list(dict.fromkeys(refused))
        results, unmet = self._owed_on_trigger(state, phase, uses, results)
        if unmet:
            return [], problems + unmet
        out = []
        for st, report in results:
            for u in _still_waiting(waiting, report):
                report.cancelled.append(f"{ability_of(self.sc, u).display}: "
                                        "its trigger did not happen")
            report.holes.extend(p.gap for p in problems if p.gap is not None)
            self._bookkeep(st, phase, actions, report)
            out.extend(self._check_wins(st, phase, report))
        return out, problems

    def _owed_on_trigger(self, state: State, phase: Phase, uses: list[BoundUse], results: list[Played]
                         ) -> tuple[list[Played], list[Problem]]:
        """The outcomes in which no obligation on a trigger is left unmet (a mandatory ability
        that acts at once on its trigger is owed where the trigger happens); when every outcome
        leaves one unmet, what they leave unmet."""
        if not any(a.mandatory for a in self.sc.abilities):
            return results, []
        voted = {t for u in uses if u.ability is None and u.vote == "player" for t in u.targets}
        kept: list[Played] = []
        unmet: list[Problem] = []
        for st, report in results:
            found = obligations.unmet_on_trigger(self.sc, state, phase, uses, report.triggered,
                                                 state.drawn | voted, lambda a: self._moment_of(a, phase))
            if found:
                unmet.extend(p for p in found if p not in unmet)
            else:
                kept.append((st, report))
        return kept, ([] if kept else unmet)

    def _then(self, results: list[Played], step: Callable[[State, Report], list[Played]]) -> list[Played]:
        out = []
        for st, rep in results:
            out.extend(step(st, rep))
        return out

    def _moment(self, u: BoundUse, phase: Phase) -> str | None:
        return use_moment(ability_of(self.sc, u), phase, u.moment)

    def _moment_of(self, ability: Ability, phase: Phase) -> str | None:
        return use_moment(ability, phase)

    def _on_trigger_only(self, u: BoundUse, phase: Phase) -> bool:
        """A use of an ability that acts only when its trigger happens, in this phase."""
        ability = ability_of(self.sc, u)
        return not ability.is_card and any(t.timing == "immediately" for t in ability.triggers) \
            and not any(r.phase.key == phase.kind for r in ability.phases)

    def _leaderless(self, state: State, u: BoundUse, choices: frozenset) -> bool:
        if u.ability is None:
            return False
        ability = self.sc.ability_by_key[u.ability]
        if ability.actor is None or ability.actor.kind != "team":
            return False
        return team_decider(self.sc, state, acting_team(self.sc, ability), choices)[0] is None

    def _needs_actor(self, u: BoundUse) -> bool:
        if u.ability is None:
            return False
        actor = self.sc.ability_by_key[u.ability].actor
        return actor is not None and actor.kind != "moderator"

    def complete(self, state: State, phase: Phase, uses: list[BoundUse]) -> list[BoundUse]:
        """Fill in the acting player where the query leaves it out, and add the moderator's
        mandatory target-less abilities for this phase."""
        out = []
        voted = {t for u in uses if u.ability is None and u.vote == "player" for t in u.targets}
        drawn = state.drawn | voted
        choices = phase_choices(uses)
        for u in uses:
            if u.ability is not None and u.actor is None:
                ability = self.sc.ability_by_key[u.ability]
                actor, _ = default_actor(self.sc, state, ability, phase, drawn, choices)
                u = BoundUse(u.ability, actor, u.targets, u.values, u.vote, False, u.span, moment=u.moment)
            out.append(u)
        given = {u.ability for u in out}
        for ability in self.sc.abilities:
            if ability.key in given or ability.target_count is not None:
                continue
            mandatory = any(c.keyword == "mandatory" for c in ability.clauses)
            if mandatory and ability.actor is not None and ability.actor.kind == "moderator" \
                    and any(matches(r, phase, r.moment) for r in ability.phases):
                out.append(BoundUse(ability.key, None, (), ()))
        return out

    def _problems(self, state: State, phase: Phase, uses: list[BoundUse]) -> list[Problem]:
        problems: list[Problem] = []
        # Who may play a card: those holding one, and today's voted player, who draws one
        # at the vote (the resolution checks that the draw happened).
        voted = {t for u in uses if u.ability is None and u.vote == "player" for t in u.targets}
        drawn = state.drawn | voted
        choices = phase_choices(uses)
        for u in uses:
            if u.ability is None:
                continue
            ability = self.sc.ability_by_key[u.ability]
            if u.actor is None and self._needs_actor(u):
                _, problem = default_actor(self.sc, state, ability, phase, drawn, choices)
                if problem:
                    problems.append(problem)
                continue
            immediate = self._can_trigger_now(ability, u, uses, state)
            problems.extend(check(self.sc, state, phase, self._moment(u, phase) if phase.is_day else None,
                                  u, [x for x in uses if x.ability is not None],
                                  triggered_now=immediate, drawn=drawn))
        problems.extend(obligations.missing(
            self.sc, state, phase, uses, drawn, lambda a: self._moment_of(a, phase),
            lambda a, u, us: self._can_trigger_now(a, u, us, state)))
        votes = [u for u in uses if u.ability is None]
        day = self.sc.day
        if not votes and phase.kind == "day" and day is not None and day.vote is not None \
                and day.exit_mode == "required":
            cites = tuple(r.id for r in day.vote_cites) + tuple(r.id for r in day.cites)
            problems.append(Problem("the rules require a vote exit each day: say whom the vote "
                                    "removes (`vote P`, or `vote tie P, Q`)", cites))
        if len(votes) > 1:
            problems.append(Problem("a day has one vote result"))
        if votes and phase.is_night:
            problems.append(Problem("there is no vote at night"))
        elif votes and phase.kind != "day":
            problems.append(Problem(f"there is no vote on the {phase}: votes are held on the main days"))
        elif votes and self.sc.day is not None:
            day = self.sc.day
            cites = tuple(r.id for r in day.vote_cites) + tuple(r.id for r in day.cites)
            if votes[0].vote == "none" and day.exit_mode == "required":
                problems.append(Problem("the rules require a vote exit each day", cites))
            elif votes[0].vote == "tie":
                vote = votes[0]
                rule = day.tie_rule or TieRule("undecided")
                why = pick_problem(rule, vote.targets, vote.pick, vote.retie)
                if why:
                    problems.append(Problem(why, cites))
                elif day.exit_mode == "required" and not any(
                        r.out or r.hole for r in tie_results(rule, state, vote.targets, "",
                                                             vote.pick, vote.retie)):
                    # A tie that removes nobody is a day with no exit, which the rules forbid.
                    problems.append(Problem("the rules require a vote exit each day, and this "
                                            f"tie removes nobody (`tie {rule.kind}`)", cites))
            for seat in votes[0].targets:
                refusal, rule_ids = self._candidate_problem(state, phase, seat)
                if refusal:
                    problems.append(Problem(refusal, rule_ids))
            short = tally_problem(self.sc, state, votes[0])
            if short:
                problems.append(Problem(short, cites))
            wrong = count_problem(votes[0], lambda s: seat_name(self.sc, state, s))
            if wrong:
                problems.append(Problem(wrong, tuple(dict.fromkeys(cites))))
        return problems

    def _can_trigger_now(self, ability: Ability, u: BoundUse, uses: list[BoundUse],
                         state: State | None = None) -> bool:
        """Whether this phase's other choices can trigger an `immediately` ability: an attack
        of the trigger's kind aimed at its user, or (for `on leave`) anything that can remove
        the user: an attack on anyone, the vote on him, or (when his link carries an exit) a
        vote exit of anyone. Without a possible trigger the choice is illegal."""
        follows = state.link_kinds.get(u.actor) if state is not None and u.actor is not None else None
        for t in ability.triggers:
            if t.timing != "immediately":
                continue
            kinds = {n.key for n in t.by}
            for other in uses:
                if other is u or other.ability is None:
                    # A tie votes out one of the tied (`tie random`) or each (`tie all_leave`):
                    # the use lapses where it sends out another.
                    sends_out = other.vote == "player" or (
                        other.vote == "tie" and self.sc.day is not None
                        and self.sc.day.tie_rule is not None and self.sc.day.tie_rule.may_remove)
                    if t.event.key == "leave" and other.ability is None and u.actor in other.targets \
                            and (not kinds or "vote" in kinds):
                        return True
                    if t.event.key == "leave" and other.ability is None and sends_out and follows \
                            and (not kinds or follows in kinds):
                        return True
                    if t.event.key == "voted" and other.ability is None and sends_out \
                            and u.actor in other.targets:
                        return True
                    continue
                effects = self.sc.ability_by_key[other.ability].effects
                if t.event.key == "targeted" and u.actor in other.targets \
                        and (not kinds or other.ability in kinds):
                    return True
                if t.event.key == "revived" and any(e.verb == "revive" for e in flat(effects)):
                    return True
                hits = any(e.verb == "kill" and (not kinds or effect_name(e).key in kinds)
                           for e in flat(effects))
                if t.event.key == "kill" and hits and u.actor in other.targets:
                    return True
                if t.event.key == "leave" and hits:
                    return True
        return False

    def _due_effects(self, state: State, phase: Phase) -> list[Callable[[Scratch, Resolver], None]]:
        """`after N night:` effects that fall due in this phase, as work for the resolution."""
        due, keep = [], []
        for unit, count, effects, env, source in state.delayed:
            if unit == phase.kind or (unit == "round" and phase.kind == "night"):
                count -= 1
            if count <= 0:
                due.append((effects, dict(env), source))
            else:
                keep.append((unit, count, effects, env, source))
        state.delayed = tuple(keep)
        extra: list[Callable[[Scratch, Resolver], None]] = []
        for effects, env, source in due:
            def run(scratch: Scratch, resolver: Resolver, effects: tuple[AnyEffect, ...] = effects,
                    env: Env = env, source: str = source) -> None:
                owner: Source = self.sc.ability_by_key.get(source) or next(
                    r for r in self.sc.rules if r.name.key == source)
                resolver.apply(scratch, effects, env, owner, env.get("actor"))
            extra.append(run)
        return extra

    def _resolve(self, state: State, phase: Phase, moment: str | None, uses: list[BoundUse],
                 extra: list[Callable[[Scratch, Resolver], None]], into: Report | None = None
                 ) -> list[Played]:
        resolver = Resolver(self.sc, phase, moment)
        resolver.checkpoint = phase.is_night
        immediate_leave = [u for u in uses if self._leave_triggered(u)
                           and not pending_for(state, ability_of(self.sc, u).key, u.actor, phase)]
        main = [u for u in uses if u not in immediate_leave]

        def bound(f: Callable[[Scratch, Resolver], None]) -> Callable[[Scratch], None]:
            return lambda scratch: f(scratch, resolver)
        causes = [bound(f) for f in extra]
        results = []
        fired = into.fired if into is not None else set()
        for scratch in resolver.resolve(state, main, causes, fired):
            scratch.report.fired = set(scratch.fired_rules)
            results.extend(self._after_leaving(resolver, scratch, immediate_leave, phase, moment))
        return [(s.state, _merge(into, s.report)) for s in results]

    def _leave_triggered(self, u: BoundUse) -> bool:
        """Triggered at once by an exit or a return (`on leave`, `on revived`), decided when a
        resolution closes: it acts in a further resolution right after."""
        ability = ability_of(self.sc, u)
        return any(t.event.key in CLOSING_EVENTS and t.timing == "immediately" for t in ability.triggers)

    def _after_leaving(self, resolver: Resolver, scratch: Scratch, waiting: list[BoundUse], phase: Phase,
                       moment: str | None) -> list[Scratch]:
        """Abilities triggered `immediately` by a player's exit act right after it; the others
        keep waiting (see `play`)."""
        ready = [u for u in waiting if (u.ability, u.actor) in scratch.triggered]
        scratch.report.fired_triggers |= {(u.ability, u.actor) for u in ready}
        if not ready:
            return [scratch]
        out = []
        again = Resolver(self.sc, phase, moment)
        state = scratch.state.clone()
        def carry(s: Scratch, first: Scratch = scratch) -> None:
            # What the exit set off keeps the phase's saves and protections: they hold for the
            # whole phase, the resolution its exits trigger included.
            s.triggered.update(first.triggered)
            s.defenses.extend(first.defenses)
        for later in again.resolve(state, ready, [carry], scratch.fired_rules):
            later.report = _merge(scratch.report, later.report)
            out.append(later)
        return out

    # -------------------------------------------------------------- the vote

    def _vote(self, state: State, phase: Phase, votes: list[BoundUse], report: Report,
              cards: Sequence[BoundUse] = (), start: State | None = None) -> list[Played]:
        day = self.sc.day
        if not votes:
            return [(state, report)]
        vote = votes[0]
        ev = Evaluator(self.sc, state)
        if day is None or day.vote is None:
            report.holes.append(holes.no_vote())
            return [(state, report)]
        cites = [r.id for r in day.vote_cites] + [r.id for r in day.cites]
        needed = None
        if day.quorum is not None:
            try:
                needed = ev.value(day.quorum, {})
            except EvalError:
                alive = sum(state.alive)
                report.vote = "undecided"
                report.holes.append(holes.no_quorum(case=f"{alive} players alive"))
                return [(state, report)]
        if vote.vote == "none":
            report.vote = "nobody is voted out"
            return [(state, report)]
        if vote.votes is not None:
            short = self._counted(state, start or state, vote, needed, report, cites)
            if short:
                return [(state, report)]
        if vote.vote == "tie":
            names = ", ".join(seat_name(self.sc, state, s) for s in vote.targets)
            report.vote = f"tie between {names}"
            results = tie_results(day.tie_rule or TieRule("undecided"), start or state, vote.targets,
                                  names, vote.pick, vote.retie)
            if day.exit_mode == "required":
                # A tie that removes nobody is a day with no exit, which the rules forbid.
                results = [r for r in results if r.out or r.hole]
            groups = [list(r.out) for r in results if r.out]
            if len(results) == 1 and not results[0].out:  # nobody leaves, or a hole
                if results[0].hole is not None:
                    report.holes.append(results[0].hole)
                return [(state, report)]
            out = []
            for r in results:
                if r.hole is not None:
                    rep = _merge(report, Report(phase))
                    rep.holes.append(r.hole)
                    out.append((state.clone(), rep))
                elif not r.out:
                    out.append((state.clone(), _merge(report, Report(phase))))
        else:
            groups = [list(vote.targets)]
            out = []
        for group in groups:
            st = state.clone()
            rep = _merge(report, Report(phase))
            rep.vote = rep.vote or ", ".join(seat_name(self.sc, st, s) for s in group) + " voted out"
            rep.decided("vote", cites)

            def cause(scratch: Scratch, resolver: Resolver, group: list[int] = group) -> None:
                for seat in group:
                    scratch.events.add(("voted", seat))
                    scratch.attacks.append(Attack(seat, "vote", "vote", None))
                    resolver._trigger(scratch, "voted", seat, "vote")
            out.extend(self._resolve(st, phase, "vote", list(cards), [cause], rep))
        return out

    def _counted(self, state: State, start: State, vote: BoundUse, needed: Value, report: Report,
                 cites: Iterable[str]) -> bool:
        """A counted vote (`vote P with N`, `vote tie P, Q with N`), at the vote: whether it
        sends nobody out, being short of the quorum (`vote quorum`), of more than half the
        living's votes (`vote majority`, one player's: a tie goes to the tie rule whatever its
        count), or of any vote at all (`vote plurality`, and a tie under `vote majority`).
        Votes the living at the vote cannot cast, or a short vote on a day that must have an
        exit, leave the report refused."""
        day = present(self.sc.day, "the day of a vote")
        cites = tuple(dict.fromkeys(cites))
        total = vote_total(self.sc, start, state)
        n = present(vote.votes, "the votes of a counted vote")
        cast = n * len(vote.targets) + sum(k for _, k in vote.counts)
        if total is not None and cast > total:
            alive = sum(state.alive)
            report.refused = (f"the votes named add up to {cast}, and the {alive} player"
                              f"{'s' if alive != 1 else ''} alive at the vote cast {total}", cites)
            return True
        names = " and ".join(seat_name(self.sc, state, s) for s in vote.targets)
        if needed is not None and n < needed:
            short = (f"{names} {'has' if vote.vote == 'player' else 'have'} {n} "
                     f"vote{'s' if n != 1 else ''}{' each,' if vote.vote == 'tie' else ''} "
                     f"of the {needed} needed")
        elif day.vote == "majority" and vote.vote == "player" and total is not None and 2 * n <= total:
            short = f"{names} has {n} of the {total} votes, no majority"
        elif needed is None and n < 1:
            short = f"{names} {'has' if vote.vote == 'player' else 'have'} no votes"
        else:
            return False
        report.vote = short + ": nobody is voted out"
        report.decided("vote", cites)
        if vote.vote == "tie" and (vote.pick is not None or vote.retie):
            report.refused = (f"{short}: nobody is voted out, so there is no tie for `then` to "
                              "settle", cites)
        elif day.exit_mode == "required":
            report.refused = (f"the rules require a vote exit each day, and {short} remove "
                              "nobody", cites)
        return True

    def _candidate_problem(self, state: State, phase: Phase, seat: int) -> tuple[str | None, tuple[str, ...]]:
        """(why this player cannot be voted out today, the rule ids) or (None, ())."""
        if not state.alive[seat]:
            return f"{seat_name(self.sc, state, seat)} has left the game and cannot be voted out", ()
        ev = Evaluator(self.sc, state)
        day = present(self.sc.day, "the day of a vote")
        for (day_number, flt), cites in zip(day.candidates, day.candidate_cites):
            if day_number is not None and (phase.kind != "day" or phase.number != day_number):
                continue
            if not ev.value(flt, {"candidate": seat}):
                return (f"{seat_name(self.sc, state, seat)} may not be voted out on {phase}",
                        tuple(r.id for r in cites))
        return None, ()

    # -------------------------------------------------------------- between phases

    def _bookkeep(self, state: State, phase: Phase, uses: list[BoundUse], report: Report) -> None:
        for u in uses:
            ability = ability_of(self.sc, u)
            if ability.is_card:
                state.drawn = state.drawn - {u.actor}  # a card is played once
            key = use_key(ability, u)
            # A use a block took away counts against the limits unless the spec says it does
            # not (`blocked uses do not count`), or leaves it open (`… unspecified`): then it
            # counts, and is remembered as open, so a later use it would forbid is a hole.
            blocked = (u.ability, u.actor) in report.blocked_uses
            counted = not (blocked and ability.blocked_uses == "free")
            if counted:
                state.uses[key] = state.uses.get(key, 0) + 1
            if blocked and ability.blocked_uses == "open":
                state.uses_open[key] = state.uses_open.get(key, 0) + 1
            if counted and u.actor is not None and u.actor in u.targets:
                state.self_uses[key] = state.self_uses.get(key, 0) + 1
                if blocked and ability.blocked_uses == "open":
                    state.uses_open[("self",) + key] = state.uses_open.get(("self",) + key, 0) + 1
            state.last_targets[key] = ((phase.kind, phase.number), tuple(u.targets))
        for idle in self.sc.idle_abilities:  # `idle(p, A)`: A's phases in a row with no use by p
            if any(r.phase.key == phase.kind for r in self.sc.ability_by_key[idle].phases):
                acted: set[int | None] = {u.actor for u in uses if u.ability == idle}
                if acted and _by_team(self.sc.ability_by_key[idle]):
                    acted = set(range(len(state.roles)))  # a team's use is each player's
                for seat in range(len(state.roles)):
                    state.idle[(idle, seat)] = 0 if seat in acted else state.idle.get((idle, seat), 0) + 1
        state.pending = tuple(p for p in state.pending if p[2] != phase.kind)
        for entry in sorted(report.due_next):
            ability_key, seat, phase_kind = entry
            if entry not in state.pending:
                state.pending = state.pending + (entry,)
                report.changes.append(f"{seat_name(self.sc, state, seat)} will use "
                                      f"{self.sc.ability_by_key[ability_key].display} at the "
                                      f"next {phase_kind}")

    def _due_states(self, points: Sequence[str], state: State, phase: Phase, report: Report) -> list[State]:
        """The states a schedule of check points looks at in this phase: the end of the phase
        (`day`, `night`, `exit`, `vote`), and for `deaths` the night right after its deaths."""
        out = []
        if "deaths" in points and phase.is_night:
            out.extend(report.checkpoints)
        end = not points or ("day" in points and phase.is_day) or \
            ("night" in points and phase.is_night) or ("exit" in points and report.exits) or \
            ("vote" in points and phase.is_day and any(k == "vote" for _, k, _ in report.exits))
        if end:
            out.append(state)
        return out

    def _met(self, cond: ast.Expr | None, states: list[State], report: Report, what: str, side: str) -> bool:
        for st in states:
            try:
                if Evaluator(self.sc, st).value(cond, {}):
                    return True
            except EvalError as exc:
                hole = holes.no_row(what, side, case=str(exc))
                if hole not in report.holes:
                    report.holes.append(hole)
        return False

    def _check_wins(self, state: State, phase: Phase, report: Report) -> list[tuple[State, Report]]:
        """Each win is met when its condition holds at a check point of its schedule. Where a
        win's readings (`checked after … or after …`) disagree, each answer is an outcome,
        and the game goes on under the readings that gave it."""
        if report.winner is not None:
            return [(state, report)]
        answers: list[dict[bool, set[int]]] = []  # per win: {met: readings that say so}
        for i, win in enumerate(self.sc.wins):
            readings = self.sc.win_readings(win)
            live = state.readings.get(i, frozenset(range(len(readings))))
            by_answer: dict[bool, set[int]] = {}
            for r in sorted(live):
                states = self._due_states(readings[r], state, phase, report)
                met = self._met(win.cond, states, report, f"win condition of {win.side.text}",
                                 win.side.key)
                by_answer.setdefault(met, set()).add(r)
            answers.append(by_answer)
        out = []
        single = all(len(a) == 1 for a in answers)
        for combo in itertools.product(*[sorted(a.items()) for a in answers]):
            st, rep = (state, report) if single else (state.clone(), _merge(report, Report(report.phase)))
            holders = []
            for i, (win, (met, agreeing)) in enumerate(zip(self.sc.wins, combo)):
                if len(answers[i]) > 1:
                    st.readings[i] = frozenset(agreeing)
                    rep.holes.append(self._readings_disagree(win, answers[i], met))
                    rep.decided(f"when wins are checked ({win.side.text})", self._reading_cites(win))
                if met:
                    holders.append(win)
            self._decide_winner(st, phase, rep, holders, report.declared)
            self._open_wins(st, phase, rep)
            out.append((st, rep))
        return out

    def _readings_disagree(self, win: ast.WinDecl, answers: dict[bool, set[int]], met: bool) -> Hole:
        readings = self.sc.win_readings(win)

        def say(rs: set[int]) -> str:
            return " or ".join("after " + ", ".join(readings[r]) for r in sorted(rs))
        side = self.sc.side_by_key[win.side.key].display
        return holes.readings(side, ["after " + ", ".join(r) for r in readings], win.side.key,
                              case=f"checked {say(answers[True])}, {side} has won; checked "
                                   f"{say(answers[False])}, not yet; this outcome follows {say(answers[met])}")

    def _reading_cites(self, win: ast.WinDecl) -> list[str]:
        ids = [c.id for c in win.cites] + [c.id for s in win.schedules for c in s.cites]
        if not win.schedules and self.sc.phases is not None:
            ids += list(self.sc.phases.reading_cites)
        return list(dict.fromkeys(ids))

    def _open_wins(self, state: State, phase: Phase, report: Report) -> None:
        """A win the rulebook does not write is in question wherever its `when` holds at a
        check point (everywhere, without one): the rules cannot say whether that side won."""
        if report.winner is not None:
            return
        for win in self.sc.open_wins:
            states = [s for points in self.sc.win_readings(win)
                      for s in self._due_states(points, state, phase, report)]
            if not states:
                continue
            if win.cond is None or self._met(win.cond, states, report, f"win of {win.side.text}", win.side.key):
                side = self.sc.side_by_key[win.side.key].display
                why = present(win.unspecified, "the why of an unwritten win")
                report.holes.append(holes.open_win(side, why, win.side.key))
                report.decided(f"win {win.side.text}", [c.id for c in win.cites])

    def _decide_winner(self, state: State, phase: Phase, report: Report, holders: list[ast.WinDecl],
                       declared: Sequence[str] = ()) -> None:
        """The winner of the phase: the sides whose win conditions are met at its check
        points, and those a `win SIDE` effect declared in it; several are decided by
        `priority`, else they overlap."""
        sides = list(dict.fromkeys([w.side.key for w in holders] + list(declared)))
        if not sides:
            return
        for w in holders:
            report.decided(f"win {w.side.text}", [c.id for c in w.cites])
        if len(sides) == 1:
            report.winner = sides[0]
            return
        for prio in self.sc.priorities:
            order = [n.key for n in prio.order]
            if set(sides) <= set(order):
                report.winner = min(sides, key=order.index)
                report.decided("priority", [c.id for c in prio.cites])
                return
        report.holes.append(holes.overlap([self.sc.side_by_key[s].display for s in sides], sides[0], sides[1]))


def _merge(first: Report | None, second: Report) -> Report:
    if first is None:
        return second
    merged = Report(second.phase)
    for name in ("order", "exits", "survived", "blocked", "cancelled", "learned",
                 "announcements", "changes", "rules", "cites", "holes", "reveals"):
        combined = list(getattr(first, name))
        for item in getattr(second, name):
            if name not in ("rules", "cites") or item not in combined:
                combined.append(item)
        setattr(merged, name, combined)
    merged.winner = second.winner or first.winner
    merged.vote = second.vote or first.vote
    merged.due_next = first.due_next | second.due_next
    merged.fired = first.fired | second.fired
    merged.checkpoints = first.checkpoints + second.checkpoints
    merged.blocked_uses = first.blocked_uses | second.blocked_uses
    merged.fired_triggers = first.fired_triggers | second.fired_triggers
    merged.declared = list(dict.fromkeys(first.declared + second.declared))
    merged.triggered = first.triggered | second.triggered
    merged.refused = second.refused or first.refused
    merged.rule_rounds = max(first.rule_rounds, second.rule_rounds)
    return merged


def _still_waiting(waiting: list[BoundUse], report: Report) -> list[BoundUse]:
    """The uses waiting for their trigger that it has not fired yet this phase."""
    return [u for u in waiting if (u.ability, u.actor) not in report.fired_triggers]


def _distinct(outcomes: list[Outcome]) -> list[Outcome]:
    seen: set[tuple] = set()
    out: list[Outcome] = []
    for o in outcomes:
        key = (o.state.key(), tuple(r.key() for r in o.reports))
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out


def _by_team(ability: Ability) -> bool:
    """Whether a team uses the ability (`by team NAME`): `idle` and `acted` count its uses
    for every player, the pick being the team's and not one member's."""
    return ability.actor is not None and ability.actor.kind == "team"
