"""Machine-readable reports of `check`: SARIF 2.1.0 (validated against the official schema),
JUnit XML and GitHub Actions workflow commands; and `explain` for every registry code."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from mafiacheck import registry
from mafiacheck.cli import main
from mafiacheck.findings import Finding, Related, Suppression
from mafiacheck.pipeline import ANALYSES, ENCODED, FileResult
from mafiacheck.report import explain, github, junit, sarif
from mafiacheck.source import Span

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
EXPECT = re.compile(r"^#\s*expect:\s*(MC\d{3})\s+([a-z-]+)", re.M)

# Two roles in no composition on one Persian line (MC107 twice), a composition that does not
# add up (MC101), and acknowledgements of the first two findings.
PERSIAN = '''scenario kuchak "کوچک" { prefix KU }
side town "شهروندان" town
side mafia "مافیا" dark
role boss "رئیس" { side mafia }
role citizen "شهروند" { side town  plain }
composition 4 { boss, citizen * 3 }
composition 5 { boss, citizen * 3 }
kind shot "تیر شب"
ability shot "تیر" { by boss  at night  target where target.alive  effect kill shot }
phases { start intro_night  cycle day, night }
day { vote majority  tie no_exit }
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town)
role پزشک "پزشک" { side town }   role نگهبان "نگهبان" { side town }
acknowledge MC101 "the app seats five with a spare citizen"
acknowledge MC107 on پزشک "the doctor comes with the expansion"
'''
PERSIAN_LINE = 14
GUARD_DECL = 'role نگهبان "نگهبان" { side town }'


def check(*args: str, cwd: Path = ROOT) -> tuple[int, str]:
    """`mafiacheck check ARGS`, in-process through the CLI's entry function."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(["check", *args], out, err)
    finally:
        os.chdir(old)
    return code, out.getvalue() + err.getvalue()


_RESULTS: dict = {}


def cached(*args: str) -> tuple[int, str]:
    """As `check`, through the CLI's own stages, but runs that differ only in --format share
    one analysis (the slow part)."""
    from mafiacheck import cli

    at = args.index("--format")
    fmt, rest = args[at + 1], args[:at] + args[at + 2:]
    if rest not in _RESULTS:
        old = os.getcwd()
        os.chdir(ROOT)
        try:
            parsed = cli.build_parser().parse_args(["check", *rest])
            _RESULTS[rest] = cli.check_results(parsed.paths, cli.plan_check(parsed))
        finally:
            os.chdir(old)
    results = _RESULTS[rest]
    return cli.exit_code(results), cli.CHECK_FORMATS[fmt](results)


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The console script itself, as CI calls it."""
    exe = shutil.which("mafiacheck")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "mafiacheck", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, encoding="utf-8")


def validate(log: dict) -> None:
    validator = jsonschema.Draft4Validator(SCHEMA)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])
    # The schema's "uri" formats are not checked without extra packages: check ours here.
    for loc in _artifact_locations(log):
        uri = loc["uri"]
        assert re.fullmatch(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+", uri), uri
        assert ("uriBaseId" in loc) != uri.startswith("file:///"), loc


def _artifact_locations(node):
    if isinstance(node, dict):
        if "artifactLocation" in node:
            yield node["artifactLocation"]
        for value in node.values():
            yield from _artifact_locations(value)
    elif isinstance(node, list):
        for value in node:
            yield from _artifact_locations(value)


@pytest.fixture(scope="module")
def persian(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("fa")
    (folder / "specs").mkdir()
    (folder / "specs" / "kuchak.mafia").write_text(PERSIAN, encoding="utf-8")
    return folder


# --- SARIF ---------------------------------------------------------------------------------

def test_sarif_of_bundled_spec_validates_and_matches_the_json_report():
    args = ("specs/commando.mafia", "--select", "setup,undefined", "--bound", "1")
    code, text = cached(*args, "--format", "sarif")
    log = json.loads(text)
    validate(log)
    jcode, jtext = cached(*args, "--format", "json")
    findings = json.loads(jtext)["files"][0]["findings"]
    assert code == jcode == 1
    run = log["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]
    driver = run["tool"]["driver"]
    assert driver["name"] == "mafiacheck" and driver["version"] and driver["informationUri"]
    rules = driver["rules"]
    assert [r["id"] for r in rules] == sorted(registry.CODES)
    results = run["results"]
    assert [r["ruleId"] for r in results] == [f["code"] for f in findings] and results
    for result, finding in zip(results, findings):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == {"error": "error", "warning": "warning", "info": "note"}[finding["severity"]]
        assert result["message"]["text"].startswith(finding["message"])
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"] == {"uri": "specs/commando.mafia", "uriBaseId": "%SRCROOT%"}
        span = finding["span"]
        assert loc["region"] == {"startLine": span["line"], "startColumn": span["column"],
                                 "endLine": span["end_line"], "endColumn": span["end_column"]}
        if finding["id"]:
            assert result["partialFingerprints"] == {"mafiacheck/v1": finding["id"]}
        else:
            assert "partialFingerprints" not in result
        assert "suppressions" not in result
    # The undefined tie is shown with its witness game: one step per phase, with its log.
    tie = next(r for r, f in zip(results, findings)
               if f["witness"] and f["witness"].get("log") and "tied vote" in f["message"])
    finding = findings[results.index(tie)]
    steps = tie["codeFlows"][0]["threadFlows"][0]["locations"]
    phases = [p["phase"] for p in finding["witness"]["phases"]]
    assert [s["location"]["message"]["text"].split(":\n")[0] for s in steps] == phases
    shown = "\n".join(s["location"]["message"]["text"] for s in steps)
    for line in finding["witness"]["log"]:
        assert line.strip() in shown
    # A phase with a vote points at the day's rules, not at the finding.
    commando = (ROOT / "specs" / "commando.mafia").read_text(encoding="utf-8").split("\n")
    voting = [s for s in steps if "choices: " in s["location"]["message"]["text"]
              and "vote" in s["location"]["message"]["text"].split("choices: ")[1].split("\n")[0]]
    assert voting
    for step in voting:
        start = step["location"]["physicalLocation"]["region"]["startLine"]
        assert commando[start - 1].lstrip().startswith(("day", "ability")), commando[start - 1]


def test_every_rule_is_documented_in_four_sections():
    _, text = cached("specs/commando.mafia", "--select", "setup,undefined", "--bound", "1",
                     "--format", "sarif")
    rules = {r["id"]: r for r in json.loads(text)["runs"][0]["tool"]["driver"]["rules"]}
    assert set(rules) == set(registry.CODES)
    for code, doc in registry.CODES.items():
        rule = rules[code]
        assert rule["name"] == doc.name and rule["fullDescription"]["text"] == doc.summary
        assert doc.summary.startswith(rule["shortDescription"]["text"])
        assert rule["defaultConfiguration"]["level"] == {"error": "error", "warning": "warning",
                                                         "info": "note"}[doc.severity]
        for heading, body in zip(explain.SECTIONS, (doc.summary, doc.why, doc.example, doc.fix)):
            assert f"### {heading}\n\n" in rule["help"]["markdown"], (code, heading)
            assert body in rule["help"]["markdown"], (code, heading)
        assert rule["help"]["text"] == explain.text(doc)


def test_sarif_of_an_input_error_validates(tmp_path):
    bad = tmp_path / "bad.mafia"
    bad.write_text('scenario x "یک" {\n  prefix X\n  role\n', encoding="utf-8")
    code, text = check(str(bad), "missing.mafia", "examples/broken/composition_count_mismatch.mafia",
                       "--select", "setup", "--format", "sarif")
    assert code == 2
    log = json.loads(text)
    validate(log)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    notes = invocation["toolExecutionNotifications"]
    assert len(notes) == 2 and all(n["level"] == "error" for n in notes)
    missing, syntax = notes
    assert missing["message"]["text"] == "no such file or folder"
    assert missing["locations"][0]["physicalLocation"]["artifactLocation"] == \
        {"uri": "missing.mafia", "uriBaseId": "%SRCROOT%"}
    where = syntax["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == bad.resolve().as_uri()  # outside the working dir
    assert where["region"] == {"startLine": 3, "startColumn": 3, "endLine": 3, "endColumn": 7}
    assert "unexpected 'role'" in syntax["message"]["text"]
    # The readable spec is still reported.
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in log["runs"][0]["results"]} == {"examples/broken/composition_count_mismatch.mafia"}


def test_sarif_columns_count_code_points_on_a_persian_line(persian):
    # Through the console script, from the folder holding the spec, as a CI job runs it.
    r = run_cli("check", "specs", "--select", "setup", "--format", "sarif", cwd=persian)
    assert r.returncode == 0, r.stderr  # the only error is acknowledged
    log = json.loads(r.stdout)
    validate(log)
    line = PERSIAN.split("\n")[PERSIAN_LINE - 1]
    by_message = {res["message"]["text"]: res for res in log["runs"][0]["results"]}
    guard = by_message["role نگهبان is in no composition"]
    region = guard["locations"][0]["physicalLocation"]["region"]
    start = line.index(GUARD_DECL) + 1
    assert start == 34 and len(line[: start - 1].encode("utf-8")) + 1 == 42  # bytes differ
    assert region == {"startLine": PERSIAN_LINE, "startColumn": start,
                      "endLine": PERSIAN_LINE, "endColumn": start + len(GUARD_DECL)}
    assert line[region["startColumn"] - 1: region["endColumn"] - 1] == GUARD_DECL
    assert guard["locations"][0]["physicalLocation"]["artifactLocation"] == \
        {"uri": "specs/kuchak.mafia", "uriBaseId": "%SRCROOT%"}
    assert "suppressions" not in guard and guard["level"] == "warning"
    assert guard["partialFingerprints"]["mafiacheck/v1"].startswith("MC107")


def test_sarif_suppressed_findings_carry_suppressions(persian):
    code, text = check("specs", "--select", "setup", "--format", "sarif", cwd=persian)
    results = json.loads(text)["runs"][0]["results"]
    suppressed = {r["ruleId"]: r for r in results if "suppressions" in r}
    assert set(suppressed) == {"MC101", "MC107"}
    (s101,) = suppressed["MC101"]["suppressions"]
    assert s101["kind"] == "inSource" and s101["status"] == "accepted"
    assert s101["justification"] == "the app seats five with a spare citizen"
    assert s101["location"]["physicalLocation"]["region"]["startLine"] == 15
    (s107,) = suppressed["MC107"]["suppressions"]
    assert s107["justification"] == "the doctor comes with the expansion"
    assert "پزشک" in suppressed["MC107"]["message"]["text"]
    assert code == 0


def test_sarif_baseline_suppression_is_external():
    f = Finding("MC203", "undefined", "error", "a hole", Span("s.mafia", 1, 1, 1, 5),
                id="MC203-0123456789", suppression=Suppression("baseline", "recorded in ci/baseline.json"))
    log = sarif.to_sarif([FileResult("s.mafia", findings=[f])])
    validate(log)
    (result,) = log["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "external", "status": "accepted",
                                       "justification": "recorded in ci/baseline.json"}]
    assert result["partialFingerprints"] == {"mafiacheck/v1": "MC203-0123456789"}
    unfingered = sarif.to_sarif([FileResult("s.mafia", findings=[Finding(
        "MC203", "undefined", "error", "a hole", None, (Related("here", None),))])])
    validate(unfingered)
    (result,) = unfingered["runs"][0]["results"]
    assert "partialFingerprints" not in result and "suppressions" not in result
    assert "region" not in result["locations"][0]["physicalLocation"]


def test_sarif_code_flow_steps_follow_the_witness():
    witness = {"script": "query w {}", "phases": [{"phase": "night 1", "choices": ["hostage by @1 on @3"]}],
               "log": ["night 1:", "  choices: hostage by @1 on @3", "  @3 (Guard) is blocked"],
               "outcomes": [["order: Hostage → Shield", "@3 (Guard) is blocked"],
                            ["order: Shield → Hostage", "nobody leaves"]]}
    span = Span("s.mafia", 4, 9, 4, 16)
    f = Finding("MC207", "ambiguous-order", "error", "no declared order", span, witness=witness)
    log = sarif.to_sarif([FileResult("s.mafia", findings=[f])])
    validate(log)
    (result,) = log["runs"][0]["results"]
    steps = [s["location"] for s in result["codeFlows"][0]["threadFlows"][0]["locations"]]
    assert [s["message"]["text"] for s in steps] == [
        "night 1:\nchoices: hostage by @1 on @3\n@3 (Guard) is blocked",
        "outcome 1 of the last phase:\norder: Hostage → Shield\n@3 (Guard) is blocked",
        "outcome 2 of the last phase:\norder: Shield → Hostage\nnobody leaves"]
    # No scenario to find the ability in: every step points at the finding.
    assert all(s["physicalLocation"]["region"]["startLine"] == 4 for s in steps)
    assert result["properties"]["witnessScript"] == "query w {}"


# --- JUnit ---------------------------------------------------------------------------------

def _cases(suite: ET.Element) -> dict[str, ET.Element]:
    return {c.get("name"): c for c in suite.findall("testcase")}


@pytest.mark.parametrize("name", ["jack_and_town_win_together", "nested_delay_unsupported"])
def test_junit_of_a_broken_example(name):
    path = f"examples/broken/{name}.mafia"
    declared = EXPECT.findall((ROOT / path).read_text(encoding="utf-8"))
    assert declared
    code, text = cached(path, "--format", "junit")
    jcode, jtext = cached(path, "--format", "json")
    assert code == jcode
    findings = json.loads(jtext)["files"][0]["findings"]
    assert {(f["code"], f["kind"]) for f in findings} >= set(declared)
    root = ET.fromstring(text)
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == path
    cases = _cases(suite)
    assert list(cases) == list(ANALYSES)
    assert all(c.get("classname") == path for c in cases.values())
    failed, errored = set(), set()
    for f in findings:
        if f["kind"] == "inconclusive":
            internal = re.match(r"internal error in the ([a-z-]+) analysis", f["message"])
            # An analysis that failed is in error; when the encoding itself was refused, every
            # solver analysis is: an undecided question is never a pass.
            for kind in [internal.group(1)] if internal else ENCODED:
                assert f["message"] in cases[kind].find("error").text
                errored.add(kind)
        elif f["severity"] == "error":
            failure = cases[f["kind"]].find("failure")
            assert f["message"] in failure.text and f["code"] in failure.get("type")
            failed.add(f["kind"])
        else:
            assert f["message"] in cases[f["kind"]].find("system-out").text
    for kind, case in cases.items():
        assert (case.find("failure") is not None) == (kind in failed), kind
        assert (case.find("error") is not None) == (kind in errored), kind
    assert suite.get("failures") == str(len(failed)) and suite.get("errors") == str(len(errored))
    assert suite.get("tests") == str(len(ANALYSES))


def test_junit_failure_carries_the_witness_as_the_moderators_log():
    path = "examples/broken/jack_and_town_win_together.mafia"
    code, text = cached(path, "--format", "junit")
    _, jtext = cached(path, "--format", "json")
    (finding,) = [f for f in json.loads(jtext)["files"][0]["findings"] if f["kind"] == "win-overlap"]
    failure = _cases(ET.fromstring(text).find("testsuite"))["win-overlap"].find("failure")
    assert code == 1 and finding["witness"]["log"]
    assert "witness (the shortest game, replayed by the interpreter):" in failure.text
    for line in finding["witness"]["log"]:
        assert line in failure.text
    for related in finding["related"]:
        assert related["message"] in failure.text


def test_junit_input_error_and_suppressed_findings(persian):
    bad = persian / "bad.mafia"
    bad.write_text("scenario x {\n  prefix X\n  role\n", encoding="utf-8")
    try:
        r = run_cli("check", "specs", "bad.mafia", "--select", "setup", "--format", "junit",
                    cwd=persian)
    finally:
        bad.unlink()
    assert r.returncode == 2, r.stderr
    root = ET.fromstring(r.stdout)
    spec, broken = root.findall("testsuite")
    assert broken.get("name") == "bad.mafia"
    (case,) = broken.findall("testcase")
    assert case.get("name") == "input" and "unexpected 'role'" in case.find("error").text
    # The acknowledged error is listed, and does not fail; the warnings are listed too.
    cases = _cases(spec)
    assert list(cases) == ["setup"]
    setup = cases["setup"]
    assert setup.find("failure") is None and setup.find("error") is None
    out = setup.find("system-out").text
    assert "role نگهبان is in no composition" in out  # a warning, Persian intact
    assert "suppressed (acknowledged: the app seats five with a spare citizen)" in out
    assert "suppressed (acknowledged: the doctor comes with the expansion)" in out
    assert root.get("tests") == "2" and root.get("failures") == "0" and root.get("errors") == "1"


def test_junit_inconclusive_attribution_and_unprintable_characters():
    span = Span("s.mafia", 2, 1, 2, 4)
    internal = Finding("MC200", "inconclusive", "error",
                       "internal error in the dead-rule analysis (KeyError: 'x\x01')", span,
                       analyses=("dead-rule",))
    other = Finding("MC200", "inconclusive", "error", "whether rule r can apply: the solver gave up", span)
    warning = Finding("MC201", "unreachable-win", "warning", "Town cannot win within the bound", span)
    result = FileResult("s.mafia", findings=[warning, internal, other],
                        analyses=("unreachable-win", "dead-rule"))
    root = ET.fromstring(junit.render([result]))
    cases = _cases(root.find("testsuite"))
    assert list(cases) == ["unreachable-win", "dead-rule", "inconclusive"]
    assert cases["unreachable-win"].find("error") is None
    assert "Town cannot win" in cases["unreachable-win"].find("system-out").text
    assert "KeyError: 'x\ufffd'" in cases["dead-rule"].find("error").text
    assert "the solver gave up" in cases["inconclusive"].find("error").text
    assert root.get("errors") == "2" and root.get("failures") == "0"


# --- GitHub workflow commands ----------------------------------------------------------------

COMMAND = re.compile(r"^::(error|warning|notice)( [^:]*)?::(.*)$")


def _decode(text: str) -> str:
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace(
        "%2C", ",").replace("%25", "%")


def _parse(line: str) -> tuple[str, dict, str]:
    m = COMMAND.match(line)
    assert m, line
    props = {}
    for item in (m.group(2) or "").strip().split(","):
        if item:
            key, value = item.split("=", 1)
            props[key] = _decode(value)
    assert "\n" not in m.group(3) and "\r" not in m.group(3)
    return m.group(1), props, _decode(m.group(3))


def test_github_escaping():
    assert github.escape_data("50% a:b, c\r\nd") == "50%25 a:b, c%0D%0Ad"
    assert github.escape_property("50% a:b, c\r\nd") == "50%25 a%3Ab%2C c%0D%0Ad"
    line = github.command("error", "x%y\nz", file="a,b:c.mafia", line=3, title="MC1 t: u")
    assert line == "::error file=a%2Cb%3Ac.mafia,line=3,title=MC1 t%3A u::x%25y%0Az"
    assert _parse(line) == ("error", {"file": "a,b:c.mafia", "line": "3", "title": "MC1 t: u"}, "x%y\nz")
    # Columns only on one line; GitHub's end column is inclusive.
    assert github.location("s.mafia", Span("s.mafia", 2, 3, 2, 9)) == \
        {"file": "s.mafia", "line": 2, "endLine": 2, "col": 3, "endColumn": 8}
    assert github.location("s.mafia", Span("s.mafia", 2, 3, 5, 2)) == \
        {"file": "s.mafia", "line": 2, "endLine": 5}


def test_github_annotations_of_a_broken_example():
    path = "examples/broken/jack_and_town_win_together.mafia"
    code, text = cached(path, "--format", "github")
    _, jtext = cached(path, "--format", "json")
    findings = json.loads(jtext)["files"][0]["findings"]
    lines = text.rstrip("\n").split("\n")
    assert code == 1 and len(lines) == len(findings) + 1
    for line, f in zip(lines, findings):
        level, props, message = _parse(line)
        assert level == {"info": "notice"}.get(f["severity"], f["severity"])
        assert props["file"] == path and props["title"] == f"{f['code']} {registry.CODES[f['code']].name}"
        span = f["span"]
        assert props["line"] == str(span["line"]) and props["endLine"] == str(span["end_line"])
        if span["line"] == span["end_line"]:
            assert props["col"] == str(span["column"])
            assert props["endColumn"] == str(span["end_column"] - 1)
        assert message.startswith(f["message"])
        for log_line in (f["witness"] or {}).get("log", []):
            assert log_line in message
    errors = sum(f["severity"] == "error" for f in findings)
    warnings = sum(f["severity"] == "warning" for f in findings)
    assert errors >= 1
    assert lines[-1] == (f"mafiacheck: 1 spec checked, {errors} error{'s' if errors != 1 else ''}, "
                         f"{warnings} warning{'s' if warnings != 1 else ''}")  # as the text report says


def test_github_suppressed_findings_are_notices(persian, tmp_path):
    weird = tmp_path / "a,b:c.mafia"
    weird.write_text(PERSIAN.replace("acknowledge MC101", "# acknowledge MC101"), encoding="utf-8")
    r = run_cli("check", "specs", str(weird), "--select", "setup", "--format", "github", cwd=persian)
    assert r.returncode == 1, r.stderr
    parsed = [_parse(line) for line in r.stdout.rstrip("\n").split("\n")[:-1]]
    mine = [p for p in parsed if p[1]["file"] == "specs/kuchak.mafia"]
    theirs = [p for p in parsed if p[1]["file"] == str(weird)]
    assert sorted(level for level, _, _ in mine) == ["notice", "notice", "warning"]
    notices = [p for p in mine if p[0] == "notice"]
    assert {p[1]["title"] for p in notices} == {"MC101 composition-count-mismatch (acknowledged)",
                                                "MC107 role-unused (acknowledged)"}
    assert any("the doctor comes with the expansion" in p[2] for p in notices)
    # The unacknowledged count mismatch fails, in a file whose name needs escaping.
    assert sorted(level for level, _, _ in theirs) == ["error", "notice", "warning"]
    assert r.stdout.rstrip("\n").split("\n")[-1] == \
        "mafiacheck: 2 specs checked, 1 error, 2 warnings (3 acknowledged not counted)"
    assert "a%2Cb%3Ac.mafia" in r.stdout


# --- explain ---------------------------------------------------------------------------------

def test_explain_documents_every_registry_code():
    # Iterates the registry: codes added later are held to the same standard.
    assert len(registry.CODES) >= 19
    for code, doc in registry.CODES.items():
        for field in ("kind", "name", "severity", "summary", "why", "example", "fix"):
            assert getattr(doc, field).strip(), (code, field)
        assert doc.severity in ("error", "warning", "info"), code
        out, err = io.StringIO(), io.StringIO()
        assert main(["explain", code.lower()], out, err) == 0, err.getvalue()
        text = out.getvalue()
        assert text.startswith(f"{code} {doc.name} ({doc.kind}, {doc.severity})\n")
        bodies = (doc.summary, doc.why, doc.example, doc.fix)
        positions = []
        for heading, body in zip(explain.SECTIONS, bodies):
            indented = "\n".join(f"  {line}" for line in body.splitlines())
            block = f"\n{heading}\n{indented}\n"
            assert block in text, (code, heading)
            positions.append(text.index(block))
        assert positions == sorted(positions), code
