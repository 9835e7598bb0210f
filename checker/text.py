"""Text rules for identifiers in any script.

Persian text is often typed with Arabic keyboards, so the same word can arrive with Arabic
yeh/kaf (ي ك) or Persian yeh/keheh (ی ک), with or without zero-width non-joiners. A name
is looked up by its key, in which those differences are erased; the text as written is
kept for display. Bidirectional control characters can make a spec read differently from
how it parses (the "Trojan Source" attack), so they are rejected.
"""

from __future__ import annotations

import unicodedata

ZWNJ = "\u200c"
_FOLD = str.maketrans({
    "\u064a": "\u06cc",  # ARABIC LETTER YEH -> FARSI YEH
    "\u0649": "\u06cc",  # ARABIC LETTER ALEF MAKSURA -> FARSI YEH
    "\u0643": "\u06a9",  # ARABIC LETTER KAF -> KEHEH
    ZWNJ: None,
})

# Embeddings, overrides and isolates reorder text; marks are invisible. Both are rejected in
# names and code; inside quoted strings only the reordering ones are.
BIDI_REORDER = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
BIDI_MARKS = frozenset("\u200e\u200f\u061c")

_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


def name_key(text: str) -> str:
    """The key under which a name is declared and looked up."""
    return unicodedata.normalize("NFC", text).translate(_FOLD)


def ascii_digits(text: str) -> str:
    return text.translate(_DIGITS)


def bidi_controls(text: str) -> list[tuple[int, str, str]]:
    """(offset, character, context) for every bidi control in the text, where context is
    "code", "string" or "comment"."""
    found = []
    in_string = False
    in_comment = False
    escaped = False
    for i, ch in enumerate(text):
        if ch in BIDI_REORDER or ch in BIDI_MARKS:
            found.append((i, ch, "string" if in_string else "comment" if in_comment else "code"))
        if in_comment:
            if ch == "\n":
                in_comment = False
        elif in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"' or ch == "\n":
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "#":
            in_comment = True
    return found


def char_name(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'UNKNOWN')}"


def code_chars(text: str):
    """(offset, character) for every character outside strings and comments: what bracket
    counting must look at."""
    in_string = in_comment = escaped = False
    for i, ch in enumerate(text):
        if in_comment:
            in_comment = ch != "\n"
        elif in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch in '"\n':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "#":
            in_comment = True
        else:
            yield i, ch
