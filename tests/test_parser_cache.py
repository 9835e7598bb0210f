"""The parser's tables kept between processes (parser.cached_lark): the same parser either way,
and no cache at all where no private cache folder can be had."""

import os
from pathlib import Path

from mafiacheck.parser import _cache_file, cached_lark

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "specs" / "gangster.mafia").read_text(encoding="utf-8")


def test_a_loaded_parser_parses_as_a_built_one(tmp_path, monkeypatch):
    monkeypatch.delenv("MAFIACHECK_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    built = cached_lark()
    files = list((tmp_path / "mafiacheck").glob("lark-*.pickle"))
    assert len(files) == 1
    assert (tmp_path / "mafiacheck").stat().st_mode & 0o077 == 0
    loaded = cached_lark()
    assert loaded.parse(SPEC, start="start") == built.parse(SPEC, start="start")
    # Another set of options is another file, never the first one's tables.
    tokens = cached_lark(keep_all_tokens=True)
    assert len(list((tmp_path / "mafiacheck").glob("lark-*.pickle"))) == 2
    assert tokens.parse(SPEC, start="start") != built.parse(SPEC, start="start")


def test_no_cache_where_no_private_folder_can_be_had(tmp_path, monkeypatch):
    monkeypatch.delenv("MAFIACHECK_NO_CACHE", raising=False)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert _cache_file({}) is None
    assert cached_lark().parse(SPEC, start="start") is not None
    shared = tmp_path / "shared"
    (shared / "mafiacheck").mkdir(parents=True)
    os.chmod(shared / "mafiacheck", 0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    assert _cache_file({}) is None  # others could write pickles there
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "fine"))
    monkeypatch.setenv("MAFIACHECK_NO_CACHE", "1")
    assert _cache_file({}) is None


def test_a_changed_grammar_is_rebuilt_in_the_same_file(tmp_path, monkeypatch):
    from mafiacheck import parser

    monkeypatch.delenv("MAFIACHECK_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cached_lark()
    (file,) = (tmp_path / "mafiacheck").glob("lark-*.pickle")
    stamp = file.read_bytes().split(b"\n", 1)[0]  # Lark's hash of grammar, options, version
    original = parser.grammar_text()
    monkeypatch.setattr(parser, "grammar_text", lambda: original + "\n// changed\n")
    cached_lark()
    assert [f.name for f in (tmp_path / "mafiacheck").glob("lark-*.pickle")] == [file.name]
    assert file.read_bytes().split(b"\n", 1)[0] != stamp
