"""The bundled specs: they load, they say what the rulebooks say, and their report is golden."""

import json
from pathlib import Path

import pytest

import golden
from mafiacheck.pipeline import load

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.mafia"))


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_spec_loads(path):
    scenario = load(str(path))
    assert scenario.prefix and scenario.source and scenario.compositions


@pytest.mark.parametrize("name", sorted(golden.RUNS))
def test_report_on_specs_is_golden(name):
    expected = (golden.GOLDEN / name).read_text(encoding="utf-8")
    assert golden.render_run(name) == expected


def test_findings_report_is_current():
    # FINDINGS.md says, spec by spec, what the checker finds in each real rulebook.
    assert golden.render_findings() == golden.FINDINGS.read_text(encoding="utf-8")


def test_gangster_model():
    sc = load(str(ROOT / "specs" / "gangster.mafia"))
    (comp,) = sc.compositions
    assert comp.players == 10 and comp.total == 10
    assert dict(comp.entries)["citizen"] == 2
    assert sc.role_by_key["godfather"].side == "mafia"
    assert sc.role_by_key["invulnerable"].label == "رویین‌تن"
    team = sc.teams[0]
    assert team.options == ("shot", "nato_guess") and team.per == "night"
    save = sc.ability_by_key["save"]
    assert [(l.count, l.per.key, l.on_self) for l in save.limits if l.kind == "count"] == [
        (1, "night", False), (2, "game", True)]


def test_gangster_cites_every_rule_of_its_digest():
    sc = load(str(ROOT / "specs" / "gangster.mafia"))
    cited = set(sc.cited_ids())
    assert {f"GA-R{n:02d}" for n in range(1, 31)} - cited == set()


def test_commando_cites_every_rule_of_its_digest():
    sc = load(str(ROOT / "specs" / "commando.mafia"))
    cited = set(sc.cited_ids())
    assert {f"CO-R{n:02d}" for n in range(1, 34)} - cited == set()


def test_json_report_shape():
    code, text = golden.run(["check", "specs", "--format", "json", "--select", "setup"])
    data = json.loads(text)
    assert data["version"] == 1
    assert [f["path"] for f in data["files"]] == sorted(f["path"] for f in data["files"])
    for f in data["files"]:
        assert set(f) >= {"path", "scenario", "findings", "assumptions"}
        for finding in f["findings"]:
            assert set(finding) >= {"code", "kind", "severity", "message", "span", "related", "witness"}
            assert set(finding["span"]) == {"line", "column", "end_line", "end_column"}
