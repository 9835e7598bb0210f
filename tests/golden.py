"""Golden outputs: run `mafiacheck check` on a file and compare with the text kept beside it.

    python tests/golden.py --update     # rewrite every .expected file, then review the diff

Each `X.mafia` under tests/bad/ has `X.expected` beside it: the first line is the exit code,
the rest the exact text report. Paths are printed relative to the repository root so the
files do not depend on where the checkout lives.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "bad"


_CACHE: dict = {}


def run(args: list[str]) -> tuple[int, str]:
    """The command's exit code and output, through the real entry point. Runs of `check` that
    differ only in --format share one analysis (the analyses are the slow part)."""
    if args and args[0] == "check":
        return _check(tuple(args))
    return _main(args)


def _check(args: tuple) -> tuple[int, str]:
    from mafiacheck.cli import CHECK_FORMATS, build_parser, check_results, exit_code, plan_check

    parsed = build_parser().parse_args(list(args))
    key = (tuple(parsed.paths), parsed.select, parsed.bound, parsed.rlimit)
    if key not in _CACHE:
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            _CACHE[key] = check_results(parsed.paths, plan_check(parsed))
        finally:
            os.chdir(cwd)
    results = _CACHE[key]
    return exit_code(results), CHECK_FORMATS[parsed.format](results)


def _main(args: list[str]) -> tuple[int, str]:
    from mafiacheck.cli import main

    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        code = main(args, out, err)
    finally:
        os.chdir(cwd)
    return code, out.getvalue() + err.getvalue()


def expected_path(case: Path) -> Path:
    return case.with_suffix(".expected")


def render(case: Path) -> str:
    code, text = run(["check", str(case.relative_to(ROOT))])
    return f"exit {code}\n{text}"


def cases() -> list[Path]:
    return sorted(BAD.glob("*.mafia"))


# Whole-run goldens: the report on the bundled specs, in each format.
RUNS = {
    # The default check, as a rulebook editor runs it (searched as deep as it goes by
    # default); the resource limit (not the clock) bounds each question, so the report is
    # the same on every machine. Bound 1 keeps the JSON golden fast.
    "check_specs.txt": ["check", "specs"],
    "check_gangster.json": ["check", "specs/gangster.mafia", "--format", "json", "--bound", "1"],
    "ask_gangster.txt": ["ask", "specs/gangster.mafia", "examples/whatif/gangster.query"],
    "ask_gangster.json": ["ask", "specs/gangster.mafia", "examples/whatif/gangster.query",
                          "--format", "json"],
    "simulate_gangster.txt": ["simulate", "specs/gangster.mafia", "examples/games/gangster.query"],
}
GOLDEN = ROOT / "tests" / "golden"


FINDINGS = ROOT / "FINDINGS.md"


def render_run(name: str) -> str:
    code, text = run(RUNS[name])
    return f"exit {code}\n{text}"


def render_findings() -> str:
    """FINDINGS.md: the default report on the bundled specs, in Markdown."""
    return run(["check", "specs", "--format", "markdown"])[1]


def update() -> None:
    for case in cases():
        expected_path(case).write_text(render(case), encoding="utf-8")
        print(f"wrote {expected_path(case).relative_to(ROOT)}")
    GOLDEN.mkdir(exist_ok=True)
    for name in RUNS:
        (GOLDEN / name).write_text(render_run(name), encoding="utf-8")
        print(f"wrote tests/golden/{name}")
    FINDINGS.write_text(render_findings(), encoding="utf-8")
    print("wrote FINDINGS.md")


if __name__ == "__main__":
    if "--update" in sys.argv:
        update()
    else:
        print(__doc__)
