"""The bundled rulebooks beyond the seeds (examples/rulebooks/): each checks at the default
depth without an inconclusive (MC200) or internal (MC900) finding, its what-if file passes, and
its findings are the ones its digest leads one to expect."""

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import golden
from mafiacheck.pipeline import load
from mafiacheck.query_text import load_queries

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = ROOT / "examples" / "rulebooks"


def check(spec: Path) -> tuple[list[dict], float]:
    began = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "mafiacheck", "check", str(spec), "--format", "json"],
                         capture_output=True, text=True, check=False, cwd=ROOT)
    assert out.returncode in (0, 1), out.stderr or out.stdout
    return json.loads(out.stdout)["files"][0]["findings"], time.monotonic() - began


def ask(spec: Path, queries: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mafiacheck", "ask", str(spec), str(queries)],
                          capture_output=True, text=True, check=False, cwd=ROOT)


def test_c9_checks_cleanly_and_reports_the_open_tie():
    findings, seconds = check(RULEBOOKS / "c9.mafia")
    assert not [f for f in findings if f["code"] in ("MC200", "MC900")], findings
    # The one finding: the sources never say what a tied lynch vote does (C9-A06).
    assert [(f["code"], f["rules"]) for f in findings] == [("MC203", ["C9-R11", "C9-A06"])]
    (tie,) = findings
    assert "what a tied vote does" in tie["message"] and "composition 7 cop_doctor" in tie["message"]
    assert tie["witness"]["replay"]["verdict"] == "undefined"
    assert seconds < 60


def test_c9_whatif_cases_pass():
    out = ask(RULEBOOKS / "c9.mafia", ROOT / "examples" / "whatif" / "c9.query")
    assert "EXPECTATION FAILED" not in out.stdout, out.stdout
    assert out.returncode == 0, out.stderr
    # Every alternative is played by some case.
    text = (ROOT / "examples" / "whatif" / "c9.query").read_text(encoding="utf-8")
    assert {"cop_doctor", "cop_only", "doctor_only", "vanilla"} <= set(re.findall(r"composition (\w+)", text))


def test_c9_cites_exactly_its_digest():
    """Every id the spec cites is in the digest, and every rule and hole of the digest is cited."""
    spec = (RULEBOOKS / "c9.mafia").read_text(encoding="utf-8")
    digest = (RULEBOOKS / "c9.md").read_text(encoding="utf-8")
    cited = set(re.findall(r"\bC9-[RA]\d+\b", spec))
    stated = set(re.findall(r"\*\*(C9-[RA]\d+)\b", digest))
    assert stated and cited == stated, (sorted(cited - stated), sorted(stated - cited))


# ------------------------------------------------------------------ The Werewolves of Miller's Hollow

WEREWOLF = RULEBOOKS / "werewolf.mafia"
# The findings `check` reports, each real (examples/rulebooks/werewolf.md says why): a tied vote
# is a hole of the base rules without the Sheriff (WW-A06).
WEREWOLF_FINDINGS = [("MC203", "the rules do not decide what a tied vote does")]


def _digest_ids(text: str, tag: str) -> set[str]:
    return set(re.findall(rf"\*\*(WW-{tag}\d+)\b", text))


def test_werewolf_cites_every_rule_and_hole_of_its_digest():
    scenario = load(str(WEREWOLF))
    digest = (RULEBOOKS / scenario.source).read_text(encoding="utf-8")
    cited = set(scenario.cited_ids())
    rules, holes = _digest_ids(digest, "R"), _digest_ids(digest, "A")
    assert len(rules) >= 20 and len(holes) >= 10
    assert sorted(rules - cited) == [] and sorted(holes - cited) == []
    assert sorted(cited - rules - holes) == [], "cites ids the digest does not have"


def test_werewolf_digest_names_its_sources():
    digest = (RULEBOOKS / "werewolf.md").read_text(encoding="utf-8")
    urls = set(re.findall(r"https?://\S+", digest))
    assert len(urls) >= 5
    for rule in re.findall(r"\*\*WW-R\d+\*\* .*", digest):
        assert re.search(r"\*S\d+", rule), f"a rule with no source: {rule}"


def test_werewolf_has_two_compositions():
    assert sorted(c.players for c in load(str(WEREWOLF)).compositions) == [8, 10]


def test_werewolf_checks_at_the_default_depth_with_the_findings_listed():
    started = time.monotonic()
    code, text = golden.run(["check", "--format", "json", str(WEREWOLF.relative_to(ROOT))])
    elapsed = time.monotonic() - started
    (result,) = json.loads(text)["files"]
    codes = [f["code"] for f in result["findings"]]
    assert "MC200" not in codes and "MC900" not in codes, [f["message"] for f in result["findings"]]
    found = sorted((f["code"], f["message"]) for f in result["findings"])
    assert len(found) == len(WEREWOLF_FINDINGS), found
    for (code_, message), (want_code, want) in zip(found, sorted(WEREWOLF_FINDINGS)):
        assert code_ == want_code and message.startswith(want), (code_, message)
    assert code == 1  # the tie is an error-severity hole
    assert elapsed < 120, f"the check took {elapsed:.0f} s"


def test_werewolf_what_if_cases_pass():
    path = ROOT / "examples" / "whatif" / "werewolf.query"
    code, text = golden.run(["ask", str(WEREWOLF.relative_to(ROOT)), str(path.relative_to(ROOT))])
    assert "EXPECTATION FAILED" not in text, text[text.find("EXPECTATION FAILED"):]
    assert code == 0
    _, queries = load_queries(str(path))
    assert len(queries) >= 20
    for q in queries:
        assert q.expectations and q.label and re.search(r"WW-[RA]\d+", q.label), q.name.text
