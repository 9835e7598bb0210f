"""Between our spans and LSP positions.

Our spans are 1-based lines and columns counting code points (see `source.Span`); LSP
positions are 0-based lines and, by default, columns counting UTF-16 code units. Persian
and Russian letters are one unit each, but characters outside the Basic Multilingual Plane
(emoji, some CJK) are two, so a column is converted by walking the line.
"""

from __future__ import annotations

from ..source import Span


# Code units per character in each position encoding a client may negotiate (LSP 3.17
# `general.positionEncodings`; UTF-16 when it says nothing).
UNITS = {
    "utf-16": lambda ch: 2 if ord(ch) > 0xFFFF else 1,
    "utf-8": lambda ch: len(ch.encode("utf-8", "surrogatepass")),
    "utf-32": lambda ch: 1,
}


def utf16_len(text: str, encoding: str = "utf-16") -> int:
    width = UNITS.get(encoding, UNITS["utf-16"])
    return sum(width(ch) for ch in text)


def to_utf16(line_text: str, column: int, encoding: str = "utf-16") -> int:
    """0-based offset in code units (UTF-16 by default) of a 1-based code-point column."""
    return utf16_len(line_text[: max(0, column - 1)], encoding)


def from_utf16(line_text: str, character: int, encoding: str = "utf-16") -> int:
    """1-based code-point column of a 0-based code-unit offset (clamped to the line; an offset
    inside a character, such as within a surrogate pair, points at that character)."""
    width_of = UNITS.get(encoding, UNITS["utf-16"])
    units = 0
    for i, ch in enumerate(line_text):
        width = width_of(ch)
        if units + width > character:
            return i + 1
        units += width
    return len(line_text) + 1


class Lines:
    """A document's lines, for converting positions both ways."""

    def __init__(self, text: str, encoding: str = "utf-16"):
        self.encoding = str(encoding or "utf-16").lower()
        self.lines = text.split("\n")

    def text(self, line: int) -> str:
        """The 1-based line's text, without its line ending."""
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1].rstrip("\r")
        return ""

    def lsp(self, line: int, column: int) -> tuple[int, int]:
        """(0-based line, UTF-16 character) of a 1-based line and code-point column."""
        return max(0, line - 1), to_utf16(self.text(line), column, self.encoding)

    def ours(self, line: int, character: int) -> tuple[int, int]:
        """(1-based line, code-point column) of an LSP position."""
        return line + 1, from_utf16(self.text(line + 1), character, self.encoding)

    def range(self, span: Span | None) -> tuple[tuple[int, int], tuple[int, int]]:
        if span is None:
            return (0, 0), (0, 0)
        return self.lsp(span.line, span.column), self.lsp(span.end_line, span.end_column)

    def end(self) -> tuple[int, int]:
        last = len(self.lines)
        return last - 1, utf16_len(self.lines[-1], self.encoding) if self.lines else 0
