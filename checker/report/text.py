"""The human report: what an editor reads in a terminal."""

from __future__ import annotations

from ..findings import Finding
from ..pipeline import FileResult
from . import people


def finding_lines(path: str, f: Finding) -> list[str]:
    """One finding as the terminal shows it: where and what, the related places, and the
    witness game as the moderator's log."""
    where = f"{f.span.line}:{f.span.column}" if f.span else "-"
    rules = f" [{', '.join(f.rules)}]" if f.rules else ""
    lines = [f"{path}:{where}: {f.severity}[{f.code}] {f.kind}: {f.message}{rules}"]
    for rel in f.related:
        rwhere = f"{rel.span.line}:{rel.span.column}" if rel.span else "-"
        lines.append(f"    {rwhere}: {rel.message}")
    return lines + [f"    {line}" for line in witness_lines(f.witness)]


def witness_lines(witness: dict | None) -> list[str]:
    """A finding's witness as the moderator's log, and the last phase's outcomes when the
    finding is about their difference."""
    lines: list[str] = []
    if witness and witness.get("log"):
        lines.append("witness (the shortest game, replayed by the interpreter):")
        lines += [f"  {line}" for line in witness["log"]]
    if witness and witness.get("outcomes"):
        for i, outcome in enumerate(witness["outcomes"], 1):
            lines.append(f"outcome {i} of the last phase:")
            lines += [f"  {line}" for line in outcome]
    return lines


def suppression_note(f: Finding) -> str:
    s = f.suppression
    if s is None:
        return ""
    if s.kind == "acknowledged":
        where = f" at line {s.span.line}" if s.span else ""
        return f"acknowledged{where}: {s.reason}"
    return f"baselined: {s.reason}"


def suppressed_counts(results: list[FileResult]) -> str:
    """'2 acknowledged, 1 baselined', or '' when nothing is suppressed."""
    counts: dict[str, int] = {}
    for r in results:
        for f in r.findings:
            if f.suppression is not None:
                counts[f.suppression.kind] = counts.get(f.suppression.kind, 0) + 1
    words = {"acknowledged": "acknowledged", "baseline": "baselined"}
    return ", ".join(f"{n} {words.get(kind, kind)}" for kind, n in sorted(counts.items()))


def render(results: list[FileResult], show_suppressed: bool = False) -> str:
    """The report; acknowledged and baselined findings are counted, and listed on request."""
    lines: list[str] = []
    errors = warnings = infos = unreadable = 0
    for r in results:
        if r.diagnostics:
            unreadable += 1
            for d in r.diagnostics:
                text = r.source.line_text(d.span.line) if (d.span and r.source) else None
                lines.extend(d.render(text).split("\n"))
            lines.append("")
            continue
        sc = r.scenario
        title = f"{r.path}: {sc.text}"
        if sc.label:
            title += f" «{sc.label}»"
        if sc.source:
            title += f" (rulebook {sc.source})"
        lines.append(title)
        if sc.assumptions:
            lines.append(f"  assumptions in force ({len(sc.assumptions)}):")
            for a in sc.assumptions:
                cites = f" [{', '.join(c.id for c in a.cites)}]" if a.cites else ""
                lines.append(f"    - {a.name.text}: {a.label or ''}{cites}")
        shown = [f for f in r.findings if show_suppressed or f.gating]
        if not shown:
            lines.append("  no findings")
        for f in shown:
            lines += [f"  {line}" for line in finding_lines(r.path, f)]
            if f.suppression is not None:
                lines.append(f"    ({suppression_note(f)})")
        hidden = len(r.findings) - len(shown)
        if hidden:
            lines.append(f"  ({hidden} suppressed finding{'s' if hidden != 1 else ''} not shown; "
                         "--show-suppressed lists them)")
        for entry in r.stale_baseline:
            lines.append(f"  baselined {entry['code']} no longer found: {entry['message']} "
                         f"[{entry['id']}]")
        for f in r.findings:
            if not f.gating:
                continue
            errors += f.severity == "error"
            warnings += f.severity == "warning"
            infos += f.severity == "info"
        lines.append("")
    checked = len(results) - unreadable
    summary = (f"{checked} spec{'s' if checked != 1 else ''} checked, {errors} error"
               f"{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}")
    suppressed = suppressed_counts(results)
    if suppressed:
        summary += f" ({suppressed} not counted)"
    stale = sum(len(r.stale_baseline) for r in results)
    if stale:
        summary += (f"; {stale} baselined finding{'s' if stale != 1 else ''} no longer found "
                    "(refresh the baseline with --write-baseline)")
    if unreadable:
        summary += (f"; {unreadable} spec{'s' if unreadable != 1 else ''} rejected "
                    "(it could not be read, or has syntax or validation errors)")
    lines.append(summary)
    return people.lines(lines) + "\n"
