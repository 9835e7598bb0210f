"""The Lark parser of the scenario language, and the translation of Lark's errors into ours.

One LALR parser with positions and several start rules, so tests can parse a fragment
(`expr`, `effect_seq`, `decl`) as well as a whole spec (`start`).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr

from .errors import Diagnostic, SpecError
from .source import SourceFile, Span

START_RULES = ("start", "expr", "effect_seq", "decl")

# Words for the grammar's named terminals. A test checks that every named terminal of the
# grammar has an entry, so this table cannot drift from the grammar unnoticed.
TERMINAL_WORDS = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": 'a quoted string such as "…"',
    "RULE_ID": "a rule id such as GA-R05",
    "COMP_OP": "a comparison (==, !=, <, <=, >, >=)",
    "ADD_OP": "'+' or '-'",
    "SIDE_KIND": "'town', 'dark' or 'independent'",
    "MOMENT": "'before' or 'after'",
    "REVEAL_WHAT": "'side' or 'role'",
    "EXIT_MODE": "'required' or 'optional'",
    "SEVERITY": "'error' or 'warning'",
    "COMMENT": "a comment",
    "$END": "the end of the file",
}


def grammar_text() -> str:
    return resources.files("mafiacheck.grammar").joinpath("mafia.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    return Lark(
        grammar_text(),
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=True,
        start=list(START_RULES),
    )


def describe_terminal(name: str) -> str:
    if name in TERMINAL_WORDS:
        return TERMINAL_WORDS[name]
    for term in lark_parser().terminals:
        if term.name == name and isinstance(term.pattern, PatternStr):
            return f"'{term.pattern.value}'"
    return name.lower()


def describe_expected(names) -> str:
    words = sorted({describe_terminal(n) for n in names})
    # Keywords first, then the general kinds of token, so the likely fix leads the list.
    words.sort(key=lambda w: (not w.startswith("'"), w))
    if not words:
        return "nothing more"
    if len(words) == 1:
        return words[0]
    if len(words) > 12:
        shown = ", ".join(words[:12])
        return f"one of {shown}, … ({len(words) - 12} more)"
    return "one of " + ", ".join(words[:-1]) + " or " + words[-1]


def describe_token(token: Token) -> str:
    if token.type == "$END":
        return "the end of the file"
    kind = TERMINAL_WORDS.get(token.type)
    value = str(token)
    if len(value) > 40:
        value = value[:40] + "…"
    if token.type == "NAME":
        return f"the name '{value}'"
    if kind and not kind.startswith("'"):
        return f"{kind} '{value}'"
    return f"'{value}'"


def parse(source: SourceFile, start: str = "start") -> Tree:
    """Parse a whole spec (or a fragment, for tests); raise SpecError on bad syntax."""
    try:
        return lark_parser().parse(source.text, start=start)
    except UnexpectedInput as exc:
        raise SpecError([_diagnostic(source, exc)]) from None


def _diagnostic(source: SourceFile, exc: UnexpectedInput) -> Diagnostic:
    if isinstance(exc, UnexpectedCharacters):
        ch = source.text[exc.pos_in_stream]
        span = source.span_at(exc.pos_in_stream)
        shown = ch if ch.isprintable() else f"U+{ord(ch):04X}"
        return Diagnostic(
            f"unexpected character '{shown}': expected {describe_expected(exc.allowed or ())}",
            span, source.path)
    if isinstance(exc, UnexpectedEOF):
        end = len(source.text.rstrip())
        return Diagnostic(
            f"unexpected end of file: expected {describe_expected(exc.expected)}",
            source.span_at(end, 0), source.path)
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        expected = exc.accepts or exc.expected
        if token.type == "$END":
            end = len(source.text.rstrip())
            return Diagnostic(
                f"unexpected end of file: expected {describe_expected(expected)}",
                source.span_at(end, 0), source.path)
        span = Span(source.path, token.line, token.column, token.end_line, token.end_column)
        return Diagnostic(
            f"unexpected {describe_token(token)}: expected {describe_expected(expected)}",
            span, source.path)
    return Diagnostic(f"syntax error: {exc}", None, source.path)
