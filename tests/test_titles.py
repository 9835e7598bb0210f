"""A title passed in play: the town elects a sheriff (an item without variants, given by the
moderator's record of the election), his title breaks ties (`tie chosen by holder of badge`),
and when he leaves he names a successor (`by holder of badge  on leave immediately`). Each
case is compared with the Z3 encoding, so a side that ignored the item or the trigger would
disagree."""

import pytest
from playing import agreed
from mafiacheck.errors import SpecError
from mafiacheck.interpreter.bind import Binder
from mafiacheck.interpreter.play import Player
from mafiacheck.pipeline import load
from mafiacheck.query_text import load_queries

SPEC = """scenario sheriff_game { }
side town town
side mafia dark
role boss { side mafia }
role citizen { side town  plain }
kind shot
item badge "Sheriff's badge"
item gun "Gun" variants live, blank
composition 6 { boss * 2, citizen * 4 }
phases { start day  cycle night, day }
ability shot { by boss  at night  target where target.alive and target.side != mafia  effect kill shot }
ability election "The town elects the sheriff" {
  by moderator  at day 1 before vote
  target where target.alive
  mandatory
  effect give badge
}
ability succession "The sheriff names his successor" {
  by holder of badge
  on leave immediately
  target where target.alive and target != actor
  optional
  effect give badge; lose badge on actor
}
day { vote majority  tie chosen by holder of badge }
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town)
"""


@pytest.fixture(scope="module")
def sc(tmp_path_factory):
    path = tmp_path_factory.mktemp("titles") / "sheriff.mafia"
    path.write_text(SPEC, encoding="utf-8")
    return load(str(path))


def play(sc, body: str):
    """(verdict, per outcome the seats holding the badge, 1-based); the encoding must allow
    exactly the interpreter's outcomes of the query's first phase."""
    bound, answer = agreed(sc, body)
    return answer.verdict, [sorted(s + 1 for (item, s) in o.state.items if item == "badge")
                            for o in answer.outcomes]


def test_the_election_gives_the_title(sc):
    assert play(sc, "day 1 { election on @4  vote @1 }") == ("determined", [[4]])
    assert play(sc, "day 1 { vote @1 }")[0] == "illegal"  # the election must be held


def test_the_sheriff_names_his_successor_when_killed(sc):
    body = "state { holds @3 badge }  from night 1  night 1 { shot by @1 on @3  succession by @3 on @5 }"
    assert play(sc, body) == ("determined", [[5]])


def test_the_sheriff_names_his_successor_when_voted_out(sc):
    body = "state { holds @3 badge }  day 1 { election on @3  vote @3  succession by @3 on @6 }"
    assert play(sc, body) == ("determined", [[6]])


def test_no_successor_without_the_exit(sc):
    # The use waits for its trigger, which never comes: it is not carried out.
    body = "state { holds @3 badge }  from night 1  night 1 { shot by @1 on @4  succession by @3 on @5 }"
    assert play(sc, body) == ("determined", [[3]])
    assert play(sc, "state { holds @3 badge }  day 1 { election on @3  vote @2  succession by @3 on @5 }")[0] \
        == "illegal"


def test_the_title_holder_breaks_the_tie(sc):
    body = "state { holds @3 badge }  from night 1  night 1 { shot by @1 on @4 }"
    source, (q,) = load_queries(f"query q {{ {body}  day 2 {{ vote tie @1, @5 then @1 }} }}")
    answer = Player(sc).answer(Binder(sc, source.path).bind(q))
    assert answer.verdict == "determined" and not answer.outcomes[0].state.alive[0]


@pytest.mark.parametrize("holds, message", [
    ("holds @3 gun", "say which variant of 'gun' is held"),
    ("holds @3 badge(live)", "'badge' has no variant 'live' (it has none"),
    ("holds @3 hat", "unknown item 'hat'"),
])
def test_a_held_item_in_a_query_state_is_checked(sc, holds, message):
    source, (q,) = load_queries(f"query q {{ state {{ {holds} }}  day 1 {{ vote @1 }} }}")
    with pytest.raises(SpecError) as exc:
        Binder(sc, source.path).bind(q)
    (d,) = exc.value.diagnostics
    assert message in d.message and d.span.line == 1


def test_the_check_finds_a_sheriff_elected_as_he_is_voted_out(tmp_path):
    """A real consequence of the timing: the title is given after the day's deaths, so a
    sheriff elected and voted out on day 1 names no successor, and a later tie has nobody
    to break it."""
    import json
    import subprocess
    import sys
    path = tmp_path / "sheriff.mafia"
    path.write_text(SPEC, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "mafiacheck", "check", str(path), "--select", "undefined",
                          "--format", "json"], capture_output=True, text=True, check=False)
    (found,) = json.loads(out.stdout)["files"][0]["findings"]
    assert found["code"] == "MC203" and "who breaks a tie" in found["message"]
    assert found["witness"]["replay"]["verdict"] == "undefined"


ARMING = """scenario arming { }
side town town
side mafia dark
role boss { side mafia }
role dealer { side town }
role citizen { side town  plain }
kind shot
item gun "Gun" variants live, blank
composition 5 { boss, dealer, citizen * 3 }
phases { start night  cycle day, night }
ability arm "The dealer sells a blank to a player, and keeps a live gun" {
  by dealer  at night
  target where target.alive and target != actor
  effect give gun(blank); give gun(live) on actor
}
day { vote majority  tie no_exit }
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town)
"""


def test_a_given_variant_goes_to_the_player_named_after_on(tmp_path):
    """`give ITEM(VARIANT) on P`: the variant before `on` does not hide it (the effect used to
    take its first tagged part, the variant, for its `on`, and armed the target instead)."""
    path = tmp_path / "arming.mafia"
    path.write_text(ARMING, encoding="utf-8")
    sc = load(str(path))
    (ability,) = [a for a in sc.abilities if a.key == "arm"]
    assert [e.on is not None for e in ability.effects] == [False, True]
    _, answer = agreed(sc, "night 1 { arm by @2 on @3 }")
    assert answer.verdict == "determined"
    (outcome,) = answer.outcomes
    assert sorted((s + 1, v) for (item, s), v in outcome.state.items.items()) == [(2, "live"), (3, "blank")]


def played_through(sc, body: str):
    """The interpreter's answer to `query q { body }`, once the encoding is shown to allow
    exactly the interpreter's outcomes of every phase, from each state the phases before
    lead to."""
    from mafiacheck.crosscheck.differential import compare
    from playing import bind
    bound = bind(sc, f"query q {{ {body} }}")
    player = Player(sc)
    states = [bound.state]
    for phase, uses in bound.phases:
        following = []
        for state in states:
            verdict = compare(sc, state, phase, uses)
            assert verdict.agree and "not compar" not in verdict.detail, f"{phase}: {verdict.detail}"
            following += [st for st, _ in player.play(state, phase, uses)[0]]
        states = following
    return player.answer(bound)


ELECTED = "day 1 { election on @4  vote @1 by @3, @4, @5, @6 }  night 1 { shot by @2 on @4  succession by @4 on @5 }"


@pytest.fixture(scope="module")
def weighted(tmp_path_factory):
    path = tmp_path_factory.mktemp("titles") / "sheriff_weighted.mafia"
    path.write_text(SPEC.replace("tie chosen by holder of badge",
                                 "weight cases { holds(voter, badge): 2, else: 1 }  tie chosen by holder of badge"),
                    encoding="utf-8")
    return load(str(path))


def test_the_idiom_carries_an_election_and_a_succession_through_a_game(weighted):
    """One game of the idiom that stands for an `election` keyword: the town elects @4 on day
    1, the mafia kills him on night 1 and he names @5, whose title then breaks day 2's tie
    and doubles his vote (two votes of the four alive's five: with one each, two of four is
    no majority)."""
    answer = played_through(weighted, ELECTED + "  day 2 { vote tie @2, @3 then @2 }")
    assert answer.verdict == "determined" and answer.outcomes[0].winner == "town"
    holders = [sorted(s + 1 for (item, s) in o.state.items if item == "badge") for o in answer.outcomes]
    assert holders == [[5]]
    answer = played_through(weighted, ELECTED + "  day 2 { vote @2 by @5, @6 }")
    assert answer.verdict == "determined" and answer.outcomes[0].winner == "town"
    # The title went to @5: @6's vote alone does not double.
    assert played_through(weighted, ELECTED + "  day 2 { vote @2 by @3, @6 }").verdict == "illegal"
