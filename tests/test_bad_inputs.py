"""Bad inputs that do not fit in a file under tests/bad/: folders, missing paths, inputs too
big to keep in the repository, and random bytes and text.

The command-line cases run the real entry point in a subprocess, so a crash, a hang or a
traceback shows exactly as a user would see it.
"""

from __future__ import annotations

import subprocess
import sys

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
