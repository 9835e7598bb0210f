"""The CI gate: stable finding ids, acknowledgements in the spec, baselines, configuration.

Each test edits a small real scenario (examples/broken/tie_without_tie_rule.mafia: a tied vote
the rules leave undecided) and runs `mafiacheck check` through its entry point.
"""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mafiacheck.cli import main

ROOT = Path(__file__).resolve().parent.parent
TIE = (ROOT / "examples" / "broken" / "tie_without_tie_rule.mafia").read_text(encoding="utf-8")
FAST = ["--select", "setup,undefined"]
# A second hole for "a new finding": the doctor's heal becomes an unspecified effect.
NEW_HOLE = TIE.replace('effect save from shot }', 'effect unspecified "what the heal does" }')


def check(*args, cwd):
    out, err = io.StringIO(), io.StringIO()
    import os
    here = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(["check", *args], out=out, err=err)
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def findings(*args, cwd):
    code, out, err = check(*args, "--format", "json", cwd=cwd)
    assert err == "" or "recorded" in err, err
    return code, [f for file in json.loads(out)["files"] for f in file["findings"]]


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "tie.mafia"
    path.write_text(TIE, encoding="utf-8")
    return path


# ------------------------------------------------------------------ stable ids

def test_ids_survive_edits_elsewhere_and_change_with_the_finding(spec, tmp_path):
    _, before = findings(spec.name, *FAST, cwd=tmp_path)
    assert [f["code"] for f in before] == ["MC203"] and before[0]["id"].startswith("MC203-")
    moved = "# a new comment\n\n" + TIE.replace("kind shot", "# shots\nkind shot")
    moved = moved.replace('role citizen', 'role extra "Extra" { side town }\nrole citizen')
    spec.write_text(moved, encoding="utf-8")
    _, after = findings(spec.name, *FAST, cwd=tmp_path)
    assert after[0]["span"]["line"] != before[0]["span"]["line"]
    assert [f["id"] for f in after if f["code"] == "MC203"] == [before[0]["id"]]
    # the day the finding is about is edited: it is another finding now
    spec.write_text(TIE.replace("vote majority  exits 1", "vote majority  exits 2"), encoding="utf-8")
    _, edited = findings(spec.name, *FAST, cwd=tmp_path)
    assert edited[0]["id"] != before[0]["id"]


def test_ids_do_not_depend_on_the_bound(spec, tmp_path):
    _, one = findings(spec.name, "--select", "undefined", "--bound", "1", cwd=tmp_path)
    _, two = findings(spec.name, "--select", "undefined", "--bound", "2", cwd=tmp_path)
    assert "up to 1 round" in one[0]["message"] and "up to 2 rounds" in two[0]["message"]
    assert one[0]["id"] == two[0]["id"]


def test_ids_are_unique_in_a_file(tmp_path):
    spec = ROOT / "specs" / "godfather_jack.mafia"
    _, found = findings(str(spec), "--select", "setup", cwd=tmp_path)
    ids = [f["id"] for f in found]
    assert len(ids) == len(set(ids)) >= 2


# ------------------------------------------------------------------ acknowledgements

def test_an_acknowledged_finding_is_counted_but_passes(spec, tmp_path):
    spec.write_text(TIE + '\nacknowledge MC203 on day "ties are left to the moderator"\n',
                    encoding="utf-8")
    code, out, _ = check(spec.name, *FAST, cwd=tmp_path)
    assert code == 0
    assert "0 errors, 0 warnings (1 acknowledged not counted)" in out
    assert "--show-suppressed" in out and "tied vote" not in out
    code, out, _ = check(spec.name, *FAST, "--show-suppressed", cwd=tmp_path)
    assert code == 0 and "tied vote" in out
    assert "(acknowledged at line 25: ties are left to the moderator)" in out
    _, found = findings(spec.name, *FAST, cwd=tmp_path)
    assert found[0]["suppression"]["kind"] == "acknowledged"
    assert found[0]["suppression"]["span"]["line"] == 25


def test_an_acknowledgement_names_what_it_accepts(spec, tmp_path):
    # `on heal` does not contain the tie: the finding still fails, the acknowledgement is stale
    spec.write_text(TIE + '\nacknowledge MC203 on heal "not this one"\n', encoding="utf-8")
    code, found = findings(spec.name, *FAST, cwd=tmp_path)
    assert code == 1
    assert [(f["code"], f["suppression"]) for f in found] == [("MC203", None), ("MC300", None)]
    assert found[1]["message"] == "the acknowledgement of MC203 on heal matches no finding"
    assert found[1]["severity"] == "warning" and found[1]["span"]["line"] == 25


def test_a_stale_acknowledgement_is_reported_only_when_its_kind_was_searched(spec, tmp_path):
    spec.write_text(TIE + '\nacknowledge MC207 "no such finding"\n', encoding="utf-8")
    _, found = findings(spec.name, *FAST, cwd=tmp_path)
    assert "MC300" not in [f["code"] for f in found]  # ambiguous-order did not run
    _, found = findings(spec.name, "--select", "ambiguous-order", cwd=tmp_path)
    assert [f["code"] for f in found] == ["MC300"]


@pytest.mark.parametrize("line, message", [
    ('acknowledge MC999 on day "x"', "4:13: error: unknown finding code 'MC999'"),
    ('acknowledge MC200 "x"', "an inconclusive result cannot be acknowledged"),
    ('acknowledge MC203 on nobody "x"', "unknown declared name 'nobody'"),
    ('acknowledge MC203 on day', "expected"),
])
def test_bad_acknowledgements_are_input_errors(tmp_path, line, message):
    spec = tmp_path / "tie.mafia"
    lines = TIE.split("\n")
    spec.write_text("\n".join(lines[:3] + [line] + lines[3:]), encoding="utf-8")
    code, out, err = check(spec.name, *FAST, cwd=tmp_path)
    assert code == 2
    assert message in out + err


# ------------------------------------------------------------------ baselines

def test_a_baseline_passes_old_findings_and_fails_new_ones(spec, tmp_path):
    code, _, err = check(spec.name, *FAST, "--write-baseline", "base.json", cwd=tmp_path)
    assert code == 0 and "1 finding recorded in base.json" in err
    data = json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))
    assert [(e["path"], e["code"]) for e in data["findings"]] == [("tie.mafia", "MC203")]

    code, out, _ = check(spec.name, *FAST, "--baseline", "base.json", cwd=tmp_path)
    assert code == 0 and "(1 baselined not counted)" in out

    spec.write_text(NEW_HOLE, encoding="utf-8")
    code, found = findings(spec.name, *FAST, "--baseline", "base.json", cwd=tmp_path)
    assert code == 1
    gating = [f for f in found if f["suppression"] is None]
    assert len(gating) == 1 and "what the heal does" in gating[0]["message"]
    assert [f for f in found if f["suppression"]][0]["message"].startswith(
        "the rules do not decide what a tied vote does")


def test_a_baseline_reads_the_same_from_another_directory(spec, tmp_path):
    check(spec.name, *FAST, "--write-baseline", "base.json", cwd=tmp_path)
    sub = tmp_path / "elsewhere"
    sub.mkdir()
    code, out, _ = check("../tie.mafia", *FAST, "--baseline", "../base.json", cwd=sub)
    assert code == 0 and "1 baselined" in out


def test_a_fixed_finding_is_reported_as_gone_from_the_baseline(spec, tmp_path):
    check(spec.name, *FAST, "--write-baseline", "base.json", cwd=tmp_path)
    spec.write_text(TIE.replace("exits 1 }", "exits 1  tie no_exit }"), encoding="utf-8")
    code, out, _ = check(spec.name, *FAST, "--baseline", "base.json", cwd=tmp_path)
    assert code == 0
    assert "baselined MC203 no longer found: the rules do not decide what a tied vote does" in out
    assert "1 baselined finding no longer found (refresh the baseline with --write-baseline)" in out


def test_inconclusive_results_are_never_baselined(tmp_path):
    spec = tmp_path / "tie.mafia"
    spec.write_text(TIE, encoding="utf-8")
    code, _, _ = check(spec.name, "--select", "undefined", "--rlimit", "1",
                       "--write-baseline", "base.json", cwd=tmp_path)
    assert code == 3
    assert json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))["findings"] == []


@pytest.mark.parametrize("content, message", [
    ("{", "is not JSON: Expecting property name enclosed in double quotes at line 1, column 2"),
    ('{"version": 7, "findings": []}', 'expected {"version": 1, "findings": [...]}'),
    ('{"version": 1, "findings": [{"id": 3}]}', "entry 1 needs a string `path` and `id`"),
])
def test_a_bad_baseline_is_an_input_error(spec, tmp_path, content, message):
    (tmp_path / "base.json").write_text(content, encoding="utf-8")
    code, _, err = check(spec.name, *FAST, "--baseline", "base.json", cwd=tmp_path)
    assert code == 2 and message in err


def test_an_unwritable_baseline_is_an_input_error(spec, tmp_path):
    code, _, err = check(spec.name, *FAST, "--write-baseline", str(tmp_path / "no" / "base.json"),
                         cwd=tmp_path)
    assert code == 2 and "cannot write" in err


def test_a_missing_baseline_is_an_input_error(spec, tmp_path):
    code, _, err = check(spec.name, *FAST, "--baseline", "nope.json", cwd=tmp_path)
    assert code == 2 and "baseline nope.json: cannot be read" in err


# ------------------------------------------------------------------ configuration

def pyproject(tmp_path, body):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"x\"\n\n[tool.mafiacheck]\n" + body,
                                             encoding="utf-8")


def test_configuration_sets_defaults_and_flags_win(spec, tmp_path):
    pyproject(tmp_path, 'select = ["setup", "undefined"]\nbound = 2\n'
                        '[tool.mafiacheck.severity]\nMC203 = "warning"\n')
    sub = tmp_path / "deeper"
    sub.mkdir()
    code, found = findings("../tie.mafia", cwd=sub)  # found from a subfolder
    assert code == 0
    assert [(f["code"], f["severity"]) for f in found] == [("MC203", "warning")]
    assert "up to 2 rounds" in found[0]["message"]
    _, found = findings("../tie.mafia", "--bound", "1", cwd=sub)
    assert "up to 1 round" in found[0]["message"]
    code, found = findings("../tie.mafia", "--no-config", "--select", "undefined", cwd=sub)
    assert code == 1 and found[0]["severity"] == "error"


def test_configured_baseline_is_relative_to_the_pyproject(spec, tmp_path):
    check(spec.name, *FAST, "--write-baseline", "base.json", cwd=tmp_path)
    pyproject(tmp_path, 'baseline = "base.json"\nselect = "setup,undefined"\n')
    sub = tmp_path / "deeper"
    sub.mkdir()
    code, out, _ = check("../tie.mafia", cwd=sub)
    assert code == 0 and "1 baselined" in out


@pytest.mark.parametrize("body, message", [
    ("bund = 2\n", "pyproject.toml:5:1: error: [tool.mafiacheck] has an unknown key 'bund'"),
    ("bound = 2\nslect = []\n", "did you mean 'select'?"),
    ('bound = "2"\n', "pyproject.toml:5:1: error: [tool.mafiacheck] `bound` must be an integer, not str"),
    ("bound = 40\n", "`bound` must be between 1 and 20"),
    ('select = ["stalemates"]\n', "`select` names an unknown analysis kind 'stalemates'"),
    ('[tool.mafiacheck.severity]\nMC200 = "warning"\n', "its severity cannot be lowered"),
    ('[tool.mafiacheck.severity]\nMC203 = "fatal"\n', "must be one of error, warning, info"),
    ('[tool.mafiacheck.severity]\nMC999 = "error"\n', "unknown finding code 'MC999'"),
    ("bound = \n", "is not valid TOML"),
])
def test_bad_configuration_is_an_input_error(spec, tmp_path, body, message):
    pyproject(tmp_path, body)
    code, out, err = check(spec.name, cwd=tmp_path)
    assert code == 2, out
    assert message in err


def test_explicit_config_file_and_the_real_entry_point(spec, tmp_path):
    conf = tmp_path / "conf"
    conf.mkdir()
    pyproject(conf, 'select = ["setup"]\n')
    proc = subprocess.run([sys.executable, "-m", "mafiacheck", "check", spec.name, "--config",
                           str(conf / "pyproject.toml")], cwd=tmp_path, capture_output=True,
                          text=True, encoding="utf-8")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no findings" in proc.stdout


def test_output_writes_the_report_to_a_file_and_keeps_the_exit_code(spec, tmp_path):
    code, out, _ = check(spec.name, *FAST, "--format", "json", "--output", "r.json", cwd=tmp_path)
    assert code == 1 and out == ""
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [f["code"] for f in data["files"][0]["findings"]] == ["MC203"]
    code, _, err = check(spec.name, *FAST, "--output", str(tmp_path / "no" / "such" / "r"),
                         cwd=tmp_path)
    assert code == 2 and "cannot write" in err
