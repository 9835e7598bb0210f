"""The stages, one function each: read, parse, build, resolve, analyse."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import ast
from .analyses import setup
from .build import build
from .errors import Diagnostic, SpecError
from .findings import Finding
from .loader import read_source
from .model import Scenario
from .parser import parse
from .resolve import resolve
from .source import SourceFile

# Analyses by kind, in the order they run and report.
ANALYSES = {
    "setup": setup.analyse,
}


def load_ast(path: str) -> tuple[SourceFile, ast.Spec]:
    source = read_source(path)
    return source, build(parse(source), source)


def load(path: str) -> Scenario:
    """Read, parse and resolve one spec; raise SpecError with located diagnostics."""
    _, spec = load_ast(path)
    return resolve(spec)


@dataclass
class FileResult:
    path: str
    scenario: Scenario | None = None
    source: SourceFile | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def check_file(path: str, select: tuple[str, ...] = tuple(ANALYSES)) -> FileResult:
    result = FileResult(path)
    try:
        result.source = read_source(path)
        spec = build(parse(result.source), result.source)
        result.scenario = resolve(spec)
    except SpecError as exc:
        result.diagnostics = exc.diagnostics
        return result
    except RecursionError:
        result.diagnostics = [Diagnostic("the spec is nested too deeply to read", None, path)]
        return result
    for kind in select:
        result.findings.extend(ANALYSES[kind](result.scenario))
    return result
