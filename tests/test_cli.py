"""The command line, through the real entry points (the console script and `python -m`)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

GOOD = (ROOT / "tests" / "fixtures" / "tiny.mafia").read_text(encoding="utf-8")  # a spec with no finding


def run(*args, cwd=ROOT):
    exe = shutil.which("mafiacheck")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "mafiacheck", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, encoding="utf-8")


def run_module(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "mafiacheck", *args], cwd=cwd,
                          capture_output=True, text=True, encoding="utf-8")


def write(tmp_path, text, name="s.mafia"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_console_script_is_installed():
    assert shutil.which("mafiacheck"), "pip install should put `mafiacheck` on PATH"


def test_check_bundled_specs_from_another_directory(tmp_path):
    # The grammar ships inside the package: checking works from any working directory.
    r = run("check", str(ROOT / "specs"), "--select", "setup", cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    assert "gangster" in r.stdout and "گنگستر" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr


def test_python_dash_m_matches_console_script():
    a = run("check", "specs", "--format", "json", "--select", "setup")
    b = run_module("check", "specs", "--format", "json", "--select", "setup")
    assert a.returncode == b.returncode and a.stdout == b.stdout


def test_clean_spec_exits_zero(tmp_path):
    r = run("check", write(tmp_path, GOOD))
    assert r.returncode == 0, r.stdout
    # nothing at all: that no game gets stuck is proved for every length, and says nothing
    assert "no findings" in r.stdout and "MC210" not in r.stdout
    assert "1 spec checked, 0 errors, 0 warnings" in r.stdout
    r = run("check", write(tmp_path, GOOD), "--select", "setup,undefined,win-overlap")
    assert r.returncode == 0 and "no findings" in r.stdout


def test_bound_and_timeout_are_checked(tmp_path):
    path = write(tmp_path, GOOD)
    assert run("check", path, "--bound", "0").returncode == 2
    assert run("check", path, "--timeout", "-1").returncode == 2
    r = run("check", path, "--bound", "1", "--timeout", "5", "--format", "json")
    assert r.returncode == 0
    assert json.loads(r.stdout)["files"][0]["findings"] == []


def test_setup_error_exits_one_with_located_finding(tmp_path):
    path = write(tmp_path, GOOD.replace("citizen * 3", "citizen * 2"))
    r = run("check", path, "--format", "json")
    assert r.returncode == 1
    data = json.loads(r.stdout)
    (finding,) = [f for f in data["files"][0]["findings"] if f["code"] == "MC101"]
    assert finding["kind"] == "setup" and finding["severity"] == "error"
    assert finding["span"] == {"line": 6, "column": 13, "end_line": 6, "end_column": 14}
    assert "3 seats, not 4 players" in finding["message"]


def test_syntax_error_exits_two(tmp_path):
    r = run("check", write(tmp_path, GOOD.replace("side town \"Town\" town", "side town \"Town\"")))
    assert r.returncode == 2
    assert "s.mafia:3:1: error: unexpected 'side'" in r.stdout


def test_one_bad_file_does_not_hide_the_others(tmp_path):
    write(tmp_path, GOOD, "a.mafia")
    write(tmp_path, "scenario", "b.mafia")
    r = run("check", str(tmp_path), "--format", "json")
    assert r.returncode == 2
    files = json.loads(r.stdout)["files"]
    assert [Path(f["path"]).name for f in files] == ["a.mafia", "b.mafia"]
    assert files[0]["scenario"] == "tiny" and files[1]["errors"]


def test_missing_path_exits_two():
    r = run("check", "no/such/file.mafia")
    assert r.returncode == 2 and "no/such/file.mafia: error: no such file or folder" in r.stdout


def test_usage_errors_exit_two():
    assert run().returncode == 2
    r = run("check")
    assert r.returncode == 2 and "PATH" in r.stderr
    r = run("check", "specs", "--format", "xml")
    assert r.returncode == 2 and "invalid choice" in r.stderr
    r = run("check", "specs", "--select", "nonsense")
    assert r.returncode == 2 and "unknown analysis kind 'nonsense'" in r.stderr


def test_explain_every_code():
    from mafiacheck.registry import CODES
    for code in CODES:
        r = run("explain", code.lower())
        assert r.returncode == 0
        for heading in ("What it means", "Why it matters", "Example", "How to fix"):
            assert heading in r.stdout
    r = run("explain", "MC999")
    assert r.returncode == 2 and "unknown code" in r.stderr


def test_output_is_deterministic():
    # Findings, their order and their witnesses: the same on every run.
    first = run("check", "specs/commando.mafia", "--format", "json", "--bound", "1")
    assert first.stdout == run("check", "specs/commando.mafia", "--format", "json", "--bound", "1").stdout
    assert json.loads(first.stdout)["files"][0]["findings"]


def test_groups_in_their_own_processes_give_the_one_process_report():
    # `check` runs the stalemate proof in a process beside the other analyses; each group
    # builds its own encodings, so the report is byte for byte check_file's, in one process.
    from mafiacheck.analyses.encoded import Options
    from mafiacheck.pipeline import check_file
    from mafiacheck.report import json_report

    spec = "examples/broken/commando_citizen_max_one.mafia"
    cli = run("check", spec, "--format", "json", "--bound", "1")
    alone = check_file(spec, options=Options(bound=1, deepen_to=1, further_to=1))
    assert any(f.kind == "stalemate" for f in alone.findings)
    assert any(f.kind != "stalemate" for f in alone.findings)
    assert cli.stdout == json_report.render([alone])


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_legacy_terminal_encoding_does_not_crash(encoding):
    env = {"PYTHONIOENCODING": encoding, "PATH": str(Path(sys.executable).parent)}
    r = subprocess.run([sys.executable, "-m", "mafiacheck", "check", "specs", "--select", "setup"],
                       cwd=ROOT, capture_output=True, env=env)
    assert r.returncode in (0, 1) and b"Traceback" not in r.stderr
    assert "گنگستر".encode("utf-8") in r.stdout


def test_ask_inline_query():
    r = run("ask", "specs/gangster.mafia", "night 1 { shot on detective  save on detective }")
    assert r.returncode == 0, r.stderr
    # Persian names come isolated (U+2068 … U+2069) so bidi viewers keep the brackets in place.
    assert "verdict: determined" in r.stdout and "(\u2068نجات پزشک\u2069)" in r.stdout


def test_ask_json_shape():
    r = run("ask", "specs/gangster.mafia", "night 1 { nato_guess on doctor as doctor }",
            "--format", "json")
    data = json.loads(r.stdout)
    assert data["version"] == 1
    (answer,) = data["answers"]
    assert set(answer) >= {"query", "verdict", "outcomes", "rules"}
    assert answer["verdict"] == "determined"
    (phase,) = answer["outcomes"][0]["phases"]
    assert phase["exits"] == [{"seat": 4, "player": "@4 (پزشک)", "kind": "definite", "by": "nato_guess"}]
    assert "GA-R11" in answer["rules"]


def test_ask_illegal_choice_names_the_rule():
    r = run("ask", "specs/gangster.mafia", "night 1 { nato_guess on doctor as doctor  shot on leon }")
    assert r.returncode == 2 and "unknown role 'leon'" in r.stderr
    r = run("ask", "specs/gangster.mafia", "night 1 { nato_guess on doctor as doctor  shot on detective }")
    assert r.returncode == 0
    assert "verdict: illegal" in r.stdout and "[GA-R12" in r.stdout


def test_ask_failed_expectation_exits_one(tmp_path):
    q = tmp_path / "q.query"
    q.write_text("query q { night 1 { shot on detective } expect stays detective }", encoding="utf-8")
    r = run("ask", "specs/gangster.mafia", str(q))
    assert r.returncode == 1 and "EXPECTATION FAILED" in r.stdout


def test_ask_bad_query_is_located(tmp_path):
    q = tmp_path / "q.query"
    q.write_text("query q {\n  night 1 { shot on }\n}\n", encoding="utf-8")
    r = run("ask", "specs/gangster.mafia", str(q))
    assert r.returncode == 2
    assert f"{q}:2:21: error: unexpected '}}'" in r.stderr and "^" in r.stderr


def test_ask_on_a_broken_spec_exits_two(tmp_path):
    spec = write(tmp_path, "scenario x {")
    r = run("ask", spec, "night 1 { }")
    assert r.returncode == 2 and "unexpected end of file" in r.stderr


def test_simulate_plays_to_the_winner():
    r = run("simulate", "specs/gangster.mafia", "examples/games/gangster.query")
    assert r.returncode == 0
    assert r.stdout.rstrip().endswith("rules: GA-R28, GA-R30")
    assert "the game ends: \u2068شهروندان\u2069 wins" in r.stdout  # isolated for bidi viewers


def test_simulate_stops_where_the_rules_cannot_decide(tmp_path):
    script = tmp_path / "g.query"
    script.write_text("query g { night 1 { yakuza by nato on detective } day 2 { vote nato } }",
                      encoding="utf-8")
    r = run("simulate", "specs/gangster.mafia", str(script))
    assert r.returncode == 1
    assert "stopped: night 1: the rules cannot decide this phase (undefined)" in r.stdout
    assert "day 2" not in r.stdout


def test_ask_can_and_must_through_the_encoding(tmp_path):
    q = tmp_path / "open.query"
    q.write_text('''query can_mafia "can the mafia still win within a round after the Boss is voted out?" {
  from day 1
  day 1 { vote godfather }
  can winner mafia within 1
  expect answer no
}
query must_stay "does the saved Detective stay through the next round?" {
  from night 1
  night 1 { shot on detective  save on detective }
  must stays detective within 1
  expect answer no
}
query can_town "can the town win within three rounds?" {
  can winner town within 3
  expect answer yes
}
''', encoding="utf-8")
    r = run("ask", "specs/gangster.mafia", str(q), "--format", "json")
    assert r.returncode == 0, r.stdout
    answers = json.loads(r.stdout)["answers"]
    assert [a["verdict"] for a in answers] == ["no", "no", "yes"]
    assert "longer games were not searched" in answers[0]["detail"]
    # A "no" to `must` and a "yes" to `can` come with the game, replayed by the interpreter.
    assert answers[1]["outcomes"] and answers[2]["outcomes"][0]["winner"] == "town"
