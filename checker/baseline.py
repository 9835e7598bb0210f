"""Baselines: the findings a project already knows about, so CI fails only on new ones.

A baseline is a JSON file of finding ids (see fingerprint.py), each with the spec's path
relative to the baseline file, so a checkout anywhere reads it the same way:

    {"version": 1, "tool": "mafiacheck", "findings": [
        {"path": "specs/commando.mafia", "id": "MC207-032a8fb072", "code": "MC207",
         "message": "…"}]}

Code and message are there for the reviewer of a diff; only path and id match. An
inconclusive result is never written to a baseline: the checker did not decide, so there is
nothing to accept.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from .errors import Diagnostic, SpecError
from .loader import read_text_file
from .pipeline import FileResult
from .findings import Suppression

VERSION = 1


@dataclass(frozen=True)
class Baseline:
    path: str
    entries: tuple[dict, ...]

    def key(self, spec_path: str) -> str:
        return _relative(spec_path, self.path)


def _relative(spec_path: str, baseline_path: str) -> str:
    base = os.path.dirname(os.path.abspath(baseline_path))
    return Path(os.path.relpath(os.path.abspath(spec_path), base)).as_posix()


def _bad(path: str, message: str) -> SpecError:
    return SpecError([Diagnostic(f"baseline {path}: {message}", None, path)])


def load(path: str) -> Baseline:
    """Read a baseline file; SpecError (exit 2) when it is missing or malformed."""
    try:
        text = read_text_file(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise _bad(path, f"cannot be read ({exc.__class__.__name__}: {exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _bad(path, f"is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    if not isinstance(data, dict) or data.get("version") != VERSION \
            or not isinstance(data.get("findings"), list):
        raise _bad(path, f'expected {{"version": {VERSION}, "findings": [...]}}, as written by '
                         "`mafiacheck check --write-baseline`")
    entries = []
    for i, entry in enumerate(data["findings"]):
        if not (isinstance(entry, dict) and isinstance(entry.get("path"), str)
                and isinstance(entry.get("id"), str)):
            raise _bad(path, f"entry {i + 1} needs a string `path` and `id`")
        entries.append(entry)
    return Baseline(path, tuple(entries))


def apply(results: list[FileResult], baseline: Baseline) -> list[FileResult]:
    """Mark baselined findings; record, per file checked, the entries nothing matched."""
    reason = f"recorded in {baseline.path}"
    out = []
    for r in results:
        if r.diagnostics:
            out.append(r)
            continue
        key = baseline.key(r.path)
        wanted = {e["id"]: e for e in baseline.entries if e["path"] == key}
        found = set()
        findings = []
        for f in r.findings:
            if f.id in wanted and f.suppression is None and not f.undecided:
                found.add(f.id)
                f = replace(f, suppression=Suppression("baseline", reason))
            findings.append(f)
        stale = [e for i, e in wanted.items() if i not in found]
        out.append(replace(r, findings=findings,
                           stale_baseline=sorted(stale, key=lambda e: e["id"])))
    # Entries of a spec that no longer exists (renamed or deleted) can never match again:
    # stale too, listed under the first spec checked, each naming its own spec.
    base = os.path.dirname(os.path.abspath(baseline.path))
    vanished = [dict(e, spec=e["path"]) for e in baseline.entries
                if not os.path.exists(os.path.join(base, e["path"]))]
    if vanished and out:
        first = next((i for i, r in enumerate(out) if not r.diagnostics), 0)
        out[first] = replace(out[first], stale_baseline=out[first].stale_baseline + sorted(
            vanished, key=lambda e: (e["path"], e["id"])))
    return out


def record(results: list[FileResult], path: str) -> Baseline:
    """The baseline at `path` accepting every finding the results hold that would fail the
    gate (acknowledged findings need no entry; inconclusive ones can have none)."""
    entries = []
    for r in results:
        for f in r.findings:
            if f.undecided or (f.suppression and f.suppression.kind == "acknowledged"):
                continue
            entries.append({"path": _relative(r.path, path), "id": f.id, "code": f.code,
                            "message": f.message})
    entries.sort(key=lambda e: (e["path"], e["id"]))
    return Baseline(path, tuple(entries))


def render(baseline: Baseline) -> str:
    data = {"version": VERSION, "tool": "mafiacheck", "findings": list(baseline.entries)}
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
