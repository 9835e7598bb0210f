"""Links that carry an exit (Cupid's lovers), exit triggers by any means (the Hunter's last
shot, owed where his trigger happens), sides entered in play, every trigger event with
each timing, and a team member taken out of the team for a phase (`except`): each case
answered by the interpreter as the fixture's `expect` lines say, and
each phase of it allowed by the encoding exactly as the interpreter allows it."""

from pathlib import Path

import pytest
from mafiacheck.crosscheck.differential import compare
from mafiacheck.errors import SpecError
from mafiacheck.interpreter.bind import Binder
from mafiacheck.interpreter.play import Player
from mafiacheck.pipeline import check_file, load
from mafiacheck.queries import answer_all, failed_expectations
from mafiacheck.query_text import load_queries
from mafiacheck.resolve import resolve
from mafiacheck.build import build
from mafiacheck.parser import parse
from mafiacheck.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
MECHANICS = ROOT / "tests" / "fixtures" / "mechanics"
CASES = [(name, q.name.text) for name in ("lovers", "triggers", "team_except")
         for q in load_queries(str(MECHANICS / f"{name}.query"))[1]]
SPECS = {name: load(str(MECHANICS / f"{name}.mafia")) for name in ("lovers", "triggers", "team_except")}


def _case(name: str, query: str):
    source, queries = load_queries(str(MECHANICS / f"{name}.query"))
    q = next(q for q in queries if q.name.text == query)
    return SPECS[name], source, q


@pytest.mark.parametrize("name,query", CASES, ids=[f"{n}-{q}" for n, q in CASES])
def test_the_interpreter_answers_as_expected(name, query):
    sc, source, q = _case(name, query)
    (answer, _, _, bound), = answer_all(sc, source, [q])
    assert not failed_expectations(answer, q, bound, sc, source.path), answer.verdict


@pytest.mark.parametrize("name,query", CASES, ids=[f"{n}-{q}" for n, q in CASES])
def test_the_encoding_allows_each_phase_as_the_interpreter(name, query):
    sc, source, q = _case(name, query)
    bound = Binder(sc, source.path).bind(q)
    state, player = bound.state, Player(sc)
    for phase, uses in bound.phases:
        verdict = compare(sc, state, phase, uses)
        assert verdict.agree, f"{phase}: {verdict.detail}"
        results, _ = player.play(state, phase, uses)
        if not results:
            break
        state = results[-1][0]


def test_a_follower_needs_the_link_made_this_phase():
    # Cupid's arrow and the devour of one lover on the same night: the link binds that night.
    sc, source, q = _case("lovers", "night1_lovers")
    answer = Player(sc).answer(Binder(sc, source.path).bind(q))
    (exits,) = {tuple(sorted(r.exits)) for o in answer.outcomes for r in o.reports}
    assert [(seat, kind) for seat, kind, _ in exits] == [(4, "devour"), (5, "grief")]
    assert dict((seat, by) for seat, _, by in exits)[5] == "arrow"  # decided by the link's ability


def test_every_triggered_ability_is_used_by_the_encoding():
    # No ability of the fixtures is reported as never used (MC205): `on voted … next`, `on kill
    # … next`, `on revived`, `on targeted` and a trigger with no timing are all encoded.
    for name in ("lovers", "triggers"):
        result = check_file(str(MECHANICS / f"{name}.mafia"), select=("dead-rule",))
        assert not result.diagnostics
        assert not [f for f in result.findings if f.code == "MC205"], [f.message for f in result.findings]


def test_a_side_entered_in_play_is_not_a_side_without_roles():
    result = check_file(str(MECHANICS / "lovers.mafia"), select=("setup",))
    assert not [f for f in result.findings if f.code == "MC110"]


def _resolve(text: str):
    source = SourceFile("t.mafia", text)
    return resolve(build(parse(source), source))


BASE = """scenario t { }
side town town
side mafia dark
kind hit
role boss { side mafia }
role ghost { side town }
composition 2 { boss, ghost }
phases { cycle night, day }
"""


def test_a_trigger_without_timing_acts_when_it_happens():
    sc = _resolve(BASE + "ability a { by ghost  on leave  target where target.alive  effect kill hit }")
    (trigger,) = sc.ability_by_key["a"].triggers
    assert trigger.timing == "immediately"


def test_on_revived_takes_no_kind():
    with pytest.raises(SpecError, match="`on revived` takes no `by`"):
        _resolve(BASE + "ability a { by ghost  on revived by hit immediately  target  effect kill hit }")


def test_a_link_names_a_kind_of_exit():
    with pytest.raises(SpecError, match="kind of exit"):
        _resolve(BASE + "ability a { by ghost  at night  targets 2  effect link together with sorrow }")
