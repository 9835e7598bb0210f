"""Walking folders for spec files, as ruff does: folders that are never sources (`.git`,
`.venv`, `node_modules`, …), the patterns of `--exclude` and of every `.gitignore` from the
repository's root down are skipped. A file named on the command line is always taken.

The `.gitignore` reading covers what spec repositories use: `#` comments, `!` negation, a
trailing `/` for folders only, a leading or inner `/` anchoring the pattern to the
`.gitignore`'s folder, `*`, `?`, `[…]` and `**`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

# Folders no spec lives in: tools' caches and virtual environments (ruff's defaults).
DEFAULT_EXCLUDE = (".bzr", ".direnv", ".eggs", ".git", ".hg", ".mypy_cache", ".nox", ".pants.d",
                   ".pytest_cache", ".ruff_cache", ".svn", ".tox", ".venv", "__pypackages__",
                   "__pycache__", "_build", "buck-out", "build", "dist", "node_modules", "venv")


@dataclass(frozen=True)
class _Rule:
    base: str  # the folder of the .gitignore, absolute
    regex: re.Pattern
    negate: bool
    folders_only: bool


def _glob_regex(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1:end].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _rule(base: str, line: str) -> _Rule | None:
    line = line.rstrip("\n").rstrip()
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    body = _glob_regex(line.lstrip("/"))
    regex = re.compile(("" if anchored else "(?:.*/)?") + body + "$")
    return _Rule(base, regex, negate, folders_only)


def _read_gitignore(folder: str) -> list[_Rule]:
    try:
        text = Path(folder, ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [r for r in (_rule(folder, line) for line in text.split("\n")) if r is not None]


def _inherited(folder: str) -> list[_Rule]:
    """The .gitignore rules of the folders above `folder`, up to the repository's root."""
    chain = []
    here = Path(folder)
    for parent in here.parents:
        chain.append(str(parent))
        if (parent / ".git").exists():
            break
    else:
        return []  # not inside a repository: no .gitignore above applies
    rules: list[_Rule] = []
    for above in reversed(chain):
        rules += _read_gitignore(above)
    return rules


def _ignored(rules: list[_Rule], path: str, is_dir: bool) -> bool:
    ignored = False
    for rule in rules:
        if rule.folders_only and not is_dir:
            continue
        relative = os.path.relpath(path, rule.base).replace(os.sep, "/")
        if relative.startswith("../"):
            continue
        if rule.regex.match(relative):
            ignored = not rule.negate
    return ignored


def _excluded(name: str, relative: str, exclude: tuple[str, ...]) -> bool:
    return any(re.fullmatch(_glob_regex(p.rstrip("/")), name) or
               re.fullmatch(_glob_regex(p.strip("/")), relative) for p in exclude)


def spec_files(folder: str, suffixes: tuple[str, ...], exclude: tuple[str, ...] = ()) -> list[str]:
    """The files under `folder` ending in one of `suffixes`, sorted, without the excluded
    ones (DEFAULT_EXCLUDE, `exclude` glob patterns matched against a name or a path relative
    to `folder`, and .gitignore rules)."""
    root = os.path.abspath(folder)
    patterns = DEFAULT_EXCLUDE + tuple(exclude)
    found = []
    stack = [(root, _inherited(root) + _read_gitignore(root))]
    while stack:
        here, rules = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            relative = os.path.relpath(entry.path, root).replace(os.sep, "/")
            is_dir = entry.is_dir(follow_symlinks=False)
            if _excluded(entry.name, relative, patterns) or _ignored(rules, entry.path, is_dir):
                continue
            if is_dir:
                stack.append((entry.path, rules + _read_gitignore(entry.path)))
            elif entry.name.endswith(suffixes) and entry.is_file():
                found.append(str(Path(folder) / relative))
    return sorted(found)
