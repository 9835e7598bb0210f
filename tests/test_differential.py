"""The interpreter and the Z3 encoding implement one semantics twice: on generated games
(Hypothesis picks the seeds of random walks), each phase's outcomes must be the same set,
and a choice the interpreter forbids must be impossible in the encoding."""

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mafiacheck.crosscheck.differential import compare, random_uses, random_walk
from mafiacheck.interpreter.bind import Binder
from mafiacheck.interpreter.play import Player
from mafiacheck.pipeline import load
from mafiacheck.query_text import load_queries

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "gangster": (ROOT / "specs" / "gangster.mafia", 10),
    "commando": (ROOT / "specs" / "commando.mafia", 10),
    "lab": (ROOT / "tests" / "fixtures" / "lab.mafia", 8),
    "wins": (ROOT / "tests" / "fixtures" / "wins.mafia", 8),
    "host": (ROOT / "tests" / "fixtures" / "host.mafia", 8),
    # two players with one blocking ability (uses that block each other)
    "mutual": (ROOT / "examples" / "broken" / "hostage_takers_block_each_other.mafia", 6),
    # two unordered blocking abilities whose users can block each other (a block cycle)
    "cycle": (ROOT / "examples" / "broken" / "jailer_and_beauty_block_each_other.mafia", 5),
    # three unordered blocking abilities whose users block each other in a ring
    "ring": (ROOT / "examples" / "broken" / "three_abilities_block_in_a_ring.mafia", 6),
    # four blocking abilities on anyone, one order declared: rings of two, three and four
    "rings": (ROOT / "tests" / "fixtures" / "parity" / "block_ring.mafia", 7),
}
SCENARIOS = {name: load(str(path)) for name, (path, _) in CASES.items()}


def agree_along(scenario, script: str) -> None:
    """Every phase of a scripted game: the encoding allows exactly the interpreter's outcomes."""
    source, (query,) = load_queries(f"query q {{ {script} }}")
    bound = Binder(scenario, source.path).bind(query)
    state = bound.state
    player = Player(scenario)
    for phase, uses in bound.phases:
        verdict = compare(scenario, state, phase, uses)
        assert verdict.agree, f"{phase}: {verdict.detail}"
        results, _ = player.play(state, phase, uses)
        state = results[-1][0]


def first_phase_verdict(scenario, query: str):
    """Whether the encoding agrees with the interpreter on the first phase of a query."""
    source, (q,) = load_queries(query)
    bound = Binder(scenario, source.path).bind(q)
    phase, uses = bound.phases[0]
    return compare(scenario, bound.state, phase, uses)


@pytest.mark.parametrize("name", sorted(CASES))
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_interpreter_and_encoding_agree_on_generated_phases(name, seed):
    scenario = SCENARIOS[name]
    players = CASES[name][1]
    comp = next(c for c in scenario.compositions if c.players == players)
    rng = random.Random(seed)
    walk = random_walk(scenario, comp.seats(), rng, 5)
    picked = rng.sample(walk, min(2, len(walk)))
    state, phase, _ = rng.choice(walk)
    picked.append((state, phase, random_uses(scenario, state, phase, rng)))  # often illegal
    for state, phase, uses in picked:
        verdict = compare(scenario, state, phase, uses)
        assert verdict.agree, f"{phase}: {verdict.detail}"


def test_agreement_on_an_ambiguous_night():
    # Two blocking steps with no declared order: the Boss takes the Guard hostage while the
    # Guard shields himself. Two outcomes.
    scenario = load(str(ROOT / "examples" / "broken" / "hostage_and_shield_unordered.mafia"))
    verdict = first_phase_verdict(
        scenario, "query q { night 1 { hostage on guard  shield on guard  shot on doc } }")
    assert verdict.agree and verdict.detail == "2 outcome(s) agree"


def test_agreement_on_a_guarded_night():
    # CO-R14: the Hostage-taker blocks the Doctor whom the Guard protects; the Guard's
    # protection is resolved first (`resolve guard_protect before hostage`). One outcome.
    scenario = SCENARIOS["commando"]
    verdict = first_phase_verdict(
        scenario, "query q { night 1 { guard_protect on doctor  hostage on doctor  shot on detective  save on detective } }")
    assert verdict.agree and verdict.detail == "1 outcome(s) agree"


@pytest.mark.parametrize("script, outcomes", [
    # Each Hostage-taker takes the other: either block can be the one that holds.
    ("hostage by @1 on @2  hostage by @2 on @1  shot by @1 on @4  shot by @2 on @5", 2),
    # One takes the other, who takes a citizen: only the first block holds.
    ("hostage by @1 on @2  hostage by @2 on @4  shot by @2 on @5", 1),
    # Each takes himself: no reading is consistent, and both act.
    ("hostage by @1 on @1  hostage by @2 on @2  heal by @3 on @4", 1),
])
def test_agreement_on_uses_that_block_each_other(script, outcomes):
    scenario = SCENARIOS["mutual"]
    verdict = first_phase_verdict(scenario, f"query q {{ night 1 {{ {script} }} }}")
    assert verdict.agree and verdict.detail == f"{outcomes} outcome(s) agree", verdict.detail


def test_agreement_on_an_illegal_choice():
    scenario = SCENARIOS["gangster"]
    verdict = first_phase_verdict(scenario, "query q { night 1 { nato_guess on doctor as doctor  shot on detective } }")
    assert verdict.agree and verdict.detail.startswith("illegal for the interpreter")


@pytest.mark.parametrize("phase_text, legal", [
    ("night 1 { shot on citizen  bless on citizen }", False),
    ("night 1 { shot on citizen  bless on doc }", True),
])
def test_agreement_on_a_choice_forbidden_by_another_choice(phase_text, legal):
    # `chosen(p, A)`: a legality condition that reads the phase's other choices.
    scenario = SCENARIOS["lab"]
    verdict = first_phase_verdict(scenario, f"query q {{ composition 8  {phase_text} }}")
    assert verdict.agree, verdict.detail
    assert verdict.detail.startswith("illegal for the interpreter") != legal


@pytest.mark.parametrize("script", [
    # The Wolf turns after the mafia's loss: the readings of the town's win disagree (`deaths`).
    "state { dead boss  dead thug }  night 1 { fire on jammer }",
    "night 1 { fire on thug  shot on citizen@1 }",
    # Blocked uses: the Shooter's counts, open; the Doc's self-heal does not count.
    "night 1 { jam on shooter  fire on boss }\nday 1 { vote none }\nnight 2 { fire on boss }",
    "night 1 { jam on doc  heal on doc }\nday 1 { vote none }\nnight 2 { heal on doc  shot on doc }",
    # Parity after a vote: the mafia's own readings agree; the cult's unwritten win is asked.
    "night 1 { shot on citizen@1 }\nday 1 { vote doc }",
])
def test_agreement_on_win_readings_and_blocked_uses(script):
    agree_along(SCENARIOS["wins"], script)


@pytest.mark.parametrize("seed", [3, 11])
def test_agreement_on_nostradamus_with_cards_and_delays(seed):
    # Seed 003 has last-move cards, delayed effects and rules on who leaves: one short walk
    # each, every phase compared (the starting states carry pending `after …` effects).
    scenario = load(str(ROOT / "specs" / "godfather_nostradamus.mafia"))
    rng = random.Random(seed)
    for state, phase, uses in random_walk(scenario, scenario.compositions[0].seats(), rng, 4):
        verdict = compare(scenario, state, phase, uses)
        assert verdict.agree, f"{phase}: {verdict.detail}"


@pytest.mark.parametrize("script", [
    # Set-valued settings at their defaults and at other values the host may pick.
    "night 1 { charm on thug  stab on doc  shot on citizen@1  heal on citizen@1 }",
    "setting belle_blocks = {boss}\nnight 1 { charm on thug  stab on doc  shot on citizen@1 }",
    "setting belle_blocks = {}\nnight 1 { charm on boss  shot on doc }",
    "setting doc_heals = {stab}\nnight 1 { charm on doc  stab on doc  shot on citizen@1  heal on doc }",
    "setting doc_heals = {stab, shot}\nnight 1 { stab on doc  shot on citizen@1  heal on citizen@1 }",
    # idle(p, A) and acted(p, A): the Thug who skips a third night is removed; a blocked
    # stab is a stab made; a Belle idle two nights in a row is marked.
    "night 1 { shot on citizen@1  charm on boss }\nday 1 { vote none }\n"
    "night 2 { shot on citizen@2  charm on boss }\nday 2 { vote none }\n"
    "night 3 { shot on belle  charm on boss }",
    "night 1 { shot on citizen@1  charm on boss }\nday 1 { vote none }\n"
    "night 2 { shot on citizen@2  charm on thug }\nday 2 { vote none }\n"
    "night 3 { shot on belle  stab on boss  charm on thug }",
    "night 1 { shot on citizen@1 }\nday 1 { vote none }\nnight 2 { shot on citizen@2 }",
    "night 1 { stab on citizen@1 }\nday 1 { vote none }\nnight 2 { stab on citizen@2 }",
    "night 1 { shot by thug on citizen@1 }\nday 1 { vote none }\nnight 2 { stab on citizen@2 }",
    # count(x in SET where …) over a set of kinds and a set of players; the labelled vote exit.
    "setting doc_heals = {shot, stab}\nnight 1 { shot on citizen@1  stab on citizen@2  heal on doc }\n"
    "day 1 { vote doc }\nnight 2 { shot on citizen@3 }",
])
def test_agreement_on_host_settings_and_history(script):
    agree_along(SCENARIOS["host"], script)


@pytest.mark.parametrize("script", [
    # Seed 002: the skip removal of step 12 (idle/acted, a team's pick, a blocked heal) and
    # the host's sets (which roles Beauty blocks, which attacks the Doctor heals).
    "composition 10  state { idle mafioso mafia_kill = 2 }  from night 3  night 3 { don_kill on civilian }",
    "composition 8  state { idle doctor doctor_heal = 2 }  from night 3\n"
    "night 3 { beauty_block on doctor  doctor_heal on commissar  mafia_kill on civilian@1 }",
    "composition 12  state { idle mafioso@2 mafia_kill = 2 }  from night 3\n"
    "night 3 { mafia_kill by mafioso@1 on immortal }",
    "composition 8  setting beauty_blocks = {mafioso, don, maniac_killer, commissar}\n"
    "setting doctor_heals = {yakuza_shot, maniac_stab}\n"
    "night 1 { beauty_block on doctor  mafia_kill on commissar  doctor_heal on commissar  maniac_kill on beauty }",
])
def test_agreement_on_night_of_mafia_settings_and_skips(script):
    scenario = load(str(ROOT / "specs" / "night_of_mafia.mafia"))
    verdict = first_phase_verdict(scenario, f"query q {{ {script} }}")
    assert verdict.agree, verdict.detail


def test_a_card_is_played_by_one_player_a_phase():
    # Two players holding last-move cards: both playing Face Change in one night is
    # illegal for the interpreter and impossible in the encoding; one of them alone is fine.
    from mafiacheck.evaluate import initial_state
    from mafiacheck.interpreter.bind import BoundUse
    from mafiacheck.phases import sequence

    scenario = load(str(ROOT / "specs" / "godfather_nostradamus.mafia"))
    seats = scenario.compositions[0].seats()
    state = initial_state(scenario, seats)
    phase = next(p for p in sequence(scenario, state, 6) if p.kind == "night")
    state.drawn = frozenset({0, 1})
    # Drawn at the vote before this night: the card's night (GF-R51, memory card_night).
    state.memories["card_night"] = frozenset({0, 1})

    def card(actor, target):
        return BoundUse("face_change", actor, (target,), (), explicit_actor=True)
    both = compare(scenario, state, phase, [card(0, 5), card(1, 6)])
    assert both.agree and "illegal for the interpreter" in both.detail and "one card" in both.detail
    # The mafia's shot is mandatory (GF-R47): the night needs it beside the card.
    one = compare(scenario, state, phase, [card(0, 5), BoundUse("shot", 0, (8,), (), explicit_actor=True)])
    assert one.agree and "outcome(s) agree" in one.detail
