"""The last step of every report meant for people (text, Markdown, GitHub annotations, the
moderator's logs): each line with its control characters escaped and its right-to-left
runs isolated, so that what a reader sees is what was checked (see text.printable and
text.isolate_rtl). Machine formats (JSON, SARIF, JUnit) keep the strings as they are."""

from __future__ import annotations

from ..text import isolate_rtl, printable


def line(text: str) -> str:
    """One report line, safe to show."""
    return isolate_rtl(printable(text))


def lines(texts: list[str]) -> str:
    """Report lines joined; a line holding a newline (a display string) cannot forge another."""
    return "\n".join(line(t) for t in texts)
