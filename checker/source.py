"""Source files and spans: where in a spec a thing was written."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any


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


def spanned() -> Any:  # a Span field whose default is None: Any, as dataclasses.field is
    """A dataclass field for a node's span: shown, but left out of equality and hashing, so
    two nodes written in different places still compare equal."""
    return field(default=None, compare=False, hash=False, repr=False)


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str

    @cached_property
    def line_starts(self) -> list[int]:
        # Computed once per file: spans, excerpts and finding ids ask for positions once per
        # finding, and a 43,000-line spec has as many findings as lines.
        starts = [0]
        find = self.text.find
        at = find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = find("\n", at + 1)
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
        starts = self.line_starts
        if not 1 <= line <= len(starts):
            return ""
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1]:end].rstrip("\r")
