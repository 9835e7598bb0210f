"""The README's language examples parse, so the documentation cannot drift from the grammar."""

import re
from pathlib import Path

import pytest

from mafiacheck.parser import parse
from mafiacheck.source import SourceFile

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
SECTION = README.split("## The language by example", 1)[1].split("\n## ", 1)[0]
BLOCKS = re.findall(r"```\n(.*?)```", SECTION, re.S)


def test_the_readme_has_language_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.split()[0])
def test_readme_example_parses(block):
    parse(SourceFile("README.md", block))


def test_quick_start_commands_are_the_ci_commands():
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    quick = re.findall(r"```\n(.*?)```", README, re.S)[0].splitlines()
    assert quick[0].endswith("mafiacheck check specs/")
    assert quick[1] in ci.splitlines()


# Every snippet works as written: the query example, the commands, the configuration.

def _blocks(heading: str) -> list[str]:
    section = README.split(heading, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```\n(.*?)```", section, re.S)


def _commands() -> list[list[str]]:
    import shlex

    found = []
    for block in re.findall(r"```\n(.*?)```", README, re.S):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("mafiacheck ") and "..." not in line and "[" not in line:
                found.append(shlex.split(line)[1:])
    return found


def _run(args: list[str], cwd: Path):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "mafiacheck", *args], cwd=cwd,
                          capture_output=True, text=True, encoding="utf-8", timeout=600)


ROOT = Path(__file__).resolve().parent.parent


def test_the_query_example_answers_as_it_expects(tmp_path):
    example = next(b for b in _blocks("## What-if questions and scripted games") if b.startswith("query "))
    (tmp_path / "example.query").write_text(example, encoding="utf-8")
    r = _run(["ask", "specs/commando.mafia", str(tmp_path / "example.query")], ROOT)
    assert r.returncode == 0 and "EXPECTATION FAILED" not in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("args", [a for a in _commands() if a[0] in ("ask", "simulate", "explain")],
                         ids=" ".join)
def test_readme_commands_run(args):
    r = _run(args, ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("args", [a for a in _commands() if a[0] == "check"], ids=" ".join)
def test_readme_check_commands_are_valid(args):
    # Checking every bundled spec takes a minute each; the command line must be valid as written.
    from mafiacheck.cli import build_parser, plan_check

    plan_check(build_parser().parse_args(args))


def test_readme_configuration_is_valid(tmp_path):
    from mafiacheck import config
    from mafiacheck.pipeline import ANALYSES

    block = next(b for b in re.findall(r"```\n(.*?)```", README, re.S) if b.startswith("[tool.mafiacheck]"))
    (tmp_path / "pyproject.toml").write_text(block, encoding="utf-8")
    conf = config.load(str(tmp_path / "pyproject.toml"), tuple(ANALYSES))
    assert conf.bound == 2 and conf.exclude


def test_readme_pre_commit_hooks_exist():
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    for hook in re.findall(r"- id: (\S+)", README):
        assert f"- id: {hook}" in hooks
