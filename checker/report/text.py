"""The human report: what an editor reads in a terminal."""

from __future__ import annotations

import re

from ..findings import Finding, Verdict
from ..pipeline import FileResult
from . import people, summary


def finding_lines(path: str, f: Finding) -> list[str]:
    """One finding as the terminal shows it: where and what, the related places, and the
    witness game as the moderator's log."""
    where = f"{f.span.line}:{f.span.column}" if f.span else "-"
    rules = cited(f)
    lines = [f"{path}:{where}: {f.severity}[{f.code}] {f.kind}: {f.message}{rules}"]
    for rel in f.related:
        rwhere = f"{rel.span.line}:{rel.span.column}" if rel.span else "-"
        lines.append(f"    {rwhere}: {rel.message}")
    return lines + [f"    {line}" for line in witness_lines(f.witness)]


def cited(f: Finding, before: str = " [", after: str = "]") -> str:
    """The rule ids a finding's spec lines cite, for after its message: once each, and not
    those the message already names (`… (G2-A12) [G2-A12, G2-R05]` would say G2-A12 twice)."""
    said = set(re.findall(r"\b[A-Z][A-Z0-9]*-[RAP][0-9]+\b", f.message))
    rules = [r for r in dict.fromkeys(f.rules) if r not in said]
    return f"{before}{', '.join(rules)}{after}" if rules else ""


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


def stale_note(entry: dict) -> str:
    """A baseline entry that no finding matched, for people. An entry of a spec that no
    longer exists (renamed, deleted) says so: it is listed under the first spec checked."""
    gone = f" (its spec {entry['spec']} no longer exists)" if entry.get("spec") else ""
    return (f"baselined {entry.get('code', '?')} no longer found: {entry.get('message', '')} "
            f"[{entry['id']}]{gone}")


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


def render(results: list[FileResult], show_suppressed: bool = False, show_verdicts: bool = False) -> str:
    """The report; acknowledged and baselined findings are counted, and listed on request, as
    the questions answered no (how far each answer holds)."""
    lines: list[str] = []
    for r in results:
        if r.diagnostics:
            for d in r.diagnostics:
                text = r.source.line_text(d.span.line) if (d.span and r.source) else None
                lines.extend(d.render(text).split("\n"))
            lines.append("")
            continue
        sc = r.scenario
        assert sc is not None  # a spec with no diagnostics was resolved
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
            lines.append(f"  {stale_note(entry)}")
        lines += verdict_lines(r.verdicts, show_verdicts)
        lines.append("")
    lines.append(summary.sentence(summary.count(results)))
    return people.lines(lines) + "\n"


def verdict_lines(verdicts: list[Verdict], listed: bool) -> list[str]:
    """How many questions were answered no, and how many of those for every length of game;
    each one, if `listed`. A "no" that holds only within the rounds searched is not a proof,
    and the report says so rather than staying silent."""
    if not verdicts:
        return []
    every = sum(v.every for v in verdicts)
    within = len(verdicts) - every
    parts = [f"{every} for every length of game"] if every else []
    if within:
        depths = sorted({v.depth for v in verdicts if not v.every})
        rounds = " or ".join(str(d) for d in depths)
        parts.append(f"{within} only within the {rounds} round{'s' if depths != [1] else ''} searched")
    more = "" if listed else " (--show-verdicts lists them)"
    out = [f"  {len(verdicts)} question{'s' if len(verdicts) != 1 else ''} answered no: {', '.join(parts)}{more}"]
    if listed:
        out += [f"    - {v.kind}: {v.text}" for v in verdicts]
    return out
