"""GitHub Actions workflow commands: an annotation per finding on the spec line it is about,
then a summary line.

    ::error file=specs/x.mafia,line=21,col=9,endLine=21,endColumn=15,title=MC207 ambiguous-order::…

Gating findings are annotated at their severity (inconclusive ones as errors: the gate cannot
pass); suppressed ones (acknowledged or baselined) only as notices, saying why. The message
carries the witness game as the moderator's log, on lines of its own.
"""

from __future__ import annotations

import os

from .. import registry
from ..findings import Finding
from ..pipeline import FileResult
from ..source import Span
from .paths import repository_path, workspace_path
from . import people, summary
from .text import cited, stale_note, witness_lines

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """A command's message: '%', CR and LF are escaped (the runner decodes them)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value: as a message, and ':' and ',' too, which end the value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **props: object) -> str:
    shown = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None)
    return f"::{name}{' ' + shown if shown else ''}::{escape_data(message)}"


def location(path: str, span: Span | None) -> dict:
    """file, line, col, endLine, endColumn. GitHub takes columns only on one line, and its
    end column is the last character's (inclusive); ours is just past it."""
    # GitHub resolves an annotation's file against the repository's root, not the step's
    # working directory.
    found = repository_path(path)
    props: dict = {"file": found[0] if found else (workspace_path(path) or path)}
    if span is None:
        return props
    props.update(line=span.line, endLine=span.end_line)
    if span.line == span.end_line:
        props.update(col=span.column, endColumn=max(span.column, span.end_column - 1))
    return props


def annotation(path: str, f: Finding) -> str:
    code = registry.CODES.get(f.code)
    title = f"{f.code} {code.name if code else f.kind}"
    rules = cited(f)
    lines = [f"{f.message}{rules}"]
    lines += [f"{rel.span.line}:{rel.span.column}: {rel.message}" if rel.span else rel.message
              for rel in f.related]
    lines += witness_lines(f.witness)
    lines = [people.line(text) for text in lines]
    if f.suppression is None:
        name = "error" if f.undecided else COMMANDS.get(f.severity, "warning")
    else:
        name = "notice"
        how = "acknowledged" if f.suppression.kind == "acknowledged" else "baselined"
        title += f" ({how})"
        lines.insert(0, f"{how}, does not fail the check: {f.suppression.reason}")
    return command(name, "\n".join(lines), **location(path, f.span), title=title)


def render(results: list[FileResult]) -> str:
    out = []
    for r in results:
        if r.diagnostics:
            for d in r.diagnostics:
                message = d.message + (f"\nhelp: {d.hint}" if d.hint else "")
                out.append(command("error", people.line(message), **location(d.path or r.path, d.span),
                                   title="mafiacheck: the spec cannot be read"))
            continue
        for f in r.findings:
            out.append(annotation(r.path, f))
        for entry in r.stale_baseline:
            out.append(command("warning", people.line(stale_note(entry)),
                               **location(entry.get("spec") or r.path, None),
                               title="mafiacheck: stale baseline entry"))
    shown = _annotations_by_level(out)
    over = [f"{n} {level} annotations" for level, n in shown.items() if n > ANNOTATION_LIMIT]
    if over:
        out.append(f"::warning title=mafiacheck: annotations not shown::GitHub shows at most "
                   f"{ANNOTATION_LIMIT} annotations of each level per step; this run has "
                   f"{', '.join(over)}. The full list is in the step summary and in "
                   "`--format text` or `--format sarif`.")
    out.append("mafiacheck: " + summary.sentence(summary.count(results)))
    return "\n".join(out) + "\n"


# GitHub shows at most 10 error, 10 warning and 10 notice annotations per step; the rest are
# dropped without a word, so the report says when that happens.
ANNOTATION_LIMIT = 10


def _annotations_by_level(lines: list[str]) -> dict[str, int]:
    counts = {"error": 0, "warning": 0, "notice": 0}
    for line in lines:
        level = line[2:].split(" ", 1)[0].split("::", 1)[0] if line.startswith("::") else None
        if level in counts:
            counts[level] += 1
    return counts


def step_summary(results: list[FileResult]) -> list[str]:
    """Append the Markdown summary to $GITHUB_STEP_SUMMARY when GitHub gives one (the job's
    page shows it); the warnings to print (annotations past GitHub's limit)."""
    warnings = []
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    counts = summary.count(results)
    if target:
        rows = ["## mafiacheck", "", summary.sentence(counts), "",
                "| spec | errors | warnings | inconclusive | suppressed |", "|---|---|---|---|---|"]
        for r in results:
            c = summary.count([r])
            cells = ("could not be read", "", "", "") if r.diagnostics else (
                c.errors, c.warnings, c.inconclusive + c.internal, c.acknowledged + c.baselined)
            rows.append(f"| `{r.path}` | " + " | ".join(str(x) for x in cells) + " |")
        try:
            with open(target, "a", encoding="utf-8") as handle:
                handle.write(people.lines(rows) + "\n\n")
        except OSError as exc:
            warnings.append(f"cannot write the step summary {target}: {exc.strerror or exc}")
    levels = {"error": counts.errors + counts.inconclusive + counts.internal + counts.rejected,
              "warning": counts.warnings + counts.stale,
              "notice": counts.notes + counts.acknowledged + counts.baselined}
    for level, n in levels.items():
        if n > ANNOTATION_LIMIT:
            warnings.append(f"{n} {level} annotations: GitHub shows only the first "
                            f"{ANNOTATION_LIMIT} of each level per step")
    return warnings
