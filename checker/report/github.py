"""GitHub Actions workflow commands: an annotation per finding on the spec line it is about,
then a summary line.

    ::error file=specs/x.mafia,line=21,col=9,endLine=21,endColumn=15,title=MC207 ambiguous-order::…

Gating findings are annotated at their severity (inconclusive ones as errors: the gate cannot
pass); suppressed ones (acknowledged or baselined) only as notices, saying why. The message
carries the witness game as the moderator's log, on lines of its own.
"""

from __future__ import annotations

from .. import registry
from ..findings import Finding
from ..pipeline import FileResult
from ..source import Span
from .paths import workspace_path
from . import people
from .text import witness_lines

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """A command's message: '%', CR and LF are escaped (the runner decodes them)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value: as a message, and ':' and ',' too, which end the value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **props) -> str:
    shown = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None)
    return f"::{name}{' ' + shown if shown else ''}::{escape_data(message)}"


def location(path: str, span: Span | None) -> dict:
    """file, line, col, endLine, endColumn. GitHub takes columns only on one line, and its
    end column is the last character's (inclusive); ours is just past it."""
    props: dict = {"file": workspace_path(path) or path}
    if span is None:
        return props
    props.update(line=span.line, endLine=span.end_line)
    if span.line == span.end_line:
        props.update(col=span.column, endColumn=max(span.column, span.end_column - 1))
    return props


def annotation(path: str, f: Finding) -> str:
    code = registry.CODES.get(f.code)
    title = f"{f.code} {code.name if code else f.kind}"
    rules = f" [{', '.join(f.rules)}]" if f.rules else ""
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
    counts = {"error": 0, "warning": 0, "inconclusive": 0, "suppressed": 0}
    rejected = 0
    for r in results:
        if r.diagnostics:
            rejected += 1
            for d in r.diagnostics:
                message = d.message + (f"\nhelp: {d.hint}" if d.hint else "")
                out.append(command("error", message, **location(d.path or r.path, d.span),
                                   title="mafiacheck: the spec cannot be read"))
            continue
        for f in r.findings:
            out.append(annotation(r.path, f))
            if not f.gating:
                counts["suppressed"] += 1
            elif f.undecided:
                counts["inconclusive"] += 1
            elif f.severity in ("error", "warning"):
                counts[f.severity] += 1
    checked = len(results) - rejected
    summary = (f"mafiacheck: {checked} spec{'s' if checked != 1 else ''} checked, "
               + ", ".join(f"{n} {k}{'s' if n != 1 and k in ('error', 'warning') else ''}"
                           for k, n in counts.items()))
    if rejected:
        summary += f"; {rejected} spec{'s' if rejected != 1 else ''} could not be read"
    out.append(summary)
    return "\n".join(out) + "\n"
