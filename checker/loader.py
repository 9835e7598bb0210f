"""Reading spec files: from bytes on disk to a SourceFile, refusing what is not a spec.

Everything that can go wrong before parsing (a missing path, a directory, a binary file,
UTF-16, invalid UTF-8, a huge file, bidi controls, runaway nesting) becomes a Diagnostic
naming the file, never an exception a user would see.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import NoReturn

from .errors import Diagnostic, SpecError
from .limits import MAX_FILE_BYTES, MAX_NESTING
from .source import SourceFile, Span
from .walk import spec_files
from .text import BIDI_REORDER, bidi_controls, char_name, code_chars, odd_line_breaks

SPEC_SUFFIX = ".mafia"
STDIN = "-"  # a path argument meaning standard input


def collect_paths(args: list[str], exclude: tuple[str, ...] = ()) -> tuple[list[str], list[Diagnostic]]:
    """Expand files and folders given on the command line into spec paths, in a stable
    order. Folders are searched recursively for *.mafia files, skipping what walk.py
    excludes; `-` (standard input) and files named outright are always taken."""
    paths: list[str] = []
    problems: list[Diagnostic] = []
    for arg in args:
        p = Path(arg)
        if arg == STDIN:
            paths.append(arg)
        elif p.is_dir():
            found = spec_files(arg, (SPEC_SUFFIX,), exclude)
            if not found:
                problems.append(Diagnostic(f"no {SPEC_SUFFIX} files in this folder", None, arg))
            paths.extend(found)
        elif p.exists():
            paths.append(arg)
        else:
            problems.append(Diagnostic("no such file or folder", None, arg))
    return paths, problems


def read_stdin(path: str = "<stdin>") -> SourceFile:
    """The spec on standard input (`-`), read as a file is, under the name `path`."""
    stream = getattr(sys.stdin, "buffer", None)
    try:
        data = stream.read(MAX_FILE_BYTES + 1) if stream is not None else \
            sys.stdin.read().encode("utf-8")
    except OSError as exc:
        raise SpecError([Diagnostic(f"cannot read standard input: {exc.strerror or exc}", None, path)]) from None
    return decode_source(path, data)


def read_text_file(path: str) -> str:
    """A small text file that is not a spec (a pyproject.toml, a baseline), read as a spec is:
    refused, with OSError, when it is not a regular file, so a FIFO is never waited on."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(f"{path} is not a regular file (a FIFO, socket or device)")
        return handle.read(MAX_FILE_BYTES + 1).decode("utf-8")


def read_source(path: str) -> SourceFile:
    """Read one spec file, or raise SpecError saying why it cannot be read."""

    def fail(message: str, span: Span | None = None, hint: str | None = None) -> NoReturn:
        raise SpecError([Diagnostic(message, span, path, hint)])

    try:
        if os.path.isdir(path):
            fail("is a folder, not a spec file")
        # Opened without blocking and checked before reading: reading a FIFO or a terminal
        # waits for a writer forever, and a device never ends.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                fail("is not a regular file (a FIFO, socket or device); give the path of a "
                     "spec file, or `-` for standard input")
            data = handle.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                _too_large(path, data, max(info.st_size, len(data)))
    except SpecError:
        raise
    except OSError as exc:
        fail(f"cannot read: {exc.strerror or exc}")
    return decode_source(path, data)


def _at_byte(path: str, data: bytes, offset: int, message: str, hint: str | None = None) -> Diagnostic:
    """A diagnostic at a byte offset of a file that cannot be decoded whole: the line and
    column are counted in what comes before it, read leniently."""
    before = data[:offset].decode("utf-8", errors="replace")
    source = SourceFile(path, before)
    span = source.span_at(len(before), 1)
    rest = data[offset:offset + 200].split(b"\n", 1)[0].decode("utf-8", errors="replace")
    return Diagnostic(message, span, path, hint, line_text=source.line_text(span.line) + rest)


def _too_large(path: str, data: bytes, size: int) -> NoReturn:
    raise SpecError([_at_byte(path, data, MAX_FILE_BYTES,
                              f"file is {size} bytes; the limit for a spec is {MAX_FILE_BYTES} "
                              "bytes (this is where it is reached)",
                              "split the scenario, or see the limits in the README")])


def decode_source(path: str, data: bytes) -> SourceFile:
    def fail(message: str, span: Span | None = None, hint: str | None = None) -> NoReturn:
        raise SpecError([Diagnostic(message, span, path, hint)])

    if len(data) > MAX_FILE_BYTES:
        _too_large(path, data, len(data))
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        fail("file is UTF-16; a spec must be UTF-8", hint="save the file as UTF-8")
    if b"\x00" in data:
        offset = data.index(b"\x00")
        raise SpecError([_at_byte(path, data, offset, f"file holds binary data (a NUL byte at "
                                  f"byte {offset}); a spec is UTF-8 text")])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8")
        source = SourceFile(path, good)
        span = source.span_at(len(good), 1)
        rest = data[exc.start:].split(b"\n", 1)[0].decode("utf-8", errors="replace")
        raise SpecError([Diagnostic(
            f"invalid UTF-8 at byte {exc.start}: a spec must be UTF-8 text", span, path,
            "save the file as UTF-8", line_text=source.line_text(span.line) + rest)]) from None
    source = SourceFile(path, text[1:] if text.startswith("\ufeff") else text)
    if not source.text.strip():
        raise SpecError([Diagnostic("the file is empty", source.span_at(0, 0), path,
                                    'a spec starts with: scenario NAME "display name" { prefix XX }')])
    _check_bidi(source)
    _check_nesting(source)
    return source


def _check_bidi(source: SourceFile) -> None:
    problems = []
    for offset, ch, context in bidi_controls(source.text):
        if ch in BIDI_REORDER or context == "code":
            where = {"code": "", "string": " inside a string", "comment": " inside a comment"}[context]
            span = source.span_at(offset)
            problems.append(Diagnostic(
                f"bidirectional control character {char_name(ch)}{where}: it can make the "
                "spec display differently from how it is read", span,
                source.path, hint="delete the character; names and strings in right-to-left "
                "scripts display correctly without it", line_text=source.line_text(span.line)))
    for offset, ch, context in odd_line_breaks(source.text):
        where = {"code": "", "string": " inside a string", "comment": " inside a comment"}[context]
        span = source.span_at(offset)
        problems.append(Diagnostic(
            f"line break {char_name(ch)}{where}: editors show it as a new line, but a spec's "
            "lines end only at LF, so what follows it would be read as part of the same "
            f"{'line' if context == 'code' else context}", span, source.path,
            hint="replace it with an ordinary line break (LF), or delete it",
            line_text=source.line_text(span.line)))
    if problems:
        raise SpecError(problems)


def _check_nesting(source: SourceFile) -> None:
    # Lark parses iteratively, but building the AST recurses; refuse runaway nesting first.
    depth = 0
    for i, ch in code_chars(source.text):
        if ch in "({":
            depth += 1
            if depth > MAX_NESTING:
                span = source.span_at(i)
                raise SpecError([Diagnostic(
                    f"nesting deeper than {MAX_NESTING} levels of brackets",
                    span, source.path, line_text=source.line_text(span.line))])
        elif ch in ")}":
            depth = max(0, depth - 1)
