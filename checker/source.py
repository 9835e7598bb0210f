"""Source files and spans: where in a spec a thing was written."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Span:
    """A region of one source file. Lines and columns are 1-based and count code points;
    the end is exclusive (the column just after the last character)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def to_json(self) -> dict:
        return {
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
        }

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


def spanned():
    """A dataclass field for a node's span: shown, but left out of equality and hashing, so
    two nodes written in different places still compare equal."""
    return field(default=None, compare=False, hash=False, repr=False)


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str

    @property
    def line_starts(self) -> list[int]:
        starts = [0]
        for i, ch in enumerate(self.text):
            if ch == "\n":
                starts.append(i + 1)
        return starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a code-point offset."""
        starts = self.line_starts
        index = bisect.bisect_right(starts, offset) - 1
        return index + 1, offset - starts[index] + 1

    def span_at(self, offset: int, length: int = 1) -> Span:
        line, column = self.position(offset)
        end_line, end_column = self.position(offset + length)
        return Span(self.path, line, column, end_line, end_column)

    def line_text(self, line: int) -> str:
        lines = self.text.split("\n")
        if 1 <= line <= len(lines):
            return lines[line - 1].rstrip("\r")
        return ""
