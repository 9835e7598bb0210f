"""The run's counts, computed once for every format, so that the text report, the GitHub
summary line, the Markdown report and the JSON report never disagree on how many errors a
run found."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..pipeline import FileResult


@dataclass(frozen=True)
class Counts:
    checked: int  # specs read and analysed
    rejected: int  # specs that could not be read
    errors: int  # gating error-level findings, not counting the undecided ones
    warnings: int
    notes: int  # info-level findings (how far a search went)
    inconclusive: int  # gating MC200: the solver gave up, or a construct is not encoded
    internal: int  # gating MC900: a bug in the checker
    acknowledged: int
    baselined: int
    stale: int  # baseline entries no finding matched

    def to_json(self) -> dict:
        return asdict(self)


def count(results: list[FileResult], stale: int | None = None) -> Counts:
    tally = dict.fromkeys(("errors", "warnings", "notes", "inconclusive", "internal",
                           "acknowledged", "baselined"), 0)
    rejected = 0
    for r in results:
        if r.diagnostics:
            rejected += 1
            continue
        for f in r.findings:
            if f.suppression is not None:
                tally["acknowledged" if f.suppression.kind == "acknowledged" else "baselined"] += 1
            elif f.kind == "internal":
                tally["internal"] += 1
            elif f.undecided:
                tally["inconclusive"] += 1
            else:
                tally[{"error": "errors", "warning": "warnings"}.get(f.severity, "notes")] += 1
    if stale is None:
        stale = sum(len(r.stale_baseline) for r in results)
    return Counts(len(results) - rejected, rejected, stale=stale, **tally)


def _n(number: int, word: str) -> str:
    return f"{number} {word}{'s' if number != 1 else ''}"


def sentence(c: Counts) -> str:
    """The summary line every format for people ends with."""
    text = f"{_n(c.checked, 'spec')} checked, {_n(c.errors, 'error')}, {_n(c.warnings, 'warning')}"
    if c.inconclusive:
        text += f", {c.inconclusive} inconclusive"
    if c.internal:
        text += f", {_n(c.internal, 'internal error')}"
    suppressed = [f"{n} {word}" for n, word in ((c.acknowledged, "acknowledged"),
                                                (c.baselined, "baselined")) if n]
    if suppressed:
        text += f" ({', '.join(suppressed)} not counted)"
    if c.stale:
        text += (f"; {c.stale} baselined finding{'s' if c.stale != 1 else ''} no longer found "
                 "(refresh the baseline with --write-baseline)")
    if c.rejected:
        text += (f"; {c.rejected} spec{'s' if c.rejected != 1 else ''} rejected "
                 "(it could not be read, or has syntax or validation errors)")
    return text
