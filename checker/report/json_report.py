"""The JSON report of design.md's contract: {"version": 1, "files": [...]}."""

from __future__ import annotations

import json

from ..pipeline import FileResult
from . import summary

VERSION = 1


def to_json(results: list[FileResult]) -> dict:
    files = []
    for r in results:
        entry: dict = {"path": r.path}
        if r.diagnostics:
            entry["scenario"] = None
            entry["errors"] = [d.to_json() for d in r.diagnostics]
            entry["findings"] = []
        else:
            sc = r.scenario
            assert sc is not None  # a spec with no diagnostics was resolved
            entry["scenario"] = sc.text
            entry["label"] = sc.label
            entry["source"] = sc.source
            entry["assumptions"] = [
                {"name": a.name.text, "text": a.label, "cites": [c.id for c in a.cites]}
                for a in sc.assumptions
            ]
            entry["findings"] = [f.to_json() for f in r.findings]
            entry["verdicts"] = [v.to_json() for v in r.verdicts]
        if r.stale_baseline:  # baseline entries no finding matched any more
            entry["stale_baseline"] = [dict(e) for e in r.stale_baseline]
        files.append(entry)
    return {"version": VERSION, "files": files, "summary": summary.count(results).to_json()}


def render(results: list[FileResult]) -> str:
    return json.dumps(to_json(results), ensure_ascii=False, indent=2) + "\n"
