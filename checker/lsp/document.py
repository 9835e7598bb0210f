"""What the language server knows of one document, computed without any LSP machinery.

`analyse(text, path)` parses with recovery (one missing brace does not hide the rest of the
file), builds and resolves what parsed, runs the `setup` analysis, and indexes every name:
where each declared thing is defined and every place a name refers to it. The server turns
this into diagnostics, hovers, definitions, references, symbols and completions; tests call
it directly too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from functools import lru_cache

from lark.exceptions import UnexpectedInput

from .. import ast
from ..build import build
from ..errors import Diagnostic, SpecError
from ..loader import decode_source
from ..model import Scenario
from ..parser import DECLARATION_KEYWORDS, _diagnostic, grammar_text, lark_parser
from ..resolve import Resolver, Symbol
from ..source import SourceFile, Span

QUERY_SUFFIX = ".query"
# Top-level keywords: a line starting with one (at column 1) begins a declaration, where the
# parser may resume after an error.
SPEC_STARTS = DECLARATION_KEYWORDS | {"acknowledge", "card"}
QUERY_STARTS = {"query"}


@dataclass
class Problem:
    """A diagnostic for the editor: where, how bad, what, and the places it involves."""
    span: Span | None
    severity: str  # error, warning, info
    message: str
    code: str | None = None
    source: str = "mafiacheck"
    related: tuple[tuple[str, Span | None], ...] = ()


@dataclass
class Definition:
    space: str  # role, side, ability, rule, team, setting, item, kind, memory, assumption,
    #             option, variant, counter, variable, scenario, query
    key: str
    text: str
    span: Span | None  # the name where it is declared
    node: object = None  # the declaration (AST), or for variables the binding's owner
    decl_span: Span | None = None


@dataclass
class Occurrence:
    span: Span
    key: str
    text: str
    targets: list[Definition]


@dataclass
class Document:
    path: str
    text: str
    is_query: bool
    problems: list[Problem] = field(default_factory=list)
    decls: list = field(default_factory=list)  # the declarations (or queries) that parsed
    scenario: Scenario | None = None  # resolved, when the whole spec resolves
    definitions: list[Definition] = field(default_factory=list)
    occurrences: list[Occurrence] = field(default_factory=list)
    spec_path: str | None = None  # for a query file: the spec it is read against
    spec: "Document | None" = None

    def at(self, line: int, column: int) -> Occurrence | None:
        """The name occurrence under a 1-based line and code-point column."""
        best = None
        for o in self.occurrences:
            s = o.span
            if (s.line, s.column) <= (line, column) <= (s.end_line, s.end_column):
                if best is None or (s.line, s.column) >= (best.span.line, best.span.column):
                    best = o
        return best

    def references(self, target: Definition) -> list[Occurrence]:
        return [o for o in self.occurrences if any(_same(t, target) for t in o.targets)]


def _same(a: Definition, b: Definition) -> bool:
    return a.space == b.space and a.key == b.key and a.span == b.span


# ------------------------------------------------------------------ parsing with recovery

def _mask(text: str, blank: str, begin: int, end: int) -> str:
    """The text up to `end` with everything before `begin` blanked (`blank` is the whole
    text blanked, newlines kept), so a piece parses with its real lines and columns."""
    return blank[:begin] + text[begin:end]


def _starts(text: str, keywords: Collection[str]) -> list[int]:
    """Offsets of lines that start (at column 1) with a top-level keyword."""
    out = []
    for m in re.finditer(r"(?m)^([^\W\d]\w*)\b", text):
        if m.group(1) in keywords:
            out.append(m.start())
    return out


def parse_tolerant(source: SourceFile, start: str) -> tuple[list, list[Diagnostic]]:
    """(declarations or queries that parsed, syntax diagnostics). The whole file first; when
    it fails, each top-level piece (from one line starting with a declaration keyword to the
    next) on its own, so an error in one declaration leaves the others readable."""
    parser = lark_parser()
    try:
        tree = parser.parse(source.text, start=start)
    except UnexpectedInput:
        pass
    else:
        try:
            result = build(tree, source)
        except SpecError as exc:
            return [], exc.diagnostics
        return list(result.decls if start == "start" else result), []
    text = source.text
    offsets = _starts(text, QUERY_STARTS if start == "queries" else SPEC_STARTS)
    if not offsets or offsets[0] > 0 and text[: offsets[0]].strip() and not _only_comments(text[: offsets[0]]):
        offsets = [0] + offsets
    offsets.append(len(text))
    decls: list = []
    diagnostics: list[Diagnostic] = []
    piece_rule = "queries" if start == "queries" else "start"
    blank = re.sub(r"[^\n]", " ", text)
    for begin, end in zip(offsets, offsets[1:]):
        piece = SourceFile(source.path, _mask(text, blank, begin, end))
        try:
            tree = parser.parse(piece.text, start=piece_rule)
        except UnexpectedInput as exc:
            d = _diagnostic(piece, exc, piece_rule)
            if end < len(text) and d.message.startswith("unexpected end of file"):
                line = text.count("\n", 0, end) + 1
                d = Diagnostic(d.message.replace("unexpected end of file",
                                                 f"the declaration is not finished before line {line}"),
                               d.span, d.path, d.hint)
            diagnostics.append(d)
            continue
        try:
            result = build(tree, piece)
        except SpecError as exc:
            diagnostics.extend(exc.diagnostics)
            continue
        decls.extend(result.decls if piece_rule == "start" else result)
    return decls, diagnostics


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.split("\n"))


# ------------------------------------------------------------------ resolving, with a record

class _RecordingResolver(Resolver):
    """The resolver, remembering which declared thing each looked-up name turned out to be."""

    def __init__(self, spec: ast.Spec):
        super().__init__(spec)
        self.found: dict[Span, tuple[str, str]] = {}

    def lookup(self, name: ast.Name, spaces: tuple[str, ...], what: str) -> Symbol | None:
        sym = super().lookup(name, spaces, what)
        if sym is not None and name.span is not None:
            self.found[name.span] = (sym.space, sym.key)
        return sym


def _resolve(decls: Sequence, path: str) -> tuple[Scenario | None, list[Diagnostic], dict[Span, tuple[str, str]]]:
    spec = ast.Spec(path, tuple(decls))
    resolver = _RecordingResolver(spec)
    try:
        scenario = resolver.run()
        return scenario, [], resolver.found
    except SpecError as exc:
        return None, exc.diagnostics, resolver.found
    except (RecursionError, KeyError, TypeError, AttributeError, IndexError, ValueError):
        return None, [], resolver.found


# ------------------------------------------------------------------ the index of names

_DECL_SPACES = {ast.SideDecl: "side", ast.RoleDecl: "role", ast.TeamDecl: "team",
                ast.AbilityDecl: "ability", ast.RuleDecl: "rule", ast.SettingDecl: "setting",
                ast.AssumeDecl: "assumption", ast.ItemDecl: "item", ast.KindDecl: "kind",
                ast.MemoryDecl: "memory", ast.ScenarioDecl: "scenario", ast.Query: "query"}


def definitions_of(decls: Iterable) -> list[Definition]:
    out: list[Definition] = []
    for d in decls:
        space = _DECL_SPACES.get(type(d))
        if space is None:
            continue
        out.append(Definition(space, d.name.key, d.name.text, d.name.span, d, d.span))
        if isinstance(d, ast.SettingDecl):
            out += [Definition("option", o.key, o.text, o.span, d, d.span) for o in d.options]
        elif isinstance(d, ast.ItemDecl):
            out += [Definition("variant", v.key, v.text, v.span, d, d.span) for v, _ in d.variants]
        elif isinstance(d, ast.RoleDecl):
            out += [Definition("counter", c.names[0].key, c.names[0].text, c.names[0].span, d, c.span)
                    for c in d.clauses if c.keyword == "counter" and c.names]
    return out


def _names(value: object, scope: dict[str, Definition], out: list[tuple[ast.Name, Definition | None, object]],
           owner: object = None) -> None:
    """Every Name under an AST value, with the local variables in scope where it is written:
    yields (name, local definition or None, owner)."""
    if isinstance(value, ast.Name):
        out.append((value, scope.get(value.key), owner))
        return
    if isinstance(value, (tuple, list)):
        for item in value:
            _names(item, scope, out, owner)
        return
    if not is_dataclass(value) or isinstance(value, type):
        return
    if isinstance(value, ast.PlayerRef):
        if value.role is not None:
            out.append((value.role, None, "player"))
        return
    if isinstance(value, ast.RuleDecl):
        scope = dict(scope)
        for v in value.variables:
            scope[v.key] = Definition("variable", v.key, v.text, v.span, value, value.span)
    elif isinstance(value, ast.AbilityDecl):
        scope = dict(scope)
        for c in value.clauses:
            if c.choice is not None:
                b = c.choice.binds
                scope[b.key] = Definition("variable", b.key, b.text, b.span, value, value.span)
    elif isinstance(value, ast.Count):
        inner = dict(scope)
        inner[value.var.key] = Definition("variable", value.var.key, value.var.text,
                                          value.var.span, value, value.span)
        out.append((value.var, inner[value.var.key], owner))
        if value.within is not None:
            _names(value.within, scope, out, owner)
        _names(value.cond, inner, out, owner)
        return
    for f in fields(value):
        if f.name == "span":
            continue
        _names(getattr(value, f.name), scope, out, owner)


# What the language gives every spec, for hovers (the README's wording, shortened).
BUILTINS = {
    "target": "the player an ability is used on",
    "actor": "the player using the ability",
    "candidate": "a player who may be voted out (in `candidates where …`)",
    "alive": "`alive(SIDE|ROLE|all)`: how many of them are in the game; `p.alive`: whether p is",
    "left": "`left(…)`: how many of them have left", "died": "`died(…)`: how many of them died",
    "first": "`first(set)`: the first member of a set", "size": "`size(set)`: how many members",
    "holds": "`holds(p, ITEM)`: whether p holds the item",
    "item_variant": "`item_variant(p, ITEM)`: the variant of the item p holds",
    "kill": "`kill(p, KIND)` in a rule: p is attacked by that kind; `kill KIND`: the effect",
    "save": "`save(p)`: p is saved", "protect": "`protect(p, KIND)`: p is protected from KIND",
    "block": "`block(p)`: p is blocked; `block`: the effect",
    "inquire": "`inquire(p)`: p is inquired about", "voted": "`voted(p)`: p is voted out",
    "leaves": "`leaves(p)`: p leaves the game in the phase",
    "targeted": "`targeted(p, ABILITY)`: a use of the ability names p",
    "used": "`used(ABILITY)`: the ability was used",
    "idle": "`idle(p, ABILITY)`: phases in a row in which p made no use of it",
    "acted": "`acted(p, ABILITY)`: p made a use of it in the phase being resolved",
    "chosen": "`chosen(p, ABILITY)`: a use of it this phase names p, in effect or not",
    "role": "`p.role`: the player's role", "side": "`p.side`: the player's side",
    "plain": "`p.plain`: whether the role is plain", "left_by": "`p.left_by`: the kind of exit",
    "night": "the night phase", "day": "the day phase", "intro_night": "the opening night",
    "intro_day": "the opening day", "blind_day": "the opening day played blind",
    "vote": "the day's vote: a built-in kind of exit", "kick": "the host's removal: a built-in kind of exit",
    "game": "a limit's period: the whole game", "round": "a limit's period: a day and a night",
    "deaths": "a win check point: a night right after its deaths are decided",
}


def _index(doc: Document, decls: Sequence, found: dict[Span, tuple[str, str]], spec_defs: list[Definition]) -> None:
    own = definitions_of(decls)
    doc.definitions = own
    pool = own + spec_defs
    by_key: dict[str, list[Definition]] = {}
    for d in pool:
        by_key.setdefault(d.key, []).append(d)
    collected: list[tuple[ast.Name, Definition | None, object]] = []
    _names(list(decls), {}, collected)
    seen: set[Span] = set()
    for name, local, owner in collected:
        if name.span is None or name.span in seen:
            continue
        seen.add(name.span)
        if local is not None:
            targets = [local]
        elif name.span in found:
            space, key = found[name.span]
            targets = [d for d in by_key.get(key, []) if d.space == space]
        else:
            targets = [d for d in by_key.get(name.key, []) if d.span == name.span]
            if not targets:
                candidates = [d for d in by_key.get(name.key, []) if d.space not in ("scenario", "query")]
                if owner == "player":
                    candidates = [d for d in candidates if d.space == "role"]
                if len({d.space for d in candidates}) > 1:
                    # Teams are named only where the resolver looks them up (recorded above);
                    # elsewhere a name shared with a side is the side (`alive(mafia)`).
                    candidates = [d for d in candidates if d.space != "team"] or candidates
                targets = candidates
        if not targets and name.key in BUILTINS:
            targets = [Definition("built-in", name.key, name.key, None)]
        if not targets:
            continue
        doc.occurrences.append(Occurrence(name.span, name.key, name.text, targets))


# ------------------------------------------------------------------ the whole analysis

def analyse(text: str, path: str, spec_loader: Callable[[str], Document | None] | None = None) -> Document:
    """Everything the editor shows for one document. `spec_loader(path)` returns the Document
    of the spec a query file is read against (None: look for it next to the file)."""
    is_query = path.endswith(QUERY_SUFFIX)
    doc = Document(path, text, is_query)
    try:
        source = decode_source(path, text.encode("utf-8"))
    except SpecError as exc:
        doc.problems = [_problem(d) for d in exc.diagnostics]
        return doc
    decls, syntax = parse_tolerant(source, "queries" if is_query else "start")
    doc.decls = decls
    doc.problems = [_problem(d, "mafiacheck.syntax") for d in syntax]
    if is_query:
        _analyse_queries(doc, source, decls, syntax, spec_loader)
        return doc
    scenario, errors, found = _resolve(decls, path) if decls else (None, [], {})
    if not syntax:
        doc.problems += [_problem(d) for d in errors]
    doc.scenario = scenario
    _index(doc, decls, found, [])
    if scenario is not None:
        doc.problems += setup_problems(scenario)
    return doc


def setup_problems(scenario: Scenario) -> list[Problem]:
    """The `setup` findings (compositions, prechecks): they need no solver, so they are
    shown as you type."""
    from ..pipeline import ANALYSES

    try:
        found = ANALYSES["setup"](scenario)
    except Exception:  # noqa: BLE001 - an analysis bug must not take the editor down
        return []
    return [finding_problem(f.code, f.severity, f.message, f.span,
                            [(r.message, r.span) for r in f.related], f.rules)
            for f in found]


def finding_problem(code: str, severity: str, message: str, span: Span | None,
                    related: Iterable[tuple[str, Span | None]] = (), rules: Sequence[str] = (),
                    witness: dict | None = None) -> Problem:
    from ..report.text import witness_lines

    text = message + (f" [{', '.join(rules)}]" if rules else "")
    lines = witness_lines(witness)
    if lines:
        text += "\n" + "\n".join(lines)
    return Problem(span, severity, text, code, "mafiacheck", tuple(related))


def _problem(d: Diagnostic, source: str = "mafiacheck") -> Problem:
    message = d.message + (f"\nhelp: {d.hint}" if d.hint else "")
    return Problem(d.span, d.severity, message, None, source)


def spec_for_query(path: str) -> str | None:
    """The spec a query file is read against: a `# spec: PATH` comment on its first lines,
    else NAME.mafia beside it, else NAME.mafia in a `specs/` folder of an enclosing folder
    (examples/whatif/gangster.query reads specs/gangster.mafia)."""
    folder, stem = os.path.dirname(os.path.abspath(path)), os.path.basename(path)[: -len(QUERY_SUFFIX)]
    try:
        with open(path, encoding="utf-8") as handle:
            head = [handle.readline() for _ in range(5)]
    except OSError:
        head = []
    for line in head:
        m = re.match(r"\s*#\s*spec:\s*(\S+)", line)
        if m:
            return os.path.normpath(os.path.join(folder, m.group(1)))
    beside = os.path.join(folder, stem + ".mafia")
    if os.path.isfile(beside):
        return beside
    here = folder
    while True:
        candidate = os.path.join(here, "specs", stem + ".mafia")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def load_spec_document(path: str) -> Document | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return analyse(handle.read(), path)
    except (OSError, UnicodeDecodeError):
        return None


def _analyse_queries(doc: Document, source: SourceFile, queries: list, syntax: list[Diagnostic],
                     spec_loader: Callable[[str], Document | None] | None) -> None:
    spec_path = spec_for_query(doc.path)
    spec_doc = None
    if spec_path:
        spec_doc = spec_loader(spec_path) if spec_loader else load_spec_document(spec_path)
    doc.spec_path, doc.spec = spec_path, spec_doc
    _index(doc, queries, {}, spec_doc.definitions if spec_doc else [])
    if syntax:
        return
    if spec_doc is None or spec_doc.scenario is None:
        why = ("no spec found for this query file: name it after the spec (gangster.query for "
               "gangster.mafia), or write `# spec: PATH` on its first line") if spec_doc is None \
            else f"the spec {spec_path} has errors, so the queries are not checked against it"
        doc.problems.append(Problem(source.span_at(0, 0), "info", why))
        return
    from ..interpreter.bind import Binder

    for q in queries:
        try:
            Binder(spec_doc.scenario, doc.path).bind(q)
        except SpecError as exc:
            doc.problems += [_problem(d) for d in exc.diagnostics]


# ------------------------------------------------------------------ hovers and completions

def _cites(cites: Iterable[ast.RuleRef] | None) -> list[str]:
    return list(dict.fromkeys(r.id for r in cites or ()))


def _source_text(doc_text: str, span: Span | None) -> str:
    if span is None:
        return ""
    lines = doc_text.split("\n")
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1: span.end_column - 1]
    parts = [lines[span.line - 1][span.column - 1:]] + lines[span.line: span.end_line - 1] \
        + [lines[span.end_line - 1][: span.end_column - 1]]
    return "\n".join(parts)


def _md(text: str) -> str:
    """Spec text in Markdown: escaped, so a display name cannot format or link anything."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~])", r"\\\1", text)


def hover_text(doc: Document, target: Definition) -> str:
    """Markdown: what a name is, its display name, `aka`, cited rule ids and what the resolver
    knows of it (side, limits, phases)."""
    node = target.node
    owner_text = doc.text
    if doc.is_query and doc.spec is not None and target not in doc.definitions:
        owner_text = doc.spec.text
        scenario = doc.spec.scenario
    else:
        scenario = doc.scenario
    label = getattr(node, "label", None) if target.space not in ("option", "variant", "counter") else None
    head = f"**{target.space}** `{target.text}`"
    if label:
        head += f" — {_md(label)}"
    lines = [head]
    if target.space == "built-in":
        lines.append(BUILTINS.get(target.key, ""))
    elif target.space == "variable":
        lines.append("a variable bound here")
    elif target.space == "role" and isinstance(node, ast.RoleDecl):
        akas = [s for c in node.clauses if c.keyword == "aka" for s in c.strings]
        if akas:
            lines.append("aka " + ", ".join(_md(a) for a in akas))
        role = scenario.role_by_key.get(target.key) if scenario else None
        if scenario is not None and role is not None:
            if role.side:
                lines.append(f"side: {_side_name(scenario, role.side)}")
            elif role.side_choices:
                lines.append("side: chosen from " + ", ".join(_side_name(scenario, s) for s in role.side_choices))
            if role.counts_as is not None:
                lines.append("counts as: " + (_side_name(scenario, role.counts_as) if role.counts_as else "none"))
            if role.plain:
                lines.append("plain")
            if role.max is not None:
                lines.append(f"at most {role.max}")
            uses = [a.key for a in scenario.abilities if a.actor is not None and (
                (a.actor.name is not None and a.actor.name.key == target.key)
                or any(n.key == target.key for n in a.actor.roles))]
            if uses:
                lines.append("abilities: " + ", ".join(f"`{u}`" for u in uses))
            seats = [f"{c.title} players: {n}" for c in scenario.compositions
                     for r, n in c.entries if r == target.key]
            if seats:
                lines.append("dealt in: " + "; ".join(seats))
    elif target.space == "ability" and isinstance(node, ast.AbilityDecl):
        ability = scenario.ability_by_key.get(target.key) if scenario else None
        for c in node.clauses:
            if c.keyword in ("by", "for_team", "at", "on", "limit", "target", "targets", "when"):
                lines.append("- " + _md(_source_text(owner_text, c.span)))
        if ability is not None and ability.optional:
            lines.append("optional")
    elif target.space == "side" and isinstance(node, ast.SideDecl):
        lines.append(f"kind: {node.kind}")
        if scenario:
            roles = [r.key for r in scenario.roles if r.side == target.key]
            if roles:
                lines.append("roles: " + ", ".join(f"`{r}`" for r in roles))
    elif target.space in ("rule", "setting", "team", "item", "memory", "kind", "assumption") and node is not None:
        body = _source_text(owner_text, getattr(node, "span", None))
        if body:
            shown = body if len(body) < 600 else body[:600] + "…"
            lines.append("```mafia\n" + shown.replace("```", "'''") + "\n```")
    elif target.space in ("option", "variant", "counter") and isinstance(
            node, (ast.SettingDecl, ast.ItemDecl, ast.RoleDecl)):  # what declares them (definitions_of)
        lines.append(f"of {_DECL_SPACES.get(type(node), '')} `{node.name.text}`")
    cites = _all_cites(node) if node is not None and target.space != "variable" else []
    if cites:
        lines.append("cites " + ", ".join(cites))
    return "\n\n".join(lines)


def _side_name(scenario: Scenario, key: str) -> str:
    side = scenario.side_by_key.get(key)
    return f"`{key}`" + (f" ({_md(side.label)})" if side and side.label else "")


def _all_cites(node: object) -> list[str]:
    out: list[str] = []

    def walk(v: object) -> None:
        if isinstance(v, ast.RuleRef):
            out.append(v.id)
        elif isinstance(v, (tuple, list)):
            for x in v:
                walk(x)
        elif is_dataclass(v) and not isinstance(v, type):
            for f in fields(v):
                walk(getattr(v, f.name))
    walk(node)
    return list(dict.fromkeys(out))


@lru_cache(maxsize=1)
def keywords() -> tuple[str, ...]:
    """The grammar's keywords, for completion."""
    words = set(re.findall(r'"([a-z_]+)"', grammar_text()))
    return tuple(sorted(words))


SYMBOL_SPACES = ("scenario", "side", "role", "team", "ability", "rule", "setting", "assumption",
                 "item", "kind", "memory", "query")


def symbols(doc: Document) -> list[tuple[str, str, str | None, Span | None, Span | None]]:
    """The outline: (name, space, display label, whole declaration, name) per declaration,
    and a line for the unnamed ones (composition, phases, day, wins …)."""
    out = []
    for d in doc.decls:
        space = _DECL_SPACES.get(type(d))
        if space is not None:
            out.append((d.name.text, space, getattr(d, "label", None), d.span, d.name.span))
        elif isinstance(d, ast.CompositionDecl):
            title = f"composition {d.players}" + (f" {d.name.text}" if d.name else "")
            out.append((title, "composition", d.label, d.span, d.players_span or d.span))
        elif isinstance(d, ast.WinDecl):
            out.append((f"win {d.side.text}", "win", d.label, d.span, d.side.span))
        elif isinstance(d, (ast.PhasesDecl, ast.DayDecl, ast.WakeDecl, ast.ResolveDecl,
                            ast.PriorityDecl, ast.PrecheckDecl, ast.AcknowledgeDecl)):
            word = {ast.PhasesDecl: "phases", ast.DayDecl: "day", ast.WakeDecl: "wake",
                    ast.ResolveDecl: "resolve", ast.PriorityDecl: "priority",
                    ast.PrecheckDecl: "precheck", ast.AcknowledgeDecl: "acknowledge"}[type(d)]
            out.append((word, word, getattr(d, "label", None), d.span, d.span))
    return out


def completions(doc: Document) -> list[tuple[str, str, str | None]]:
    """(label, kind, detail): every declared name (the spec's, in a query file) and keyword."""
    seen, out = set(), []
    defs = list(doc.definitions) + (doc.spec.definitions if doc.spec else [])
    for d in defs:
        if d.space in ("scenario",) or (d.space, d.key) in seen:
            continue
        seen.add((d.space, d.key))
        label = getattr(d.node, "label", None) if d.space not in ("option", "variant", "counter") else None
        out.append((d.text, d.space, label))
    for w in keywords():
        out.append((w, "keyword", None))
    return out


# ------------------------------------------------------------------ quick fixes

ACK_REASON = "why the rulebook leaves this open"


def _inside(outer: Span | None, inner: Span | None) -> bool:
    return (outer is not None and inner is not None
            and (outer.line, outer.column) <= (inner.line, inner.column)
            and (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column))


def declaration_at(doc: Document, span: Span | None) -> str | None:
    """The name an `acknowledge … on` uses for the declaration holding a place."""
    for d in doc.decls:
        if not _inside(d.span, span):
            continue
        if isinstance(d, ast.DayDecl):
            return "day"
        if type(d) in _DECL_SPACES and not isinstance(d, ast.ScenarioDecl):
            return d.name.text
    return None


def quick_fixes(doc: Document, code: str | None, span: Span | None,
                related: Sequence[Span | None]) -> list[tuple[str, str]]:
    """(title, line to add at the end of the spec) for a finding with an obvious fix: an
    order for two unordered steps (MC207), or an acknowledgement naming its declarations."""
    if doc.is_query or not code or not code.startswith("MC2") or code == "MC200":
        return []
    names = list(dict.fromkeys(n for n in (declaration_at(doc, s) for s in [span, *related]) if n))
    fixes = []
    if code == "MC207" and len(names) == 2:
        a, b = names
        fixes += [(f"Add `resolve {a} before {b}`", f"resolve {a} before {b}"),
                  (f"Add `resolve {b} before {a}`", f"resolve {b} before {a}")]
    if names:
        fixes.append((f"Acknowledge {code} on {', '.join(names)}",
                      f'acknowledge {code} on {", ".join(names)} "{ACK_REASON}"'))
    return fixes


# ------------------------------------------------------------------ rule ids

def cites_in(doc: Document) -> list[tuple[ast.RuleRef, str]]:
    """Every rule id cited, with the declaration citing it ("rule invulnerable_resists")."""
    out = []
    for d in doc.decls:
        space = _DECL_SPACES.get(type(d))
        owner = f"{space} {d.name.text}" if space else type(d).__name__.removesuffix("Decl").lower()
        stack = [d]
        while stack:
            v = stack.pop()
            if isinstance(v, ast.RuleRef):
                out.append((v, owner))
            elif isinstance(v, (tuple, list)):
                stack.extend(reversed(v))
            elif is_dataclass(v) and not isinstance(v, type):
                stack.extend(reversed([getattr(v, f.name) for f in fields(v)]))
    return out


def cite_at(doc: Document, line: int, column: int) -> ast.RuleRef | None:
    for ref, _ in cites_in(doc):
        s = ref.span
        if s and (s.line, s.column) <= (line, column) <= (s.end_line, s.end_column):
            return ref
    return None


def rules_folder(path: str) -> str | None:
    """The rule digests (`shared/rules/`) of the project holding a spec: in an enclosing folder
    or beside one, as the repository sits beside shared/."""
    here = os.path.dirname(os.path.abspath(path))
    while True:
        for candidate in (os.path.join(here, "rules"), os.path.join(here, "shared", "rules")):
            if os.path.isdir(candidate) and any(n.endswith(".md") for n in os.listdir(candidate)):
                return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def rule_digest(doc: Document, rule_id: str) -> tuple[str, int, str] | None:
    """(digest file, 1-based line, the line's text) where the rulebook's digest states a rule."""
    folder = rules_folder(doc.path)
    if folder is None:
        return None
    source = None
    for d in doc.decls:
        if isinstance(d, ast.ScenarioDecl):
            source = next((c.strings[0] for c in d.clauses if c.keyword == "source" and c.strings), None)
    names = sorted(os.listdir(folder))
    if source:
        stem = os.path.splitext(os.path.basename(source))[0]
        names = [n for n in names if n.startswith(stem)] + [n for n in names if not n.startswith(stem)]
    needle = f"**{rule_id}**"
    for name in names:
        if not name.endswith(".md"):
            continue
        path = os.path.join(folder, name)
        try:
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    if needle in line:
                        return path, number, line.strip()
        except (OSError, UnicodeDecodeError):
            continue
    return None


def cite_hover(doc: Document, rule_id: str) -> str:
    lines = [f"**rule id** `{rule_id}`"]
    found = rule_digest(doc, rule_id)
    if found:
        lines.append(found[2])
    else:
        lines.append("(no rule digest found beside the project)")
    owners = list(dict.fromkeys(owner for ref, owner in cites_in(doc) if ref.id == rule_id))
    if owners:
        lines.append("cited by: " + ", ".join(f"`{o}`" for o in owners))
    return "\n\n".join(lines)
