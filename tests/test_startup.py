"""Commands that run no analysis start without Z3, the encoder, the interpreter and the
analyses (editors and pre-commit hooks spawn them often); `--help` and `explain` without the
parser too."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("z3", "mafiacheck.encode", "mafiacheck.interpreter", "mafiacheck.analyses")

PROBE = """
import io, sys
from mafiacheck.cli import main
code = main({argv!r}, io.StringIO(), io.StringIO())
print(code, " ".join(sorted(m for m in sys.modules if m == "lark" or m.startswith({heavy!r}))))
"""


def loaded(argv):
    r = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    code, _, modules = r.stdout.strip().partition(" ")
    return int(code), set(modules.split())


@pytest.mark.parametrize("argv,parser", [([], False), (["explain", "MC203"], False),
                                          (["fmt", "--check", "specs/gangster.mafia"], True)])
def test_light_commands_do_not_load_the_solver(argv, parser):
    code, modules = loaded(argv)
    assert code in (0, 2)
    assert not modules - {"lark"}, modules
    assert ("lark" in modules) == parser


def test_check_still_loads_what_it_needs():
    code, modules = loaded(["check", "specs/gangster.mafia", "--select", "setup,dead-rule"])
    assert "z3" in modules and "mafiacheck.analyses" in modules
