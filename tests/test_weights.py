"""A tallied vote: `weight EXPR` gives each voter his votes (a sheriff's double vote), and
`vote P by Q, R` says who voted for P. The votes for P must reach a majority of all the
living's votes (or the quorum). Each case is compared with the Z3 encoding, and each is
chosen so that counting every vote as one would give the other answer."""

import pytest
from playing import agreed
from mafiacheck.errors import SpecError
from mafiacheck.interpreter.bind import Binder
from mafiacheck.pipeline import load
from mafiacheck.query_text import load_queries

SPEC = """scenario weighted {{ }}
side town town
side mafia dark
role boss {{ side mafia }}
role citizen {{ side town  plain }}
kind shot
item badge "Sheriff's badge"
composition {n} {{ boss, citizen * {citizens} }}
phases {{ start day  cycle night, day }}
ability shot {{ by boss  at night  target where target.alive and target != actor  effect kill shot }}
day {{ vote {vote}  weight cases {{ holds(voter, badge): 2, else: 1 }}  tie no_exit }}
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town)
"""


def scenario(tmp_path, n: int, vote: str = "majority"):
    path = tmp_path / "weighted.mafia"
    path.write_text(SPEC.format(n=n, citizens=n - 1, vote=vote), encoding="utf-8")
    return load(str(path))


def play(sc, body: str) -> str:
    return agreed(sc, body)[1].verdict


@pytest.mark.parametrize("n, ballots, verdict", [
    (6, "@2, @3, @4", "determined"),  # 4 of 7 votes (one by one: 3 of 6, no majority)
    (5, "@3, @4, @5", "illegal"),     # 3 of 6 votes (one by one: 3 of 5, a majority)
    (5, "@2, @3, @4", "determined"),  # 4 of 6
])
def test_the_sheriff_votes_twice_in_a_majority(tmp_path, n, ballots, verdict):
    sc = scenario(tmp_path, n)
    assert play(sc, f"state {{ holds @2 badge }}  day 1 {{ vote @1 by {ballots} }}") == verdict


def test_without_ballots_the_vote_stands_when_some_ballots_reach_it(tmp_path):
    sc = scenario(tmp_path, 5)
    assert play(sc, "state { holds @2 badge }  day 1 { vote @1 }") == "determined"


@pytest.mark.parametrize("ballots, verdict", [("@2, @3", "determined"), ("@3, @4", "illegal")])
def test_the_weight_counts_towards_a_quorum(tmp_path, ballots, verdict):
    sc = scenario(tmp_path, 5, "quorum 3")
    assert play(sc, f"state {{ holds @2 badge }}  day 1 {{ vote @1 by {ballots} }}") == verdict


def test_a_player_who_has_left_casts_no_ballot(tmp_path):
    sc = scenario(tmp_path, 6)
    assert play(sc, "state { dead @6 by shot }  day 1 { vote @1 by @2, @3, @4, @6 }") == "illegal"


def test_ballots_need_a_tallied_day(tmp_path):
    path = tmp_path / "plain.mafia"
    path.write_text(SPEC.format(n=5, citizens=4, vote="majority").replace(
        "  weight cases { holds(voter, badge): 2, else: 1 }", ""), encoding="utf-8")
    sc = load(str(path))
    source, (q,) = load_queries("query q { day 1 { vote @1 by @2, @3 } }")
    with pytest.raises(SpecError) as exc:
        Binder(sc, source.path).bind(q)
    assert "not tallied" in exc.value.diagnostics[0].message


@pytest.mark.parametrize("line, message", [
    ("day { weight 2  tie no_exit }", "the day needs a `vote` line"),
    ("day { vote majority  weight voter.alive  tie no_exit }", ""),
])
def test_a_misused_weight_is_a_located_error(tmp_path, line, message):
    path = tmp_path / "bad.mafia"
    text = SPEC.format(n=5, citizens=4, vote="majority")
    text = "\n".join(line if t.startswith("day ") else t for t in text.splitlines())
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as exc:
        load(str(path))
    (d,) = exc.value.diagnostics
    assert message in d.message and d.span.line == 11, d.message
