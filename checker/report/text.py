"""The human report: what an editor reads in a terminal."""

from __future__ import annotations

from ..pipeline import FileResult


def render(results: list[FileResult]) -> str:
    lines: list[str] = []
    errors = warnings = infos = unreadable = 0
    for r in results:
        if r.diagnostics:
            unreadable += 1
            for d in r.diagnostics:
                text = r.source.line_text(d.span.line) if (d.span and r.source) else None
                lines.append(d.render(text))
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
        if not r.findings:
            lines.append("  no findings")
        for f in r.findings:
            where = f"{f.span.line}:{f.span.column}" if f.span else "-"
            rules = f" [{', '.join(f.rules)}]" if f.rules else ""
            lines.append(f"  {r.path}:{where}: {f.severity}[{f.code}] {f.kind}: {f.message}{rules}")
            for rel in f.related:
                rwhere = f"{rel.span.line}:{rel.span.column}" if rel.span else "-"
                lines.append(f"      {rwhere}: {rel.message}")
            if f.witness and f.witness.get("log"):
                lines.append("      witness (the shortest game, replayed by the interpreter):")
                lines += [f"        {line}" for line in f.witness["log"]]
            if f.witness and f.witness.get("outcomes"):
                for i, outcome in enumerate(f.witness["outcomes"], 1):
                    lines.append(f"      outcome {i} of the last phase:")
                    lines += [f"        {line}" for line in outcome]
        for f in r.findings:
            errors += f.severity == "error"
            warnings += f.severity == "warning"
            infos += f.severity == "info"
        lines.append("")
    checked = len(results) - unreadable
    summary = (f"{checked} spec{'s' if checked != 1 else ''} checked, {errors} error"
               f"{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}")
    if unreadable:
        summary += (f"; {unreadable} spec{'s' if unreadable != 1 else ''} rejected "
                    "(it could not be read, or has syntax or validation errors)")
    lines.append(summary)
    return "\n".join(lines) + "\n"
