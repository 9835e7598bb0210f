"""What the stages of a resolution see of the events recorded before them, in both
implementations: the blocking steps and the rules that block see an attack falling due from
a delayed effect (recorded before the first step) and `acted` of a blocking step that has
run (as the interpreter's Resolver.run_step records it); the rules after the deaths see
`attacked_by` of an attack falling due. Each probe is played both ways: with the event and
without it."""

import pytest

from playing import every_phase_agrees
from strategies import load_text
from mafiacheck.encode.terms import Unsupported
from mafiacheck.encode.unroll import Game

HEAD = """scenario probe "Probe" { prefix PR }
side town "Town" town
side mafia "Mafia" dark
role boss "Boss" { side mafia }
role citizen "Citizen" { side town  plain }
kind hit "Hit"
memory marked: set of player
phases { cycle night  wins checked after night }
win town when alive(mafia) == 0
"""

POISON = """ability poison "Poison" { by boss  at night  target where target.alive and target != actor  limit 1 per game
  effect after 1 night: kill hit }
"""


def scenario(spec: str):
    sc = load_text(HEAD + spec)
    assert sc is not None, "the probe spec does not load"
    return sc


def exits(answer) -> list:
    (outcome,) = answer.outcomes
    return [(seat, kind) for r in outcome.reports for seat, kind, _ in r.exits]


def cancelled(answer) -> list:
    (outcome,) = answer.outcomes
    return [c for r in outcome.reports for c in r.cancelled]


WEAK = scenario("""role doc "Doc" { side town }
composition 4 { boss, doc, citizen * 2 }
""" + POISON + """ability heal "Heal" { by doc  at night  target where target.alive  effect save }
rule weak "the poisoned are too weak to act" for p: if kill(p, hit) then block on p
""")


def test_a_rule_that_blocks_sees_an_attack_falling_due():
    # Night 2: the poison falls due on the Doc; the rule blocks him, so his heal on himself
    # does not act and he leaves. (The encoding's blocking rules saw only the blocking
    # steps' events: the Doc healed himself and stayed.)
    answer = every_phase_agrees(WEAK, "query q { night 1 { poison on doc }  night 2 { heal on doc } }")
    assert exits(answer) == [(1, "hit")]
    assert cancelled(answer) == ["Heal by @2 (Doc): blocked"]


def test_a_rule_that_blocks_without_an_attack_falling_due_on_him():
    answer = every_phase_agrees(WEAK, "query q { night 1 { poison on citizen@1 }  night 2 { heal on doc } }")
    assert exits(answer) == [(2, "hit")]
    assert cancelled(answer) == []


SPENT = scenario("""role jammer "Jammer" { side town }
composition 4 { boss, jammer, citizen * 2 }
ability jam "Jam" { by jammer  at night  target where target.alive and target != actor  effect block }
ability tag "Tag" { by jammer  at night  target where target.alive  effect mark in marked }
rule spent "a jammer who jams is spent for the night" for p: if acted(p, jam) then block on p
""")


def test_a_rule_that_blocks_sees_acted_of_a_blocking_step():
    # The Jam step runs first; the rule then blocks the Jammer, and his Tag does not act.
    # (The encoding's blocking rules did not see `acted`: the Tag marked citizen@1.)
    answer = every_phase_agrees(SPENT, "query q { night 1 { jam on boss  tag on citizen@1 } }")
    assert cancelled(answer) == ["Tag by @2 (Jammer): blocked"]
    assert not answer.outcomes[0].state.memories["marked"]


def test_a_rule_that_blocks_without_acted():
    answer = every_phase_agrees(SPENT, "query q { night 1 { tag on citizen@1 } }")
    assert cancelled(answer) == []
    assert answer.outcomes[0].state.memories["marked"] == frozenset({2})


TRACED = """composition 4 { boss, citizen * 3 }
""" + POISON + """rule traced for p, q: if attacked_by(p, q) then mark in marked on q
"""


def test_an_attack_falling_due_is_its_users():
    # Night 2: the poison falls due on citizen@1, an attack by the Boss: the rule marks him.
    # (The encoding's attack falling due had no `attacked_by`: nobody was marked.)
    answer = every_phase_agrees(scenario(TRACED), "query q { night 1 { poison on citizen@1 }  night 2 { } }")
    assert exits(answer) == [(1, "hit")]
    assert answer.outcomes[0].state.memories["marked"] == frozenset({0})


def test_no_attack_falls_due():
    answer = every_phase_agrees(scenario(TRACED), "query q { night 1 { }  night 2 { } }")
    assert exits(answer) == []
    assert not answer.outcomes[0].state.memories["marked"]


def test_a_teams_attack_falling_due_read_by_attacked_by_is_refused():
    # A delay keeps its target, not the member who made the team's use: the encoding cannot
    # say whose attack it is, and says so rather than answer `attacked_by` wrongly.
    team = TRACED.replace(POISON, """team mafia { members side mafia }
ability poison "Poison" { by team mafia  at night  target where target.alive  effect after 1 night: kill hit }
""")
    sc = scenario(team)
    with pytest.raises(Unsupported, match="attacked_by"):
        Game(sc, sc.compositions[0].seats(), 2)
    sc = scenario(team.replace("rule traced for p, q: if attacked_by(p, q) then", "rule traced for q: if kill(q, hit) then"))
    Game(sc, sc.compositions[0].seats(), 2)
