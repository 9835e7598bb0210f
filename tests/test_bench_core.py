"""bench/gangster_core.mafia, the anchors' Gangster core in our language: it loads with no
setup finding, and a few of the anchors' answers hold (the benchmark asks all 30)."""

from pathlib import Path

import pytest
from mafiacheck.pipeline import check_file, load
from mafiacheck.queries import answer_all
from mafiacheck.query_text import load_queries

CORE = Path(__file__).resolve().parent.parent / "bench" / "gangster_core.mafia"


def test_the_core_loads_with_no_setup_finding():
    result = check_file(str(CORE), ("setup",))
    assert not result.diagnostics and not result.findings


@pytest.mark.parametrize("question,verdict", [
    ("can winner town within 2", "no"),    # the town needs three days
    ("can winner town within 3", "yes"),
    ("can winner mafia within 2", "no"),   # parity needs four town exits
    ("can winner mafia within 3", "yes"),
])
def test_anchor_answers(question, verdict):
    scenario = load(str(CORE))
    source, queries = load_queries(question)
    ((answer, *_),) = answer_all(scenario, source, queries)
    assert answer.verdict == verdict
