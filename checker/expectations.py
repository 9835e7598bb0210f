"""Whether an answer meets one `expect` line of a query, and the line as the query wrote it.

An expectation about what happens (`leaves`, `stays`, `role`, `reveals`, `learns` …) must hold
in every outcome of the answer; an answer with no outcome meets none of them. The names in
an expectation were checked before the query was answered (query_names.py), so the seat of
a player reference is always found here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast
from .interpreter.bind import Binder, BoundQuery
from .interpreter.play import Answer, Outcome
from .model import Scenario

if TYPE_CHECKING:
    from .phases import Phase


def met(e: ast.Expectation, answer: Answer, bound: BoundQuery, scenario: Scenario) -> bool:
    """Whether `answer` meets the expectation `e`."""
    if e.kind in ("verdict", "answer"):
        return answer.verdict == e.value
    if e.kind == "illegal":
        return answer.verdict == "illegal"
    if e.kind == "precheck":
        return any(f.precheck and f.message == e.value for f in answer.prestart)
    if answer.verdict == "illegal":
        return False
    if e.kind == "no_winner":
        return all(o.winner is None for o in answer.outcomes)
    if e.kind == "no_announcement":
        return all(not r.announcements for o in answer.outcomes for r in o.reports)
    binder = Binder(scenario, "<query>")
    seat = binder.seat(e.player, bound.seats) if e.player is not None else None
    about = binder.seat(e.about, bound.seats) if e.about is not None else None
    # `stays` holds of an answer with no outcome as `no winner` does: nothing happened to him.
    if e.kind == "stays":
        return all(not _exits(o, seat, e.phase) for o in answer.outcomes)
    if e.kind == "learns_nothing":
        return all(not _learned(o, seat) for o in answer.outcomes)
    return bool(answer.outcomes) and all(_in_outcome(e, o, seat, about) for o in answer.outcomes)


def _in_outcome(e: ast.Expectation, o: Outcome, seat: int | None, about: int | None) -> bool:
    # `winner`, `role`, `side` and `counter` always name one (the grammar), and the last three
    # a player: its seat.
    key = e.name.key if e.name is not None else None
    if e.kind == "leaves":
        return any(e.name is None or kind == e.name.key for kind in _exits(o, seat, e.phase))
    if e.kind == "exits":
        return len(_exits(o, seat, None)) == e.number
    if e.kind == "winner":
        return o.winner == key
    if e.kind == "role":
        return seat is not None and o.state.roles[seat] == key
    if e.kind == "side":
        return seat is not None and o.state.sides[seat] == key
    if e.kind == "counter":
        return seat is not None and key is not None and o.state.counters[seat].get(key) == e.number
    if e.kind == "announces":
        return any(e.value in r.announcements for r in o.reports)
    if e.kind == "reveals":
        return any(s == seat and (e.name is None or shown == e.name.key)
                   for r in o.reports for s, shown in r.reveals)
    if e.kind == "learns":
        return any(x == e.value and (about is None or t == about) for _, t, x in _learned(o, seat))
    raise ValueError(f"unknown expectation kind {e.kind!r}")


def _exits(o: Outcome, seat: int | None, phase: tuple[ast.Name, int | None] | None) -> list[str]:
    """The kinds of the seat's exits in the outcome (in one phase, given `in PHASE N`)."""
    return [kind for r in o.reports if phase is None or _is(r.phase, phase)
            for s, kind, _ in r.exits if s == seat]


def _learned(o: Outcome, seat: int | None) -> list[tuple[int | None, int | None, str]]:
    return [(w, t, x) for r in o.reports for w, t, x in r.learned if w == seat]


def _is(played: Phase, phase: tuple[ast.Name, int | None]) -> bool:
    name, number = phase
    return played.kind == name.key and (number is None or played.number == number)


def text(e: ast.Expectation) -> str:
    """The expectation as the query file writes it (after `expect`)."""
    phase = "" if e.phase is None else f" in {e.phase[0].text}" + (
        "" if e.phase[1] is None else f" {e.phase[1]}")
    name = e.name.text if e.name is not None else ""
    return {
        "leaves": f"leaves {e.player}" + (f" by {name}" if e.name else "") + phase,
        "stays": f"stays {e.player}{phase}",
        "exits": f"exits {e.player} = {e.number}",
        "role": f"role {e.player} = {name}",
        "side": f"side {e.player} = {name}",
        "counter": f"counter {e.player} {name} = {e.number}",
        "winner": f"winner {name}",
        "no_winner": "no winner",
        "no_announcement": "no announcement",
        "announces": f'announces "{e.value}"',
        "reveals": f"reveals {e.player}" + (f" as {name}" if e.name else ""),
        "verdict": f"verdict {e.value}",
        "learns": f"learns {e.player} {e.value}" + (f" about {e.about}" if e.about else ""),
        "learns_nothing": f"learns {e.player} nothing",
        "illegal": "illegal",
        "precheck": f'precheck "{e.value}"',
        "answer": f"answer {e.value}",
    }[e.kind]
