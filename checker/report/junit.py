"""JUnit XML for CI dashboards: one testsuite per spec, one testcase per analysis kind that
ran on it (classname the spec's path, name the kind).

A testcase fails when it has gating error-level findings; inconclusive findings make it an
error (an undecided question is never a pass); warnings and suppressed findings (acknowledged
or baselined) are listed in its system-out and never fail it. A spec that cannot be read is
one testcase, `input`, in error. Texts are the terminal report's (finding, related places,
the witness as the moderator's log).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ..findings import Finding
from ..pipeline import ENCODED, FileResult
from .text import finding_lines, stale_note

INPUT = "input"  # the testcase of a spec that could not be read
# Characters XML 1.0 cannot carry, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def render(results: list[FileResult]) -> str:
    root = ET.Element("testsuites", name="mafiacheck")
    # The common (Jenkins) schema gives <testsuites> no `skipped` count; each suite has one.
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for r in results:
        suite = _suite(r)
        root.append(suite)
        for key in totals:
            totals[key] += int(suite.get(key, "0"))
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(r: FileResult) -> ET.Element:
    suite = ET.Element("testsuite", name=r.path)
    if r.diagnostics:
        case = ET.SubElement(suite, "testcase", classname=r.path, name=INPUT)
        lines = []
        for d in r.diagnostics:
            line = r.source.line_text(d.span.line) if (d.span and r.source) else None
            lines.append(d.render(line))
        _child(case, "error", "\n".join(lines), message=_clean(r.diagnostics[0].message),
               type="input-error")
        return _count(suite)
    sc = r.scenario
    if sc is not None:
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="scenario", value=_clean(sc.text))
        if sc.label:
            ET.SubElement(props, "property", name="label", value=_clean(sc.label))
        for a in sc.assumptions:
            ET.SubElement(props, "property", name=f"assumption {a.name.text}", value=_clean(a.label or ""))
    # The solver analyses look at the compositions that add up; with none, they did not run.
    encodable = sc is not None and any(c.total == c.players for c in sc.compositions)
    for kind, findings in _by_kind(r).items():
        case = _testcase(suite, r.path, kind, findings)
        if kind in ENCODED and not encodable and not findings:
            case.insert(0, ET.Element("skipped", message="no composition adds up, so no game was encoded"))
    if r.stale_baseline:  # passes: the baseline wants refreshing, the specs are fine
        case = ET.SubElement(suite, "testcase", classname=r.path, name="baseline")
        _child(case, "system-out", "\n".join(stale_note(e) for e in r.stale_baseline))
    return _count(suite)


def _by_kind(r: FileResult) -> dict[str, list[Finding]]:
    """Findings under the analysis that produced them: each kind that ran has its testcase.
    An inconclusive finding belongs to the analyses it left undecided (Finding.analyses); one
    with none recorded gets a testcase `inconclusive` of its own (it fails the gate all the same)."""
    groups: dict[str, list[Finding]] = {k: [] for k in (r.analyses or ())}
    for f in r.findings:
        for kind in _kinds_of(f):
            groups.setdefault(kind, []).append(f)
    return groups


def _kinds_of(f: Finding) -> list[str]:
    if not f.undecided:
        return [f.kind]
    return list(f.analyses) or [f.kind]


def _testcase(suite: ET.Element, path: str, kind: str, findings: list[Finding]) -> ET.Element:
    case = ET.SubElement(suite, "testcase", classname=path, name=kind)
    gating = [f for f in findings if f.gating]
    failed = [f for f in gating if f.severity == "error" and not f.undecided]
    undecided = [f for f in gating if f.undecided]
    # The common (Jenkins) schema orders a testcase's children: skipped, error, failure, output.
    if undecided:
        _child(case, "error", _texts(path, undecided), message=_summary(undecided, "inconclusive"),
               type=",".join(dict.fromkeys(f.code for f in undecided)))
    if failed:
        _child(case, "failure", _texts(path, failed), message=_summary(failed, "error"),
               type=",".join(dict.fromkeys(f.code for f in failed)))
    rest = [f for f in gating if f not in failed and f not in undecided]
    suppressed = [(f, f.suppression) for f in findings if f.suppression is not None]
    out = []
    if rest:
        out.append(_texts(path, rest))
    for f, s in suppressed:
        how = "acknowledged" if s.kind == "acknowledged" else "baselined"
        out.append(f"suppressed ({how}: {s.reason}):\n" + "\n".join(finding_lines(path, f)))
    if out:
        _child(case, "system-out", "\n\n".join(out))
    return case


def _summary(findings: list[Finding], what: str) -> str:
    first = findings[0]
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    return _clean(f"{len(findings)} {what}{'s' if len(findings) != 1 and what == 'error' else ''}: "
                  f"{first.code} {first.message}{more}")


def _texts(path: str, findings: list[Finding]) -> str:
    return "\n\n".join("\n".join(finding_lines(path, f)) for f in findings)


def _child(parent: ET.Element, tag: str, text: str, **attrs: str) -> None:
    child = ET.SubElement(parent, tag, attrs)
    child.text = _clean(text)


def _count(suite: ET.Element) -> ET.Element:
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
    suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    return suite


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
