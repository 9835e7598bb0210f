"""One error type for everything a user can get wrong in a spec, rendered with a caret."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from .source import Span
from .text import BIDI_MARKS, BIDI_REORDER

# Longest source excerpt shown; longer lines are cut to a window around the caret.
MAX_SHOWN = 100


@dataclass(frozen=True)
class Diagnostic:
    """A located message about the input: a syntax error, an unknown name, a bad count."""

    message: str
    span: Span | None
    path: str
    hint: str | None = None
    severity: str = "error"
    line_text: str | None = None  # the source line, when the file could not be loaded whole

    def render(self, line_text: str | None = None) -> str:
        where = str(self.span) if self.span else self.path
        out = [f"{where}: {self.severity}: {self.message}"]
        line_text = self.line_text if line_text is None else line_text
        if self.span and line_text is not None:
            end = self.span.end_column if self.span.end_line == self.span.line else len(line_text) + 1
            shown, start, width = excerpt(line_text, self.span.column, end)
            gutter = f"{self.span.line:>4} | "
            out.append(gutter + shown)
            out.append(" " * (len(gutter) - 2) + "| " + " " * start + "^" * width)
        if self.hint:
            out.append(f"  = help: {self.hint}")
        return "\n".join(out)

    def to_json(self) -> dict:
        return {
            "severity": self.severity,
            "message": self.message,
            "span": self.span.to_json() if self.span else None,
            "hint": self.hint,
        }


def _cell(ch: str) -> str:
    """How one source character is shown so that the caret line stays aligned."""
    if ch == "\t":
        return " "
    if ch in BIDI_REORDER or ch in BIDI_MARKS:
        return f"<U+{ord(ch):04X}>"  # shown, never obeyed: the line must not reorder itself
    if unicodedata.category(ch) in ("Cc", "Zl", "Zp"):  # C0, DEL, C1, line separators
        return "?"
    return ch


def _width(text: str) -> int:
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue  # zero-width: joiners, non-joiners, vowel marks
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def excerpt(line: str, column: int, end_column: int) -> tuple[str, int, int]:
    """(shown line, caret offset in cells, caret width) for 1-based code-point columns."""
    cells = [_cell(ch) for ch in line]
    first = max(0, min(column - 1, len(cells)))
    last = max(first + 1, min(end_column - 1, len(cells)))
    lo, hi = 0, len(cells)
    if _width("".join(cells)) > MAX_SHOWN:
        lo = max(0, first - MAX_SHOWN // 3)
        hi = min(len(cells), max(last, lo + MAX_SHOWN))
        hi = min(hi, lo + MAX_SHOWN)
    prefix = "…" if lo > 0 else ""
    suffix = "…" if hi < len(cells) else ""
    shown = prefix + "".join(cells[lo:hi]) + suffix
    start = _width(prefix) + _width("".join(cells[lo:first]))
    width = max(1, _width("".join(cells[first:min(last, hi)])))
    return shown, start, width


class SpecError(Exception):
    """The input could not be turned into a scenario. Carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics
