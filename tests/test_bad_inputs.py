"""Bad inputs that do not fit in a file under tests/bad/: folders, missing paths, inputs too
big to keep in the repository, and random bytes and text.

The command-line cases run the real entry point in a subprocess, so a crash, a hang or a
traceback shows exactly as a user would see it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mafiacheck.pipeline import check_file

EXIT_INPUT = 2


def run_check(path) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "mafiacheck", "check", str(path)],
        capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=120,
    )
    return proc.returncode, proc.stdout + proc.stderr


def assert_refused(path, *, where: str | None = None) -> str:
    """The file is refused with exit 2, a report naming it, and no traceback."""
    code, output = run_check(path)
    assert code == EXIT_INPUT, output
    assert str(path) in output, output
    assert "Traceback" not in output, output
    if where is not None:
        assert f"{path}:{where}: error:" in output, output
    return output


# ------------------------------------------------------------------ paths


def test_folder_without_specs(tmp_path):
    folder = tmp_path / "rulebooks"
    folder.mkdir()
    (folder / "notes.txt").write_text("قوانین گنگستر\n", encoding="utf-8")
    output = assert_refused(folder)
    assert "no .mafia files" in output


def test_missing_path(tmp_path):
    output = assert_refused(tmp_path / "гангстер.mafia")
    assert "no such file" in output


# ------------------------------------------------------------------ limits


def test_two_megabyte_identifier(tmp_path):
    path = tmp_path / "huge_name.mafia"
    path.write_text("scenario " + "a" * 2_000_000 + ' { prefix GA }\n', encoding="utf-8")
    output = assert_refused(path)
    assert "limit" in output


def test_hundred_thousand_nested_braces(tmp_path):
    path = tmp_path / "braces.mafia"
    path.write_text("{" * 100_000, encoding="utf-8")
    output = assert_refused(path, where="1:65")
    assert "nesting" in output


def test_number_with_five_thousand_digits(tmp_path):
    path = tmp_path / "big_number.mafia"
    path.write_text('scenario s "س" { prefix GA }\nside town "شهروندان" town\n'
                    "role citizen { side town }\n"
                    "composition " + "9" * 5000 + " { citizen }\n", encoding="utf-8")
    output = assert_refused(path, where="4:13")
    assert "number too large" in output


def test_single_open_brace(tmp_path):
    path = tmp_path / "brace.mafia"
    path.write_text("{", encoding="utf-8")
    assert_refused(path, where="1:1")


# ------------------------------------------------------------------ random input, in process


def _check_never_raises(path) -> None:
    result = check_file(str(path))
    assert result.diagnostics or result.scenario is not None
    for d in result.diagnostics:
        assert d.path, d
        assert d.message, d
        if d.span is not None:
            assert d.span.path, d
            assert d.span.line >= 1 and d.span.column >= 1, d


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=400))
def test_random_bytes_never_crash(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("bytes") / "random.mafia"
    path.write_bytes(data)
    _check_never_raises(path)


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=400))
def test_random_text_never_crash(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("text") / "random.mafia"
    path.write_bytes(text.encode("utf-8"))
    _check_never_raises(path)


# Newcomer mistakes in query files (issue 14): the hint says what happened, and never blames a
# `{` that is open only because the query around it is.

QUERY_MISTAKES = [
    # a setting's value left out: the next line's first word became the value (the hint
    # used to blame the query's own `{`, open only because the query goes on)
    ("query q {\n  setting start_mode =\n  can winner mafia within 2\n}\n", 3,
     "the '=' at the end of line 2 has no value, so 'can' was read as its value"),
    ("query q {\n  setting start_mode =\n  from day 2\n}\n", 3,
     "the '=' at the end of line 2 has no value, so 'from' was read as its value"),
    # a query left open before the next one
    ("query q {\n  night 1 { shot on citizen@1 }\nquery r {\n  expect no winner\n}\n", 3,
     "the '{' at line 1, column 9 is not closed"),
]


@pytest.mark.parametrize("text,line,hint", QUERY_MISTAKES)
def test_query_mistakes_are_explained(text, line, hint):
    from mafiacheck.errors import SpecError
    from mafiacheck.parser import parse
    from mafiacheck.source import SourceFile

    with pytest.raises(SpecError) as info:
        parse(SourceFile("q.query", text), "queries")
    d = info.value.diagnostics[0]
    assert d.span.line == line
    assert d.hint is not None and d.hint.startswith(hint)


def test_a_query_mistake_exits_two_with_the_hint(tmp_path):
    query = tmp_path / "q.query"
    query.write_text(QUERY_MISTAKES[0][0], encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "mafiacheck", "ask", "specs/commando.mafia", str(query)],
                       capture_output=True, text=True, encoding="utf-8", timeout=120,
                       cwd=Path(__file__).resolve().parent.parent)
    assert r.returncode == 2
    assert "has no value, so 'can' was read as its value" in r.stderr
