"""The symbolic state of the encoding: the terms of one state of the game, field by field as
the interpreter's evaluate.State holds its values.

Where the two hold the same thing the field has State's name: roles, sides, alive, left_by,
counters, items, uses, self_uses, last_targets, pending, links, revealed, drawn, readings,
uses_open, idle, link_kinds, round. Where the encoding keeps it differently the name says
which of State's fields it stands for:

* `memories_set`, `memories_one`, `memories_int`: State.memories, split by the memory's
  type (`players`: a boolean per seat; `player`: a seat or NONE; `int`: a number);
* `delayed_counts`, `delayed_targets`: State.delayed, as a countdown and a target per slot
  (Game.delay_slots: per owner, per `after …` effect, per actor or rule binding), where the
  interpreter keeps a list of pending effects; 0 is no effect pending;
* `last_targets`: per (ability, actor, phase kind), whom the last use in the phase of that
  kind just before named, as a boolean per seat (State.last_targets keeps the phase too);
* `winner`: the side that has won, or NONE (the interpreter's game ends instead);
* `counter_given`: whether a conversion has given a seat a counter its dealt role has none
  of (the interpreter knows it by the counter's presence in State.counters);
* `readings`: per (win, reading), whether that reading is still consistent with the game
  (State.readings keeps the set of those that are, absent meaning all).

Seats are encoded as indexes, roles, sides, kinds and variants as the numbers of
terms.Ids; NONE (-1) is "none". `link_kinds` exists only where some link can carry an exit
(Game.links_carry_exits), so no state has it otherwise.

Two fields are not state but the phase's, carried along while one is built: `round` (the
number of the day or night being played, as State.round) and `defenses` (the saves and
protections of a resolution, kept for the pass its exits set off). They are left out of
every walk over the state.

Every operation over the whole state goes through one walk over the dataclass's fields:
`slots` (equating two states, Game.equate; walking every term, `terms` and `mapped`;
comparing and pinning states in induction, which read `terms`) and `copy` (every field,
the phase's included). A field added here is reached by all of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import z3

# Where a term sits in a state: the field's name, then the index or key in each table.
Path = tuple[Any, ...]
# The key of a delay slot: (owner, index of the `after …` among its owner's, actor seat or
# the rule's binding of its variables).
DelayKey = tuple[str, int, Union[int, tuple[int, ...]]]

# Metadata of the fields that are the phase's rather than the state's (see the docstring).
SCRATCH = {"state": False}


def _rank(n: int) -> Any:
    """A field's place among the equations of Game.equate (see SymState)."""
    return field(metadata={"rank": n})


@dataclass
class SymState:
    """One state of the encoded game. Mutable: a stage copies the state it starts from
    (`copy`) and writes its changes into the copy, item by item, as the interpreter's
    Resolver does with State.clone.

    Two orders are kept as the encoding always had them, since Z3's search (and so the
    games the reports show) depends on them: the fields are declared in the order their
    variables are made (Game.state_vars), which is also the order a state's terms are
    released in; `rank` is the order Game.equate states the next state's equations in (a
    field without one comes after those with one, so none is left out)."""

    alive: list[z3.BoolRef] = _rank(0)  # per seat
    roles: list[z3.ArithRef] = _rank(1)  # per seat, the role's number
    sides: list[z3.ArithRef] = _rank(2)  # per seat, the side's number (NONE while unchosen)
    left_by: list[z3.ArithRef] = _rank(3)  # per seat, the kind of exit that removed him, or NONE
    revealed: list[z3.BoolRef] = _rank(4)  # per seat
    drawn: list[z3.BoolRef] = _rank(7)  # per seat: holds a card not played
    links: list[z3.ArithRef] = _rank(5)  # per seat, the seat linked to, or NONE
    counters: list[dict[str, z3.ArithRef]] = _rank(8)  # per seat, counter key -> value
    items: dict[tuple[str, int], z3.ArithRef] = _rank(9)  # (item, seat) -> variant, or NONE (not held)
    memories_set: dict[str, list[z3.BoolRef]] = _rank(21)  # `players` memory -> per seat, a member
    memories_one: dict[str, z3.ArithRef] = _rank(10)  # `player` memory -> seat, or NONE
    memories_int: dict[str, z3.ArithRef] = _rank(11)  # `int` memory -> value
    uses: dict[tuple[str, int], z3.ArithRef] = _rank(12)  # (ability, actor) -> uses so far
    # (ability, actor) -> uses on oneself; only of abilities with a `limit … on self`
    self_uses: dict[tuple[str, int], z3.ArithRef] = _rank(13)
    # (ability, actor, phase kind) -> per seat, named by the last use in that kind's phase;
    # only of abilities with a `limit no repeat`
    last_targets: dict[tuple[str, int, str], list[z3.BoolRef]] = _rank(22)
    pending: dict[tuple[str, int, str], z3.BoolRef] = _rank(14)  # (ability, seat, phase kind) -> triggered
    # (ability, actor) and ("self", ability, actor) -> blocked uses not known to count
    uses_open: dict[tuple[Any, ...], z3.ArithRef] = _rank(18)
    winner: z3.ArithRef = _rank(23)  # the side that has won, or NONE
    delayed_counts: dict[DelayKey, z3.ArithRef] = _rank(15)  # slot -> phases until due (0: none pending)
    delayed_targets: dict[DelayKey, z3.ArithRef] = _rank(16)  # slot -> its target seat, or NONE
    readings: dict[tuple[int, int], z3.BoolRef] = _rank(17)  # (win, reading) -> still consistent
    link_kinds: list[z3.ArithRef] | None = _rank(6)  # per seat, the kind of exit its link carries, or NONE
    idle: dict[tuple[str, int], z3.ArithRef] = _rank(19)  # (ability, seat) -> its phases in a row unused
    counter_given: dict[tuple[int, str], z3.BoolRef] = _rank(20)  # (seat, counter) -> given by a conversion
    round: z3.ArithRef | None = field(default=None, metadata=SCRATCH)  # None: read as 0
    defenses: list[Any] = field(default_factory=list, metadata=SCRATCH)

    # ------------------------------------------------------------------ the one walk

    def slots(self, parts: Sequence[str] | None = None, canonical: bool = False) -> Iterator[Path]:
        """The path of every term of the state (of the fields in `parts`, or all), the scratch
        fields left out. In the fields' `rank` and the tables' insertion order, or
        (`canonical`) by field name and keys sorted: two games of one composition then give
        the same paths in the same order, so a state of one can be pinned in the other."""
        names = [f.name for f in state_fields() if parts is None or f.name in parts]
        for name in sorted(names) if canonical else names:
            value = getattr(self, name)
            if value is None:  # an optional field this game does not have
                continue
            if isinstance(value, list):
                for s, x in enumerate(value):
                    if isinstance(x, dict):
                        yield from ((name, s, c) for c in (sorted(x) if canonical else list(x)))
                    else:
                        yield (name, s)
            elif isinstance(value, dict):
                for key in sorted(value, key=repr) if canonical else list(value):
                    x = value[key]
                    if isinstance(x, list):
                        yield from ((name, key, s) for s in range(len(x)))
                    else:
                        yield (name, key)
            else:
                yield (name,)

    def get(self, path: Path) -> Any:
        x: Any = getattr(self, path[0])
        for k in path[1:]:
            x = x[k]
        return x

    def put(self, path: Path, term: Any) -> None:
        """Replace the term at `path` (in place: copy first what others hold)."""
        if len(path) == 1:
            setattr(self, path[0], term)
            return
        self.get(path[:-1])[path[-1]] = term

    # ------------------------------------------------------------------ built on it

    def terms(self, parts: Sequence[str] | None = None) -> list[tuple[Path, Any]]:
        """The state's terms as (path, term), in the canonical order (see `slots`)."""
        return [(path, self.get(path)) for path in self.slots(parts, canonical=True)]

    def copy(self) -> SymState:
        """A copy whose tables later writes (which replace items) leave the original's alone."""
        return dataclasses.replace(self, **{f.name: _copied(getattr(self, f.name))
                                            for f in dataclasses.fields(self)})

    def mapped(self, f: Callable[[Any], Any]) -> SymState:
        """A copy with every term x of the state replaced by f(x)."""
        out = self.copy()
        for path in list(out.slots()):
            out.put(path, f(out.get(path)))
        return out


def state_fields() -> tuple[dataclasses.Field[Any], ...]:
    """The fields that are the state's (not the scratch ones), by rank."""
    mine = [f for f in dataclasses.fields(SymState) if f.metadata.get("state", True)]
    return tuple(sorted(mine, key=lambda f: f.metadata.get("rank", len(mine))))


def _copied(x: Any) -> Any:
    if isinstance(x, list):
        return [_copied(v) for v in x]
    if isinstance(x, dict):
        return {k: _copied(v) for k, v in x.items()}
    return x
