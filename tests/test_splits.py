"""The interpreter and the encoding once disagreed on each of these constructs (issue 11's
nine splits). Each test states the behaviour both must have, and checks both sides: the
interpreter's answer and the encoding's, through `check`, `ask` or the differential compare."""

from pathlib import Path

import pytest

from playing import bind, interpret
from mafiacheck.crosscheck.differential import compare
from mafiacheck.crosscheck.witness import extract, model_of, replay
from mafiacheck.encode.solver import Limits, check, make_solver
from mafiacheck.encode.unroll import Game
from mafiacheck.errors import SpecError
from mafiacheck.pipeline import check_file, load
from mafiacheck.queries import answer_all
from mafiacheck.query_text import load_queries
from mafiacheck.report.answer import render_text

ROOT = Path(__file__).resolve().parent.parent
SPLITS = ROOT / "tests" / "fixtures" / "splits"


def probe(name: str):
    return load(str(SPLITS / f"{name}.mafia"))


def open_answer(scenario, text: str):
    source, queries = load_queries(text)
    (answer, _, _, _), = answer_all(scenario, source, queries)
    return answer


def agree_on_first_phase(scenario, text: str):
    bound = bind(scenario, text)
    phase, uses = bound.phases[0]
    return compare(scenario, bound.state, phase, uses)


def codes(path: Path, kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    result = check_file(str(path), select=kinds)
    assert not result.diagnostics, result.diagnostics
    return [(f.code, f.message) for f in result.findings]


# ------------------------------------------------------------------ 1. mandatory

def test_a_mandatory_use_left_out_is_illegal_for_the_interpreter():
    sc = probe("mandatory")
    answer = interpret(sc, "query q { night 1 { shot on doc } }")
    assert answer.verdict == "illegal"
    assert any("must" in p.message and "Aim" in p.message for p in answer.problems)
    assert interpret(sc, "query q { night 1 { shot on doc  aim on boss } }").verdict == "determined"


def test_a_mandatory_use_left_out_is_impossible_for_the_encoding():
    sc = probe("mandatory")
    verdict = agree_on_first_phase(sc, "query q { night 1 { shot on doc } }")
    assert verdict.agree, verdict.detail
    assert "illegal for the interpreter" in verdict.detail


def test_an_obligation_with_no_legal_use_lapses():
    # With the mafia gone the hunter has nobody to aim at: the obligation lapses (and the
    # game has ended anyway); with no mafia member alive, no use is legal.
    sc = probe("mandatory")
    answer = interpret(sc, "query q { state { dead boss  dead thug } night 1 { } }")
    assert answer.verdict == "determined", [p.message for p in answer.problems]
    verdict = agree_on_first_phase(sc, "query q { state { dead boss  dead thug } night 1 { } }")
    assert verdict.agree, verdict.detail


def test_must_questions_do_not_skip_an_obligation():
    # With the Thug gone, the Hunter must aim at the Boss on night 1, and nothing saves him:
    # every game removes the Boss. A counterexample would have to skip the obligation.
    sc = probe("mandatory")
    answer = open_answer(sc, "query q { state { dead thug }  must leaves boss within 1 }")
    assert answer.verdict == "yes", answer.detail


# ------------------------------------------------------------------ 2. targeted(p, A) of a block

def test_targeted_by_a_blocking_ability_is_seen_by_rules():
    sc = probe("targeted_block")
    answer = interpret(sc, "query q { night 1 { jam on citizen@1 } }")
    assert [(s, k) for r in answer.outcomes[0].reports for s, k, _ in r.exits] == [(2, "fright")]
    verdict = agree_on_first_phase(sc, "query q { night 1 { jam on citizen@1 } }")
    assert verdict.agree, verdict.detail
    assert not [c for c in codes(SPLITS / "targeted_block.mafia", ("dead-rule",)) if c[0] == "MC206"]


# ------------------------------------------------------------------ 3. cards after the vote

def test_a_card_played_after_the_vote_can_be_played_on_day_one():
    findings = codes(ROOT / "specs" / "godfather_nostradamus.mafia", ("dead-rule",))
    dead = [m for c, m in findings if c == "MC205"]
    assert not [m for m in dead if "افشای نقش" in m or "ذهن زیبا" in m], dead


# ------------------------------------------------------------------ 4. a team with no leader left

def test_a_team_with_no_leader_left_is_a_hole_both_sides_see():
    sc = probe("leaderless")
    answer = interpret(sc, "query q { day 1 { vote boss }  night 1 { shot on citizen@1 } }")
    assert answer.verdict == "undefined"
    found = codes(SPLITS / "leaderless.mafia", ("undefined",))
    assert [c for c, m in found if c == "MC203" and "decides for team mafia" in m], found


# ------------------------------------------------------------------ 5. round

def test_round_is_numbered_alike_in_legality_rules_and_queries():
    sc = probe("round")
    assert interpret(sc, "query q { night 1 { first_look on boss } }").verdict == "determined"
    assert interpret(sc, "query q { night 1 { }  day 1 { vote none }  night 2 { first_look on boss } }"
                     ).verdict == "illegal"
    verdict = agree_on_first_phase(sc, "query q { night 1 { first_look on boss  shot on citizen@1 } }")
    assert verdict.agree, verdict.detail
    dead = codes(SPLITS / "round.mafia", ("dead-rule",))
    assert not dead, dead


# ------------------------------------------------------------------ 6. exit triggers by day

def test_an_exit_trigger_fires_when_its_holder_is_voted_out():
    sc = probe("day_trigger")
    answer = interpret(sc, "query q { day 1 { vote hunter  last_shot on boss } }")
    assert answer.verdict == "determined", [p.message for p in answer.problems]
    exits = [(s, k) for r in answer.outcomes[0].reports for s, k, _ in r.exits]
    assert sorted(exits) == [(0, "last"), (2, "vote")]
    verdict = agree_on_first_phase(sc, "query q { day 1 { vote hunter  last_shot on boss } }")
    assert verdict.agree, verdict.detail


def test_a_voted_trigger_fires_at_the_vote():
    sc = probe("day_trigger")
    answer = interpret(sc, "query q { day 1 { vote martyr  curse on thug } }")
    exits = sorted((s, k) for r in answer.outcomes[0].reports for s, k, _ in r.exits)
    assert exits == [(1, "curse"), (3, "vote")]
    verdict = agree_on_first_phase(sc, "query q { day 1 { vote martyr  curse on thug } }")
    assert verdict.agree, verdict.detail
    assert not [c for c in codes(SPLITS / "day_trigger.mafia", ("dead-rule",)) if c[0] == "MC205"]


# ------------------------------------------------------------------ 7. exit required

def test_a_required_exit_does_not_bind_days_after_the_game_has_ended():
    sc = probe("required_exit")
    answer = open_answer(sc, "query q { can winner town within 9 }")
    assert answer.verdict == "yes", answer.detail


def test_a_required_exit_makes_a_day_without_one_illegal():
    sc = probe("required_exit")
    assert interpret(sc, "query q { day 1 { vote none } }").verdict == "illegal"
    verdict = agree_on_first_phase(sc, "query q { day 1 { vote none } }")
    assert verdict.agree, verdict.detail


# ------------------------------------------------------------------ 8. given phases, then an open question

def test_an_open_question_after_given_phases_reads_the_advanced_state():
    # The Boss is voted out on day 1; the team's shot on night 2 is then decided by the Thug,
    # whom the query leaves implicit. The Thug can still bring the mafia to parity.
    sc = load(str(ROOT / "tests" / "fixtures" / "lab.mafia"))
    answer = open_answer(sc, "query q { composition 8  night 1 { }  day 1 { vote boss }"
                             "  night 2 { shot on citizen }  can winner mafia within 3 }")
    assert answer.verdict == "yes", answer.detail


# ------------------------------------------------------------------ 9. one name per player in a phase

def test_a_converted_player_is_named_one_way_in_a_phase():
    sc = load(str(ROOT / "specs" / "commando.mafia"))
    text = ("query q { day 1 { vote guard }  night 1 { }  day 2 { vote guard } }")
    source, queries = load_queries(text)
    answers = answer_all(sc, source, queries)
    log = render_text([(a, names) for a, names, _, _ in answers])
    guard_names = {line.split("(")[1].split(")")[0] for line in log.splitlines() if "@4 (" in line
                   for _ in [0]}
    assert len(guard_names) == 1, log


# ------------------------------------------------------------------ found by the specs audit

def test_the_nights_protection_covers_an_action_its_exits_set_off():
    # GA-R15/R16: the Killer, taken by a night gun, takes revenge at once, and the Bodyguard's
    # protection of that night applies to it.
    sc = load(str(ROOT / "specs" / "gangster.mafia"))
    text = ("query q { state { holds citizen@1 gun(war) }  night 2 { fire_gun by citizen@1 on killer"
            "  revenge on detective  guard on detective  shot on citizen@2  save on doctor } }")
    answer = interpret(sc, text)
    assert answer.verdict == "determined", [p.message for p in answer.problems]
    outcome = answer.outcomes[0]
    assert outcome.state.alive[4], render_text([(answer, answer_all(sc, *load_queries(text))[0][1])])
    bound = bind(sc, text)
    phase, uses = bound.phases[0]
    verdict = compare(sc, bound.state, phase, uses)
    assert verdict.agree, verdict.detail


# ------------------------------------------------------------------ 10. both moments of a day

def test_one_use_of_an_ability_of_both_moments_agrees():
    # Its uses before and after the vote were one variable in the encoding, so a single use
    # was impossible there (it had to be made at both moments).
    sc = probe("both_moments")
    for choices in ("jot on citizen@1  vote none", "jot on citizen@1 after vote  vote none",
                    "jot on citizen@1 before vote  vote citizen@2"):
        verdict = agree_on_first_phase(sc, f"query q {{ day 1 {{ {choices} }} }}")
        assert verdict.agree and "agree" in verdict.detail, (choices, verdict.detail)
        assert interpret(sc, f"query q {{ day 1 {{ {choices} }} }}").verdict == "determined"


def test_an_ability_of_both_moments_acts_at_the_moment_the_query_names():
    # Unsaid, at the first moment of the day its `at` names: before the vote, where the duel
    # leaves the vote nobody to send out; after it, the vote sends him out first.
    sc = probe("both_moments")
    exits = {}
    for moment in ("", " before vote", " after vote"):
        text = f"query q {{ day 1 {{ duel on citizen@1{moment}  vote citizen@1 }} }}"
        answer = interpret(sc, text)
        assert answer.verdict == "determined", [p.message for p in answer.problems]
        exits[moment] = [k for r in answer.outcomes[0].reports for _, k, _ in r.exits]
        verdict = agree_on_first_phase(sc, text)
        assert verdict.agree, (moment, verdict.detail)
    assert exits[""] == exits[" before vote"] == ["duel"]
    assert exits[" after vote"] == ["vote"]


def test_an_ability_of_both_moments_is_used_once_a_day():
    sc = probe("both_moments")
    text = "query q { day 1 { jot on citizen@1  jot on citizen@2 after vote  vote none } }"
    assert interpret(sc, text).verdict == "illegal"
    verdict = agree_on_first_phase(sc, text)
    assert verdict.agree and "illegal for the interpreter" in verdict.detail, verdict.detail


def test_a_day_by_number_names_its_own_moment():
    # `at day 1 before vote, day from 2 after vote`: on day 1 only before the vote (the
    # interpreter once played it after the vote on every day, reading the kind alone).
    sc = probe("both_moments")
    assert interpret(sc, "query q { day 1 { peek on boss  vote none } }").verdict == "determined"
    assert interpret(sc, "query q { day 1 { peek on boss after vote  vote none } }").verdict == "illegal"
    for text in ("query q { day 1 { peek on boss  vote none } }",
                 "query q { day 1 { peek on boss after vote  vote none } }"):
        verdict = agree_on_first_phase(sc, text)
        assert verdict.agree, (text, verdict.detail)


def test_a_witness_says_when_in_the_day_a_use_was_made():
    # A game the solver finds with the duel after the vote replays as that game.
    sc = probe("both_moments")
    seats = sc.compositions[0].seats()
    game = Game(sc, seats, 1, symmetry=False)
    pv = game.vars[0]
    duel_after = next(u for u in pv.uses if u.ability.key == "duel" and u.moment == "after")
    solver = make_solver(game.ctx, Limits(timeout=20), finite=game.finite)
    solver.add(game.constraints)
    solver.add(duel_after.used, duel_after.count == 1, duel_after.targets[0] == 2,
               pv.vote_kind == 1, pv.vote_target == 2)
    result = check(solver)
    assert result.status == "sat"
    w = extract(game, model_of(result))
    assert "duel by @2 on @3 after vote" in w.script, w.script
    answer = replay(game, w)
    assert answer.verdict == "determined", [p.message for p in answer.problems]
    assert [k for r in answer.outcomes[0].reports for _, k, _ in r.exits] == ["vote"]


def test_a_moment_at_night_is_an_error():
    sc = probe("both_moments")
    with pytest.raises(SpecError, match="names a moment of a day"):
        bind(sc, "query q { day 1 { vote none }  night 1 { shot on clerk after vote } }")
