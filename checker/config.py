"""Project configuration: `[tool.mafiacheck]` in the nearest pyproject.toml.

    [tool.mafiacheck]
    bound = 2                      # rounds searched (as --bound)
    timeout = 120                  # seconds per solver question (as --timeout)
    rlimit = 20000000              # solver resource limit per question (as --rlimit)
    select = ["setup", "contradiction", "undefined"]   # analyses to run (as --select)
    baseline = "mafiacheck-baseline.json"             # as --baseline, relative to this file
    exclude = ["drafts"]           # glob patterns skipped when walking folders (as --exclude)
    [tool.mafiacheck.severity]
    MC201 = "error"                # a code's severity in this project

The command line wins over the file. The nearest pyproject.toml holding a `[tool.mafiacheck]`
table, from the working directory up, is used; `--config FILE` names one. Unknown keys and
wrong types are errors (exit 2): a misspelt key silently ignored would change what CI checks.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from .errors import Diagnostic, SpecError
from .registry import CODES
from .findings import SEVERITIES
from .loader import read_text_file
from .limits import MAX_BOUND, rlimit_problem, timeout_problem

if TYPE_CHECKING:
    from .source import Span

T = TypeVar("T")


@dataclass(frozen=True)
class Config:
    path: str | None = None  # the pyproject.toml read, if any
    bound: int | None = None
    timeout: float | None = None
    rlimit: int | None = None
    select: tuple[str, ...] | None = None
    baseline: str | None = None
    severity: dict[str, str] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()  # glob patterns skipped when walking folders


KEYS = ("bound", "timeout", "rlimit", "select", "baseline", "severity", "exclude")


def find(start: str | None = None) -> str | None:
    """The nearest pyproject.toml with a [tool.mafiacheck] table, from `start` upwards."""
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return str(candidate)  # let load() report it
            if "mafiacheck" in data.get("tool", {}):
                return str(candidate)
    return None


def _locate(path: str, text: str, key: str) -> Span | None:
    """Where `key = …` is written in the [tool.mafiacheck] part of the file, if found."""
    from .source import Span

    lines = text.split("\n")
    inside = False
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("["):
            inside = stripped.startswith("[tool.mafiacheck")
            header = re.match(rf"\[\s*tool\.mafiacheck\.{re.escape(key)}\s*\]", stripped)
            if header:  # a table where a key was expected: `[tool.mafiacheck.extra]`
                column = line.index(stripped) + 1
                return Span(path, number, column, number, column + len(stripped.split("]")[0]) + 1)
            continue
        if inside and re.match(rf"{re.escape(key)}\s*=", stripped):
            column = line.index(stripped) + 1
            return Span(path, number, column, number, column + len(key))
    return None


def _toml_error(path: str, text: str, exc: Exception) -> Diagnostic:
    """A TOML syntax error at its line and column (tomllib says them in its message)."""
    from .source import Span

    found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
    message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
    if not found:
        return Diagnostic(f"the file is not valid TOML: {message}", None, path)
    line, column = int(found.group(1)), int(found.group(2))
    lines = text.split("\n")
    shown = lines[line - 1] if 0 < line <= len(lines) else None
    return Diagnostic(f"the file is not valid TOML: {message}", Span(path, line, column, line, column + 1),
                      path, line_text=shown)


def load(path: str, kinds: tuple[str, ...]) -> Config:
    """Read and validate `[tool.mafiacheck]`; SpecError (exit 2) on anything wrong."""

    text = ""

    def bad(message: str, hint: str | None = None, key: str | None = None) -> SpecError:
        span = _locate(path, text, key) if key else None
        return SpecError([Diagnostic(f"[tool.mafiacheck] {message}", span, path, hint,
                                     line_text=text.split("\n")[span.line - 1] if span else None)])

    try:
        text = read_text_file(path)
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([Diagnostic(f"cannot read {path}: {exc}", None, path)]) from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError([_toml_error(path, text, exc)]) from None
    table = data.get("tool", {}).get("mafiacheck", {})
    if not isinstance(table, dict):
        raise bad("must be a table")
    for key in table:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"did you mean '{close[0]}'?" if close else "keys are: " + ", ".join(KEYS)
            raise bad(f"has an unknown key '{key}'", hint, key)

    def typed(key: str, types: type[T] | tuple[type[T], ...], what: str) -> T | None:
        value = table.get(key)
        if value is not None and (not isinstance(value, types) or isinstance(value, bool)):
            raise bad(f"`{key}` must be {what}, not {type(value).__name__}", key=key)
        return value

    bound = typed("bound", int, "an integer")
    if bound is not None and not 1 <= bound <= MAX_BOUND:
        raise bad(f"`bound` must be between 1 and {MAX_BOUND}", key="bound")
    timeout = typed("timeout", (int, float), "a number of seconds")
    if timeout is not None and timeout_problem(timeout):
        raise bad(f"`timeout` {timeout_problem(timeout)}", key="timeout")
    rlimit = typed("rlimit", int, "an integer")
    if rlimit is not None and rlimit_problem(rlimit):
        raise bad(f"`rlimit` {rlimit_problem(rlimit)}", key="rlimit")
    select = table.get("select")
    if select is not None:
        if isinstance(select, str):
            select = [s.strip() for s in select.split(",") if s.strip()]
        if not isinstance(select, list) or not all(isinstance(s, str) for s in select):
            raise bad("`select` must be a list of analysis kinds", key="select")
        for kind in select:
            if kind not in kinds:
                raise bad(f"`select` names an unknown analysis kind '{kind}'",
                          "kinds are: " + ", ".join(kinds), key="select")
        select = tuple(select)
    baseline = typed("baseline", str, "a path")
    if baseline is not None:
        baseline = os.path.join(os.path.dirname(path), baseline)
    severity = table.get("severity", {})
    if not isinstance(severity, dict):
        raise bad("`severity` must be a table of finding codes, e.g. MC201 = \"error\"",
                  key="severity")
    for code, level in severity.items():
        if code.upper() not in CODES:
            raise bad(f"`severity` names an unknown finding code '{code}'",
                      "`mafiacheck explain` lists the codes", key=code)
        if level not in SEVERITIES:
            raise bad(f"`severity.{code}` must be one of {', '.join(SEVERITIES)}", key=code)
        if CODES[code.upper()].kind == "inconclusive" and level != "error":
            raise bad("an inconclusive result always fails the gate; its severity cannot be "
                      "lowered", key=code)
    exclude = table.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
        raise bad("`exclude` must be a list of glob patterns", key="exclude")
    return Config(path, bound, float(timeout) if timeout is not None else None, rlimit, select,
                  baseline, {c.upper(): v for c, v in severity.items()}, tuple(exclude))
