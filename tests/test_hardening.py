"""Issue 15: inputs that crashed, hung or misled, each as a test that failed before its fix.

Most cases run `cli.main` in-process (a crash shows as an exception in the test); the ones
about signals, FIFOs and tracebacks run the real entry point in a subprocess.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mafiacheck import cli
from mafiacheck.crosscheck import open_questions

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"

TINY = (ROOT / "tests" / "fixtures" / "tiny.mafia").read_text(encoding="utf-8")


def main(*argv) -> tuple[int, str, str]:
    """(exit code, standard output, standard error) of the command line, in this process."""
    out, err = io.StringIO(), io.StringIO()
    code = cli.main([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def spec_file(tmp_path: Path, text: str, name: str = "s.mafia") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ 1. crashes -> located errors


@pytest.mark.parametrize("question, where, what", [
    ("can winner jack", "<inline>:2:12", "unknown side 'jack'"),
    ("can stays nobody", "<inline>:2:11", "unknown role 'nobody'"),
    ("can leaves nobody", "<inline>:2:12", "unknown role 'nobody'"),
])
def test_unknown_names_in_open_questions(question, where, what):
    code, out, err = main("ask", SPECS / "commando.mafia", question)
    assert code == cli.EXIT_INPUT, out + err
    assert f"{where}: error: {what}" in err


def test_unknown_names_in_expectations_are_input_errors():
    query = ("night 1 { shot on doctor }\nexpect winner jak\nexpect leaves doctor by zap\n"
             "expect stays nobody\nexpect leaves nobody")
    code, out, err = main("ask", SPECS / "commando.mafia", query)
    assert code == cli.EXIT_INPUT, out + err
    assert "<inline>:3:15: error: unknown side 'jak'" in err
    assert "<inline>:4:25: error: unknown kind of exit 'zap'" in err
    assert "<inline>:5:14: error: unknown role 'nobody'" in err
    assert "<inline>:6:15: error: unknown role 'nobody'" in err
    assert "EXPECTATION FAILED" not in out


@pytest.mark.parametrize("effect", ["if true then " * 700 + "kill shot",
                                    "after 1 night: " * 800 + "kill shot"])
def test_deep_effects_are_located_errors(tmp_path, effect):
    path = spec_file(tmp_path, TINY.replace("effect kill shot", "effect " + effect))
    code, out, err = main("check", path, "--select", "setup")
    assert code == cli.EXIT_INPUT, out + err
    assert f"{path}:7:" in out and "nested too deeply" in out


def test_deep_nesting_just_under_the_limit_is_checked(tmp_path):
    # The limit must leave room for the real thing: every stage after the parser recurses, so
    # a tree just under MAX_DEPTH must go through them (raise the limit and this fails).
    from mafiacheck.limits import MAX_DEPTH

    effect = "if " + "not " * (MAX_DEPTH - 45) + "false then " + "if true then " * 30 + "kill shot"
    path = spec_file(tmp_path, TINY.replace("effect kill shot", "effect " + effect))
    code, out, err = main("check", path, "--select", "setup,contradiction")
    assert code in (cli.EXIT_OK, cli.EXIT_FINDINGS), out + err
    assert "internal" not in out


def test_deep_not_in_a_query_setting():
    query = "setting doctor_self_save = " + "not " * 1000 + "true\nnight 1 { shot on doctor }"
    code, out, err = main("ask", SPECS / "gangster.mafia", query)
    assert code == cli.EXIT_INPUT, out + err
    assert "<inline>:2:" in err and "nested too deeply" in err


@pytest.mark.parametrize("value", ["inf", "1e308", "nan", "-inf", "0", "0.0001", "1e-9", "-1"])
def test_unusable_timeouts_are_usage_errors(value):
    code, out, err = main("check", SPECS / "commando.mafia", "--no-config", f"--timeout={value}")
    assert code == cli.EXIT_INPUT, out + err
    assert "--timeout must be a number of seconds" in err


@pytest.mark.parametrize("value", ["inf", "nan", "1e308"])
def test_unusable_timeouts_in_the_configuration(tmp_path, value):
    spec = spec_file(tmp_path, TINY)
    (tmp_path / "pyproject.toml").write_text(f"[tool.mafiacheck]\ntimeout = {value}\n")
    code, out, err = main("check", spec, "--config", tmp_path / "pyproject.toml")
    assert code == cli.EXIT_INPUT, out + err
    assert "pyproject.toml:2:1: error: [tool.mafiacheck] `timeout` must be" in err


def test_tiny_timeout_is_never_no_limit(monkeypatch):
    """Z3 reads a timeout of 0 ms as no limit; the solver factory rounds up, never down."""
    import z3

    from mafiacheck.encode.solver import Limits, make_solver

    captured = []

    class Spy:
        def set(self, key, value):
            if key == "timeout":
                captured.append(value)

    monkeypatch.setattr(z3, "SolverFor", lambda *a, **k: Spy())
    make_solver(None, Limits(timeout=1e-9))
    make_solver(None, Limits(timeout=0.0004))
    make_solver(None, Limits(timeout=2.5))
    assert captured == [1, 1, 2500]


# ------------------------------------------------------------------ 2. the gate never passes by accident


def test_ask_has_limits_and_exits_3_when_inconclusive():
    code, out, err = main("ask", SPECS / "gangster.mafia", "can winner town within 3",
                          "--timeout", "0.001", "--rlimit", "1")
    assert code == cli.EXIT_INCONCLUSIVE, out + err
    assert "inconclusive" in out


def test_an_exhausted_resource_limit_says_which_option_raises_it():
    # Z3 words a spent resource limit four ways (the finite-domain solver: "no reason given");
    # the user is told the one thing to do about it, and the limit that was hit.
    code, out, err = main("ask", SPECS / "gangster.mafia", "can winner town within 3", "--rlimit", "1")
    assert code == cli.EXIT_INCONCLUSIVE, out + err
    assert "the solver gave up (resource limit of 1 reached; --rlimit raises it)" in out
    assert "no reason given" not in out and "canceled" not in out


@pytest.mark.parametrize("raw, work, rlimit, said", [
    ("no reason given", 5_000_000, 5_000_000, "resource limit of 5,000,000 reached; --rlimit raises it"),
    ("max. resource limit exceeded", 7, 3, "resource limit of 3 reached; --rlimit raises it"),
    ("canceled", 10, None, "canceled"),  # a limit nobody set: Z3's words, unchanged
    ("incomplete quantifiers", 10, 100, "incomplete quantifiers"),  # not the limit: Z3's words
    ("timeout", 1, 100, "time limit reached; --timeout raises it"),
    ("", 1, 100, "unknown"),
])
def test_why_unknown_names_the_limit_only_when_it_was_hit(raw, work, rlimit, said):
    from mafiacheck.encode.solver import why_unknown
    assert why_unknown(raw, work, rlimit) == said


def test_ask_rejects_unusable_limits():
    code, out, err = main("ask", SPECS / "gangster.mafia", "can winner town", "--timeout", "inf")
    assert code == cli.EXIT_INPUT and "--timeout must be" in err


def test_internal_error_in_an_analysis_is_not_inconclusive(monkeypatch):
    from mafiacheck.analyses import unreachable_win

    def broken(*args, **kwargs):
        raise ValueError("no generic phase found")
    monkeypatch.setattr(unreachable_win, "analyse", broken)
    code, out, err = main("check", SPECS / "gangster.mafia", "--no-config", "--select", "setup,unreachable-win")
    assert code == cli.EXIT_INTERNAL == 4, out + err
    assert "error[MC900] internal: internal error in the unreachable-win analysis" in out
    assert "MC200" not in out


def test_a_phase_number_far_ahead_is_no_internal_error(tmp_path):
    """`candidates on day 100` once made the induction proofs' search for the phase past every
    number the spec names give up after 64 phases, an internal error (MC900)."""
    from mafiacheck.encode.induction import generic_from
    from mafiacheck.pipeline import load

    text = (SPECS / "gangster.mafia").read_text(encoding="utf-8")
    assert "candidates on day 1 " in text
    path = spec_file(tmp_path, text.replace("candidates on day 1 ", "candidates on day 100 "))
    sc = load(str(path))
    comp = next(c for c in sc.compositions if c.total == c.players)
    g = generic_from(sc, comp.seats(), 0)
    assert g > 198  # day 100 is phase 199 or later
    code, out, err = main("check", path, "--no-config", "--select", "setup,unreachable-win", "--bound", "1")
    assert code in (0, 1) and "MC900" not in out, out + err


def test_internal_error_outside_analyses_has_its_own_exit_code(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr(cli, "run_explain", broken)
    code, out, err = main("explain", "MC200")
    assert code == cli.EXIT_INTERNAL
    assert "internal error (ValueError: a bug)" in err and "Traceback" not in err


def test_open_question_checks_the_replay_reaches_the_goal(monkeypatch):
    """A solver game that the interpreter does not play to the goal is no `yes`."""
    real = open_questions._replay

    def nowhere(scenario, bound, game, model, length=None):
        # Replay only the given phases (none): nobody wins, the goal is not reached.
        from mafiacheck.interpreter.bind import BoundQuery
        from mafiacheck.interpreter.play import Player
        outcomes = real(scenario, bound, game, model, length)
        empty = BoundQuery(bound.query, bound.state, bound.seats, [])
        return Player(scenario).answer(empty).outcomes[:1] or outcomes[:0]

    # Within three rounds the town can win (the solver finds a game; see test_cli).
    assert "verdict: yes" in main("ask", SPECS / "gangster.mafia", "can winner town within 3")[1]
    monkeypatch.setattr(open_questions, "_replay", nowhere)
    code, out, err = main("ask", SPECS / "gangster.mafia", "can winner town within 3")
    assert "verdict: yes" not in out
    assert "does not replay" in out and code == cli.EXIT_INCONCLUSIVE


# ------------------------------------------------------------------ 3. hangs and unbounded work


def _entry(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "mafiacheck", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            encoding="utf-8", errors="replace", **kwargs)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("command", [
    ["check", "{fifo}"], ["fmt", "{fifo}"], ["ask", "{fifo}", "night 1 { }"],
    ["ask", "specs/gangster.mafia", "{fifo}"], ["simulate", "specs/gangster.mafia", "{fifo}"],
])
def test_fifo_is_refused_not_waited_on(tmp_path, command):
    fifo = tmp_path / "spec.mafia"
    os.mkfifo(fifo)
    proc = _entry(*[c.replace("{fifo}", str(fifo)) for c in command])
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == cli.EXIT_INPUT, out + err
    assert f"{fifo}: error: is not a regular file" in out + err
    assert "Traceback" not in out + err


def test_within_above_the_limit_is_refused():
    from mafiacheck.limits import MAX_WITHIN

    code, out, err = main("ask", SPECS / "commando.mafia", f"can winner town within {MAX_WITHIN + 1}")
    assert code == cli.EXIT_INPUT, out + err
    assert f"<inline>:2:1: error: `within {MAX_WITHIN + 1}`: an open question searches 1 to {MAX_WITHIN}" in err


def test_line_starts_are_computed_once():
    """Every span, excerpt and finding id asks for positions; a 43,000-role spec has 43,000
    findings, and recomputing the line table for each made `--select setup` quadratic."""
    from mafiacheck.fingerprint import anchor
    from mafiacheck.source import SourceFile, Span

    source = SourceFile("x.mafia", "role a\r\nrole b { side town }\nlast")
    assert source.line_starts is source.line_starts
    assert [source.line_text(n) for n in (0, 1, 2, 3, 4)] == ["", "role a", "role b { side town }", "last", ""]
    assert anchor(source, Span("x.mafia", 2, 1, 2, 7)) == "role b"


def _ctrl_c_as_on_a_terminal() -> None:
    """SIGINT at its default in the process under test. A shell that runs the suite in the
    background ignores SIGINT there, the process inherits that, and Python then never turns
    Ctrl-C into KeyboardInterrupt: the test would fail however the checker behaves."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("args", [["check", "specs/"], ["check", "specs/godfather_jack.mafia", "--bound", "3"]])
def test_ctrl_c_stops_at_once_without_a_traceback(args):
    # A new session stands in for the terminal: Ctrl-C reaches every process of the group.
    proc = _entry(*args, start_new_session=True, preexec_fn=_ctrl_c_as_on_a_terminal)
    time.sleep(6)
    assert proc.poll() is None, "finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    started = time.monotonic()
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # nothing left running through the rest of the suite
        raise
    finally:
        proc.kill()
    assert time.monotonic() - started < 5
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err and "Error" not in err
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):  # no worker left behind
        os.killpg(proc.pid, 0)


# ------------------------------------------------------------------ 4. what you see is what is checked

BROKEN = ROOT / "examples" / "broken"


def test_witness_script_escapes_display_names(tmp_path):
    text = (BROKEN / "hostage_takers_block_each_other.mafia").read_text(encoding="utf-8")
    path = spec_file(tmp_path, text.replace('ability hostage "Hostage"', r'ability hostage "Hostage \"taker\""'))
    code, out, err = main("check", path, "--no-config", "--select", "ambiguous-resolution")
    assert code == cli.EXIT_FINDINGS, out + err
    assert out.count("error[MC208]") == 2 and "MC200" not in out


def test_witness_script_escapes_newlines_and_reports_escape_them(tmp_path):
    text = (BROKEN / "unspecified_effect.mafia").read_text(encoding="utf-8")
    path = spec_file(tmp_path, text.replace("performed per the regulations", r"performed per the\nregulations"))
    code, out, err = main("check", path, "--no-config", "--select", "undefined")
    assert code == cli.EXIT_FINDINGS, out + err
    assert "MC200" not in out
    assert r"Consult: performed per the\nregulations" in out
    assert not any(line.startswith("regulations") for line in out.split("\n"))


@pytest.mark.parametrize("char", ["\r", "\u2028", "\u2029", "\x85", "\x0b"])
@pytest.mark.parametrize("where", ["comment", "string"])
def test_line_breaks_other_than_lf_are_refused(tmp_path, char, where):
    line = (f"# the Boss{char}priority mafia > town" if where == "comment"
            else f'role extra "Extra{char}line" {{ side town }}')
    path = spec_file(tmp_path, TINY + line + "\n")
    code, out, err = main("check", path, "--select", "setup")
    assert code == cli.EXIT_INPUT, out + err
    assert f"{path}:13:" in out and f"line break U+{ord(char):04X}" in out and f"inside a {where}" in out


def test_crlf_files_are_still_read(tmp_path):
    path = tmp_path / "crlf.mafia"
    path.write_bytes(TINY.replace("\n", "\r\n").encode("utf-8"))
    code, out, err = main("check", path, "--select", "setup")
    assert code == cli.EXIT_OK, out + err


def test_control_characters_are_escaped_in_text_reports(tmp_path):
    forged = TINY.replace('role boss "Boss"', r'role boss "Boss\nFORGED: no findings' + '\x1b[8m"')
    path = spec_file(tmp_path, forged.replace("composition 4 { boss, citizen * 3 }",
                                              "composition 4 { boss, citizen * 3 }\ncomposition 5 { boss, citizen * 3 }"))
    code, out, err = main("check", path, "--select", "setup")
    assert "Boss\\nFORGED" in out and "\\x1b[8m" in out
    assert "\x1b" not in out and not any(line.startswith("FORGED") for line in out.split("\n"))


def test_mixed_script_names_are_warned(tmp_path):
    path = spec_file(tmp_path, TINY.replace("role citizen", 'role bоss "Boss too" { side mafia }\nrole citizen'))
    code, out, err = main("check", path, "--select", "setup")
    assert (f"{path}:5:6: warning[MC111] setup: the name 'bоss' mixes Cyrillic and Latin letters: "
            "о (CYRILLIC SMALL LETTER O); it looks like 'boss', a different name") in out
    assert "MC111" in main("explain", "MC111")[1]


def test_persian_names_are_isolated_for_bidi_viewers():
    from mafiacheck.text import FSI, PDI, isolate_rtl

    assert isolate_rtl("@8 (تفنگدار)") == f"@8 ({FSI}تفنگدار{PDI})"
    assert isolate_rtl("order: حفاظت محافظ → ثبت لیست سیاه, 3") == \
        f"order: {FSI}حفاظت محافظ{PDI} → {FSI}ثبت لیست سیاه{PDI}, 3"
    assert isolate_rtl("plain latin") == "plain latin"
    code, out, err = main("ask", SPECS / "gangster.mafia", "night 1 { shot on doctor }")
    resolved = [line for line in out.split("\n") if "(resolved:" in line]
    assert resolved and all(f"{PDI} → {FSI}" in line or "→" not in line for line in resolved)
    assert f"({FSI}" in out  # @N (role) keeps its number and brackets in place
    code, out, err = main("simulate", SPECS / "gangster.mafia", ROOT / "examples/games/gangster.query")
    assert f"({FSI}" in out
    code, out, err = main("ask", SPECS / "gangster.mafia", "night 1 { shot on doctor }", "--format", "json")
    assert FSI not in out  # machine formats keep the strings as written


# ------------------------------------------------------------------ 5. errors with a location


def test_binary_data_is_located():
    code, out, err = main("check", ROOT / "tests/bad/binary_garbage.mafia")
    assert code == cli.EXIT_INPUT
    assert "binary_garbage.mafia:1:5: error: file holds binary data" in out


def test_too_large_file_is_located(tmp_path):
    from mafiacheck.limits import MAX_FILE_BYTES

    path = tmp_path / "big.mafia"
    path.write_text("# x\n" * (MAX_FILE_BYTES // 4 + 10), encoding="utf-8")
    code, out, err = main("check", path)
    assert code == cli.EXIT_INPUT
    assert f"{path}:{MAX_FILE_BYTES // 4 + 1}:1: error: file is {MAX_FILE_BYTES + 40} bytes" in out


def test_no_scenario_in_a_file_of_comments_is_located(tmp_path):
    path = spec_file(tmp_path, "# only\n# comments\n")
    code, out, err = main("check", path)
    assert code == cli.EXIT_INPUT
    assert f"{path}:1:1: error: the spec has no `scenario` declaration" in out


@pytest.mark.parametrize("body, where", [
    ("bound = 50\n", "2:1"), ('select = ["setup", "typo"]\n', "2:1"),
    ("[tool.mafiacheck.severity]\nMC999 = \"error\"\n", "3:1"), ("bound = \n", "2:9"),
    ("[tool.mafiacheck.extra]\nx = 1\n", "2:1"), ("rlimit = 99999999999999\n", "2:1"),
])
def test_configuration_errors_are_located(tmp_path, body, where):
    spec = spec_file(tmp_path, TINY)
    (tmp_path / "pyproject.toml").write_text("[tool.mafiacheck]\n" + body)
    code, out, err = main("check", spec, "--config", tmp_path / "pyproject.toml")
    assert code == cli.EXIT_INPUT, out + err
    assert f"pyproject.toml:{where}: error:" in err


def test_explain_without_a_code_lists_the_codes():
    code, out, err = main("explain")
    assert code == cli.EXIT_OK, err
    from mafiacheck import registry
    assert all(c in out for c in registry.CODES) and out.startswith("MC100")


# ------------------------------------------------------------------ 6. CI manners

COUNT_MISMATCH = BROKEN / "composition_count_mismatch.mafia"  # setup errors only: fast


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal, quiet, shown", [(True, False, True), (True, True, False),
                                                    (False, False, False)])
def test_progress_only_on_a_terminal_and_not_with_q(terminal, quiet, shown):
    out, err = io.StringIO(), (_Terminal() if terminal else io.StringIO())
    args = ["check", str(SPECS / "gangster.mafia"), "--select", "setup"] + (["-q"] if quiet else [])
    cli.main(args, out, err)
    assert ("mafiacheck: [1/1]" in err.getvalue() and ": setup" in err.getvalue()) == shown
    assert "mafiacheck:" not in out.getvalue()


def test_stdin_for_check_and_fmt():
    text = (SPECS / "gangster.mafia").read_text(encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "mafiacheck", "check", "-", "--select", "setup"],
                          input=text, capture_output=True, text=True, encoding="utf-8", cwd=ROOT)
    assert proc.returncode == 0 and "<stdin>: gangster" in proc.stdout, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "mafiacheck", "fmt", "-"], input='scenario  t "T" {  prefix TT }\n',
                          capture_output=True, text=True, encoding="utf-8", cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout == 'scenario t "T" { prefix TT }\n', proc.stderr
    proc = subprocess.run([sys.executable, "-m", "mafiacheck", "fmt", "-", "--check"], input='scenario  t "T" { prefix TT }\n',
                          capture_output=True, text=True, encoding="utf-8", cwd=ROOT)
    assert proc.returncode == 1 and "would reformat <stdin>" in proc.stdout


def test_exit_zero_and_statistics():
    code, out, err = main("check", COUNT_MISMATCH, "--no-config", "--select", "setup", "--exit-zero")
    assert code == cli.EXIT_OK and "error[MC101]" in out
    code, out, err = main("check", ROOT / "tests/bad/binary_garbage.mafia", "--exit-zero")
    assert code == cli.EXIT_INPUT  # an unreadable input still fails
    code, out, err = main("check", COUNT_MISMATCH, "--no-config", "--select", "setup", "--statistics")
    assert code == cli.EXIT_FINDINGS
    first = out.split("\n")[0].split()
    assert first[:3] == ["1", "MC101", "composition-count-mismatch"] and "error[" not in out


def test_folders_skip_venv_gitignore_and_excludes(tmp_path):
    (tmp_path / ".git").mkdir()
    for folder in (".venv/lib", "kept", "ignored", "drafts", "kept/build"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    for name in (".venv/lib/x.mafia", "kept/a.mafia", "kept/b.mafia", "ignored/c.mafia",
                 "drafts/d.mafia", "kept/scratch.mafia", "kept/build/e.mafia"):
        (tmp_path / name).write_text(TINY, encoding="utf-8")
    (tmp_path / ".gitignore").write_text("ignored/\n*scratch*\n!kept/b.mafia\n")
    code, out, err = main("check", tmp_path, "--no-config", "--select", "setup", "--exclude", "drafts")
    checked = sorted(Path(line.split(": ")[0]).relative_to(tmp_path).as_posix()
                     for line in out.split("\n") if line.startswith(str(tmp_path)) and ": tiny" in line)
    assert checked == ["kept/a.mafia", "kept/b.mafia"], out
    # A file named outright is always checked.
    code, out, err = main("check", tmp_path / ".venv/lib/x.mafia", "--select", "setup", "--no-config")
    assert "x.mafia: tiny" in out


def test_configured_exclude(tmp_path):
    (tmp_path / "drafts").mkdir()
    (tmp_path / "a.mafia").write_text(TINY, encoding="utf-8")
    (tmp_path / "drafts/b.mafia").write_text("garbage", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.mafiacheck]\nexclude = ["drafts"]\n')
    code, out, err = main("check", tmp_path, "--select", "setup", "--config", tmp_path / "pyproject.toml")
    assert code == cli.EXIT_OK and "b.mafia" not in out, out + err


@pytest.mark.parametrize("args", [["check", "specs", "--select", "setup"],
                                  ["ask", "specs/gangster.mafia", "examples/whatif/gangster.query"]])
def test_a_clean_run_into_a_closed_pipe_exits_0(args):
    proc = subprocess.Popen([sys.executable, "-m", "mafiacheck", *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # as `| head -0` does: the report has nowhere to go
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err


def _stale_setup(tmp_path):
    spec = tmp_path / "tie.mafia"
    spec.write_text(COUNT_MISMATCH.read_text(encoding="utf-8"), encoding="utf-8")
    assert main("check", spec, "--no-config", "--select", "setup", "--write-baseline",
                tmp_path / "base.json")[0] == 0
    data = json.loads((tmp_path / "base.json").read_text())
    gone = dict(data["findings"][0], path="renamed_away.mafia", id="MC101-0000000000")
    data["findings"].append(gone)
    (tmp_path / "base.json").write_text(json.dumps(data))
    return spec


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit", "github", "text"])
def test_stale_baseline_entries_in_every_format(tmp_path, fmt):
    spec = _stale_setup(tmp_path)
    code, out, err = main("check", spec, "--no-config", "--select", "setup", "--baseline",
                          tmp_path / "base.json", "--format", fmt)
    assert code == cli.EXIT_OK, out + err
    assert "MC101-0000000000" in out and "renamed_away.mafia" in out, out


def test_github_step_summary_and_annotation_limit(tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    many = tmp_path / "many.mafia"
    roles = "".join(f"role r{i} {{ side town }}\n" for i in range(12))
    many.write_text(TINY + roles, encoding="utf-8")
    code, out, err = main("check", many, "--no-config", "--select", "setup", "--format", "github")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## mafiacheck") and "many.mafia" in text and "12 warnings" in text
    assert "12 warning annotations" in err and "GitHub shows" in out


def test_sarif_uris_are_relative_to_the_repository(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "specs").mkdir()
    spec = tmp_path / "specs" / "tie.mafia"
    spec.write_text(COUNT_MISMATCH.read_text(encoding="utf-8"), encoding="utf-8")
    elsewhere = tmp_path / "specs"
    monkeypatch.chdir(elsewhere)  # not the root: URIs must not depend on it
    code, out, err = main("check", "tie.mafia", "--no-config", "--select", "setup", "--format", "sarif")
    run = json.loads(out)["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"] for loc in r["locations"]}
    assert uris == {"specs/tie.mafia"}


def test_markdown_header_names_what_was_checked():
    code, out, err = main("check", COUNT_MISMATCH, "--no-config", "--select", "setup", "--format", "markdown")
    assert out.startswith(f"# What mafiacheck finds in `{COUNT_MISMATCH}`")
    assert "bundled" not in out.split("\n## ")[0]


def test_summary_counts_agree_across_formats():

    paths = [SPECS / "godfather_jack.mafia", COUNT_MISMATCH]
    args = ["check", *paths, "--no-config", "--select", "setup"]
    text = main(*args)[1].rstrip("\n").split("\n")[-1]
    github = main(*args, "--format", "github")[1].rstrip("\n").split("\n")[-1]
    markdown = main(*args, "--format", "markdown")[1]
    data = json.loads(main(*args, "--format", "json")[1])["summary"]
    assert github == "mafiacheck: " + text
    assert text + "." in markdown
    assert text.startswith(f"2 specs checked, {data['errors']} error")
    assert f"{data['warnings']} warning" in text


def test_citations_are_not_repeated():
    from mafiacheck.findings import Finding
    from mafiacheck.report.text import cited

    f = Finding("MC203", "undefined", "error", "open question (G2-A12)", None,
                rules=("G2-R36", "G2-A12", "G2-R36", "G2-R05"))
    assert cited(f) == " [G2-R36, G2-R05]"


def test_version_in_one_place_changelog_and_license():
    import importlib.metadata

    import mafiacheck

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject and "\nversion =" not in pyproject.split("[tool.setuptools.dynamic]")[0]
    assert importlib.metadata.version("mafiacheck") == mafiacheck.__version__
    assert f"## {mafiacheck.__version__}" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_junit_children_in_schema_order():
    """The common (Jenkins) schema: a testcase holds skipped, then error, then failure, then
    its output. A testcase with an error-level finding and an inconclusive one has both."""
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from mafiacheck.findings import Finding
    from mafiacheck.pipeline import check_file
    from mafiacheck.report import junit

    result = check_file(str(COUNT_MISMATCH), ("setup",))
    result.findings.append(Finding("MC200", "inconclusive", "error", "undecided", None,
                                   analyses=("setup",)))
    result.findings = [replace(f, analyses=f.analyses or ("setup",)) for f in result.findings]
    order = {"skipped": 0, "error": 1, "failure": 2, "system-out": 3, "system-err": 4}
    cases = list(ET.fromstring(junit.render([result])).iter("testcase"))
    tags = [[child.tag for child in case] for case in cases]
    assert ["error", "failure"] in [[t for t in ts if t in ("error", "failure")] for ts in tags]
    for ts in tags:
        assert [order[t] for t in ts] == sorted(order[t] for t in ts), ts


def test_junit_root_has_no_skipped_count_and_github_paths_are_repository_relative(tmp_path, monkeypatch):
    import xml.etree.ElementTree as ET

    (tmp_path / ".git").mkdir()
    (tmp_path / "specs").mkdir()
    spec = tmp_path / "specs" / "tie.mafia"
    spec.write_text(COUNT_MISMATCH.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path / "specs")
    out = main("check", "tie.mafia", "--no-config", "--select", "setup", "--format", "junit")[1]
    root = ET.fromstring(out)
    assert "skipped" not in root.attrib and all("skipped" in s.attrib for s in root.iter("testsuite"))
    out = main("check", "tie.mafia", "--no-config", "--select", "setup", "--format", "github")[1]
    assert "file=specs/tie.mafia," in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("option", ["--config", "--baseline"])
def test_fifo_as_configuration_or_baseline_is_refused(tmp_path, option):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    spec = spec_file(tmp_path, TINY)
    proc = _entry("check", str(spec), "--select", "setup", option, str(fifo))
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == cli.EXIT_INPUT and "not a regular file" in err, out + err


def test_a_search_that_stops_short_of_its_depth_is_not_a_pass(monkeypatch, tmp_path):
    """A question no one-round game answers is asked of longer games; when a longer game
    cannot be asked (here: as if the solver gave up on it), silence would claim more than was
    searched. Where induction from the depth reached does not close either, it is an
    inconclusive finding that names the depth reached (exit 3)."""
    from mafiacheck.analyses.encoded import Encoded
    from mafiacheck.encode import induction

    def short(self, bound):
        return "a game of 2 rounds: the solver gave up (test)" if bound > 1 else self
    monkeypatch.setattr(Encoded, "at_bound", short)
    monkeypatch.setattr(induction, "prove_absent", lambda *a, **k: (induction.STEP, None, "a state the test allows"))
    code, out, err = main("check", ROOT / "tests" / "fixtures" / "tiny.mafia", "--no-config",
                          "--select", "win-overlap")
    assert code == cli.EXIT_INCONCLUSIVE, out + err
    assert "whether two sides can win at once (composition 4, default settings, up to 1 round): no game " \
           "of up to 1 round shows it, and a longer one was not searched (a game of 2 rounds: the solver " \
           "gave up (test))" in out


@pytest.mark.parametrize("kind, spec", [
    ("contradiction", "save_against_doom_contradiction"),
    ("undefined", "unspecified_effect"),
    ("ambiguous-resolution", "hostage_takers_block_each_other"),
])
def test_every_search_that_stops_short_is_reported(monkeypatch, kind, spec):
    """The same for the analyses that search per question: each question whose search
    stopped short is an inconclusive finding, not a silent pass."""
    from dataclasses import replace

    from mafiacheck.analyses.encoded import Encoded

    real = Encoded.search_after_clean

    def unanswered(self, conditions_at):
        found = real(self, conditions_at)
        return replace(found, status="unsat", t=None, result=None, gave_up="the solver gave up (test)")
    monkeypatch.setattr(Encoded, "search_after_clean", unanswered)
    code, out, err = main("check", ROOT / "examples" / "broken" / f"{spec}.mafia", "--no-config",
                          "--select", kind)
    assert code == cli.EXIT_INCONCLUSIVE, out + err
    assert "and a longer one was not searched (the solver gave up (test))" in out
