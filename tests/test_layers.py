"""The layers of the code hold: every import (at the top of a module or inside a function)
goes to a lower layer or stays within its own, the interpreter and the encoding never import
each other, the model knows no solver and the interpreter no Z3, and nothing below the command
line imports a report or the command line.

    syntax -> model -> (interpreter | encoding) -> crosscheck -> analyses -> pipeline -> reports -> CLI
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CHECKER = Path(__file__).resolve().parent.parent / "checker"

# Bottom first. A module not listed here fails the test: a new module takes its place on purpose.
LAYERS: list[tuple[str, set[str]]] = [
    ("foundations", {"__init__", "text", "source", "limits", "registry", "errors", "findings", "holes",
                     "children"}),
    ("syntax", {"ast", "grammar", "parser", "build", "loader", "query_text", "fmt", "config", "walk",
                "confusables", "narrow"}),
    ("model", {"vocabulary", "rule_rounds", "model", "resolve", "evaluate", "phases", "prestart"}),
    ("implementations", {"interpreter", "encode"}),
    ("moderator's log", {"moderator_log", "simulate"}),
    ("crosscheck", {"crosscheck"}),
    ("analyses", {"analyses"}),
    ("pipeline", {"suppress", "fingerprint", "baseline", "pipeline", "queries", "query_names",
                  "expectations"}),
    ("reports", {"report"}),
    ("front ends", {"cli", "__main__", "lsp", "serve", "specs"}),
]
LAYER_OF = {unit: i for i, (_, units) in enumerate(LAYERS) for unit in units}

SIBLINGS = {"interpreter": "encode", "encode": "interpreter"}  # one semantics, two independent implementations
NO_SOLVER = {"ast", "parser", "build", "model", "resolve", "evaluate", "vocabulary", "rule_rounds", "phases", "prestart",
             "narrow", "interpreter", "moderator_log", "simulate"}


def modules() -> list[Path]:
    return sorted(p for p in CHECKER.rglob("*.py") if "__pycache__" not in p.parts)


def unit_of(path: Path) -> str:
    """The layering unit of a module: its subpackage, or the module itself at the top."""
    rel = path.relative_to(CHECKER)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imports(path: Path) -> list[tuple[str, int]]:
    """(the first name imported below `mafiacheck`, or a third-party top name, line) for every
    import statement anywhere in the module."""
    rel = path.relative_to(CHECKER)
    package = list(rel.parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                parts = base + (node.module.split(".") if node.module else [])
                if not parts:  # `from . import x` at the top: a module, or a name of the package
                    out += [(alias.name if alias.name in LAYER_OF else "__init__", node.lineno)
                            for alias in node.names]
                else:
                    out.append((parts[0], node.lineno))
            elif node.module and node.module.split(".")[0] == "mafiacheck":
                out.append((node.module.split(".")[1], node.lineno))
            elif node.module:
                out.append(("!" + node.module.split(".")[0], node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")
                out.append((top[1] if top[0] == "mafiacheck" and len(top) > 1 else "!" + top[0], node.lineno))
    return out


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(CHECKER)))
def test_imports_go_down_the_layers(path: Path):
    unit = unit_of(path)
    assert unit in LAYER_OF, f"{unit} has no layer in tests/test_layers.py: give it one"
    wrong = []
    for target, line in imports(path):
        if target.startswith("!"):
            if target == "!z3" and unit in NO_SOLVER:
                wrong.append(f"line {line}: {unit} imports z3 (the model knows no solver, the interpreter no Z3)")
            continue
        if target == unit:
            continue
        assert target in LAYER_OF, f"line {line}: {target} has no layer"
        if LAYER_OF[target] > LAYER_OF[unit]:
            wrong.append(f"line {line}: {unit} ({LAYERS[LAYER_OF[unit]][0]}) imports {target} "
                         f"({LAYERS[LAYER_OF[target]][0]}), a higher layer")
        if SIBLINGS.get(unit) == target:
            wrong.append(f"line {line}: {unit} imports {target}: the two implementations stay apart")
    assert not wrong, "\n".join(wrong)


def test_nothing_below_the_front_ends_imports_a_report_or_the_cli():
    top = LAYER_OF["cli"]
    for path in modules():
        unit = unit_of(path)
        if LAYER_OF.get(unit) in (top, LAYER_OF["report"]):
            continue
        for target, line in imports(path):
            assert target not in ("report", "cli"), f"{path.relative_to(CHECKER)}:{line} imports {target}"


def test_the_layering_test_sees_function_level_imports(tmp_path):
    # A test that cannot fail is a defect: an import hidden inside a function is still seen.
    module = CHECKER / "interpreter" / "play.py"
    assert ("vocabulary", 17) in imports(module) or any(t == "vocabulary" for t, _ in imports(module))
    hidden = tmp_path / "probe.py"
    hidden.write_text("def f():\n    from ..encode import unroll\n", encoding="utf-8")
    fake = CHECKER / "interpreter" / "_layer_probe.py"
    try:
        fake.write_text(hidden.read_text(encoding="utf-8"), encoding="utf-8")
        with pytest.raises(AssertionError, match="stay apart"):
            test_imports_go_down_the_layers(fake)
    finally:
        fake.unlink()
