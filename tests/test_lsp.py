"""`mafiacheck lsp`, driven over stdio with real LSP messages, as an editor drives it."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from conftest import ROOT
from lsp_client import LspClient
from processes import end, survivors, wait_for

from mafiacheck.lsp.positions import from_utf16, to_utf16

SPECS = sorted((ROOT / "specs").glob("*.mafia"))
LATENCY_LIMIT = 0.5  # seconds from a change to its syntax diagnostics (issue 16)


@pytest.fixture
def client(tmp_path):
    c = LspClient(cwd=str(tmp_path))
    c.initialize(tmp_path.as_uri())
    yield c
    c.close()


def _open(client, path: Path, text: str | None = None, language="mafia"):
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": language, "version": 1,
        "text": path.read_text(encoding="utf-8") if text is None else text}})
    return uri, client.diagnostics(uri, 1)


def _change(client, uri, version, text):
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [{"text": text}]})


def _pos(text: str, needle: str, nth: int = 0, offset: int = 0) -> dict:
    """The LSP position (UTF-16) of the nth occurrence of needle, plus offset characters."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    at += offset
    line = text.count("\n", 0, at)
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return {"line": line, "character": to_utf16(text.split("\n")[line], column)}


def test_utf16_columns():
    line = 'role nato "🎭 ناتو" { side mafia }'
    col = line.index("mafia") + 1  # code points, 1-based
    assert to_utf16(line, col) == col  # 0-based UTF-16 = 1-based code points + 1 (the emoji) - 1
    assert from_utf16(line, to_utf16(line, col)) == col
    assert to_utf16("ناتو x", 6) == 5  # Persian letters are one unit each


def test_utf8_positions_when_the_client_asks_for_them(tmp_path):
    c = LspClient(cwd=str(tmp_path))
    try:
        caps = c.initialize(tmp_path.as_uri(), encodings=["utf-8"])["capabilities"]
        assert caps["positionEncoding"] == "utf-8"
        text = (ROOT / "specs" / "gangster.mafia").read_text(encoding="utf-8")
        uri, _ = _open(c, tmp_path / "gangster.mafia", text)
        line_text = 'role nato "ناتو" { side mafia }'
        line = text.split("\n").index(line_text)
        byte = len(line_text[: line_text.index("mafia")].encode("utf-8"))
        hover = c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                 "position": {"line": line, "character": byte + 2}})
        assert "**side** `mafia`" in hover["contents"]["value"]
        assert hover["range"] == {"start": {"line": line, "character": byte},
                                  "end": {"line": line, "character": byte + 5}}
    finally:
        c.close()


def test_initialize_advertises_the_features(tmp_path):
    c = LspClient(cwd=str(tmp_path))
    try:
        caps = c.initialize(tmp_path.as_uri())["capabilities"]
        for key in ("hoverProvider", "definitionProvider", "referencesProvider",
                    "documentSymbolProvider", "completionProvider", "documentFormattingProvider"):
            assert caps.get(key), key
    finally:
        c.close()


def test_clean_spec_then_a_change_with_two_syntax_errors(client, tmp_path):
    spec = tmp_path / "gangster.mafia"
    shutil.copy(ROOT / "specs" / "gangster.mafia", spec)
    text = spec.read_text(encoding="utf-8")
    uri, first = _open(client, spec)
    assert first["diagnostics"] == []
    # A missing brace in one declaration and a misspelt keyword far below it: both reported.
    broken = text.replace('role nato "ناتو" { side mafia }', 'role nato "ناتو" { side mafia', 1)
    broken = broken.replace("composition 10", "compostion 10", 1)
    _change(client, uri, 2, broken)
    got = client.diagnostics(uri, 2)["diagnostics"]
    lines = sorted(d["range"]["start"]["line"] for d in got)
    assert len(got) == 2, got
    nato_line = text.split("\n").index('role nato "ناتو" { side mafia }')
    comp_line = next(i for i, l in enumerate(text.split("\n")) if l.startswith("composition 10"))
    assert lines[1] == comp_line and nato_line <= lines[0] < comp_line
    assert all(d["severity"] == 1 for d in got)
    # Fixed again: the diagnostics clear.
    _change(client, uri, 3, text)
    assert client.diagnostics(uri, 3)["diagnostics"] == []


def test_resolver_errors_as_you_type(client, tmp_path):
    spec = tmp_path / "gangster.mafia"
    text = (ROOT / "specs" / "gangster.mafia").read_text(encoding="utf-8")
    uri, _ = _open(client, spec, text)
    _change(client, uri, 2, text.replace('role nato "ناتو" { side mafia }',
                                         'role nato "ناتو" { side mafiaa }', 1))
    got = client.diagnostics(uri, 2)["diagnostics"]
    assert any("unknown side 'mafiaa'" in d["message"] and "did you mean 'mafia'" in d["message"]
               for d in got), got


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_syntax_diagnostics_within_half_a_second(client, spec, tmp_path):
    text = spec.read_text(encoding="utf-8")
    uri, _ = _open(client, tmp_path / spec.name, text)
    worst = 0.0
    for version, edit in enumerate([text.replace("{", "", 1), text, text + "\nrole {\n"], start=2):
        started = time.monotonic()
        _change(client, uri, version, edit)
        got = client.diagnostics(uri, version)
        worst = max(worst, time.monotonic() - started)
        assert bool(got["diagnostics"]) == (edit != text) or edit == text
    print(f"{spec.stem}: worst change-to-diagnostics latency {worst * 1000:.0f} ms")
    assert worst < LATENCY_LIMIT


def test_hover_definition_references_with_astral_text(client, tmp_path):
    # An emoji before a name on its line: UTF-16 columns differ from code points there.
    text = (ROOT / "specs" / "gangster.mafia").read_text(encoding="utf-8").replace(
        'role nato "ناتو" { side mafia }', 'role nato "🎭 ناتو" { side mafia }', 1)
    spec = tmp_path / "gangster.mafia"
    uri, diags = _open(client, spec, text)
    assert diags["diagnostics"] == []
    at = _pos(text, 'role nato "🎭 ناتو" { side mafia }', offset=len('role nato "🎭 ناتو" { side '))
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
    value = hover["contents"]["value"]
    assert "**side** `mafia`" in value and "مافیا" in value and "kind: dark" in value
    assert hover["range"]["start"] == at
    defs = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})
    side_line = text.split("\n").index('side mafia "مافیا" dark')
    assert defs == [{"uri": uri, "range": {"start": {"line": side_line, "character": 5},
                                           "end": {"line": side_line, "character": 10}}}]
    # A role: display name, aka, its side, its abilities and cited rule ids.
    at = _pos(text, "godfather", nth=1)
    value = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})["contents"]["value"]
    assert "رئیس مافیا" in value and "aka گادفادر" in value and "side: `mafia`" in value
    assert "GA-R09" in value
    refs = client.request("textDocument/references", {"textDocument": {"uri": uri}, "position": at,
                                                      "context": {"includeDeclaration": True}})
    lines = text.split("\n")
    assert len(refs) >= 4
    for r in refs:
        line = lines[r["range"]["start"]["line"]]
        start, end = r["range"]["start"]["character"], r["range"]["end"]["character"]
        assert line[start:end] == "godfather"  # no astral text on those lines: units = chars
    # An ability: its clauses (who, when, limits) and its rule ids.
    value = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": _pos(text, "ability shot", offset=8)})["contents"]["value"]
    assert "**ability** `shot`" in value and "at night" in value and "cites GA-" in value
    # A rule variable: its definition is its binding.
    rule = text.index("rule invulnerable_resists for p:")
    at = _pos(text[rule:], "p.role")
    at["line"] += text.count("\n", 0, rule)
    defs = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})
    assert defs[0]["range"]["start"]["line"] == text.count("\n", 0, rule)


def test_symbols_completion_formatting(client, tmp_path):
    text = (ROOT / "specs" / "gangster.mafia").read_text(encoding="utf-8")
    spec = tmp_path / "gangster.mafia"
    uri, _ = _open(client, spec, text)
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    names = {(s["name"], s["detail"]) for s in symbols}
    assert ("godfather", "رئیس مافیا") in names and ("composition 10", "ترکیب ثابت") in names
    items = client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                       "position": {"line": 0, "character": 0}})["items"]
    labels = {i["label"] for i in items}
    assert {"godfather", "shot", "mafia", "kill", "overrides"} <= labels
    # Formatting: a messy line comes back in the canonical layout, as `fmt` writes it.
    messy = text.replace('role nato "ناتو" { side mafia }', 'role   nato "ناتو" {   side  mafia }', 1)
    _change(client, uri, 2, messy)
    client.diagnostics(uri, 2)
    edits = client.request("textDocument/formatting", {"textDocument": {"uri": uri},
                                                       "options": {"tabSize": 2, "insertSpaces": True}})
    assert len(edits) == 1 and edits[0]["newText"] == text
    _change(client, uri, 3, text)
    client.diagnostics(uri, 3)
    assert client.request("textDocument/formatting", {"textDocument": {"uri": uri},
                                                      "options": {"tabSize": 2, "insertSpaces": True}}) == []


def test_query_file_reads_its_spec(client, tmp_path):
    shutil.copy(ROOT / "specs" / "gangster.mafia", tmp_path / "gangster.mafia")
    query = tmp_path / "gangster.query"
    text = 'query q "a night" {\n  night 1 { shot on invulnerable  save on doctr }\n}\n'
    uri, diags = _open(client, query, text, language="mafia-query")
    assert any("unknown role 'doctr'" in d["message"] for d in diags["diagnostics"]), diags
    at = _pos(text, "invulnerable")
    value = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})["contents"]["value"]
    assert "**role** `invulnerable`" in value and "رویین‌تن" in value
    defs = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})
    assert defs[0]["uri"] == (tmp_path / "gangster.mafia").as_uri()


def _broken_example(tmp_path, example: str, name: str, select: str):
    """A broken example copied as NAME.mafia, its text, and a server whose on-save check
    runs only `select` (the spec path, its text, the client)."""
    spec = tmp_path / f"{name}.mafia"
    shutil.copy(ROOT / "examples" / "broken" / f"{example}.mafia", spec)
    client = LspClient(cwd=str(tmp_path), env={"MAFIACHECK_LSP_CHECK_ARGS": f"--select {select}"})
    return spec, spec.read_text(encoding="utf-8"), client


def test_solver_findings_on_save_with_progress_and_cancel(tmp_path):
    spec, text, c = _broken_example(tmp_path, "tie_without_tie_rule", "tie", "undefined")
    try:
        c.initialize(tmp_path.as_uri())
        uri, first = _open(c, spec, text)
        assert not any(d.get("code") == "MC203" for d in first["diagnostics"])
        c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        begin = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "begin")
        assert begin["params"]["value"]["cancellable"] is True
        got = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                     and any(d.get("code") == "MC203" for d in m["params"]["diagnostics"]), timeout=120)
        finding = next(d for d in got["params"]["diagnostics"] if d["code"] == "MC203")
        assert "witness" in finding["message"]  # the game that shows it, in the message
        end = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "end")
        assert end["params"]["value"]["message"] == "done"
        # Save again and change the file at once: the run is killed, its findings never shown.
        c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        begin = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "begin")
        _change(c, uri, 2, text + "\n")
        end = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "end"
                     and m["params"]["token"] == begin["params"]["token"], timeout=60)
        assert end["params"]["value"]["message"] == "cancelled"
        after = c.diagnostics(uri, 2)
        assert not any(d.get("code") == "MC203" for d in after["diagnostics"])
        # The cancel button of the progress kills the run too.
        c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        begin = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "begin")
        c.notify("window/workDoneProgress/cancel", {"token": begin["params"]["token"]})
        end = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "end"
                     and m["params"]["token"] == begin["params"]["token"], timeout=60)
        assert end["params"]["value"]["message"] == "cancelled"
    finally:
        c.close()


def test_quick_fixes_for_an_unordered_pair(tmp_path):
    spec, text, c = _broken_example(tmp_path, "hostage_and_shield_unordered", "unordered", "ambiguous-order")
    try:
        c.initialize(tmp_path.as_uri(), progress=False)
        uri, _ = _open(c, spec, text)
        c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        got = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                     and any(d.get("code") == "MC207" for d in m["params"]["diagnostics"]), timeout=120)
        diag = next(d for d in got["params"]["diagnostics"] if d["code"] == "MC207")
        assert diag["relatedInformation"][0]["message"] == "Shield"
        actions = c.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": diag["range"],
            "context": {"diagnostics": [diag]}})
        titles = [a["title"] for a in actions]
        assert titles == ["Add `resolve hostage before shield`", "Add `resolve shield before hostage`",
                          "Acknowledge MC207 on hostage, shield"]
        edit = actions[0]["edit"]["changes"][uri][0]
        assert edit["newText"].strip() == "resolve hostage before shield"
        # The fixed spec still reads, and the edit lands at the end of the file.
        lines = text.split("\n")
        assert edit["range"]["start"]["line"] == len(lines) - 1
        fixed = text + edit["newText"] if text.endswith("\n") else text + edit["newText"]
        _change(c, uri, 2, fixed)
        assert c.diagnostics(uri, 2)["diagnostics"] == []
    finally:
        c.close()


def test_fast_typing_is_analysed_on_the_latest_text(client, tmp_path):
    text = (ROOT / "specs" / "night_of_mafia.mafia").read_text(encoding="utf-8")
    uri, _ = _open(client, tmp_path / "night_of_mafia.mafia", text)
    typed = "\nrole x { side town }\n"
    started = 0.0
    for i in range(1, len(typed) + 1):  # one keystroke at a time, not waiting for replies
        started = time.monotonic()
        _change(client, uri, i + 1, text + typed[:i])
    final = client.diagnostics(uri, len(typed) + 1)
    took = time.monotonic() - started
    print(f"the last of {len(typed)} keystrokes analysed {took * 1000:.0f} ms after it")
    assert took < LATENCY_LIMIT
    assert not any(d["severity"] == 1 and "unexpected" in d["message"] for d in final["diagnostics"])


def test_an_open_query_follows_its_spec(client, tmp_path):
    spec = tmp_path / "gangster.mafia"
    text = (ROOT / "specs" / "gangster.mafia").read_text(encoding="utf-8")
    spec.write_text(text, encoding="utf-8")
    suri, _ = _open(client, spec, text)
    query = tmp_path / "gangster.query"
    qtext = 'query q {\n  night 1 { shot on invulnerable }\n}\n'
    quri, diags = _open(client, query, qtext, language="mafia-query")
    assert diags["diagnostics"] == []
    _change(client, suri, 2, text.replace("invulnerable", "ruintan"))
    got = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == quri and m["params"]["diagnostics"])
    assert "unknown role 'invulnerable'" in got["params"]["diagnostics"][0]["message"]


def test_a_rule_id_shows_the_rulebook_digest(client, tmp_path):
    # A project layout like ours: the repository's specs/, and shared/rules/ beside it.
    rules = tmp_path / "shared" / "rules"
    rules.mkdir(parents=True)
    (rules / "001_edb0a2489c3ebf70.md").write_text(
        "# Digest\n\n22. **GA-R22** [protection] — The mafia's night shot does not eliminate the Invulnerable.\n",
        encoding="utf-8")
    (tmp_path / "repo" / "specs").mkdir(parents=True)
    spec = tmp_path / "repo" / "specs" / "gangster.mafia"
    text = (ROOT / "specs" / "gangster.mafia").read_text(encoding="utf-8")
    uri, _ = _open(client, spec, text)
    rule = text.index("rule invulnerable_resists")
    at = _pos(text[rule:], "GA-R22")
    at["line"] += text.count("\n", 0, rule)
    value = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})["contents"]["value"]
    assert "does not eliminate the Invulnerable" in value and "`rule invulnerable_resists`" in value
    defs = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})
    assert defs[0]["uri"] == (rules / "001_edb0a2489c3ebf70.md").as_uri()
    assert defs[0]["range"]["start"]["line"] == 2


def test_built_in_names_have_hovers_and_references(client, tmp_path):
    text = (ROOT / "specs" / "gangster.mafia").read_text(encoding="utf-8")
    uri, _ = _open(client, tmp_path / "gangster.mafia", text)
    at = _pos(text, "target.alive")
    value = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})["contents"]["value"]
    assert "**built-in** `target`" in value and "ability is used on" in value
    assert client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at}) is None
    refs = client.request("textDocument/references", {"textDocument": {"uri": uri}, "position": at,
                                                      "context": {"includeDeclaration": True}})
    lines = text.split("\n")
    assert len(refs) > 10
    for r in refs:
        line = lines[r["range"]["start"]["line"]]
        assert line[r["range"]["start"]["character"]:r["range"]["end"]["character"]] == "target"


def test_shutdown_stops_a_solver_run(tmp_path):
    spec = tmp_path / "gangster.mafia"
    shutil.copy(ROOT / "specs" / "gangster.mafia", spec)
    c = LspClient(cwd=str(tmp_path))
    c.initialize(tmp_path.as_uri())
    uri, _ = _open(c, spec)
    c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    begin = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "begin")
    assert begin
    # The `check` and the worker processes it forks for its analyses: those, killed with the
    # `check` alone, went on solving (issue 11).
    started = wait_for(c.proc.pid, depth=2)
    try:
        assert len(started) >= 2, started  # the solver's child process and its workers
        c.close()
        assert not survivors(started)
    finally:
        if c.proc.poll() is None:
            c.close()
        end(started)


def test_recovery_in_query_files_and_specs_without_a_server():
    from mafiacheck.lsp.document import analyse

    text = ('query a {\n  night 1 { shot on }\n}\n\nquery b {\n  night 1 { shot on killer }\n}\n\n'
            'query c {\n  nigth 1 { shot on killer  }\n  expect stays\n}\n')
    doc = analyse(text, "/nowhere/x.query")
    assert [p.span.line for p in doc.problems] == [2, 12]  # `expect stays` names nobody
    assert [q.name.text for q in doc.decls] == ["b"]  # what parsed is still indexed
    spec = (ROOT / "specs" / "gangster.mafia").read_text(encoding="utf-8")
    broken = spec.replace("role nato", "role nato {{", 1).replace("side town", "side", 1)
    doc = analyse(broken, "/nowhere/g.mafia")
    assert len(doc.problems) == 2 and all(p.severity == "error" for p in doc.problems)
    assert any(d.key == "godfather" for d in doc.definitions)  # the rest is still read
