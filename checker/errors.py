"""One error type for everything a user can get wrong in a spec, rendered with a caret."""

from __future__ import annotations

from dataclasses import dataclass

from .source import Span


@dataclass(frozen=True)
class Diagnostic:
    """A located message about the input: a syntax error, an unknown name, a bad count."""

    message: str
    span: Span | None
    path: str
    hint: str | None = None
    severity: str = "error"

    def render(self, line_text: str | None = None) -> str:
        where = str(self.span) if self.span else self.path
        out = [f"{where}: {self.severity}: {self.message}"]
        if self.span and line_text is not None:
            shown = _visible(line_text)
            gutter = f"{self.span.line:>4} | "
            out.append(gutter + shown)
            width = 1
            if self.span.end_line == self.span.line:
                width = max(1, self.span.end_column - self.span.column)
            width = min(width, max(1, len(shown) - self.span.column + 1))
            out.append(" " * (len(gutter) - 2) + "| " + " " * (self.span.column - 1) + "^" * width)
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


def _visible(line: str) -> str:
    # Tabs would misalign the caret; control characters would corrupt the terminal.
    return "".join(" " if ch == "\t" else ("?" if ord(ch) < 32 else ch) for ch in line)


class SpecError(Exception):
    """The input could not be turned into a scenario. Carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics
