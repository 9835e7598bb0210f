"""A counted vote: the query gives the votes cast (`vote P with N`, `vote P with 4, Q with 3`,
`vote tie P, Q with 3`) and the day's vote rule says who leaves: the quorum (`vote quorum`),
or more than half the living's votes for one player (`vote majority`; a tie goes to the tie
rule whatever its count), each voter counting his `weight`, at the vote. Numbers that
contradict the result the query names are illegal. Each case is compared with the Z3
encoding (`playing.agreed`), which must allow exactly the interpreter's outcomes."""

import pytest
from playing import agreed, bind
from mafiacheck.crosscheck.differential import compare
from mafiacheck.errors import SpecError
from mafiacheck.pipeline import load

SPEC = """scenario counted {{ }}
side town town
side mafia dark
role boss {{ side mafia }}
role citizen {{ side town  plain }}
kind shot
item badge "Sheriff's badge"
composition 7 {{ boss * 2, citizen * 5 }}
phases {{ start day  cycle night, day }}
ability shot {{ by boss  at night  target where target.alive and target.side != mafia  effect kill shot }}
ability snipe {{ by boss  at day before vote  target where target.alive and target.side != mafia
  limit 1 per game  effect kill shot }}
day {{ vote {vote}  tie {tie}{extra} }}
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town)
"""


def scenario(tmp_path, vote="majority", tie="random", extra=""):
    path = tmp_path / "counted.mafia"
    path.write_text(SPEC.format(vote=vote, tie=tie, extra=extra), encoding="utf-8")
    return load(str(path))


def play(sc, body: str):
    """(verdict, per outcome the seats that left, 1-based; or the problems if illegal)."""
    bound, answer = agreed(sc, body)
    (phase, uses), = bound.phases
    detail = compare(sc, bound.state, phase, uses).detail
    assert "not compared" not in detail and "not comparable" not in detail, detail
    if answer.verdict == "illegal":
        return "illegal", [p.message for p in answer.problems]
    return answer.verdict, [[s + 1 for s, alive in enumerate(o.state.alive) if not alive]
                            for o in answer.outcomes]


@pytest.mark.parametrize("vote, left", [
    ("vote @3 with 4", [[3]]),              # 4 of 7: a majority
    ("vote @3 with 3", [[]]),               # 3 of 7: none
    ("vote @3 with 4, @4 with 3", [[3]]),
    ("vote @3 with 3, @4 with 2", [[]]),    # the most votes, not a majority
])
def test_a_majority_is_more_than_half_the_living(tmp_path, vote, left):
    assert play(scenario(tmp_path), f"day 1 {{ {vote} }}") == ("determined", left)


@pytest.mark.parametrize("vote, left", [
    ("vote @3 with 3, @4 with 2", [[3]]),   # the most votes is enough
    ("vote @3 with 1", [[3]]),
    ("vote @3 with 0", [[]]),               # nobody voted
    ("vote tie @3, @4 with 1 then @4", [[4]]),
    ("vote tie @3, @4 with 0", [[]]),
])
def test_under_a_plurality_the_most_votes_are_enough(tmp_path, vote, left):
    assert play(scenario(tmp_path, vote="plurality"), f"day 1 {{ {vote} }}") == ("determined", left)


def test_a_tie_with_no_votes_removes_nobody_under_a_majority(tmp_path):
    assert play(scenario(tmp_path), "day 1 { vote tie @3, @4 with 0 }") == ("determined", [[]])


@pytest.mark.parametrize("vote, verdict", [("plurality", "determined"), ("majority", "illegal")])
def test_one_ballot_is_a_tallied_plurality(tmp_path, vote, verdict):
    sc = scenario(tmp_path, vote=vote, extra="  weight 1")
    assert play(sc, "day 1 { vote @3 by @5 }")[0] == verdict


@pytest.mark.parametrize("vote, message", [
    ("vote @3 with 3, @4 with 4", "@4 (citizen) has 4 votes, more than the 3 of @3 (citizen): the player "
                                  "with the most votes is the one voted out"),
    ("vote @3 with 3, @4 with 3", "@3 (citizen) and @4 (citizen) have 3 votes each: that is a tie "
                                  "(`vote tie @3, @4 with 3`)"),
    ("vote tie @3, @4 with 2, @5 with 3", "@5 (citizen) has 3 votes, more than the 2 of each of the tied"),
    ("vote tie @3, @4 with 2, @5 with 2", "@5 (citizen) has 2 votes too: he is one of the tied"),
])
def test_counts_that_contradict_the_result_are_illegal(tmp_path, vote, message):
    verdict, problems = play(scenario(tmp_path), f"day 1 {{ {vote} }}")
    assert verdict == "illegal" and any(message in p for p in problems), problems


def test_the_votes_are_counted_among_the_living_at_the_vote(tmp_path):
    sc = scenario(tmp_path)
    # 7 votes named: all 7 alive can cast them, but not the 6 left after the day's shot.
    assert play(sc, "day 1 { vote @3 with 4, @4 with 3 }") == ("determined", [[3]])
    verdict, problems = play(sc, "day 1 { snipe by @1 on @7  vote @3 with 4, @4 with 3 }")
    assert verdict == "illegal" and problems == [
        "the votes named add up to 7, and the 6 players alive at the vote cast 6"], problems
    # 3 of the 6 left: no majority (3 of 7 would not be one either; 4 of 6 is).
    assert play(sc, "day 1 { snipe by @1 on @7  vote @3 with 4 }") == ("determined", [[3, 7]])
    assert play(sc, "state { dead @7 by shot }  day 1 { vote @3 with 3 }") == ("determined", [[7]])


@pytest.mark.parametrize("tie, vote, left", [
    ("random", "vote tie @3, @4 with 2", [[3], [4]]),
    ("random", "vote tie @3, @4 with 2 then @4", [[4]]),
    ("random", "vote tie @3, @4 with 3, @5 with 1", [[3], [4]]),
    ("no_exit", "vote tie @3, @4 with 3", [[]]),
    ("all_leave", "vote tie @3, @4 with 1", [[3, 4]]),
])
def test_a_tie_with_its_count_goes_to_the_tie_rule_under_majority(tmp_path, tie, vote, left):
    assert play(scenario(tmp_path, tie=tie), f"day 1 {{ {vote} }}") == ("ambiguous" if len(left) > 1
                                                                        else "determined", left)


@pytest.mark.parametrize("vote, left", [
    ("vote @3 with 3", [[3]]),
    ("vote @3 with 2", [[]]),
    ("vote @3 with 3, @4 with 2", [[3]]),
    ("vote tie @3, @4 with 3 then @3", [[3]]),
    ("vote tie @3, @4 with 2", [[]]),
])
def test_the_quorum_decides_a_counted_vote_and_a_counted_tie(tmp_path, vote, left):
    assert play(scenario(tmp_path, vote="quorum 3"), f"day 1 {{ {vote} }}") == ("determined", left)


def test_a_tie_short_of_the_quorum_has_nothing_to_break(tmp_path):
    verdict, problems = play(scenario(tmp_path, vote="quorum 3"), "day 1 { vote tie @3, @4 with 2 then @3 }")
    assert verdict == "illegal" and problems == [
        "@3 (citizen) and @4 (citizen) have 2 votes each, of the 3 needed: nobody is voted out, "
        "so there is no tie for `then` to settle"], problems


@pytest.mark.parametrize("vote, verdict", [
    ("vote @3 with 4", "determined"),
    ("vote @3 with 3", "illegal"),          # no majority: a day with no exit
    ("vote tie @3, @4 with 2", "ambiguous"),
])
def test_a_required_exit_needs_the_votes(tmp_path, vote, verdict):
    sc = scenario(tmp_path, extra="  exit required")
    got, detail = play(sc, f"day 1 {{ {vote} }}")
    assert got == verdict, detail
    if got == "illegal":
        assert detail == ["the rules require a vote exit each day, and @3 (citizen) has 3 of the 7 votes, "
                          "no majority remove nobody"], detail


@pytest.mark.parametrize("vote, left", [("vote @3 with 4", [[]]), ("vote @3 with 5", [[3]])])
def test_a_weighted_voter_counts_in_the_majority(tmp_path, vote, left):
    # The sheriff's two votes make 8: four is half of them (one by one, four of seven wins).
    sc = scenario(tmp_path, extra="  weight cases { holds(voter, badge): 2, else: 1 }")
    assert play(sc, f"state {{ holds @2 badge }}  day 1 {{ {vote} }}") == ("determined", left)


@pytest.mark.parametrize("vote, message", [
    ("vote @3 with 5, @4 with 3", "the 8 votes named: there are only 7 players to vote"),
    ("vote tie @3, @4 with 4", "the 8 votes named: there are only 7 players to vote"),
    ("vote @3 with 8", "`with 8`: there are only 7 players to vote"),
    ("vote @3 with 4, @3 with 1", "@3 is counted twice in this vote"),
    ("vote tie @3, @4 with 2, @4 with 1", "@4 is counted twice in this vote"),
])
def test_counts_the_query_alone_refutes_are_input_errors(tmp_path, vote, message):
    sc = scenario(tmp_path)
    with pytest.raises(SpecError) as exc:
        bind(sc, f"query q {{ day 1 {{ {vote} }} }}")
    assert [d.message for d in exc.value.diagnostics] == [message]


def test_a_count_and_ballots_together_are_an_input_error(tmp_path):
    sc = scenario(tmp_path, extra="  weight 1")
    with pytest.raises(SpecError) as exc:
        bind(sc, "query q { day 1 { vote @3 with 4 by @1, @2 } }")
    assert "not both" in exc.value.diagnostics[0].message
