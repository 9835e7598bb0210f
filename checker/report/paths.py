"""Spec paths as CI systems want them: relative to the working directory (the checkout's
root in a CI job), with forward slashes."""

from __future__ import annotations

import os
from pathlib import Path


def workspace_path(path: str) -> str | None:
    """`path` relative to the working directory, with '/' separators; None when the file lies
    outside it."""
    if not os.path.isabs(path):
        normal = os.path.normpath(path).replace(os.sep, "/")
        if normal != ".." and not normal.startswith("../"):
            return normal
    absolute = Path(os.path.abspath(path))
    cwd = Path.cwd()
    # Plain first (keeps the names the user typed), then with symlinks resolved.
    for base, target in ((Path(os.path.abspath(cwd)), absolute), (cwd.resolve(), absolute.resolve())):
        try:
            return target.relative_to(base).as_posix()
        except ValueError:
            continue
    return None


def repository_root(path: str) -> Path | None:
    """The root of the git checkout holding `path` (the nearest folder with `.git`), or None."""
    here = Path(os.path.abspath(path))
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return None


def repository_path(path: str) -> tuple[str, Path] | None:
    """(`path` relative to its repository's root with '/' separators, the root), whatever the
    working directory: what code scanning and annotations resolve against. None outside a
    checkout."""
    root = repository_root(path)
    if root is None:
        return None
    absolute = Path(os.path.abspath(path))
    for base, target in ((root, absolute), (root.resolve(), absolute.resolve())):
        try:
            return target.relative_to(base).as_posix(), root
        except ValueError:
            continue
    return None
