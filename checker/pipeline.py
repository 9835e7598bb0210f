"""The stages, one function each: read, parse, build, resolve, analyse."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .errors import Diagnostic, SpecError
from .findings import Finding, Verdict
from .loader import read_source
from .registry import INTERNAL_ERROR
from .source import SourceFile

# The parser (Lark), the resolver and the analyses (Z3) are imported where they are used, so
# that `mafiacheck --help`, `explain` and `fmt` start without them.
if TYPE_CHECKING:
    from . import ast
    from .analyses.encoded import Encoded, Options
    from .model import Scenario


# An analysis: the findings on a scenario (`setup`), or on its encoded compositions.
Analysis = Callable[..., "list[Finding]"]


class _Analyses(Mapping[str, Analysis]):
    """Kind -> its `analyse` function, the module imported on first use: commands that run no
    analysis (`--help`, `explain`, `fmt`) then never load Z3 and the encoder."""

    def __init__(self, modules: dict[str, str]):
        self._modules = modules

    def __getitem__(self, kind: str) -> Analysis:
        return importlib.import_module(f"{__package__}.analyses.{self._modules[kind]}").analyse

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


# Analyses by kind, in the order they run and report. `setup` reads the model; the others
# ask the Z3 encoding of each composition.
ANALYSES = _Analyses({
    "setup": "setup",
    "contradiction": "contradiction",
    "ambiguous-order": "ambiguous_order",
    "ambiguous-resolution": "ambiguous_resolution",
    "undefined": "undefined",
    "win-overlap": "win_overlap",
    "stalemate": "stalemate",
    "unreachable-win": "unreachable_win",
    "dead-rule": "dead_rule",
})
# Analyses that play games through the interpreter: they take the options, and the encodings
# of the compositions the encoder covers.
INTERPRETED: set[str] = set()
ENCODED = {"contradiction", "ambiguous-order", "ambiguous-resolution", "undefined", "win-overlap", "stalemate",
           "unreachable-win", "dead-rule"}


def load_ast(path: str) -> tuple[SourceFile, ast.Spec]:
    from .build import build
    from .parser import parse

    source = read_source(path)
    return source, build(parse(source), source)


def load(path: str) -> Scenario:
    """Read, parse and resolve one spec; raise SpecError with located diagnostics."""
    from .resolve import resolve

    _, spec = load_ast(path)
    return resolve(spec)


@dataclass
class FileResult:
    path: str
    scenario: Scenario | None = None
    source: SourceFile | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # Baseline entries for this file that no finding matched any more (see baseline.py).
    stale_baseline: list[dict] = field(default_factory=list)
    analyses: tuple[str, ...] = ()  # the kinds that ran, in order (a report lists each)
    # The questions the analyses answered no, with how far each answer holds.
    verdicts: list[Verdict] = field(default_factory=list)


# Groups of analyses that share the encodings of a spec's compositions. Each group builds its
# own, so a group's findings do not depend on what another asked first (a solver's history
# can change the models it gives), and a group can run in a process of its own: `check`
# runs the stalemate proof, the costliest, beside the others.
PARTS = (
    ("setup", "contradiction", "ambiguous-order", "ambiguous-resolution", "undefined", "win-overlap",
     "unreachable-win", "dead-rule"),
    ("stalemate",),
)


def parts_of(select: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The selected analyses, by group (PARTS), in the order they run; no empty group."""
    out = [tuple(k for k in select if k in part) for part in PARTS]
    return [part for part in out if part]


def check_file(path: str, select: tuple[str, ...] = tuple(ANALYSES),
               options: Options | None = None,
               severity: Mapping[str, str] | None = None,
               progress: Callable[[str], None] | None = None,
               source: SourceFile | None = None) -> FileResult:
    """Every selected analysis on one spec. `severity` overrides codes' severities (from the
    project's configuration); findings come out with their stable ids, acknowledged ones marked.
    `progress` is told each analysis as it starts; `source` is the spec already read (from
    standard input) instead of the file at `path`."""
    # With nothing selected the spec is still read and resolved (ask and serve load it so).
    parts = [analyse_part(path, select, part, options, progress, source) for part in parts_of(select) or [()]]
    return finish(merge(path, select, parts), select, severity)


def analyse_part(path: str, select: tuple[str, ...], part: tuple[str, ...],
                 options: Options | None = None,
                 progress: Callable[[str], None] | None = None,
                 source: SourceFile | None = None) -> FileResult:
    """The analyses of one group (`part`, of those selected) on one spec, their findings as
    they come (finish gives them their order and ids). The first group of the selection
    that asks the encodings also reports what they leave out, for every selected analysis."""
    from .build import build
    from .confusables import mixed_script_names
    from .parser import parse
    from .resolve import resolve

    result = FileResult(path, analyses=tuple(select))
    try:
        result.source = source if source is not None else read_source(path)
        spec = build(parse(result.source), result.source)
        scenario: Scenario = resolve(spec)
        result.scenario = scenario
    except SpecError as exc:
        result.diagnostics = exc.diagnostics
        return result
    except RecursionError:
        result.diagnostics = [Diagnostic("the spec is nested too deeply to read", None, path)]
        return result
    from .analyses.encoded import Options

    if "setup" in part:
        result.findings.extend(mixed_script_names(result.source))
    options = options or Options()
    # The first group that asks the encodings reports what they leave out, once for all.
    reports = part == next((p for p in parts_of(select) if any(k in ENCODED for k in p)), None)
    encodings = None
    for kind in part:
        if progress is not None:
            progress(f"{path}: {kind}")
        before = len(result.findings)
        try:
            encodings = _run(kind, scenario, result, select if reports else (), options, encodings)
        except Exception as exc:  # noqa: BLE001 - any bug, whatever its type
            # A bug in an analysis must not hide the others or end in a traceback, and must
            # never pass for the solver giving up: it is an internal-error finding (exit 4).
            result.findings.append(Finding(
                INTERNAL_ERROR, "internal", "error",
                f"internal error in the {kind} analysis ({type(exc).__name__}: {exc}); "
                "please report it with this spec", scenario.span))
        result.findings[before:] = [f if f.analyses else replace(f, analyses=(kind,))
                                    for f in result.findings[before:]]
    return result


def merge(path: str, select: tuple[str, ...], parts: list[FileResult]) -> FileResult:
    """One spec's result from its groups' (each read the same spec: a spec that does not
    read is reported once)."""
    if not parts:
        return FileResult(path, analyses=tuple(select))
    result = replace(parts[0], findings=list(parts[0].findings), verdicts=list(parts[0].verdicts))
    if not result.diagnostics:
        for part in parts[1:]:
            result.findings.extend(part.findings)
            result.verdicts = result.verdicts + part.verdicts
    return result


def finish(result: FileResult, select: tuple[str, ...],
           severity: Mapping[str, str] | None = None) -> FileResult:
    """A spec's findings in report order, each rule id once, severities as configured,
    acknowledgements applied and stable ids given."""
    from .fingerprint import assign_ids
    from .suppress import acknowledge

    if result.diagnostics or result.scenario is None or result.source is None:
        return result
    result.findings.sort(key=lambda f: (list(ANALYSES).index(f.kind) if f.kind in ANALYSES else 99,) + f.sort_key())
    # Each rule id once: two spec lines citing the same rule are one citation.
    result.findings = [replace(f, rules=tuple(dict.fromkeys(f.rules))) for f in result.findings]
    if severity:
        result.findings = [replace(f, severity=severity.get(f.code, f.severity))
                           for f in result.findings]
    decided = not any(f.undecided for f in result.findings)
    result.findings = acknowledge(result.findings, result.scenario, select if decided else ())
    result.findings = assign_ids(result.findings, result.source)
    return result


def _run(kind: str, scenario: Scenario, result: FileResult, select: tuple[str, ...], options: Options,
         encodings: list[Encoded] | None) -> list[Encoded] | None:
    """Run one analysis of the scenario (of `result`, which gets its findings); the Z3 ones
    share the encodings, built on first use. What the encodings leave out is reported for the
    analyses of `select` (none: not reported)."""
    from .analyses.encoded import Encoded

    if kind not in ENCODED and kind not in INTERPRETED:
        result.findings.extend(ANALYSES[kind](scenario))
        return encodings
    if encodings is None:
        encodings = [Encoded(scenario, comp, options)
                     for comp in scenario.compositions if comp.total == comp.players]
        kinds = ", ".join(k for k in select if k in ENCODED)
        for enc in encodings:
            if enc.error and kinds:
                result.findings.append(replace(enc.unsupported(f"{kinds} on {enc.where}"),
                                               analyses=tuple(k for k in select if k in ENCODED)))
        encodings = [e for e in encodings if not e.error]
        for enc in encodings:
            why = enc.unfollowed() if kinds else None
            if why:
                result.findings.append(replace(
                    enc.inconclusive(f"{kinds} on this composition could not be fully checked", why),
                    analyses=tuple(k for k in select if k in ENCODED)))
    if kind in INTERPRETED:
        # Played through the interpreter, for compositions the encoding may not cover; the
        # encodings that exist answer side questions (can a conversion make two holders?).
        result.findings.extend(ANALYSES[kind](scenario, options, encodings))
    elif encodings:
        before = [len(enc.depths.verdicts) for enc in encodings]
        result.findings.extend(ANALYSES[kind](scenario, encodings))
        result.verdicts += [replace(v, kind=kind) for enc, n in zip(encodings, before)
                            for v in enc.depths.verdicts[n:]]
    return encodings
