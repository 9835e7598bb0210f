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
