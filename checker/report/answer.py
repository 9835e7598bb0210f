"""Answers to what-if queries, as a moderator's notes (text) or JSON, in the scenario's own
role names."""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..interpreter.play import Answer
from ..moderator_log import Names, phase_lines, report_json
from . import people


def render_text(answers: list[tuple[Answer, Names]]) -> str:
    lines = []
    for answer, names in answers:
        title = f"query {answer.name}" + (f": {answer.label}" if answer.label else "")
        lines.append(title)
        lines.append(f"  verdict: {answer.verdict}")
        if answer.detail:
            lines.append(f"  {answer.detail}")
        for f in answer.prestart:
            if f.severity == "warning":
                lines.append(f"  pre-start warning: {f.message}"
                             + (f" [{', '.join(f.rules)}]" if f.rules else ""))
        for p in answer.problems:
            kind = "undecided" if p.hole else "rejected" if answer.verdict == "rejected" else "illegal"
            cites = f" [{', '.join(p.rules)}]" if p.rules else ""
            lines.append(f"  {kind}: {p.message}{cites}")
        many = len(answer.outcomes) > 1
        for i, outcome in enumerate(answer.outcomes, 1):
            if many:
                lines.append(f"  outcome {i} of {len(answer.outcomes)}:")
            indent = "    " if many else "  "
            roles = names.seats  # a seat is named by the role dealt to it
            for r in outcome.reports:
                order = " → ".join(names.step(s) for s in r.order if s != "deaths")
                lines.append(f"{indent}{r.phase}" + (f" (resolved: {order})" if order else "") + ":")
                for line in phase_lines(names, r, roles):
                    lines.append(f"{indent}  {line}")
        if answer.rules:
            lines.append(f"  rules: {', '.join(answer.rules)}")
        lines.append("")
    return people.lines(lines)


def answer_json(answer: Answer, names: Names) -> dict:
    return {
        "query": answer.name,
        "label": answer.label,
        "verdict": answer.verdict,
        "detail": answer.detail,
        "problems": [{"message": p.message, "rules": list(p.rules),
                      "kind": "undecided" if p.hole else
                      "rejected" if answer.verdict == "rejected" else "illegal"}
                     for p in answer.problems],
        "prestart": [{"severity": f.severity, "message": f.message, "rules": list(f.rules)}
                     for f in answer.prestart],
        "outcomes": [{"phases": [report_json(names, r) for r in o.reports], "winner": o.winner}
                     for o in answer.outcomes],
        "rules": answer.rules,
    }


def render_json(answers: list[tuple[Answer, Names]], failures: Iterable[str] = (),
                gaps: Iterable[str] = ()) -> str:
    data: dict = {"version": 1, "answers": [answer_json(a, n) for a, n in answers]}
    if failures:
        data["expectations_failed"] = list(failures)
    if gaps:
        data["known_gaps"] = list(gaps)
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
