"""The bundled rulebooks beyond the seeds (examples/rulebooks/): each checks at the default
depth without an inconclusive (MC200) or internal (MC900) finding, its what-if file passes, and
its findings are the ones its digest leads one to expect."""

import json
import re
import subprocess
import sys
import time
from pathlib import Path

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
