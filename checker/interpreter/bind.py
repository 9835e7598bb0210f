"""Binding a query to a scenario: seats for player references, a starting state, the
phases its choices belong to. Mistakes are located errors in the query file."""

from __future__ import annotations

from dataclasses import dataclass

from .. import ast
from ..errors import Diagnostic, SpecError
from ..evaluate import Evaluator, State, Value, initial_state
from ..model import BUILTIN_KINDS, Scenario
from ..narrow import present
from ..phases import Phase, sequence
from ..source import Span


@dataclass(frozen=True)
class BoundUse:
    """A choice with its players resolved to seats (0-based)."""

    ability: str | None  # None for the day's vote
    actor: int | None
    targets: tuple[int, ...]
    values: tuple[tuple[str, str], ...]
    vote: str | None = None
    explicit_actor: bool = False
    span: Span | None = None
    votes: int | None = None  # `vote P with N`: N votes for P (for each of the tied)
    counts: tuple[tuple[int, int], ...] = ()  # `…, Q with 3`: (seat, votes) of the others
    pick: int | None = None  # a tie: the one it sends out (`then P`)
    ballots: tuple[int, ...] | None = None  # `vote P by Q, R`: who voted for P (a tallied vote)
    retie: bool = False  # a tie under `tie revote`: the second vote ties again (`then tie`)
    moment: str | None = None  # `… before vote` / `… after vote` (phases.use_moment)

    def value_map(self) -> dict[str, str]:
        return dict(self.values)


@dataclass
class BoundQuery:
    query: ast.Query
    state: State
    seats: tuple[str, ...]
    phases: list[tuple[Phase, list[BoundUse]]]


class Binder:
    def __init__(self, scenario: Scenario, path: str):
        self.scenario = scenario
        self.path = path
        self.errors: list[Diagnostic] = []

    def error(self, message: str, span: Span | None, hint: str | None = None) -> None:
        self.errors.append(Diagnostic(message, span, self.path, hint))

    def seating(self, q: ast.Query) -> tuple[str, ...] | None:
        sc = self.scenario
        if q.players:
            roles = []
            for ref in q.players:
                if ref.role is None or ref.role.key not in sc.role_by_key:
                    self.error(f"'{ref}' is not a role of {sc.text}", ref.span)
                    continue
                roles.append(ref.role.key)
            if q.unlisted:  # no composition need match: the pre-start checks judge it
                return tuple(roles)
            same = [c for c in sc.compositions if c.players == len(roles)]
            if not same:
                counts = ", ".join(str(n) for n in sorted({c.players for c in sc.compositions})) or "none"
                self.error(f"the rulebook lists no composition of {len(roles)} players "
                           f"(it lists: {counts}); a count it does not list is never guessed",
                           q.span)
            elif not any(sorted(roles) == sorted(c.seats()) for c in same):
                which = "the composition" if len(same) == 1 else "any composition"
                self.error(f"these {len(roles)} players do not match {which} of "
                           f"{len(roles)} the rulebook lists", q.players[0].span)
            return tuple(roles)
        comps = sc.compositions
        if q.composition_name is not None:
            named = [c for c in comps if c.name is not None and c.name.key == q.composition_name.key]
            if not named:
                known = ", ".join(c.name.text for c in comps if c.name is not None) or "none"
                self.error(f"the rulebook names no composition '{q.composition_name.text}' "
                           f"(it names: {known})", q.composition_name.span)
                return None
            return named[0].seats()
        if q.composition is not None:
            found = [c for c in comps if c.players == q.composition]
            if not found:
                counts = ", ".join(str(c.players) for c in comps) or "none"
                self.error(f"the rulebook lists no composition of {q.composition} players "
                           f"(it lists: {counts}); a count it does not list is never guessed",
                           q.span)
                return None
            if len(found) > 1:
                self.error(f"the rulebook lists {len(found)} compositions of {q.composition} "
                           "players: name one (`composition NAME`: "
                           + ", ".join(c.ref for c in found) + ")", q.span)
                return None
            return found[0].seats()
        if len(comps) == 1:
            return comps[0].seats()
        self.error("say which composition the game uses: `composition N`, `composition NAME` "
                   "or `players …`", q.span)
        return None

    def seat(self, ref: ast.PlayerRef, seats: tuple[str, ...]) -> int | None:
        if ref.role is None:
            index = present(ref.index, "the number of a seat reference `@N`")
            if not 1 <= index <= len(seats):
                self.error(f"there is no seat @{index}: seats are @1 to @{len(seats)}", ref.span)
                return None
            return index - 1
        holders = [i for i, r in enumerate(seats) if r == ref.role.key]
        if ref.role.key not in self.scenario.role_by_key:
            self.error(f"unknown role '{ref.role.text}'", ref.span)
            return None
        if not holders:
            self.error(f"no player has the role '{ref.role.text}' in this game", ref.span)
            return None
        if ref.index is None:
            if len(holders) > 1:
                self.error(f"{len(holders)} players have the role '{ref.role.text}': say which, "
                           f"as {ref.role.text}@1 … {ref.role.text}@{len(holders)}", ref.span)
                return None
            return holders[0]
        if not 1 <= ref.index <= len(holders):
            self.error(f"there are {len(holders)} players with the role '{ref.role.text}', "
                       f"so there is no {ref}", ref.span)
            return None
        return holders[ref.index - 1]

    def _set_value(self, name: ast.Name, decl: ast.SettingDecl, expr: ast.Expr) -> frozenset[str]:
        """The value of a set-valued setting in a query: {NAME, …}, each of the element kind."""
        sc = self.scenario
        element = present(decl.element, "the element kind of a set setting").key
        known = {"role": set(sc.role_by_key), "side": set(sc.side_by_key),
                 "kind": {k.name.key for k in sc.kinds} | set(BUILTIN_KINDS)}[element]
        if not isinstance(expr, ast.SetLit):
            self.error(f"setting '{name.text}' is a set of {element}s, written {{NAME, NAME}}",
                       expr.span)
            return frozenset()
        out: set[str] = set()
        for item in expr.items:
            if not isinstance(item, ast.Ref) or item.name.key not in known:
                self.error(f"setting '{name.text}' holds {element}s; this is not one", item.span)
            else:
                out.add(item.name.key)
        return frozenset(out)

    def bind(self, q: ast.Query) -> BoundQuery:
        sc = self.scenario
        seats = self.seating(q)
        if seats is None or self.errors:
            raise SpecError(self.errors)
        settings: dict[str, Value] = {}
        declared = {s.name.key: s for s in sc.settings}
        probe = initial_state(sc, seats)
        for name, expr in q.settings:
            decl = declared.get(name.key)
            if decl is None:
                self.error(f"unknown setting '{name.text}'", name.span)
                continue
            value = Evaluator(sc, probe).value(expr, {})
            if decl.type == "bool" and not isinstance(value, bool):
                self.error(f"setting '{name.text}' is true or false", expr.span)
            elif decl.type == "int" and (isinstance(value, bool) or not isinstance(value, int)
                                         or not present(decl.low, "an int setting's low") <= value
                                         <= present(decl.high, "an int setting's high")):
                self.error(f"setting '{name.text}' is a number in {decl.low}..{decl.high}", expr.span)
            elif decl.type == "enum" and value not in {o.key for o in decl.options}:
                self.error(f"setting '{name.text}' is one of: "
                           + ", ".join(o.text for o in decl.options), expr.span)
            elif decl.type == "set":
                value = self._set_value(name, decl, expr)
            settings[name.key] = value
        state = initial_state(sc, seats, settings)
        self._apply_state(q, state, seats)
        phases = self._phases(q, state, seats)
        if self.errors:
            raise SpecError(self.errors)
        return BoundQuery(q, state, seats, phases)

    def _apply_state(self, q: ast.Query, state: State, seats: tuple[str, ...]) -> None:
        for item in q.state:
            if item.verb == "memory":  # the one line about no player
                self._apply_memory(item, present(item.name, f"the name of a `{item.verb}` state line"), state, seats)
                continue
            seat = self.seat(present(item.player, f"the player of a `{item.verb}` state line"), seats)
            if seat is None:
                continue
            if item.verb == "dead":
                state.alive[seat] = False
                state.left_by[seat] = item.name.key if item.name else "kick"
            elif item.verb == "link":
                self._apply_link(item, seat, state, seats)
            else:
                self._apply_named(item, present(item.name, f"the name of a `{item.verb}` state line"), seat, state)

    def _apply_named(self, item: ast.StateItem, name: ast.Name, seat: int, state: State) -> None:
        """A state line that sets a player's counter, idle count, role, side, item or uses."""
        sc = self.scenario
        if item.verb == "counter":
            if name.key not in state.counters[seat]:
                self.error(f"{item.player} has no counter '{name.text}'", name.span)
            state.counters[seat][name.key] = present(item.number, f"the number of a `{item.verb}` state line")
        elif item.verb == "idle":  # `idle P ABILITY = N`: the nights he has skipped it
            if name.key not in sc.idle_abilities:
                self.error(f"'{name.text}' is not an ability whose history the spec "
                           "reads with idle(p, …)", name.span)
                return
            state.idle[(name.key, seat)] = item.number
        elif item.verb == "role":
            if name.key not in sc.role_by_key:
                self.error(f"unknown role '{name.text}'", name.span)
                return
            state.roles[seat] = name.key
            state.sides[seat] = sc.role_by_key[name.key].side
        elif item.verb == "side":
            if name.key not in sc.side_by_key:
                self.error(f"unknown side '{name.text}'", name.span)
                return
            state.sides[seat] = name.key
        elif item.verb == "holds":
            self._apply_holds(item, name, seat, state)
        elif item.verb in ("used", "used_self"):
            ability = sc.ability_by_key.get(name.key)
            if ability is None:
                self.error(f"unknown ability '{name.text}'", name.span)
                return
            team_wide = ability.actor is not None and ability.actor.kind in ("team", "moderator")
            key = (ability.key, -1 if team_wide else seat)
            number = present(item.number, f"the number of a `{item.verb}` state line")
            table = state.self_uses if item.verb == "used_self" else state.uses
            table[key] = number
            if item.verb == "used_self":
                state.uses[key] = max(state.uses.get(key, 0), number)

    def _apply_holds(self, item: ast.StateItem, name: ast.Name, seat: int, state: State) -> None:
        sc = self.scenario
        decl = next((i for i in sc.items if i.name.key == name.key), None)
        if decl is None:
            self.error(f"unknown item '{name.text}'; items are: "
                       + (", ".join(i.name.text for i in sc.items) or "none"), name.span)
            return
        variants = [v.key for v, _ in decl.variants]
        if item.other is None and variants:
            self.error(f"say which variant of '{name.text}' is held: "
                       f"`{name.text}({variants[0]})`", name.span)
        elif item.other is not None and variants and item.other.key not in variants:
            self.error(f"'{item.other.text}' is not a variant of {decl.name.text}; its "
                       "variants are: " + ", ".join(v.text for v, _ in decl.variants),
                       item.other.span)
        elif item.other is not None and not variants:
            self.error(f"'{name.text}' has no variant '{item.other.text}' (it has none: "
                       "write it alone)", item.other.span)
        else:
            state.items[(name.key, seat)] = item.other.key if item.other else None

    def _apply_memory(self, item: ast.StateItem, name: ast.Name, state: State,
                      seats: tuple[str, ...]) -> None:
        decl = next((m for m in self.scenario.memories if m.name.key == name.key), None)
        if decl is None:
            self.error(f"unknown memory '{name.text}'", name.span)
            return
        members = [self.seat(p, seats) for p in item.players]
        if decl.type == "players":
            state.memories[decl.name.key] = frozenset(m for m in members if m is not None)
        elif decl.type == "player":
            state.memories[decl.name.key] = members[0] if members else None
        else:
            state.memories[decl.name.key] = item.number

    def _apply_link(self, item: ast.StateItem, seat: int, state: State,
                    seats: tuple[str, ...]) -> None:
        other = self.seat(item.players[0], seats)
        if other is not None:
            state.links[seat] = other
            if item.name is not None:  # `link P to Q with KIND`
                if not any(k.name.key == item.name.key for k in self.scenario.kinds) \
                        and item.name.key not in ("vote", "kick"):
                    self.error(f"unknown kind of exit '{item.name.text}'", item.name.span)
                    return
                state.link_kinds[seat] = item.name.key

    def _phases(self, q: ast.Query, state: State,
                seats: tuple[str, ...]) -> list[tuple[Phase, list[BoundUse]]]:
        if not q.phases and q.start is None:
            return []
        longest = 4 + 2 * max([(p.number or 1) for p in q.phases] + [1]) + len(q.phases) * 2
        if q.start is not None:
            longest += 2 * (q.start[1] or 1)
        seq = sequence(self.scenario, state, min(longest, 200))
        if q.start is not None:
            name, number = q.start
            start = next((p.index for p in seq if p.kind == name.key
                          and (number is None or p.number == number)), None)
            if start is None:
                self.error(f"this game has no phase '{name.text}{'' if number is None else ' ' + str(number)}'",
                           name.span)
                return []
            if not q.phases:  # `from PHASE` alone: the game (an open question's) starts there
                state.phase_index = start - 1
                return []
        else:
            first = q.phases[0]
            start = next((p.index for p in seq if p.kind == first.phase.key
                          and (first.number is None or p.number == first.number)), None)
            if start is None:
                self.error(f"this game has no phase '{first.phase.text}"
                           f"{'' if first.number is None else ' ' + str(first.number)}'",
                           first.span, "phases are: " + ", ".join(str(p) for p in seq[:6]) + ", …")
                return []
        out = []
        for offset, block in enumerate(q.phases):
            index = start + offset
            if index >= len(seq):
                self.error("the query has more phases than the game can reach", block.span)
                break
            phase = seq[index]
            if block.phase.key != phase.kind or (block.number is not None and block.number != phase.number):
                self.error(f"phases must follow the game's order: after the previous block "
                           f"comes {phase}, not {block.phase.text}"
                           f"{'' if block.number is None else ' ' + str(block.number)}",
                           block.span)
                break
            for u in block.uses:
                if u.moment is not None and not phase.is_day:
                    self.error(f"`{u.moment} vote` names a moment of a day; {phase} has no vote", u.span)
            out.append((phase, [self._use(u, seats) for u in block.uses]))
        state.phase_index = start - 1
        return out

    def _counts(self, u: ast.Use, seats: tuple[str, ...], targets: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        """The other players' votes of a counted vote, checked for what the query alone can
        tell: a player counted once, a vote with its count or its ballots (not both), and
        (in an untallied vote, one ballot a player) no more votes than players."""
        if u.votes is None:
            return ()
        day = self.scenario.day
        if day is None or day.vote is None:
            self.error(f"`with {u.votes}`: this rulebook holds no vote", u.span)
            return ()
        if u.ballots is not None:
            self.error("give the votes for him (`with N`) or who cast them (`by …`), not both",
                       u.ballots[0].span)
        out = []
        seen = set(targets)
        for ref, n in u.counts:
            seat = self.seat(ref, seats)
            if seat is None:
                continue
            if seat in seen:
                self.error(f"{ref} is counted twice in this vote", ref.span)
            seen.add(seat)
            out.append((seat, n))
        cast = u.votes * max(len(targets), 1) + sum(n for _, n in out)
        if day.weight is None and cast > len(seats):
            what = f"`with {u.votes}`" if not out and len(targets) < 2 else f"the {cast} votes named"
            self.error(f"{what}: there are only {len(seats)} players to vote", u.span)
        return tuple(out)

    def _use(self, u: ast.Use, seats: tuple[str, ...]) -> BoundUse:
        targets = tuple(s for s in (self.seat(r, seats) for r in u.on) if s is not None)
        if u.ability is None:
            counts = self._counts(u, seats, targets)
            pick = self.seat(u.pick, seats) if u.pick is not None else None
            ballots = None
            if u.ballots is not None:
                day = self.scenario.day
                if day is None or day.weight is None:
                    self.error("this day's vote is not tallied (its `day` has no `weight`): "
                               "give the result alone (`vote P`)", u.ballots[0].span)
                found = [self.seat(r, seats) for r in u.ballots]
                ballots = tuple(s for s in found if s is not None)
                if len(set(ballots)) != len(ballots):
                    self.error("a player votes once", u.ballots[0].span)
            return BoundUse(None, None, targets, (), u.vote, span=u.span, votes=u.votes, pick=pick,
                            retie=u.retie, ballots=ballots, counts=counts)
        ability = self.scenario.ability_by_key.get(u.ability.key)
        if ability is None:
            self.error(f"unknown ability '{u.ability.text}'", u.ability.span)
            return BoundUse(u.ability.key, None, targets, (), span=u.span)
        actor = self.seat(u.by, seats) if u.by is not None else None
        binds = [c.binds.key for c in ability.choices]
        if len(u.values) != len(binds):
            self.error(f"'{ability.text}' needs {len(binds)} value"
                       f"{'s' if len(binds) != 1 else ''} after `as` ({', '.join(binds) or 'none'}), "
                       f"got {len(u.values)}", u.span)
        values = tuple(zip(binds, (v.key for v in u.values)))
        return BoundUse(ability.key, actor, targets, values, explicit_actor=u.by is not None,
                        span=u.span, moment=u.moment)

