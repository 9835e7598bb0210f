"""Tie rules beyond the draw: a tie broken by a player's choice (`tie chosen by ROLE` / `by
holder of ITEM`) and a second vote among the tied (`tie revote [then RULE]`). Each case is
played by the interpreter and compared with the Z3 encoding phase by phase, so a side that
ignored the rule would disagree."""

from pathlib import Path

import pytest
from playing import agreed
from mafiacheck.errors import SpecError
from mafiacheck.interpreter.bind import Binder
from mafiacheck.interpreter.play import Player
from mafiacheck.pipeline import load
from mafiacheck.query_text import load_queries

SPEC = """scenario ties {{ }}
side town town
side mafia dark
role boss {{ side mafia }}
role sheriff {{ side town }}
role citizen {{ side town  plain }}
kind shot
item badge "Sheriff's badge" variants star
composition 5 {{ boss, sheriff, citizen * 3 }}
phases {{ start day  cycle night, day }}
ability kill {{ by boss  at night  target where target.alive and target != actor  effect kill shot }}
ability gunfight {{ by boss  at day before vote  target where target.alive  optional  effect kill shot }}
day {{ vote majority  tie {tie}{exit} }}
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town)
"""


def scenario(tmp_path: Path, tie: str, required: bool = False):
    path = tmp_path / "ties.mafia"
    path.write_text(SPEC.format(tie=tie, exit="  exit required" if required else ""), encoding="utf-8")
    return load(str(path))


def play(sc, body: str):
    """The day's outcomes (who is still in, per outcome) and the verdict; and the encoding
    must allow exactly the interpreter's outcomes of that day."""
    bound, answer = agreed(sc, body)
    gone = sorted(tuple(s + 1 for s, alive in enumerate(o.state.alive) if not alive and bound.state.alive[s])
                  for o in answer.outcomes)
    return answer.verdict, gone


def test_a_tie_chosen_by_a_role_sends_out_the_one_he_picks(tmp_path):
    sc = scenario(tmp_path, "chosen by sheriff")
    assert play(sc, "day 1 { vote tie @3, @4 }") == ("ambiguous", [(3,), (4,)])
    assert play(sc, "day 1 { vote tie @3, @4 then @4 }") == ("determined", [(4,)])
    assert play(sc, "day 1 { vote tie @3, @4 then @5 }")[0] == "illegal"


def test_a_tie_with_nobody_left_to_break_it_is_a_hole(tmp_path):
    sc = scenario(tmp_path, "chosen by sheriff")
    assert play(sc, "state { dead @2 by shot }  day 1 { vote tie @3, @4 }") == ("undefined", [()])
    # Who may break the tie is judged at the start of the day, as the day's choices are: a
    # tie-breaker shot before the vote still breaks it.
    assert play(sc, "day 1 { gunfight on @2  vote tie @3, @4 then @3 }") == ("determined", [(2, 3)])


def test_a_tie_chosen_by_the_holder_of_an_item(tmp_path):
    sc = scenario(tmp_path, "chosen by holder of badge")
    assert play(sc, "state { holds @5 badge(star) }  day 1 { vote tie @1, @3 then @1 }") == ("determined", [(1,)])
    assert play(sc, "day 1 { vote tie @1, @3 }") == ("undefined", [()])


def test_a_revote_sends_one_out_or_ties_again_into_a_hole(tmp_path):
    sc = scenario(tmp_path, "revote")
    # One outcome per player the second vote may send out, and the second tie the rules
    # leave open (no `then`).
    source, (q,) = load_queries("query q { day 1 { vote tie @3, @4 } }")
    answer = Player(sc).answer(Binder(sc, source.path).bind(q))
    assert sorted(len(o.holes) for o in answer.outcomes) == [0, 0, 1]
    assert play(sc, "day 1 { vote tie @3, @4 }")[1] == [(), (3,), (4,)]
    assert play(sc, "day 1 { vote tie @3, @4 then @3 }") == ("determined", [(3,)])
    assert play(sc, "day 1 { vote tie @3, @4 then tie }") == ("undefined", [()])


@pytest.mark.parametrize("then, gone", [("no_exit", [()]), ("all_leave", [(3, 4)]),
                                        ("random", [(3,), (4,)])])
def test_a_second_tie_follows_the_then_rule(tmp_path, then, gone):
    sc = scenario(tmp_path, f"revote then {then}")
    assert play(sc, "day 1 { vote tie @3, @4 then tie }")[1] == gone


def test_a_second_tie_broken_by_a_player(tmp_path):
    sc = scenario(tmp_path, "revote then chosen by sheriff")
    assert play(sc, "day 1 { vote tie @3, @4 then tie }") == ("ambiguous", [(3,), (4,)])
    assert play(sc, "state { dead @2 by shot }  day 1 { vote tie @3, @4 then tie }") == ("undefined", [()])


def test_a_required_exit_rules_out_a_second_tie_that_removes_nobody(tmp_path):
    sc = scenario(tmp_path, "revote then no_exit", required=True)
    assert play(sc, "day 1 { vote tie @3, @4 then tie }")[0] == "illegal"
    assert play(sc, "day 1 { vote tie @3, @4 }") == ("ambiguous", [(3,), (4,)])


@pytest.mark.parametrize("tie, body", [
    ("random", "day 1 { vote tie @3, @4 then tie }"),
    ("no_exit", "day 1 { vote tie @3, @4 then @3 }"),
    ("all_leave", "day 1 { vote tie @3, @4 then @4 }"),
])
def test_a_pick_the_tie_rule_has_no_room_for_is_illegal(tmp_path, tie, body):
    assert play(scenario(tmp_path, tie), body)[0] == "illegal"


@pytest.mark.parametrize("tie, message, column", [
    ("chosen", "`tie chosen` needs the tie-breaker", 26),
    ("random by sheriff", "only `tie chosen` names a tie-breaker", 26),
    ("random then no_exit", "only `tie revote` has a `then`", 38),
    ("revote then revote", "a second tie cannot be revoted again", 38),
    ("chosen by nobody_here", "nobody_here", 36),
    ("chosen by holder of sheriff", "sheriff", 46),
])
def test_a_misused_tie_rule_is_a_located_error(tmp_path, tie, message, column):
    with pytest.raises(SpecError) as exc:
        scenario(tmp_path, tie)
    (d,) = exc.value.diagnostics
    assert message in d.message and (d.span.line, d.span.column) == (13, column), (d.message, d.span)
