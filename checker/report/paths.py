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
