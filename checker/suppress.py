"""Acknowledged findings: the spec's own `acknowledge` declarations, applied to its findings.

An acknowledgement matches a finding when the codes agree and every declaration it names
contains one of the finding's locations (the primary one or a related one). A matched finding
stays in every report, marked, but no longer fails the gate. An acknowledgement that matches
nothing, for a kind of finding that was searched, is itself reported: a stale one would
otherwise accept some other finding later without anyone noticing.
"""

from __future__ import annotations

from dataclasses import replace

from .findings import Finding, Suppression
from .model import Acknowledgement, Scenario
from .registry import CODES, UNUSED_ACKNOWLEDGEMENT
from .source import Span


def contains(outer: Span, inner: Span | None) -> bool:
    if inner is None or outer.path != inner.path:
        return False
    return ((outer.line, outer.column) <= (inner.line, inner.column)
            and (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column))


def matches(ack: Acknowledgement, finding: Finding) -> bool:
    if ack.code != finding.code:
        return False
    spans = [finding.span] + [r.span for r in finding.related]
    return all(any(contains(target, s) for s in spans) for target in ack.targets)


def acknowledge(findings: list[Finding], scenario: Scenario,
                searched_kinds: tuple[str, ...]) -> list[Finding]:
    """The findings with acknowledged ones marked, then one finding per unused acknowledgement."""
    used: set[int] = set()
    out = []
    for finding in findings:
        for index, ack in enumerate(scenario.acknowledgements):
            if finding.suppression is None and not finding.undecided and matches(ack, finding):
                used.add(index)
                finding = replace(finding, suppression=Suppression("acknowledged", ack.reason, ack.span))
        out.append(finding)
    for index, ack in enumerate(scenario.acknowledgements):
        if index in used or CODES[ack.code].kind not in searched_kinds:
            continue
        on = f" on {', '.join(ack.names)}" if ack.names else ""
        out.append(Finding(
            UNUSED_ACKNOWLEDGEMENT, "acknowledgement", CODES[UNUSED_ACKNOWLEDGEMENT].severity,
            f"the acknowledgement of {ack.code}{on} matches no finding", ack.span,
            rules=tuple(ref.id for ref in ack.cites)))
    return out
