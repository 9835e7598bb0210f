"""Every formalizable rule of every rulebook digest (shared/rules/) is cited by the spec that
encodes it: the list of uncited ids is empty."""

import re
from pathlib import Path

import pytest

from mafiacheck.pipeline import load

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT.parent / "shared" / "rules"
SPECS = sorted((ROOT / "specs").glob("*.mafia"))


def digest_ids(source: str) -> list[str]:
    digest = RULES / (Path(source).stem + ".md")
    text = digest.read_text(encoding="utf-8")
    return sorted(set(re.findall(r"\*\*([A-Z0-9]+-R\d+)\*\*", text)))


@pytest.mark.skipif(not RULES.is_dir(), reason="shared/rules/ is not beside the checkout")
@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_every_digest_rule_is_cited(path):
    scenario = load(str(path))
    ids = digest_ids(scenario.source)
    assert ids, f"no rule ids found in the digest of {scenario.source}"
    uncited = [i for i in ids if i not in set(scenario.cited_ids())]
    assert uncited == []


@pytest.mark.skipif(not RULES.is_dir(), reason="shared/rules/ is not beside the checkout")
def test_all_five_seeds_have_a_spec():
    sources = {load(str(p)).source for p in SPECS}
    seeds = {p.name for p in (ROOT.parent / "shared" / "seeds").glob("*.txt")}
    assert seeds <= sources


@pytest.mark.skipif(not RULES.is_dir(), reason="shared/rules/ is not beside the checkout")
def test_cited_ids_exist_in_the_digest():
    for path in SPECS:
        scenario = load(str(path))
        text = (RULES / (Path(scenario.source).stem + ".md")).read_text(encoding="utf-8")
        unknown = [i for i in scenario.cited_ids() if i not in text]
        assert unknown == [], f"{path.name} cites ids its digest does not have: {unknown}"
