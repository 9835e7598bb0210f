"""The rulebooks' own what-if situations (examples/whatif/*.query), answered as the rulebooks
answer them: every `expect` line must hold."""

from pathlib import Path

import golden
import pytest
from mafiacheck.query_text import load_queries

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted((ROOT / "examples" / "whatif").glob("*.query"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_rulebook_answers(path):
    spec = ROOT / "specs" / f"{path.stem}.mafia"
    if not spec.exists():  # a bundled example rulebook (examples/rulebooks/)
        spec = ROOT / "examples" / "rulebooks" / f"{path.stem}.mafia"
    code, text = golden.run(["ask", str(spec.relative_to(ROOT)), str(path.relative_to(ROOT))])
    assert "EXPECTATION FAILED" not in text, text[text.find("EXPECTATION FAILED"):]
    assert code == 0


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_each_case_cites_its_rule_and_expects_something(path):
    _, queries = load_queries(str(path))
    assert len(queries) >= 8
    for q in queries:
        assert q.expectations, f"{q.name.text} has no `expect`"
        assert q.label and "-R" in q.label or "-A" in q.label, f"{q.name.text} cites no rule id"
