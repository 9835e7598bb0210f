"""`check --statistics`: how many findings of each code, as ruff prints it, instead of the
report: the first thing to look at when adopting the checker on many specs."""

from __future__ import annotations

from .. import registry
from ..pipeline import FileResult
from . import summary


def render(results: list[FileResult]) -> str:
    counts: dict[str, list[int]] = {}  # code -> [counted, suppressed]
    for r in results:
        for f in r.findings:
            counts.setdefault(f.code, [0, 0])[0 if f.gating else 1] += 1
    rows = sorted(counts.items(), key=lambda item: (-item[1][0], -item[1][1], item[0]))
    lines = []
    for code, (counted, suppressed) in rows:
        known = registry.CODES.get(code)
        name = f"{known.name} ({known.kind})" if known else ""
        extra = f"  (+{suppressed} suppressed)" if suppressed else ""
        lines.append(f"{counted:>5}  {code}  {name}{extra}")
    rejected = sum(1 for r in results if r.diagnostics)
    if rejected:
        lines.append(f"{rejected:>5}  input  spec{'s' if rejected != 1 else ''} that could not be read")
    lines.append(summary.sentence(summary.count(results)))
    return "\n".join(lines) + "\n"
