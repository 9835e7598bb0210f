"""The VS Code extension's files: its TextMate grammar is the one derived from the Lark
grammar, and it highlights the bundled specs as the Lark parser reads them."""

from __future__ import annotations

import json
import re

import pytest
from lark import Token

from conftest import ROOT

from mafiacheck.fmt import _token_parser
from mafiacheck.lsp import textmate
from mafiacheck.loader import read_source

VSCODE = ROOT / "editors" / "vscode"
SPECS = sorted((ROOT / "specs").glob("*.mafia"))
KEYWORD_SCOPES = {"declaration", "keyword", "constant", "operator"}


def test_the_committed_grammar_is_the_generated_one():
    committed = (VSCODE / "syntaxes" / "mafia.tmLanguage.json").read_text(encoding="utf-8")
    regenerate = "python -m mafiacheck.lsp.textmate > editors/vscode/syntaxes/mafia.tmLanguage.json"
    assert committed == textmate.render(), f"run: {regenerate}"


def test_the_extension_declares_both_languages():
    package = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    languages = {lang["id"]: lang for lang in package["contributes"]["languages"]}
    assert languages["mafia"]["extensions"] == [".mafia"]
    assert languages["mafia-query"]["extensions"] == [".query"]
    for g in package["contributes"]["grammars"]:
        assert (VSCODE / g["path"]).is_file()
    assert "lsp" in package["contributes"]["configuration"]["properties"]["mafiacheck.args"]["default"]
    assert "mafiacheck" in (VSCODE / "extension.js").read_text(encoding="utf-8")
    json.loads((VSCODE / "language-configuration.json").read_text(encoding="utf-8"))


def _compiled():
    repo = textmate.grammar()["repository"]
    order = [p["include"][1:] for p in textmate.grammar()["patterns"]]
    out = []
    for name in order:
        rule = repo[name]
        pattern = rule.get("match") or r'"(?:[^"\\]|\\.)*(?:"|$)'
        pattern = re.sub(r"\\x\{([0-9a-fA-F]{4})\}", r"\\u\1", pattern)  # Oniguruma -> Python
        out.append((name, re.compile(pattern)))
    return out


def _scopes(line: str, patterns) -> list[str | None]:
    """A TextMate-like scan of one line: at each point the earliest match wins, ties going
    to the pattern listed first."""
    scopes: list[str | None] = [None] * len(line)
    pos = 0
    while pos < len(line):
        best = None
        for name, pattern in patterns:
            m = pattern.search(line, pos)
            if m and m.end() > m.start() and (best is None or m.start() < best[1].start()):
                best = (name, m)
        if best is None:
            break
        name, m = best
        if name == "declaration":
            for group, scope in ((1, "declaration"), (2, "entity"), (3, "declaration")):
                if m.group(group):
                    scopes[m.start(group):m.end(group)] = [scope] * (m.end(group) - m.start(group))
        else:
            scopes[m.start():m.end()] = [name] * (m.end() - m.start())
        pos = m.end()
    return scopes


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_highlighting_agrees_with_the_parser(spec):
    source = read_source(str(spec))
    tree = _token_parser().parse(source.text, start="start")
    lines = source.text.split("\n")
    patterns = _compiled()
    scanned = {}
    keywords = set(textmate.keywords())
    checked = 0
    for tok in tree.scan_values(lambda v: isinstance(v, Token)):
        if tok.line != tok.end_line:
            continue
        if tok.line not in scanned:
            scanned[tok.line] = _scopes(lines[tok.line - 1], patterns)
        got = set(scanned[tok.line][tok.column - 1:tok.end_column - 1])
        if tok.type == "STRING":
            want = {"string"}
        elif tok.type == "RULE_ID":
            want = {"rule-id"}
        elif tok.type == "INT":
            want = {"number", "seat"}
        elif tok.type == "NAME":
            want = {"name", "entity"} | (KEYWORD_SCOPES if str(tok) in keywords else set())
        elif str(tok) in keywords:
            want = KEYWORD_SCOPES
        else:
            continue  # punctuation
        assert len(got) == 1 and got <= want, (spec.name, tok.line, str(tok), tok.type, got)
        checked += 1
    assert checked > 500
