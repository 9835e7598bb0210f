"""The interpreter, one behaviour at a time, on a small lab scenario (tests/fixtures/lab.mafia)."""

from pathlib import Path

import pytest
from mafiacheck.errors import SpecError
from mafiacheck.interpreter.bind import Binder
from mafiacheck.interpreter.play import Player
from mafiacheck.pipeline import load
from mafiacheck.query_text import load_queries

LAB = Path(__file__).resolve().parent / "fixtures" / "lab.mafia"
SEAT = {"boss": 0, "thug": 1, "doc": 2, "sheriff": 3, "blocker": 4, "guard": 5, "preacher": 6,
        "citizen": 7}


@pytest.fixture(scope="module")
def lab():
    return load(str(LAB))


def ask(scenario, text):
    source, (query,) = load_queries(text if text.lstrip().startswith("query") else
                                    "query q { composition 8\n" + text + "\n}")
    bound = Binder(scenario, source.path).bind(query)
    return Player(scenario).answer(bound)


def exits(outcome):
    return [(s, k) for r in outcome.reports for s, k, _ in r.exits]


def test_kill(lab):
    a = ask(lab, "night 1 { shot on citizen }")
    assert a.verdict == "determined"
    assert exits(a.outcomes[0]) == [(SEAT["citizen"], "shot")]
    assert not a.outcomes[0].state.alive[SEAT["citizen"]]


def test_save_defeats_the_kinds_it_names(lab):
    a = ask(lab, "night 1 { shot on citizen  heal on citizen }")
    assert a.verdict == "determined" and exits(a.outcomes[0]) == []
    assert a.outcomes[0].reports[0].survived == [(SEAT["citizen"], "heal")]


def test_consume_counts_down(lab):
    a = ask(lab, "night 1 { heal on citizen }")
    assert a.outcomes[0].state.counters[SEAT["doc"]]["heals"] == 1


def test_a_block_takes_the_night_action_away_whenever_it_was_called(lab):
    a = ask(lab, "night 1 { jam on doc  shot on citizen  heal on citizen }")
    assert a.verdict == "determined"
    assert exits(a.outcomes[0]) == [(SEAT["citizen"], "shot")]
    assert a.outcomes[0].reports[0].blocked == [SEAT["doc"]]
    assert a.outcomes[0].reports[0].order.index("jam") < a.outcomes[0].reports[0].order.index("heal")


@pytest.mark.parametrize("order, blocked", [("jam before shield", True), ("shield before jam", False)])
def test_a_declared_order_decides(lab, tmp_path, order, blocked):
    spec = tmp_path / "ordered.mafia"
    spec.write_text(LAB.read_text(encoding="utf-8") + f"\nresolve {order}\n", encoding="utf-8")
    a = ask(load(str(spec)), "night 1 { shield on doc  jam on doc  shot on citizen  heal on citizen }")
    assert a.verdict == "determined"
    assert (exits(a.outcomes[0]) == [(SEAT["citizen"], "shot")]) == blocked


def test_protection_from_block_depends_on_order(lab):
    a = ask(lab, "night 1 { shield on doc  jam on doc  shot on citizen  heal on citizen }")
    assert a.verdict == "ambiguous"
    orders = sorted(tuple(o.reports[0].order[:2]) for o in a.outcomes)
    assert orders == [("jam", "shield"), ("shield", "jam")]
    assert sorted(tuple(exits(o)) for o in a.outcomes) == [(), ((SEAT["citizen"], "shot"),)]


def test_a_move_one_reading_refuses_ends_that_reading_only(lab):
    # The night's two orders differ on whether the Doc's heal saves the citizen; a vote on
    # the citizen the next day is legal only where it did. The game goes on in that reading
    # (as in the encoding, where the order is a choice of the game), not refused as a whole.
    night = "night 1 { shield on doc  jam on doc  shot on citizen  heal on citizen }"
    a = ask(lab, night + "\nday 1 { vote citizen }")
    assert a.verdict == "determined"
    (only,) = a.outcomes
    assert tuple(only.reports[0].order[:2]) == ("shield", "jam")
    assert only.reports[0].readings == 2 and only.reports[1].readings == 1  # the log says so
    assert exits(only) == [(SEAT["citizen"], "vote")]
    # Refused in every reading: illegal, with the reason.
    a = ask(lab, "night 1 { shot on citizen }\nday 1 { vote citizen }")
    assert a.verdict == "illegal" and a.problems and not a.outcomes


def test_inquiry_reads_the_declared_appearance_or_the_side(lab):
    a = ask(lab, "night 1 { check on boss }")
    assert a.outcomes[0].reports[0].learned == [(SEAT["sheriff"], SEAT["boss"], "clean")]
    a = ask(lab, "night 1 { check on thug }")
    assert a.outcomes[0].reports[0].learned == [(SEAT["sheriff"], SEAT["thug"], "Mafia")]


def test_actions_read_the_night_start_and_change_it_after_the_deaths(lab):
    a = ask(lab, "night 1 { recruit on citizen  check on citizen }")
    assert a.verdict == "determined"
    assert a.outcomes[0].reports[0].learned[0][2] == "Town"
    assert a.outcomes[0].state.roles[SEAT["citizen"]] == "thug"


def test_a_rule_exception_outranks_the_default(lab):
    a = ask(lab, "night 1 { bless on citizen }\nday 1 { vote none }\nnight 2 { shot on citizen }")
    assert a.verdict == "determined"
    assert exits(a.outcomes[0]) == []
    assert "marked_resist" in a.outcomes[0].reports[-1].rules


def test_give_and_fire_an_item(lab):
    a = ask(lab, "night 1 { bless on citizen }\nday 1 { fire by citizen on thug  vote none }")
    assert exits(a.outcomes[0]) == [(SEAT["thug"], "hit")]
    assert ("gun", SEAT["citizen"]) not in a.outcomes[0].state.items


def test_blank_item_does_nothing(lab):
    a = ask(lab, "state { holds citizen gun(blank) }\nday 1 { fire by citizen on thug }")
    assert a.verdict == "determined" and exits(a.outcomes[0]) == []


def test_team_uses_one_option_per_night(lab):
    a = ask(lab, "night 1 { shot on doc  recruit on citizen }")
    assert a.verdict == "illegal"
    assert "only one of" in a.problems[0].message


def test_team_leader_fallback(lab):
    a = ask(lab, "state { dead boss }\nnight 1 { shot by thug on doc }")
    assert a.verdict == "determined" and exits(a.outcomes[0]) == [(SEAT["doc"], "shot")]
    a = ask(lab, "night 1 { shot by thug on doc }")
    assert a.verdict == "illegal" and "does not decide" in a.problems[0].message


def test_self_limit(lab):
    a = ask(lab, "state { used heal by doc 1 on self }\nnight 2 { heal on doc }")
    assert a.verdict == "illegal" and "on oneself" in a.problems[0].message


def test_target_filter(lab):
    a = ask(lab, "night 1 { recruit on doc }")
    assert a.verdict == "illegal" and "cannot be chosen" in a.problems[0].message


def test_tie_rule(lab):
    a = ask(lab, "day 1 { vote tie doc, thug }")
    assert a.verdict == "determined" and exits(a.outcomes[0]) == []


def test_win_at_parity(lab):
    a = ask(lab, "state { dead doc  dead sheriff  dead blocker }\nnight 1 { shot on guard }")
    assert a.outcomes[0].winner == "mafia"


def test_win_check_points(lab):
    a = ask(lab, "state { dead thug }\nday 1 { vote boss }")
    assert a.outcomes[0].winner == "town"


def test_mutual_blocks_in_one_step_have_two_readings(lab):
    a = ask(lab, "query q { composition 9\nnight 1 { jam by blocker@1 on blocker@2  jam by blocker@2 on blocker@1 } }")
    assert a.verdict == "ambiguous"
    blocked = sorted(tuple(o.reports[0].blocked) for o in a.outcomes)
    assert blocked == [(4,), (5,)]


def test_contradicting_rules_keep_both_outcomes(lab, tmp_path):
    spec = tmp_path / "clash.mafia"
    spec.write_text(LAB.read_text(encoding="utf-8") + """
rule doom for p: if kill(p, shot) and p.role == citizen then leave shot on p
rule spared for p: if save(p) then stay on p
""", encoding="utf-8")
    a = ask(load(str(spec)), "night 1 { shot on citizen  heal on citizen }")
    assert a.verdict == "contradiction"  # told apart from an order's ambiguity
    assert sorted(tuple(exits(o)) for o in a.outcomes) == [(), ((SEAT["citizen"], "shot"),)]
    assert all(o.holes[0].kind == "contradiction" and "contradiction" in o.holes[0].message for o in a.outcomes)


def test_an_override_settles_the_contradiction(lab, tmp_path):
    spec = tmp_path / "settled.mafia"
    spec.write_text(LAB.read_text(encoding="utf-8") + """
rule doom for p: if kill(p, shot) and p.role == citizen then leave shot on p
rule spared for p: if save(p) then stay on p overrides doom
""", encoding="utf-8")
    a = ask(load(str(spec)), "night 1 { shot on citizen  heal on citizen }")
    assert a.verdict == "determined" and exits(a.outcomes[0]) == []


def test_unknown_player_is_a_located_error(lab):
    with pytest.raises(SpecError) as info:
        ask(lab, "night 1 { shot on mayor }")
    assert "unknown role 'mayor'" in info.value.diagnostics[0].message


def test_a_count_the_rulebook_does_not_list_is_refused(lab):
    with pytest.raises(SpecError) as info:
        ask(lab, "query q { composition 12\nnight 1 { shot on doc } }")
    assert "no composition of 12 players" in info.value.diagnostics[0].message


def test_phases_follow_the_game_order(lab):
    with pytest.raises(SpecError) as info:
        ask(lab, "night 1 { shot on doc }\nnight 2 { shot on guard }")
    assert "after the previous block comes day 1" in info.value.diagnostics[0].message


SEAT10 = {**SEAT, "medium": 8, "twin": 9}


def ask10(scenario, text):
    return ask(scenario, "query q { composition 10\n" + text + "\n}")


def test_revive_brings_back_an_eligible_player(lab):
    a = ask10(lab, "state { dead citizen by shot }\nnight 1 { raise on citizen }")
    assert a.verdict == "determined"
    assert a.outcomes[0].state.alive[SEAT10["citizen"]]
    a = ask10(lab, "state { dead citizen by grief }\nnight 1 { raise on citizen }")
    assert a.verdict == "illegal"


def test_link_and_a_rule_that_reads_who_leaves(lab):
    # The twin is linked to the citizen; when the citizen leaves, the twin leaves by grief.
    a = ask10(lab, "night 1 { bond on citizen }\nday 1 { vote citizen }")
    assert a.outcomes[0].state.links[SEAT10["twin"]] == SEAT10["citizen"]
    assert exits(a.outcomes[0]) == [(SEAT10["citizen"], "vote"), (SEAT10["twin"], "grief")]


def test_mark_a_player_memory(lab):
    a = ask10(lab, "night 1 { bond on doc }")
    assert a.outcomes[0].state.memories["chosen"] == SEAT10["doc"]


def test_reveal_and_announce(lab):
    a = ask10(lab, "day 1 { expose on thug }")
    report = a.outcomes[0].reports[0]
    assert SEAT10["thug"] in a.outcomes[0].state.revealed
    assert "exposed" in report.announcements and any("Mafia" in x for x in report.announcements)


def test_per_game_limit_across_phases(lab):
    a = ask10(lab, "day 1 { expose on thug }\nnight 2 { }\nday 2 { expose on doc }")
    assert a.verdict == "illegal" and "this game (limit 1)" in a.problems[0].message


def test_a_table_with_no_row_in_an_effect_value_is_a_hole_not_a_crash(tmp_path):
    # `set cnt = cases { … }` with no case for the game's state: the rules give no value, so
    # the effect is undecided (MC203), as a table with no row in an `if` is; it used to raise.
    spec = tmp_path / "norow.mafia"
    spec.write_text((Path(__file__).resolve().parent / "fixtures" / "tiny.mafia").read_text()
                    .replace('role citizen "Citizen" { side town  plain }',
                             'role citizen "Citizen" { side town  plain  counter cnt = 0 }')
                    + "rule marked for p: if kill(p, shot)\n"
                      "  then set cnt = cases { alive(all) > 10: 1 } on p\n")
    a = ask(load(str(spec)), "query q { night 1 { shot on citizen@1 } }")
    assert a.verdict == "undefined"
    assert [h.source for h in a.outcomes[0].holes if "no case applies" in str(h)] == ["marked"]
