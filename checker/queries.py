"""Answering what-if queries (read by query_text.py) and checking their expectations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import ast, expectations, prestart
from .interpreter.bind import Binder
from .interpreter.legal import Problem
from .interpreter.play import Answer, Player
from .model import Scenario
from .moderator_log import Names
from .query_names import check_query_names
from .source import SourceFile

if TYPE_CHECKING:
    from .crosscheck.open_questions import Reuse
    from .encode.solver import Limits
    from .interpreter.bind import BoundQuery


def answer_all(scenario: Scenario, source: SourceFile, queries: Sequence[ast.Query], limits: Limits | None = None,
               reuse: Reuse | None = None) -> list[tuple[Answer, Names, ast.Query, BoundQuery]]:
    """Each query answered; `limits` (encode.solver.Limits) bound the open questions, and
    `reuse` (open_questions.Reuse) is the games they share, for a caller that asks again."""
    from .crosscheck.open_questions import LIMITS, Reuse, answer_open

    player = Player(scenario)
    reuse = reuse or Reuse(scenario, limits or LIMITS)
    bound: list[BoundQuery] = []
    for q in queries:
        b = Binder(scenario, source.path).bind(q)
        check_query_names(scenario, q, b, source.path)
        bound.append(b)
        if q.open is not None:
            reuse.plan(b)
    out: list[tuple[Answer, Names, ast.Query, BoundQuery]] = []
    for q, b in zip(queries, bound):
        # The pre-start checks come first: a game they stop is never played or searched.
        failed = tuple(prestart.failed(scenario, b.seats, b.state.settings, q.unlisted_count))
        if any(f.severity == "error" for f in failed):
            answer = Answer(q.name.text, q.label, "rejected", [],
                            [Problem(f.message, f.rules) for f in failed if f.severity == "error"], [])
        elif q.open is not None:
            answer = answer_open(scenario, b, reuse.limits, reuse)
        else:
            answer = player.answer(b)
        answer.prestart = failed
        out.append((answer, Names(scenario, b.seats), q, b))
    return out


def failed_expectations(answer: Answer, q: ast.Query, bound: BoundQuery, scenario: Scenario, path: str) -> list[str]:
    """The query's `expect` lines that the answer does not meet."""
    failures = []
    for e in q.expectations:
        if expectations.met(e, answer, bound, scenario):
            continue
        where = f"{path}:{e.span.line}:{e.span.column}" if e.span else path
        seen = _what_happened(answer, bound, scenario, e)
        failures.append(f"{where}: query {q.name.text}: expected `{expectations.text(e)}`, but the "
                        f"verdict is {answer.verdict}; {seen}")
    return failures


def judged(answer: Answer, q: ast.Query, bound: BoundQuery, scenario: Scenario, path: str) -> tuple[list[str], list[str]]:
    """(failures, known gaps). A query marked `gap "why"` records a known disagreement with the
    rulebook: its failed expectations are reported as the gap, not as failures, and once the
    tool answers as the rulebook does, the stale marker is itself a failure."""
    failures = failed_expectations(answer, q, bound, scenario, path)
    if q.gap is None:
        return failures, []
    if failures:
        return [], [f"{f} (known gap: {q.gap})" for f in failures]
    where = f"{path}:{q.span.line}:{q.span.column}" if q.span else path
    return [f"{where}: query {q.name.text} is marked as a known gap but now answers as the "
            "rulebook does: remove its `gap` line"], []


def _what_happened(answer: Answer, bound: BoundQuery, scenario: Scenario, e: ast.Expectation) -> str:
    names = Names(scenario, bound.seats)
    if not answer.outcomes:
        return "no outcome: " + "; ".join(p.message for p in answer.problems)
    seat = None
    name = e.name  # of the role, side or counter (the grammar always gives one)
    if e.kind in ("role", "side", "counter") and e.player is not None:
        seat = Binder(scenario, "<query>").seat(e.player, bound.seats)
    parts = []
    for i, o in enumerate(answer.outcomes, 1):
        exits = [f"{names.seat(s)} leaves by {k}" + (f" in {r.phase}" if e.phase or e.kind == "exits" else "")
                 for r in o.reports for s, k, _ in r.exits]
        learned = [f"{names.seat(w)} learns {x}" for r in o.reports for w, _, x in r.learned]
        told = [f"announced: {a}" for r in o.reports for a in r.announcements]
        winner = [f"{names.side(o.winner)} wins"] if o.winner else []
        now = []
        if seat is not None:  # what the expectation is about, at the end of the phases
            value = {"role": o.state.roles[seat], "side": o.state.sides[seat],
                     "counter": o.state.counters[seat].get(name.key if name else "")}[e.kind]
            now = [f"{e.kind} {e.player}" + (f" {name.text}" if e.kind == "counter" and name else "")
                   + f" is {value if value is not None else 'unset'}"]
        parts.append(f"outcome {i}: " + (", ".join(exits + learned + told + winner + now)
                                         or "nobody leaves"))
    return "; ".join(parts)
