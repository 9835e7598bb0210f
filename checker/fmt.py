"""`mafiacheck fmt`: the canonical layout of scenario (*.mafia) and query (*.query) files.

The formatter works on the token stream that the grammar's own parser produces (with every
token kept) and on comments found between tokens; the parse tree only says where the
clauses and brace blocks are. Nothing is written per declaration, so a construct added to
the grammar is formatted by the same rules without a change here.

The canonical layout, in full:

1. Line breaks are the author's. The formatter never joins lines and never wraps them; the
   one break it adds is before a top-level declaration (or query) that starts on the same
   line as the end of the one before it: each declaration starts a line.
2. Blank lines: at most one in a row, where the author left one or more. None at the start
   or end of the file, right after a line that ends with `{`, right before a line that
   starts with `}`, or inside a clause (before a line that continues it).
3. Indentation. A line that starts a clause (a top-level declaration, or an item directly
   inside a `{ … }` block: a clause, a composition entry, a choice, a table row) is indented
   two spaces more than the line holding its `{` (or, when an item follows that `{` on the
   same line, lined up with that item); top-level declarations are not indented.
   A line that starts with `}` is indented like the line holding its `{`. Any other line
   continues a clause begun on an earlier line: it keeps the indentation it had relative to
   the line where that clause begins (never less; a tab counts as two spaces), so the
   author's alignment of `then` under `if` or of `and` under a parenthesis survives.
4. Spacing inside a line: one space between tokens, except none before `,` `;` `:` `)`,
   after `(` and `@`, around `.` and `..`, before `@` in `citizen@2`, before the `(` of a
   call, `count(` or `gun(war)`; none inside the braces of a set (`{nato, killer}`, `{}`),
   one inside those of a block (`{ side town }`, `{ }`). Two clauses of a block written on
   one line are separated by two spaces: `role citizen "Citizen" { side town  plain }`.
5. Comments are kept, text as written (trailing whitespace removed). A comment on its own
   line is indented like the code line after it (one level in, if that line starts with
   `}`). Trailing comments on consecutive lines line up, two spaces after the longest code
   among them.
6. Strings and every other token are kept exactly as written; trailing whitespace goes; the
   file ends with one newline; line endings are LF; a byte-order mark is dropped.

Before returning, the formatted text is parsed again and must give the same tokens and the
same comments, in the same order, as the original: a layout rule can never change what a
file means. A file that does not parse is reported with the parser's located error and left
alone.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import TextIO

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from .errors import Diagnostic, SpecError
from .loader import STDIN, decode_source, read_source, read_stdin
from .parser import cached_lark, parse
from .walk import spec_files
from .source import SourceFile

# Files searched for in folders; a file named on the command line is formatted whatever its
# name. A `.query` file is parsed as queries, anything else as a spec.
SUFFIXES = (".mafia", ".query")
# Grammar rules whose braces hold a value written tight, `{a, b}`; other braces are blocks,
# written `{ a  b }`. A test checks that these rules exist in the grammar.
TIGHT_BRACES = frozenset({"set_literal", "memory_value"})
# Tokens that separate the items of a brace block rather than being items themselves.
SEPARATORS = frozenset({",", ";"})
# Whitespace the grammar ignores (besides newlines) and that the layout drops.
_BLANKS = " \t\r\f\v\ufeff"

EXIT_OK, EXIT_CHANGED, EXIT_INPUT = 0, 1, 2
STDIN_NAME = "<stdin>"  # how standard input is named in messages


class FormatInvariantError(Exception):
    """The layout would change the file's tokens or comments: a bug in the formatter. The
    file is left alone."""


def start_rule_for(path: str) -> str:
    return "queries" if str(path).endswith(".query") else "start"


@lru_cache(maxsize=1)
def _token_parser() -> Lark:
    # The project's grammar, keeping every token (keywords and punctuation too) in the tree.
    return cached_lark(keep_all_tokens=True)


# ------------------------------------------------------------------ the public functions

def format_source(source: SourceFile, start: str = "start") -> str:
    """The canonical text of a source; raise SpecError when it does not parse and
    FormatInvariantError if the layout would change its meaning."""
    try:
        toks, comments = _read(source.text, start)
    except UnexpectedInput:
        parse(source, start)  # raises the parser's own located error, as `check` gives it
        raise FormatInvariantError("the grammar's two parsers disagree on this file") from None
    formatted = _Layout(source.text, toks).render()
    _verify(toks, comments, formatted, start)
    return formatted


def format_text(text: str, path: str = "<text>", start: str | None = None) -> str:
    """Format text as if read from `path` (the same checks as a file on disk)."""
    source = decode_source(path, text.encode("utf-8"))
    return format_source(source, start or start_rule_for(path))


@dataclass
class FileOutcome:
    path: str
    original: bytes = b""
    formatted: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    source_text: str | None = None

    @property
    def changed(self) -> bool:
        return self.formatted is not None and self.formatted.encode("utf-8") != self.original


def format_file(path: str) -> FileOutcome:
    """Read and format one file (without writing it)."""
    outcome = FileOutcome(path)
    try:
        source = read_source(path)
        outcome.source_text = source.text
        with open(path, "rb") as handle:
            outcome.original = handle.read()
        outcome.formatted = format_source(source, start_rule_for(path))
    except SpecError as exc:
        outcome.diagnostics = exc.diagnostics
    except RecursionError:
        outcome.diagnostics = [Diagnostic("the file is nested too deeply to format", None, path)]
    except FormatInvariantError as exc:
        outcome.formatted = None
        outcome.diagnostics = [Diagnostic(
            f"internal error: {exc}; the file is left as it is (please report it)", None, path)]
    except OSError as exc:
        outcome.diagnostics = [Diagnostic(f"cannot read: {exc.strerror or exc}", None, path)]
    except Exception as exc:  # a bug here must neither end in a traceback nor touch the file
        outcome.formatted = None
        outcome.diagnostics = [Diagnostic(
            f"internal error in the formatter ({type(exc).__name__}: {exc}); the file is left "
            "as it is (please report it)", None, path)]
    return outcome


def collect_paths(args: list[str]) -> tuple[list[str], list[Diagnostic]]:
    """Files and folders from the command line as files to format, in a stable order:
    folders are searched recursively for *.mafia and *.query files."""
    paths: list[str] = []
    problems: list[Diagnostic] = []
    for arg in args:
        p = Path(arg)
        if p.is_dir():
            found = spec_files(arg, tuple(SUFFIXES))
            if not found:
                problems.append(Diagnostic("no .mafia or .query files in this folder", None, arg))
            paths.extend(found)
        elif p.exists():
            paths.append(arg)
        else:
            problems.append(Diagnostic("no such file or folder", None, arg))
    unique = list(dict.fromkeys(paths))
    return unique, problems


def run(paths: list[str], out: TextIO, err: TextIO, check: bool = False, diff: bool = False) -> int:
    """`mafiacheck fmt`: rewrite files in place, or with `check`/`diff` only report. Exit 0
    when done (or, with --check, when every file is formatted already), 1 with --check when
    a file would change, 2 when a file cannot be read or does not parse."""
    if STDIN in paths:
        if len(paths) > 1:
            err.write("mafiacheck fmt: `-` (standard input) cannot be mixed with other paths\n")
            return EXIT_INPUT
        return _run_stdin(out, err, check=check, diff=diff)
    files, problems = collect_paths(paths)
    for d in problems:
        err.write(d.render() + "\n")
    failed = bool(problems)
    changed = unchanged = 0
    for path in files:
        outcome = format_file(path)
        if outcome.diagnostics:
            failed = True
            lines = outcome.source_text.split("\n") if outcome.source_text else []
            for d in outcome.diagnostics:
                line = lines[d.span.line - 1] if d.span and 0 < d.span.line <= len(lines) else None
                err.write(d.render(line) + "\n")
            continue
        if not outcome.changed:
            unchanged += 1
            continue
        changed += 1
        if diff:
            out.write(unified_diff(outcome))
        if check:
            out.write(f"would reformat {path}\n")
        elif not diff:
            try:
                write_outcome(outcome)
            except OSError as exc:
                err.write(f"{path}: error: cannot write: {exc.strerror or exc}\n")
                failed = True
                continue
            out.write(f"reformatted {path}\n")
    if (check or not diff) and changed + unchanged:
        verb = "would be reformatted" if check or diff else "reformatted"
        out.write(f"{changed} file{'s' if changed != 1 else ''} {verb}, "
                  f"{unchanged} already formatted\n")
    if failed:
        return EXIT_INPUT
    return EXIT_CHANGED if check and changed else EXIT_OK


def _run_stdin(out: TextIO, err: TextIO, check: bool, diff: bool) -> int:
    """`fmt -`: standard input formatted to standard output (with --check only the exit
    code and a line; with --diff the diff). A query file is told by its first word."""
    outcome = FileOutcome(STDIN_NAME)
    try:
        source = read_stdin(STDIN_NAME)
        outcome.source_text = source.text
        outcome.original = source.text.encode("utf-8")
        first = re.sub(r"(?m)^\s*#.*$", "", source.text).lstrip()
        start = "queries" if first.startswith("query") else "start"
        outcome.formatted = format_source(source, start)
    except SpecError as exc:
        outcome.diagnostics = exc.diagnostics
    except FormatInvariantError as exc:
        outcome.diagnostics = [Diagnostic(f"internal error: {exc} (please report it)", None, STDIN_NAME)]
    if outcome.diagnostics:
        lines = (outcome.source_text or "").split("\n")
        for d in outcome.diagnostics:
            line = lines[d.span.line - 1] if d.span and 0 < d.span.line <= len(lines) else d.line_text
            err.write(d.render(line) + "\n")
        return EXIT_INPUT
    if check or diff:
        if diff and outcome.changed:
            out.write(unified_diff(outcome))
        if check and outcome.changed:
            out.write(f"would reformat {STDIN_NAME}\n")
        return EXIT_CHANGED if check and outcome.changed else EXIT_OK
    out.write(outcome.formatted or "")  # formatted: no diagnostics
    return EXIT_OK


def unified_diff(outcome: FileOutcome) -> str:
    # Lines end at "\n" only: a string may hold other characters Python counts as breaks.
    before = re.findall(r"[^\n]*\n|[^\n]+$", outcome.original.decode("utf-8", errors="replace"))
    after = re.findall(r"[^\n]*\n|[^\n]+$", outcome.formatted or "")
    lines = difflib.unified_diff(before, after, outcome.path, outcome.path + " (formatted)")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)


# ------------------------------------------------------------------ reading the token stream

@dataclass
class _Tok:
    token: Token
    parent: Tree
    head_of: int | None = None  # first token of an item: index of its block's `{`, -1 at top level
    container: int | None = None  # first token of the innermost item holding it, begun before it
    wide: bool = False  # the first token of a clause written right after another clause
    tight: bool = False  # a brace of a set value
    match: int | None = None  # for a brace, the index of its partner

    @property
    def text(self) -> str:
        return str(self.token)


def _read(text: str, start: str) -> tuple[list[_Tok], list[str]]:
    """The tokens of a text, with their place in the parse tree, and its comments."""
    toks = _analyse(_token_parser().parse(text, start=start))
    comments = [c for _, gap in _gaps(text, toks)
                for kind, c in _gap_events(gap) if kind == "comment" and c is not None]
    return toks, comments


def _analyse(tree: Tree) -> list[_Tok]:
    subtrees = list(tree.iter_subtrees())
    pairs = [(c, sub) for sub in subtrees for c in sub.children if isinstance(c, Token)]
    pairs.sort(key=lambda pair: pair[0].start_pos or 0)  # a parsed token has its place
    toks = [_Tok(tok, parent) for tok, parent in pairs]
    by_start = {t.token.start_pos: i for i, t in enumerate(toks)}
    by_end = {t.token.end_pos: i for i, t in enumerate(toks)}

    def extent(node: Token | Tree) -> tuple[int, int] | None:
        if isinstance(node, Token):
            return by_start[node.start_pos], by_start[node.start_pos]
        if node.meta.empty:
            return None
        return by_start[node.meta.start_pos], by_end[node.meta.end_pos]

    items: list[tuple[int, int]] = []
    if tree.data in ("start", "queries"):
        for child in tree.children:
            span = extent(child) if child is not None else None
            if span:
                items.append(span)
                toks[span[0]].head_of = -1
    else:
        span = extent(tree)
        if span:
            items.append(span)
            toks[span[0]].head_of = -1
    for sub in subtrees:
        opened: list[int] = []
        after_item = False
        for child in sub.children:
            if child is None:
                continue
            if isinstance(child, Token) and child.value in ("{", "}"):
                index = by_start[child.start_pos]
                if child.value == "{":
                    opened.append(index)
                elif opened:
                    partner = opened.pop()
                    toks[index].match = partner
                    toks[partner].match = index
                toks[index].tight = sub.data in TIGHT_BRACES
                after_item = False
            elif opened:
                if isinstance(child, Token) and child.value in SEPARATORS:
                    after_item = False
                    continue
                span = extent(child)
                if span is None:
                    continue
                items.append(span)
                toks[span[0]].head_of = opened[-1]
                toks[span[0]].wide = after_item
                after_item = True
    items.sort(key=lambda span: (span[0], -span[1]))
    for first, last in items:
        for i in range(first + 1, last + 1):
            toks[i].container = first
    return toks


def _gap_events(text: str) -> Iterator[tuple[str, str | None]]:
    """("nl", None) and ("comment", text) for the ignored text between two tokens."""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\n":
            yield "nl", None
            i += 1
        elif ch == "#":
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            yield "comment", text[i:end].rstrip(_BLANKS)
            i = end
        elif ch in _BLANKS:
            i += 1
        else:
            raise FormatInvariantError(f"unexpected {ch!r} between tokens at offset {i}")


def _gaps(text: str, toks: list[_Tok]) -> Iterator[tuple[int, str]]:
    """For each token index (and len(toks) for the end of the file), the text before it."""
    prev = 0
    for i, t in enumerate(toks):
        yield i, text[prev:t.token.start_pos]
        prev = t.token.end_pos or 0  # a parsed token has its place
    yield len(toks), text[prev:]


# ------------------------------------------------------------------ laying out lines

@dataclass
class _Line:
    tokens: list[int] = field(default_factory=list)  # empty for a comment line
    comment: str | None = None  # a trailing comment, or the comment of a comment line
    blank_before: bool = False
    indent: int = 0


def _width(text: str) -> int:
    """Display width in a monospace terminal: zero-width joiners and marks take no cell."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


class _Layout:
    def __init__(self, text: str, toks: list[_Tok]):
        self.text = text
        self.toks = toks
        self.lines = self._break_lines()

    def _break_lines(self) -> list[_Line]:
        lines: list[_Line] = []
        current: _Line | None = None
        newlines = 0  # newlines since the last line with content ended

        def begin(line: _Line) -> None:
            nonlocal newlines
            line.blank_before = newlines >= 2 and bool(lines)
            newlines = 0
            lines.append(line)

        for i, gap in _gaps(self.text, self.toks):
            for kind, comment in _gap_events(gap):
                if kind == "nl":
                    if current is not None:
                        current = None
                    newlines += 1
                elif current is not None:
                    current.comment = comment
                else:
                    begin(_Line(comment=comment))
            if i == len(self.toks):
                break
            if current is not None and self.toks[i].head_of == -1:
                current = None  # each top-level declaration starts a line
            if current is None:
                current = _Line([i])
                begin(current)
            else:
                current.tokens.append(i)
        for index, line in enumerate(lines):
            if line.blank_before and (self._opens(lines[index - 1]) or self._closes(line)
                                      or self._continues(line)):
                line.blank_before = False
        return lines

    def _continues(self, line: _Line) -> bool:
        """Whether the line continues a clause begun on an earlier line."""
        return bool(line.tokens) and self.toks[line.tokens[0]].head_of is None \
            and not self._closes(line)

    def _opens(self, line: _Line) -> bool:
        return bool(line.tokens) and self.toks[line.tokens[-1]].text == "{"

    def _closes(self, line: _Line) -> bool:
        return bool(line.tokens) and self.toks[line.tokens[0]].text == "}"

    def _indent(self) -> None:
        toks = self.toks
        line_of: dict[int, _Line] = {}
        for line in self.lines:
            for i in line.tokens:
                line_of[i] = line
        for line in self.lines:
            if not line.tokens:
                continue
            first = toks[line.tokens[0]]
            if first.text == "}" and first.match is not None:
                line.indent = line_of[first.match].indent
            elif first.head_of is not None and first.head_of >= 0:
                opener = line_of[first.head_of]
                if opener.tokens[-1] == first.head_of:
                    line.indent = opener.indent + 2
                else:  # items after `{ first item` on the same line line up with that item
                    line.indent = _width(self._code(opener, upto=first.head_of + 1))
            elif first.head_of is not None:
                line.indent = 0
            elif first.container is not None:
                anchor = line_of[first.container]
                was = self._column(first) - self._column(toks[anchor.tokens[0]])
                line.indent = anchor.indent + max(0, was)
        following = 0  # comment lines take the indentation of the code line after them
        for line in reversed(self.lines):
            if line.tokens:
                following = line.indent + (2 if self._closes(line) else 0)
            else:
                line.indent = following

    def _column(self, tok: _Tok) -> int:
        """Where a token stood on its original line; a tab counts as one level (2 columns)."""
        start = tok.token.start_pos
        return len(self.text[self.text.rfind("\n", 0, start) + 1:start].expandtabs(2))

    def _code(self, line: _Line, upto: int | None = None) -> str:
        """The line's code; with `upto`, only what comes before that token and its space."""
        out = []
        prev = None
        for i in line.tokens:
            if prev is not None:
                out.append(self._space(prev, i))
            if i == upto:
                break
            out.append(self.toks[i].text)
            prev = i
        return " " * line.indent + "".join(out)

    def _space(self, left: int, right: int) -> str:
        a, b = self.toks[left], self.toks[right]
        av, bv = a.text, b.text
        if av == "{" and bv == "}":
            return "" if a.tight else " "
        if (av == "{" and a.tight) or (bv == "}" and b.tight):
            return ""
        if b.wide:
            return "  "
        if bv in (",", ";", ":", ")") or av in ("(", "@"):
            return ""
        if av in (".", "..") or bv in (".", ".."):
            return ""
        if bv == "@" and b.parent is a.parent:
            return ""  # citizen@2; a seat `@3` after a keyword keeps its space
        if bv == "(" and (a.token.type == "NAME" or (av[:1].isalpha() and b.parent is a.parent)):
            return ""  # alive(mafia), count(p where …), gun(war); but `and (…)`
        return " "

    def render(self) -> str:
        self._indent()
        codes = [self._code(line) if line.tokens else "" for line in self.lines]  # "": a comment line
        out: list[str] = []
        index = 0
        while index < len(self.lines):
            # A run of consecutive code lines with trailing comments shares one column.
            end = index
            while (end < len(self.lines) and self.lines[end].tokens and self.lines[end].comment
                   and (end == index or not self.lines[end].blank_before)):
                end += 1
            if end > index:
                column = max(_width(codes[k]) for k in range(index, end)) + 2
                for k in range(index, end):
                    self._emit(out, self.lines[k], codes[k] + " " * (column - _width(codes[k]))
                               + (self.lines[k].comment or ""))
                index = end
                continue
            line = self.lines[index]
            text = codes[index] if line.tokens else " " * line.indent + (line.comment or "")
            self._emit(out, line, text)
            index += 1
        return "\n".join(out) + "\n" if out else ""

    @staticmethod
    def _emit(out: list[str], line: _Line, text: str) -> None:
        if line.blank_before:
            out.append("")
        out.append(text.rstrip(_BLANKS))


# ------------------------------------------------------------------ the safety net

def _verify(toks: list[_Tok], comments: list[str], formatted: str, start: str) -> None:
    """The formatted text must hold the same tokens and comments as the original."""
    try:
        new_toks, new_comments = _read(formatted, start)
    except Exception as exc:  # the layout produced text the grammar rejects
        raise FormatInvariantError(
            f"the formatted text does not parse ({type(exc).__name__})") from None
    before = [(t.token.type, t.text) for t in toks]
    after = [(t.token.type, t.text) for t in new_toks]
    if before != after:
        where = next((k for k, (x, y) in enumerate(zip(before, after)) if x != y),
                     min(len(before), len(after)))
        raise FormatInvariantError(f"formatting would change token {where + 1}")
    if new_comments != comments:
        raise FormatInvariantError("formatting would lose or change a comment")


def write_outcome(outcome: FileOutcome) -> None:
    """Write a formatted file in place."""
    with open(outcome.path, "wb") as handle:
        handle.write((outcome.formatted or "").encode("utf-8"))
