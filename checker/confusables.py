"""Names that mix look-alike scripts: `dоctor` with a Cyrillic `о` beside `doctor`.

Both are legal, distinct names, and a reader cannot tell them apart: a rule about `dоctor`
silently misses the Doctor. A name may be written in any script, but one that mixes Latin,
Cyrillic and Greek letters is reported (MC111, a warning), naming the declared name it looks
like when there is one.
"""

from __future__ import annotations

import re
import unicodedata

from .findings import Finding
from .registry import MIXED_SCRIPT
from .source import SourceFile
from .text import code_chars

_LOOKALIKE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")
# Cyrillic and Greek letters drawn like Latin ones, mapped to the Latin letter.
_SKELETON = str.maketrans({
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S",
    "α": "a", "ο": "o", "ρ": "p", "ν": "v", "τ": "t", "υ": "u", "ι": "i", "κ": "k",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
})
_WORD = re.compile(r"[^\W\d]\w*")


def _scripts(word: str) -> set[str]:
    found = set()
    for ch in word:
        if ch.isalpha():
            script = unicodedata.name(ch, "").split(" ")[0]
            if script in _LOOKALIKE_SCRIPTS:
                found.add(script)
    return found


def mixed_script_names(source: SourceFile) -> list[Finding]:
    """One warning per distinct name (at its first use) that mixes look-alike scripts."""
    code = [" "] * len(source.text)
    for i, ch in code_chars(source.text):
        code[i] = ch
    words = [(m.start(), m.group()) for m in _WORD.finditer("".join(code))]
    plain = {w for _, w in words if len(_scripts(w)) < 2}
    by_skeleton = {w.translate(_SKELETON): w for w in sorted(plain)}
    findings, seen = [], set()
    for offset, word in words:
        scripts = _scripts(word)
        if len(scripts) < 2 or word in seen:
            continue
        seen.add(word)
        twin = by_skeleton.get(word.translate(_SKELETON))
        odd = ", ".join(f"{ch} ({unicodedata.name(ch, '?')})" for ch in dict.fromkeys(word)
                        if ch.isalpha() and not unicodedata.name(ch, "").startswith("LATIN"))
        message = (f"the name '{word}' mixes {' and '.join(s.title() for s in sorted(scripts))} "
                   f"letters: {odd}")
        if twin and twin != word:
            message += f"; it looks like '{twin}', a different name"
        findings.append(Finding(MIXED_SCRIPT, "setup", "warning", message,
                                source.span_at(offset, len(word))))
    return findings
