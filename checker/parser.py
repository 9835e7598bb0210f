"""The Lark parser of the scenario language, and the translation of Lark's errors into ours.

One LALR parser with positions and several start rules, so tests can parse a fragment
(`expr`, `effect_seq`, `decl`) as well as a whole spec (`start`).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from collections.abc import Collection, Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr

from .errors import Diagnostic, SpecError
from .limits import MAX_DEPTH
from .source import SourceFile, Span
from .text import code_chars

START_RULES = ("start", "expr", "effect_seq", "decl", "queries")

# Words for the grammar's named terminals: the words each stands for. A test checks that
# every named terminal of the grammar has an entry, so this table cannot drift unnoticed.
TERMINAL_WORDS = {
    "NAME": ("a name",),
    "INT": ("a number",),
    "STRING": ("a quoted string",),
    "RULE_ID": ("a rule id such as GA-R05",),
    "COMP_OP": ("'=='", "'!='", "'<'", "'<='", "'>'", "'>='"),
    "ADD_OP": ("'+'", "'-'"),
    "SIDE_KIND": ("'town'", "'dark'", "'independent'"),
    "MOMENT": ("'before'", "'after'"),
    "REVEAL_WHAT": ("'side'", "'role'"),
    "EXIT_MODE": ("'required'", "'optional'"),
    "SEVERITY": ("'error'", "'warning'"),
    "OPEN_Q": ("'can'", "'must'"),
    "COMMENT": ("a comment",),
    "$END": ("the end of the file",),
}
# How an unexpected token is named in a message ("unexpected name 'sied'").
TOKEN_NOUNS = {"NAME": "name", "INT": "number", "STRING": "string", "RULE_ID": "rule id",
               "COMP_OP": "comparison"}
# Keywords that open a declaration: when all are expected, say so in one phrase.
DECLARATION_KEYWORDS = {"scenario", "side", "role", "team", "composition", "phases", "ability",
                        "card", "rule", "day", "win", "priority", "setting", "assume", "item",
                        "kind", "memory", "wake", "resolve", "precheck"}
QUERY_KEYWORDS = {"query"}  # what starts a block of a query file
# The words a line of a query block starts with (besides a phase's name).
QUERY_FIELD_WORDS = {"players", "unlisted", "composition", "setting", "from", "state", "expect", "gap", "can",
                     "must", "note", "intro_day", "intro_night", "blind_day", "day", "night"}


def grammar_text() -> str:
    return resources.files("mafiacheck.grammar").joinpath("mafia.lark").read_text(encoding="utf-8")


def cached_lark(**options: Any) -> Lark:
    """A Lark parser of the grammar, its tables kept between processes where they can be:
    building them takes about 0.25 s, loading them about 0.05 s, and editors, pre-commit hooks
    and `check`'s worker processes each start the parser afresh. The tables go to a file in
    the user's cache directory (Lark's `cache` option; Lark checks the grammar, the options and
    its own version stored in the file and rebuilds on any difference), never to the shared
    temporary directory, since the file is a pickle. Where no private cache directory can be
    made or written, or MAFIACHECK_NO_CACHE is set, the parser is built as before; the parser
    is the same either way."""
    grammar = grammar_text()
    return Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=True,
                maybe_placeholders=True, start=list(START_RULES),
                cache=_cache_file(options) or False, **options)


def _cache_file(options: dict) -> str | None:
    if os.environ.get("MAFIACHECK_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "mafiacheck"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return None
    # Only a folder of our own that nobody else can write: we load pickles from it.
    if not folder.is_dir() or (hasattr(os, "getuid") and info.st_uid != os.getuid()) \
            or info.st_mode & 0o022 or not os.access(folder, os.W_OK | os.X_OK):
        return None
    # One file per set of options, not per grammar: a changed grammar (or Lark) overwrites its
    # file rather than leaving the old tables behind.
    key = hashlib.sha256(repr(sorted(options.items())).encode()).hexdigest()
    return str(folder / f"lark-{key[:12]}.pickle")


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    return cached_lark()


def describe_terminal(name: str) -> tuple[str, ...]:
    if name in TERMINAL_WORDS:
        return TERMINAL_WORDS[name]
    for term in lark_parser().terminals:
        if term.name == name and isinstance(term.pattern, PatternStr):
            return (f"'{term.pattern.value}'",)
    return (name.lower(),)


def describe_expected(names: Iterable[str]) -> str:
    words = {w for n in names for w in describe_terminal(n)}
    keywords = {w.strip("'") for w in words if w[1:2].isalpha()}
    if DECLARATION_KEYWORDS <= keywords:
        rest = words - {f"'{k}'" for k in DECLARATION_KEYWORDS}
        words = rest | {"a declaration (scenario, side, role, team, composition, phases, "
                        "ability, card, rule, day, win, setting, assume, …)"}
    # Keywords first, then the kinds of token, then punctuation: the likely fix leads.
    ordered = sorted(words, key=lambda w: (0 if w[1:2].isalpha() else 2 if w.startswith("'") else 1, w))
    if not ordered:
        return "nothing more"
    if len(ordered) == 1:
        return ordered[0]
    return "one of " + ", ".join(ordered[:-1]) + " or " + ordered[-1]


def describe_token(token: Token) -> str:
    if token.type == "$END":
        return "the end of the file"
    value = str(token)
    if len(value) > 40:
        value = value[:40] + "…"
    noun = TOKEN_NOUNS.get(token.type)
    if token.type == "STRING":
        return f"string {value}"
    if noun:
        return f"{noun} '{value}'"
    return f"'{value}'"


def parse(source: SourceFile, start: str = "start") -> Tree:
    """Parse a whole spec (or a fragment, for tests); raise SpecError on bad syntax."""
    try:
        tree = lark_parser().parse(source.text, start=start)
    except UnexpectedInput as exc:
        raise SpecError([_diagnostic(source, exc, start)]) from None
    _check_depth(source, tree)
    return tree


def _check_depth(source: SourceFile, tree: Tree) -> None:
    """Refuse a tree nested deeper than MAX_DEPTH: building, resolving and evaluating it
    recurse, and `if true then` written 700 times must be a located error, not a
    RecursionError. Brackets are limited before parsing (loader.py); this catches nesting
    without them (`not not …`, `if … then if …`, `after 1 night: after 1 night: …`)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            meta = node.meta
            line = getattr(meta, "line", None)
            span = (Span(source.path, line, meta.column, meta.end_line, meta.end_column)
                    if line is not None else None)
            raise SpecError([Diagnostic(
                f"nested too deeply: more than {MAX_DEPTH} expressions or effects inside one "
                "another", span, source.path, "split the condition or effect into rules or "
                "settings of their own")])
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))


def _unclosed_brace(text: str, upto: int) -> int | None:
    """Offset of the innermost `{` still open at `upto`, skipping strings and comments."""
    stack: list[int] = []
    for i, ch in code_chars(text[:upto]):
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            stack.pop()
    return stack[-1] if stack else None


def _brace_hint(source: SourceFile, offset: int, expected: Collection[str]) -> str | None:
    if "RBRACE" not in expected:
        return None
    opened = _unclosed_brace(source.text, offset)
    if opened is None:
        return None
    line, column = source.position(opened)
    return f"the '{{' at line {line}, column {column} is not closed: is a '}}' missing?"


def _line_hint(source: SourceFile, offset: int, start: str) -> str | None:
    """Two newcomer mistakes seen from the line of the unexpected token: a value left out at
    the end of the line above (`setting x =`), which made this line's first word the value;
    and, in a query file, a `query` line inside a query whose `{` was never closed."""
    text = source.text
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    if start == "queries" and re.fullmatch(r"\s*query\s+(\S+\s+)?", before):
        opened = _unclosed_brace(text, line_start)
        if opened is not None:
            line, column = source.position(opened)
            return f"the '{{' at line {line}, column {column} is not closed: is a '}}' missing?"
    # Only when this line starts as a line of its own would (a query's field, a declaration).
    word = re.match(r"\s*([^\W\d]\w*)\s", before)
    firsts = QUERY_FIELD_WORDS if start == "queries" else DECLARATION_KEYWORDS
    above = text[:line_start].rstrip()
    if word and word.group(1) in firsts and above.endswith("=") \
            and "#" not in above[above.rfind("\n") + 1:]:
        line = above.count("\n") + 1
        return (f"the '=' at the end of line {line} has no value, so '{word.group(1)}' was read "
                "as its value: write the value on the same line")
    return None


def _diagnostic(source: SourceFile, exc: UnexpectedInput, start: str = "start") -> Diagnostic:
    text = source.text
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream
        if pos is None:  # Lark sets it for every character it cannot lex
            return Diagnostic(f"syntax error: {exc}", None, source.path)
        ch = text[pos]
        if ch == '"':
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            span = source.span_at(pos, max(1, end - pos))
            return Diagnostic(f"this string is not closed before the end of line {span.line}",
                              span, source.path, 'add the closing "')
        span = source.span_at(pos)
        shown = ch if ch.isprintable() else f"U+{ord(ch):04X}"
        return Diagnostic(
            f"unexpected character '{shown}': expected {describe_expected(exc.allowed or ())}",
            span, source.path)
    if isinstance(exc, (UnexpectedEOF, UnexpectedToken)) and (
            isinstance(exc, UnexpectedEOF) or exc.token.type == "$END"):
        expected = exc.expected if isinstance(exc, UnexpectedEOF) else (exc.accepts or exc.expected)
        end = len(text.rstrip())
        return Diagnostic(f"unexpected end of file: expected {describe_expected(expected)}",
                          source.span_at(end, 0), source.path,
                          _brace_hint(source, len(text), expected))
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        expected = exc.accepts or exc.expected
        span = Span(source.path, token.line, token.column, token.end_line, token.end_column)
        if "RULE_ID" in expected and token.type in ("NAME", "INT"):
            first = token.start_pos
            stop = first
            while stop < len(text) and (text[stop].isalnum() or text[stop] in "-_"):
                stop += 1
            word = text[first:stop]
            return Diagnostic(f"'{word}' is not a rule id: rule ids look like GA-R05, G2-A01 or NM-P3",
                              source.span_at(first, stop - first), source.path,
                              "a rule id is the digest's prefix, a dash, R (rule), A (ambiguity) "
                              "or P (procedure), and a number")
        # A declaration keyword where a block's clause was expected usually means the block
        # above was never closed. In a query file only `query` starts one: `day`, `setting`
        # and the like are a query's own words (`day 2 { … }`), and the query's `{` is open.
        starts = QUERY_KEYWORDS if start == "queries" else DECLARATION_KEYWORDS
        hint = _brace_hint(source, token.start_pos, expected) if str(token) in starts else None
        if hint is None:
            hint = _line_hint(source, token.start_pos, start)
        if hint is None and token.type == "NAME":
            keywords = [w.strip("'") for n in expected for w in describe_terminal(n) if w[1:2].isalpha()]
            close = difflib.get_close_matches(str(token), keywords, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else None
        return Diagnostic(
            f"unexpected {describe_token(token)}: expected {describe_expected(expected)}",
            span, source.path, hint)
    return Diagnostic(f"syntax error: {exc}", None, source.path)
