"""Named compositions: the alternatives of one setup ("a cop, a doctor, both or neither"), each
checked, told apart in reports, witnesses, `--format json` and queries (`composition NAME`)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playing import bind
from mafiacheck.errors import SpecError
from mafiacheck.interpreter.play import Player
from mafiacheck.pipeline import load

ROOT = Path(__file__).resolve().parent.parent
C9 = ROOT / "examples" / "rulebooks" / "c9.mafia"

HEAD = """scenario s { }
side town town
side mafia dark
role goon { side mafia }
role townie { side town  plain }
role cop { side town }
phases { start night  cycle day, night }
day { vote majority  tie no_exit }
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town)
"""


def spec(tmp_path, text, name="s.mafia"):
    path = tmp_path / name
    path.write_text(HEAD + text, encoding="utf-8")
    return path


def errors(path):
    with pytest.raises(SpecError) as exc:
        load(str(path))
    return [(d.message, d.span.line, d.span.column) for d in exc.value.diagnostics]


def test_two_unnamed_compositions_of_one_count_are_a_located_error(tmp_path):
    path = spec(tmp_path, "composition 3 { goon, townie * 2 }\ncomposition 3 { goon, cop, townie }\n")
    found = errors(path)
    assert [(line, col) for _, line, col in found] == [(11, 13), (12, 13)]
    assert all("several compositions of 3 players" in m for m, _, _ in found)


def test_a_composition_name_used_twice_is_a_located_error(tmp_path):
    path = spec(tmp_path, "composition 3 a { goon, townie * 2 }\ncomposition 4 a { goon, cop, townie * 2 }\n")
    assert errors(path) == [("composition name 'a' is used twice", 12, 15)]



def test_a_query_picks_an_alternative_by_name():
    sc = load(str(C9))
    assert bind(sc, "query q { composition cop_only }").seats == (
        "goon", "goon", "cop", "townie", "townie", "townie", "townie")
    assert bind(sc, "query q { composition vanilla }").seats == ("goon",) * 2 + ("townie",) * 5


@pytest.mark.parametrize("text, message", [
    ("query q { composition 7 }", "name one (`composition NAME`: cop_doctor, cop_only, doctor_only, vanilla)"),
    ("query q { composition cop_and_vig }", "the rulebook names no composition 'cop_and_vig'"),
    ("query q { day 1 { vote none } }", "say which composition the game uses"),
])
def test_an_unclear_alternative_in_a_query_is_a_located_error(text, message):
    sc = load(str(C9))
    with pytest.raises(SpecError) as exc:
        bind(sc, text)
    (d,) = exc.value.diagnostics
    assert message in d.message and d.span.line == 1


def test_players_match_any_alternative_of_their_count():
    sc = load(str(C9))
    bound = bind(sc, "query q { players goon, goon, doctor, townie, townie, townie, townie }")
    assert bound.seats[2] == "doctor"
    with pytest.raises(SpecError):
        bind(sc, "query q { players goon, goon, goon, townie, townie, townie, townie }")


def test_the_same_script_means_what_each_alternative_deals():
    sc = load(str(C9))
    text = "query q {{ composition {} from night 1  night 1 {{ investigate on @1 }} }}"
    answer = Player(sc).answer(bind(sc, text.format("cop_only")))
    assert [r.learned for r in answer.outcomes[0].reports] == [[(2, 0, "Mafia")]]
    answer = Player(sc).answer(bind(sc, text.format("doctor_only")))
    assert answer.verdict == "illegal"
    assert any("nobody who can use 'Investigation'" in p.message for p in answer.problems)


def check_json(path):
    out = subprocess.run([sys.executable, "-m", "mafiacheck", "check", str(path), "--select", "undefined",
                          "--format", "json"], capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)["files"][0]["findings"]


def test_every_alternative_is_checked_and_named_in_the_finding(tmp_path):
    # The hole is reachable only in the second alternative, the one with a cop.
    path = spec(tmp_path, """
composition 4 plain_town { goon, townie * 3 }
composition 4 with_cop { goon, cop, townie * 2 }
ability look { by cop  at night  target where target.alive  effect unspecified "what the cop sees" }
""")
    (found,) = check_json(path)
    assert found["code"] == "MC203"
    assert "composition 4 with_cop" in found["message"]
    assert "composition with_cop" in found["witness"]["script"]
    assert found["witness"]["replay"]["verdict"] == "undefined"
