"""Every module of the package is type-checked whole (issue 11): `.ci/run` runs mypy with the
configuration in pyproject.toml, and this holds the configuration to the package, so that a
module added later cannot be left out of the check or out of the typed-whole overrides."""

import fnmatch
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

if sys.version_info < (3, 11):  # pragma: no cover - tomllib is 3.11's
    pytest.skip("tomllib needs Python 3.11", allow_module_level=True)
import tomllib  # noqa: E402


def _config() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["mypy"]


def _modules() -> list[tuple[str, str]]:
    """(path, module name) of every module of the package (source root checker/)."""
    out = []
    for path in sorted((ROOT / "checker").rglob("*.py")):
        rel = path.relative_to(ROOT)
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append((rel.as_posix(), ".".join(parts)))
    return out


def test_every_module_is_checked():
    files = _config()["files"]
    missing = [p for p, _ in _modules()
               if not any(p == f or (f.endswith("/") and p.startswith(f)) for f in files)]
    assert not missing, f"not in [tool.mypy] files: {missing}"


def test_every_module_is_typed_whole():
    (typed,) = [o for o in _config()["overrides"] if o.get("disallow_untyped_defs")]
    assert typed.get("check_untyped_defs") and typed.get("disallow_incomplete_defs")
    # As mypy reads a pattern: `pkg.*` is the package and every module below it.
    def matches(m: str, pat: str) -> bool:
        return fnmatch.fnmatchcase(m, pat) or (pat.endswith(".*") and m == pat[:-2])
    missing = [m for _, m in _modules() if not any(matches(m, pat) for pat in typed["module"])]
    assert not missing, f"not in the typed-whole overrides: {missing}"
