"""The audit tables beside the specs (specs/<name>.audit.md): every rule of the spec's digest
is audited against the rulebook's own text, and every assumption the table names exists in the
spec.

A table row reads

    | GA-R15 | assumption | `night_guns` | the text calls it a night gun three times |

the status being one or more of `faithful`, `assumption`, `open hole`, `digest wrong` (joined
by `;`), the third column the assumptions (in backquotes) and finding codes (MC…) it rests on.
"""

import re
from pathlib import Path

import pytest

from mafiacheck.pipeline import load

ROOT = Path(__file__).resolve().parent.parent
# shared/rules/ beside the checkout (or beside the folder of worktrees holding it)
RULES = next((p / "shared" / "rules" for p in ROOT.parents if (p / "shared" / "rules").is_dir()),
             ROOT.parent / "shared" / "rules")


def digest_ids(source: str) -> list[str]:
    text = (RULES / (Path(source).stem + ".md")).read_text(encoding="utf-8")
    return sorted(set(re.findall(r"\*\*([A-Z0-9]+-R\d+)\*\*", text)))

SPECS = sorted((ROOT / "specs").glob("*.mafia"))
STATUSES = {"faithful", "assumption", "open hole", "digest wrong"}
ROW = re.compile(r"^\|\s*([A-Z0-9]+-[RA]\d+)\s*\|([^|]*)\|([^|]*)\|(.*)\|\s*$")


def rows(path: Path) -> dict[str, tuple[set[str], str]]:
    table: dict[str, tuple[set[str], str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if m := ROW.match(line):
            rid, status, basis, _ = m.groups()
            assert rid not in table, f"{path.name}: {rid} is audited twice"
            table[rid] = ({s.strip() for s in status.split(";") if s.strip()}, basis)
    return table


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_audit_table_exists(path):
    assert path.with_suffix(".audit.md").is_file(), f"no audit table beside {path.name}"


@pytest.mark.skipif(not RULES.is_dir(), reason="shared/rules/ is not beside the checkout")
@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_every_digest_rule_is_audited(path):
    scenario = load(str(path))
    table = rows(path.with_suffix(".audit.md"))
    missing = [i for i in digest_ids(scenario.source) if i not in table]
    assert missing == []


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_statuses_and_assumptions_exist(path):
    scenario = load(str(path))
    names = {a.name.text for a in scenario.assumptions}
    for rid, (status, basis) in rows(path.with_suffix(".audit.md")).items():
        assert status and status <= STATUSES, f"{rid}: unknown status {status - STATUSES}"
        named = set(re.findall(r"`([^`]+)`", basis))
        if "assumption" in status:
            assert named, f"{rid} is an assumption but names none"
        unknown = named - names
        assert not unknown, f"{rid} names assumptions the spec does not have: {unknown}"
        if "open hole" in status:
            assert re.search(r"MC\d{3}", basis), f"{rid} is an open hole but names no finding"
