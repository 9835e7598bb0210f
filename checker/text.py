"""Text rules for identifiers in any script.

Persian text is often typed with Arabic keyboards, so the same word can arrive with Arabic
yeh/kaf (ي ك) or Persian yeh/keheh (ی ک), with or without zero-width non-joiners. A name
is looked up by its key, in which those differences are erased; the text as written is
kept for display. Bidirectional control characters can make a spec read differently from
how it parses (the "Trojan Source" attack), so they are rejected.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

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
    return _find(text, BIDI_REORDER | BIDI_MARKS)


# Characters that editors or Python's str.splitlines show as the end of a line but the
# grammar does not: in a comment, `# note<U+2028>priority jack > town` shows a declaration
# the tool reads as part of the comment. LF (and CR LF) is the only line break of a spec.
LINE_BREAKS = frozenset("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def odd_line_breaks(text: str) -> list[tuple[int, str, str]]:
    """(offset, character, context) for every line break other than LF and CR LF."""
    return [(i, ch, ctx) for i, ch, ctx in _find(text, LINE_BREAKS)
            if not (ch == "\r" and text[i + 1:i + 2] == "\n")]


def _find(text: str, chars: frozenset) -> list[tuple[int, str, str]]:
    found = []
    in_string = False
    in_comment = False
    escaped = False
    for i, ch in enumerate(text):
        if ch in chars:
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


# Control characters have no name in the Unicode database; these are their usual ones.
_CONTROL_NAMES = {"\r": "CARRIAGE RETURN", "\x0b": "LINE TABULATION", "\x0c": "FORM FEED",
                  "\x1c": "FILE SEPARATOR", "\x1d": "GROUP SEPARATOR",
                  "\x1e": "RECORD SEPARATOR", "\x85": "NEXT LINE"}


def char_name(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, _CONTROL_NAMES.get(ch, 'CONTROL'))}"


def code_chars(text: str) -> Iterator[tuple[int, str]]:
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


_QUOTE = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}


def quote(text: str) -> str:
    """`text` as a string literal of the language, the inverse of build._unquote: a display
    name with a `"` or an `unspecified` text with a newline, put in a generated script (a
    witness), must read back as the same text, not as other tokens."""
    return '"' + "".join(_QUOTE.get(ch, ch) for ch in text) + '"'


def printable(text: str) -> str:
    """`text` with every control character and line or paragraph separator escaped
    (`\n`, `\x1b`, `\u2028`), for a report meant for people: a display string from a spec
    must not start a new report line, hide the rest of the output (`\x1b[8m`) or move the
    cursor."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif cat == "Cc" or cat in ("Zl", "Zp"):
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


FSI, PDI = "\u2068", "\u2069"  # FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE
_RTL = ("R", "AL")
_INSIDE = ("R", "AL", "NSM", "BN", "WS", "EN", "AN", "CS", "ET")


def isolate_rtl(text: str) -> str:
    """Each run of right-to-left text (Persian, Arabic, Hebrew names, with the spaces, digits
    and marks between their letters) wrapped in FSI … PDI. A viewer that applies the bidi
    algorithm (GitHub, browsers, many terminals) otherwise moves the punctuation and numbers
    around the run: `@8 (تفنگدار)` shows as `@(تفنگدار) 8`, and in `A → B → C` of
    Persian names the arrows point the other way, which is the order a finding is about."""
    if not any(unicodedata.bidirectional(ch) in _RTL for ch in text):
        return text
    out = []
    i, n = 0, len(text)
    while i < n:
        if unicodedata.bidirectional(text[i]) not in _RTL:
            out.append(text[i])
            i += 1
            continue
        end = last = i
        while end < n and (text[end] != "\n") and unicodedata.bidirectional(text[end]) in _INSIDE:
            if unicodedata.bidirectional(text[end]) in _RTL or unicodedata.bidirectional(text[end]) == "NSM":
                last = end
            end += 1
        out.append(FSI + text[i:last + 1] + PDI)
        i = last + 1
    return "".join(out)
