"""Findings: what an analysis reports. A finding is a value; analyses return them, never print."""

from __future__ import annotations

from dataclasses import dataclass

from .source import Span

SEVERITIES = ("error", "warning", "info")
# The kinds of finding that say the checker did not decide (registry: MC200, MC900).
UNDECIDED_KINDS = ("inconclusive", "internal")


@dataclass(frozen=True)
class Related:
    message: str
    span: Span | None


@dataclass(frozen=True)
class Suppression:
    """Why a finding does not fail the gate: acknowledged in the spec, or recorded in a baseline."""
    kind: str  # "acknowledged" | "baseline"
    reason: str
    span: Span | None = None  # the `acknowledge` declaration, for acknowledged findings

    def to_json(self) -> dict:
        return {"kind": self.kind, "reason": self.reason,
                "span": self.span.to_json() if self.span else None}


@dataclass(frozen=True)
class Finding:
    code: str
    kind: str
    severity: str
    message: str
    span: Span | None
    related: tuple[Related, ...] = ()
    rules: tuple[str, ...] = ()  # rulebook ids the involved spec lines cite
    witness: dict | None = None
    # A stable id ("MC207-1a2b3c4d5e"): survives edits elsewhere in the file; baselines use it.
    id: str = ""
    suppression: Suppression | None = None
    # The analyses that produced it, or could not decide (an unsupported construct leaves
    # several undecided); set by the pipeline. Reports that group by analysis read it.
    analyses: tuple[str, ...] = ()

    @property
    def undecided(self) -> bool:
        """An inconclusive result or an internal error: the checker did not decide, so the
        finding always fails the gate and can be neither acknowledged nor baselined."""
        return self.kind in UNDECIDED_KINDS

    @property
    def gating(self) -> bool:
        """Whether the finding counts towards the exit code."""
        return self.suppression is None

    def sort_key(self) -> tuple[int, int, str, str]:
        s = self.span
        return (s.line if s else 0, s.column if s else 0, self.code, self.message)

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "kind": self.kind,
            "severity": self.severity,
            "message": self.message,
            "span": self.span.to_json() if self.span else None,
            "related": [
                {"message": r.message, "span": r.span.to_json() if r.span else None}
                for r in self.related
            ],
            "rules": list(self.rules),
            "witness": self.witness,
            "id": self.id,
            "suppression": self.suppression.to_json() if self.suppression else None,
        }


@dataclass(frozen=True)
class Verdict:
    """A question an analysis answered no, with nothing to report: for every length of game
    (`every`: by induction) or within `depth` rounds, `detail` saying how it was decided and,
    when only within the depth, why not for longer games. `kind`: the analysis."""

    question: str
    where: str
    depth: int
    every: bool
    detail: str
    kind: str = ""

    @property
    def text(self) -> str:
        return f"{self.question}: no ({self.where}; {self.detail})"

    def to_json(self) -> dict:
        return {"analysis": self.kind, "question": self.question, "where": self.where,
                "every_length": self.every, "depth": self.depth, "detail": self.detail}
