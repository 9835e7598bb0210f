"""`mafiacheck lsp`: the language server, over stdio, on pygls and lsprotocol.

As you type: syntax errors (with recovery), resolver errors and the `setup` findings, from
`document.analyse` (tens of milliseconds on the bundled specs). On save: the solver analyses,
run as `mafiacheck check --format json` in a child process, in the background, with
work-done progress; a change to the file, another save or the progress's cancel button
kills the run. Their findings join the diagnostics, with related places and the witness.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from types import FrameType
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..children import OWN_GROUP, child_env, kill_group
from ..errors import SpecError
from . import document as D
from .positions import Lines

if TYPE_CHECKING:
    from .. import ast
    from ..source import Span

SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "info": types.DiagnosticSeverity.Information}
SYMBOL_KIND = {"scenario": types.SymbolKind.Namespace, "side": types.SymbolKind.Enum,
               "role": types.SymbolKind.Class, "team": types.SymbolKind.Struct,
               "ability": types.SymbolKind.Method, "rule": types.SymbolKind.Function,
               "setting": types.SymbolKind.Constant, "assumption": types.SymbolKind.Boolean,
               "item": types.SymbolKind.Object, "kind": types.SymbolKind.EnumMember,
               "memory": types.SymbolKind.Variable, "query": types.SymbolKind.Event,
               "composition": types.SymbolKind.Array, "win": types.SymbolKind.Event}
COMPLETION_KIND = {"role": types.CompletionItemKind.Class, "side": types.CompletionItemKind.Enum,
                   "team": types.CompletionItemKind.Struct, "ability": types.CompletionItemKind.Method,
                   "rule": types.CompletionItemKind.Function, "setting": types.CompletionItemKind.Constant,
                   "keyword": types.CompletionItemKind.Keyword, "kind": types.CompletionItemKind.EnumMember,
                   "item": types.CompletionItemKind.Value, "memory": types.CompletionItemKind.Variable,
                   "option": types.CompletionItemKind.EnumMember, "variant": types.CompletionItemKind.EnumMember,
                   "counter": types.CompletionItemKind.Field, "assumption": types.CompletionItemKind.Constant,
                   "query": types.CompletionItemKind.Event}


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return uri


def path_to_uri(path: str) -> str:
    from pathlib import Path
    return Path(os.path.abspath(path)).as_uri()


class MafiaServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("mafiacheck", __version__)
        self.docs: dict[str, D.Document] = {}
        self.solver: dict[str, list[D.Problem]] = {}  # uri -> solver-found Problems from the last save
        self.runs: dict[str, "asyncio.subprocess.Process"] = {}
        self.tokens: dict[str, str] = {}  # progress token -> uri
        self.generation: dict[str, int] = {}  # uri -> bumped by every change and cancel
        self.pending: set[str] = set()  # documents changed and not analysed yet
        self.run_count = 0

    # ---------------------------------------------------------- documents

    def refresh(self, uri: str) -> D.Document:
        self.pending.discard(uri)
        text = self.workspace.get_text_document(uri).source
        doc = D.analyse(text, uri_to_path(uri), self._spec_doc)
        self.docs[uri] = doc
        self.publish(uri)
        if not doc.is_query:
            # Open query files read this spec: their names and bindings follow it.
            for other, d in list(self.docs.items()):
                if d.is_query and d.spec_path and path_to_uri(d.spec_path) == uri:
                    self.refresh(other)
        return doc

    def schedule(self, uri: str) -> None:
        """Analyse soon: changes that arrive together (fast typing) are analysed once, on the
        latest text, instead of one stale version after another."""
        if uri in self.pending:
            return
        self.pending.add(uri)

        async def later() -> None:
            await asyncio.sleep(0.005)
            if uri in self.pending and uri in self.workspace.text_documents:
                self.refresh(uri)
        asyncio.get_running_loop().create_task(later())

    def _spec_doc(self, path: str) -> D.Document | None:
        uri = path_to_uri(path)
        if uri in self.docs and not self.docs[uri].is_query:
            return self.docs[uri]
        return D.load_spec_document(path)

    def publish(self, uri: str) -> None:
        doc = self.docs.get(uri)
        if doc is None:
            return
        lines = self_lines(self, doc.text)
        problems = list(doc.problems)
        if self.solver.get(uri):
            problems = [p for p in problems if not (p.code or "").startswith("MC1")] + self.solver[uri]
        diagnostics = [self._diagnostic(uri, lines, p) for p in problems]
        version = self.workspace.get_text_document(uri).version
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))

    def _diagnostic(self, uri: str, lines: Lines, p: D.Problem) -> types.Diagnostic:
        related = [types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=_range(lines, span)), message=message)
            for message, span in p.related if span is not None]
        return types.Diagnostic(range=_range(lines, p.span), message=p.message,
                                severity=SEVERITY.get(p.severity, types.DiagnosticSeverity.Error),
                                code=p.code, source=p.source, related_information=related or None)

    # ---------------------------------------------------------- the solver, on save

    async def run_solver(self, uri: str) -> None:
        self.cancel_solver(uri)
        generation = self.generation.get(uri, 0)
        path = uri_to_path(uri)
        if not os.path.isfile(path) or path.endswith(D.QUERY_SUFFIX):
            return
        doc = self.docs.get(uri)
        if doc is None or doc.scenario is None:
            return  # nothing to analyse until the spec resolves
        self.run_count += 1
        token = f"mafiacheck-check-{self.run_count}"
        progress = bool(self.client_capabilities.window and self.client_capabilities.window.work_done_progress)
        if progress:
            try:
                await self.work_done_progress.create_async(token)
            except Exception:  # noqa: BLE001 - a client that refuses progress still gets results
                progress = False
        if progress:
            self.tokens[token] = uri
            self.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                title="mafiacheck check", message=os.path.basename(path), cancellable=True))
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "mafiacheck", "check", path, "--format", "json",
            *os.environ.get("MAFIACHECK_LSP_CHECK_ARGS", "").split(),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            cwd=os.path.dirname(path) or None, start_new_session=OWN_GROUP, env=child_env())
        self.runs[uri] = proc
        if self.generation.get(uri, 0) != generation:
            self.cancel_solver(uri)  # changed while the run was starting
        out, _ = await proc.communicate()
        finished = self.generation.get(uri, 0) == generation
        if self.runs.get(uri) is proc:
            del self.runs[uri]
        if progress:
            self.tokens.pop(token, None)
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(
                message="done" if finished and proc.returncode in (0, 1, 3) else "cancelled"))
        if not finished or proc.returncode not in (0, 1, 3):
            return
        try:
            report = json.loads(out.decode("utf-8"))
        except ValueError:
            return
        problems: list[D.Problem] = []
        for f in (report.get("files") or [{}])[0].get("findings", []):
            span = _span(path, f.get("span"))
            related = [(r["message"], _span(path, r.get("span"))) for r in f.get("related", [])]
            p = D.finding_problem(f["code"], f["severity"], f["message"], span, related,
                                  f.get("rules", ()), f.get("witness"))
            if f.get("suppression"):
                p.severity = "info"
                p.message += f"\n(acknowledged: {f['suppression'].get('reason')})"
            problems.append(p)
        self.solver[uri] = problems
        self.publish(uri)

    def cancel_solver(self, uri: str) -> bool:
        """Stop the file's run: the `check` and its worker processes, which hold its output
        open (so the run ends) and would otherwise go on solving. Its group is killed even
        when the `check` has already ended, for the workers it may have left; a group's id is
        not reused while one of its processes lives."""
        self.generation[uri] = self.generation.get(uri, 0) + 1
        proc = self.runs.pop(uri, None)
        if proc is None:
            return False
        running = proc.returncode is None
        kill_group(proc.pid)
        return running

    def stop_all(self) -> None:
        """No run outlives the server."""
        for uri in list(self.runs):
            self.cancel_solver(uri)


def _span(path: str, data: dict | None) -> Span | None:
    from ..source import Span
    if not data:
        return None
    return Span(path, data["line"], data["column"], data["end_line"], data["end_column"])


def _range(lines: Lines, span: Span | None) -> types.Range:
    (l1, c1), (l2, c2) = lines.range(span)
    return types.Range(start=types.Position(line=l1, character=c1),
                       end=types.Position(line=l2, character=c2))


def self_lines(ls: MafiaServer, text: str) -> Lines:
    """The document's lines, in the position encoding agreed with the client."""
    encoding = getattr(ls.workspace, "position_encoding", None) or "utf-16"
    return Lines(text, str(getattr(encoding, "value", encoding)))


def _location(ls: MafiaServer, doc: D.Document, d: D.Definition) -> types.Location | None:
    if d.span is None:
        return None
    path = d.span.path
    if path == doc.path:
        return types.Location(uri=path_to_uri(path) if not path.startswith("untitled") else path,
                              range=_range(self_lines(ls, doc.text), d.span))
    other = doc.spec if doc.spec is not None and doc.spec.path == path else None
    text = other.text if other else _read(path)
    return types.Location(uri=path_to_uri(path), range=_range(self_lines(ls, text), d.span))


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return ""


server = MafiaServer()


def _doc(ls: MafiaServer, uri: str) -> D.Document:
    if uri in ls.pending or uri not in ls.docs:
        return ls.refresh(uri)  # a request right after a change sees the change
    return ls.docs[uri]


def _under(ls: MafiaServer, uri: str, position: types.Position) -> tuple[D.Document, D.Occurrence | None]:
    doc = _doc(ls, uri)
    line, column = self_lines(ls, doc.text).ours(position.line, position.character)
    return doc, doc.at(line, column)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: MafiaServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.refresh(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: MafiaServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.cancel_solver(uri)  # its findings are about a text that is gone
    ls.solver.pop(uri, None)
    ls.schedule(uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: MafiaServer, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.refresh(uri)
    await ls.run_solver(uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: MafiaServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.cancel_solver(uri)
    ls.docs.pop(uri, None)
    ls.solver.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.SHUTDOWN)
def shutdown(ls: MafiaServer, params: None = None) -> None:
    ls.stop_all()  # no solver run outlives the editor


@server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
def progress_cancel(ls: MafiaServer, params: types.WorkDoneProgressCancelParams) -> None:
    uri = ls.tokens.get(str(params.token))
    if uri is not None:
        ls.cancel_solver(uri)


def _cite_under(ls: MafiaServer, uri: str, position: types.Position) -> tuple[D.Document, ast.RuleRef | None]:
    doc = _doc(ls, uri)
    line, column = self_lines(ls, doc.text).ours(position.line, position.character)
    return doc, D.cite_at(doc, line, column)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: MafiaServer, params: types.HoverParams) -> types.Hover | None:
    doc, occ = _under(ls, params.text_document.uri, params.position)
    if occ is None:
        doc, ref = _cite_under(ls, params.text_document.uri, params.position)
        if ref is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                        value=D.cite_hover(doc, ref.id)),
                           range=_range(self_lines(ls, doc.text), ref.span))
    text = "\n\n---\n\n".join(D.hover_text(doc, t) for t in occ.targets)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                       range=_range(self_lines(ls, doc.text), occ.span))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: MafiaServer, params: types.DefinitionParams) -> list[types.Location] | None:
    doc, occ = _under(ls, params.text_document.uri, params.position)
    if occ is None:
        # A rule id leads to the rulebook digest's line that states the rule.
        doc, ref = _cite_under(ls, params.text_document.uri, params.position)
        found = D.rule_digest(doc, ref.id) if ref is not None else None
        if found is None:
            return None
        path, number, _ = found
        at = types.Position(line=number - 1, character=0)
        return [types.Location(uri=path_to_uri(path), range=types.Range(start=at, end=at))]
    return [loc for loc in (_location(ls, doc, t) for t in occ.targets) if loc] or None


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: MafiaServer, params: types.ReferenceParams) -> list[types.Location] | None:
    doc, occ = _under(ls, params.text_document.uri, params.position)
    if occ is None:
        return None
    out: list[types.Location] = []
    for t in occ.targets:
        refs = doc.references(t)
        if not params.context.include_declaration:
            refs = [r for r in refs if r.span != t.span]
        lines = self_lines(ls, doc.text)
        out += [types.Location(uri=params.text_document.uri, range=_range(lines, r.span)) for r in refs]
    return out


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(ls: MafiaServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    doc = _doc(ls, params.text_document.uri)
    lines = self_lines(ls, doc.text)
    return [types.DocumentSymbol(name=name, detail=label or space,
                                 kind=SYMBOL_KIND.get(space, types.SymbolKind.Key),
                                 range=_range(lines, whole), selection_range=_range(lines, at))
            for name, space, label, whole, at in D.symbols(doc) if whole is not None]


@server.feature(types.TEXT_DOCUMENT_COMPLETION,
                types.CompletionOptions(trigger_characters=["@", "."]))
def completion(ls: MafiaServer, params: types.CompletionParams) -> types.CompletionList:
    doc = _doc(ls, params.text_document.uri)
    items = [types.CompletionItem(label=label, kind=COMPLETION_KIND.get(kind),
                                  detail=f"{kind}" + (f" — {detail}" if detail else ""))
             for label, kind, detail in D.completions(doc)]
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_actions(ls: MafiaServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    doc = _doc(ls, uri)
    lines = self_lines(ls, doc.text)

    def span(r: types.Range) -> Span:
        from ..source import Span
        (l1, c1), (l2, c2) = lines.ours(r.start.line, r.start.character), lines.ours(r.end.line, r.end.character)
        return Span(doc.path, l1, c1, l2, c2)

    end_line, end_char = lines.end()
    prefix = "" if doc.text.endswith("\n") or not doc.text else "\n"
    at = types.Position(line=end_line, character=end_char)
    out: list[types.CodeAction] = []
    for diag in params.context.diagnostics:
        related = [span(r.location.range) for r in diag.related_information or ()
                   if r.location.uri == uri]
        code = str(diag.code) if diag.code is not None else None
        for title, line in D.quick_fixes(doc, code, span(diag.range), related):
            edit = types.TextEdit(range=types.Range(start=at, end=at), new_text=f"{prefix}{line}\n")
            out.append(types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix,
                                        diagnostics=[diag],
                                        edit=types.WorkspaceEdit(changes={uri: [edit]})))
    return out


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: MafiaServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
    from ..fmt import FormatInvariantError, format_text

    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    try:
        formatted = format_text(text, uri_to_path(uri))
    except (SpecError, FormatInvariantError, RecursionError):
        return None  # the diagnostics already say why; a file that does not parse is left alone
    if formatted == text:
        return []
    end_line, end_char = self_lines(ls, text).end()
    return [types.TextEdit(range=types.Range(start=types.Position(line=0, character=0),
                                             end=types.Position(line=end_line, character=end_char)),
                           new_text=formatted)]


def main() -> int:
    from ..parser import lark_parser

    lark_parser()  # build the parser before the first keystroke, not on it

    def terminated(signum: int, frame: FrameType | None) -> None:
        server.stop_all()  # an editor that stops the server without `shutdown`
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, terminated)
    try:
        server.start_io()
    finally:
        server.stop_all()  # `exit` without `shutdown`, or the editor's end of the pipe closed
    return 0
