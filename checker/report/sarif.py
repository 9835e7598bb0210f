"""SARIF 2.1.0, as GitHub code scanning reads it: one run, every registry code as a rule
(documented from the registry, as `explain` prints it), one result per finding with its
witness game as a code flow, and unreadable specs as tool execution notifications.

Columns are Unicode code points, 1-based, the end exclusive, as in our spans
(`run.columnKind` says so), so a Persian line is pointed at correctly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from .. import __version__, registry
from ..findings import Finding
from ..pipeline import FileResult
from ..source import Span
from ..text import name_key
from . import explain
from .paths import repository_path, repository_root, workspace_path
from .text import cited, stale_note, witness_lines

if TYPE_CHECKING:  # the model (and the AST under it) is not needed to start the command line
    from ..model import Scenario

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
# The project has no public home yet: set this when it does (GitHub shows it with the tool).
INFORMATION_URI = "https://pypi.org/project/mafiacheck/"
FINGERPRINT = "mafiacheck/v1"  # partialFingerprints key: bump if Finding.id changes meaning
SRCROOT = "%SRCROOT%"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SUPPRESSION_KINDS = {"acknowledged": "inSource", "baseline": "external"}


def render(results: list[FileResult]) -> str:
    return json.dumps(to_sarif(results), ensure_ascii=False, indent=2) + "\n"


def to_sarif(results: list[FileResult]) -> dict:
    rules, index = _rules(results)
    run = {
        "tool": {"driver": {
            "name": "mafiacheck",
            "version": __version__,
            "semanticVersion": __version__,
            "informationUri": INFORMATION_URI,
            "rules": rules,
        }},
        "invocations": [_invocation(results)],
        "originalUriBaseIds": _base_ids(results),
        "columnKind": "unicodeCodePoints",
        "results": [_result(r, f, index) for r in results if not r.diagnostics for f in r.findings],
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _rules(results: list[FileResult]) -> tuple[list[dict], dict[str, int]]:
    """Every documented code, in code order, and any undocumented code a finding uses."""
    codes = sorted(registry.CODES)
    codes += sorted({f.code for r in results for f in r.findings} - set(codes))
    return [_rule(c) for c in codes], {c: i for i, c in enumerate(codes)}


def _rule(code: str) -> dict:
    c = registry.CODES.get(code)
    if c is None:
        return {"id": code, "shortDescription": {"text": code}}
    return {
        "id": c.code,
        "name": c.name,
        "shortDescription": {"text": _first_sentence(c.summary)},
        "fullDescription": {"text": c.summary},
        "help": {"text": explain.text(c), "markdown": explain.markdown(c)},
        "defaultConfiguration": {"level": LEVELS.get(c.severity, "warning")},
        "properties": {"tags": [c.kind]},
    }


def _first_sentence(text: str) -> str:
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def _result(r: FileResult, f: Finding, index: dict[str, int]) -> dict:
    rules = cited(f)
    out: dict = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": LEVELS.get(f.severity, "warning"),
        "message": {"text": f"{f.message}{rules}"},
        "locations": [_location(f.span, r.path)],
    }
    related = [_location(rel.span, r.path, rel.message) for rel in f.related]
    if related:
        for i, loc in enumerate(related, 1):
            loc["id"] = i
        out["relatedLocations"] = related
    if f.id:
        out["partialFingerprints"] = {FINGERPRINT: f.id}
    if f.suppression is not None:
        s = f.suppression
        entry: dict = {"kind": SUPPRESSION_KINDS.get(s.kind, "external"), "status": "accepted",
                 "justification": s.reason}
        if s.span is not None:
            entry["location"] = _location(s.span, r.path)
        out["suppressions"] = [entry]
    flow = _code_flow(f, r.scenario, r.path)
    if flow:
        out["codeFlows"] = [flow]
    props: dict = {"kind": f.kind}
    if f.rules:
        props["rulebookRules"] = list(f.rules)
    if f.witness and f.witness.get("script"):
        props["witnessScript"] = f.witness["script"]
    out["properties"] = props
    return out


def artifact_location(path: str) -> dict:
    """A spec file as SARIF names it: relative to %SRCROOT%, the root of the git checkout it
    lies in (declared in run.originalUriBaseIds), whatever the working directory; outside a
    checkout relative to the working directory, else an absolute file URI."""
    found = repository_path(path)
    rel = found[0] if found else workspace_path(path)
    if rel is None:
        return {"uri": Path(path).resolve().as_uri()}
    return {"uri": quote(rel, safe="/"), "uriBaseId": SRCROOT}


def _base_ids(results: list[FileResult]) -> dict:
    """%SRCROOT% as an absolute URI ending in '/', as SARIF 3.14.14 asks."""
    roots = [repository_root(r.path) for r in results if r.path]
    root = next((r for r in roots if r is not None), None) or Path.cwd()
    uri = root.resolve().as_uri()
    return {SRCROOT: {"uri": uri if uri.endswith("/") else uri + "/",
                      "description": {"text": "The root of the repository the specs are in."}}}


def region(span: Span) -> dict:
    return {"startLine": span.line, "startColumn": span.column,
            "endLine": span.end_line, "endColumn": span.end_column}


def _location(span: Span | None, path: str, message: str | None = None) -> dict:
    physical: dict = {"artifactLocation": artifact_location(span.path if span else path)}
    if span is not None:
        physical["region"] = region(span)
    loc: dict = {"physicalLocation": physical}
    if message:
        loc["message"] = {"text": message}
    return loc


def _code_flow(f: Finding, scenario: Scenario | None, path: str) -> dict | None:
    """The witness game, one step per phase carrying the moderator's log of that phase. A step
    points at the ability its first choice uses (the day's rules for a vote) where the spec
    has one, else at the finding; the outcomes of the last phase follow as steps of their own."""
    w = f.witness
    if not w:
        return None
    logs = _phase_logs(w.get("log") or [])
    choices = {p["phase"]: p["choices"] for p in w.get("phases") or []}
    steps = []
    phases = list(logs) or list(choices)
    for phase in phases:
        lines = logs.get(phase) or [f"  choices: {'; '.join(choices.get(phase, []))}"]
        span = _step_span(scenario, choices.get(phase, [])) or f.span
        steps.append(_step(span, path, "\n".join([f"{phase}:"] + [ln.strip() for ln in lines])))
    for i, outcome in enumerate(w.get("outcomes") or [], 1):
        steps.append(_step(f.span, path, f"outcome {i} of the last phase:\n" + "\n".join(outcome)))
    if not steps:
        return None
    return {"message": {"text": "\n".join(witness_lines(w)) or "the witness game"},
            "threadFlows": [{"locations": steps}]}


def _phase_logs(log: list[str]) -> dict[str, list[str]]:
    """The witness log split by phase: 'night 1:' heads the indented lines that follow."""
    out: dict[str, list[str]] = {}
    current = None
    for line in log:
        if not line.startswith(" ") and line.endswith(":"):
            current = line[:-1]
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return out


def _step_span(scenario: Scenario | None, choices: list[str]) -> Span | None:
    if scenario is None:
        return None
    for choice in choices:
        word = choice.split(" ", 1)[0]
        if word == "vote":
            if scenario.day is not None and scenario.day.span is not None:
                return scenario.day.span
            continue
        ability = scenario.ability_by_key.get(name_key(word))
        if ability is not None and (ability.name_span or ability.span):
            return ability.name_span or ability.span
    return None


def _step(span: Span | None, path: str, message: str) -> dict:
    loc = _location(span, path)
    loc["message"] = {"text": message}
    return {"location": loc}


def _invocation(results: list[FileResult]) -> dict:
    notes = []
    for r in results:
        for d in r.diagnostics:
            text = d.message + (f" (help: {d.hint})" if d.hint else "")
            note: dict = {"level": "error" if d.severity == "error" else "warning",
                          "message": {"text": text},
                          "locations": [_location(d.span, d.path or r.path)]}
            notes.append(note)
    for r in results:
        for entry in r.stale_baseline:  # not a finding: a note for whoever keeps the baseline
            notes.append({"level": "warning", "message": {"text": stale_note(entry)},
                          "locations": [_location(None, entry.get("spec") or r.path)]})
    failed = any(n["level"] == "error" for n in notes)
    return {"executionSuccessful": not failed, "toolExecutionNotifications": notes}
