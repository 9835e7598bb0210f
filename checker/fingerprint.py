"""Stable finding ids: what a baseline records, so CI fails only on new findings.

An id must survive edits elsewhere in the file (lines move, comments change, other rules are
added), so it is built from what the finding is about, never from where it is:

- the finding's code;
- the text it points at, first line only (`ability guard_protect "حفاظت نگهبان" {`), with
  whitespace collapsed — the declaration's head names the thing, its body may be edited;
- the same for each related location;
- its message without the search context in parentheses ("(composition 10, default settings,
  up to 1 round)"), which changes with `--bound` and with which composition found it first.

Two findings that still share all of that are numbered in report order (`…-2`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace

from .findings import Finding
from .source import SourceFile, Span

# The context an analysis appends (where and within which bound it searched), and why a proof
# for every length was not found (a solver's reason, which a new solver version may word or
# reach otherwise): neither makes a finding new.
_CONTEXT = re.compile(r"\s*\((?:reached at|composition)\b[^()]*\)"
                      r"|(?<=no proof for every length)\s*\((?:[^()]|\([^()]*\))*\)")


def anchor(source: SourceFile | None, span: Span | None) -> str:
    """The first line of the text a span covers, whitespace collapsed."""
    if source is None or span is None:
        return ""
    line = source.line_text(span.line)
    end = span.end_column - 1 if span.end_line == span.line else len(line)
    return " ".join(line[span.column - 1:end].split())


def stable_message(message: str) -> str:
    return " ".join(_CONTEXT.sub("", message).split())


def finding_key(finding: Finding, source: SourceFile | None) -> str:
    parts = [finding.code, anchor(source, finding.span)]
    parts += sorted(anchor(source, r.span) for r in finding.related)
    parts.append(stable_message(finding.message))
    return "\x1f".join(parts)


def assign_ids(findings: list[Finding], source: SourceFile | None) -> list[Finding]:
    """The findings, in the same order, each with its stable id."""
    seen: dict[str, int] = {}
    out = []
    for finding in findings:
        digest = hashlib.sha256(finding_key(finding, source).encode("utf-8")).hexdigest()[:10]
        base = f"{finding.code}-{digest}"
        seen[base] = seen.get(base, 0) + 1
        out.append(replace(finding, id=base if seen[base] == 1 else f"{base}-{seen[base]}"))
    return out
