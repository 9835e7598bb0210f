"""Holes have one text, made in one place (checker/holes.py): a hole the encoding can report
(MC203, "the rules do not decide …") reads as the one the interpreter shows when it plays the
game, so a finding and its replayed witness name the same thing."""

import ast
from pathlib import Path

import pytest

from playing import bind
from mafiacheck import holes
from mafiacheck.encode.unroll import Game
from mafiacheck.interpreter.play import Player
from mafiacheck.pipeline import load

ROOT = Path(__file__).resolve().parent.parent
CHECKER = ROOT / "checker"
PARITY = ROOT / "tests" / "fixtures" / "parity"

# (fixture, query): games in which the interpreter meets each kind of hole both sides report.
GAMES = [
    ("holes", "query q { night 1 { vision on boss } }"),
    ("holes", "query q { night 1 { vision on boss  jail on oracle  shot on citizen@1 }"
              "  day 1 { vote tie citizen@2, citizen@3 }  night 2 { vision on thug } }"),
    ("holes", "query q { night 1 { shot on citizen@1 }  day 1 { vote boss }  night 2 { shot on citizen@2 } }"),
    ("holes", "query q { night 1 { shot on citizen@1 }  day 1 { vote citizen@2 }  night 2 { shot on citizen@3 }"
              "  day 2 { vote none } }"),
    ("rowless", "query q { night 1 { shot on citizen@1  omen on warden }  day 1 { vote citizen@2 }"
                "  night 2 { shot on citizen@3  tally on doc  hush on boss } }"),
    ("unsettled", "query q { night 1 { guard_shot on boss } }"),
    # a ring of three blocks (Charm → Hex → Jail → Charm), then two who block each other
    ("block_ring", "query q { night 1 { jail on beauty  charm on witch  hex on jailer }"
                   "  day 1 { vote none }  night 2 { jail on beauty  charm on jailer } }"),
]
SHARED = {holes.UNSPECIFIED, holes.NO_ROW, holes.NO_QUORUM, holes.TIE, holes.LEADERLESS, holes.OPEN_LIMIT,
          holes.OPEN_WIN, holes.READINGS, holes.UNSETTLED, holes.BLOCK_CYCLE}


def played_holes(scenario, text: str):
    """(phase, the state it starts from, the holes the interpreter shows in it), phase by
    phase along the query's first outcome."""
    bound = bind(scenario, text)
    player, state, out = Player(scenario), bound.state, []
    for phase, uses in bound.phases:
        results, problems = player.play(state, phase, uses)
        assert results, [p.message for p in problems]
        found = [p.gap for p in problems if p.gap is not None]
        found += [h for _, report in results for h in report.holes]
        out.append((phase, state, found))
        state = results[0][0]
    return out


def encoded_holes(scenario, state, phase) -> set:
    """Every hole the encoding can report in this phase, from this state (MC203's, and the
    block cycles MC208 reports)."""
    game = Game(scenario, tuple(state.roles), 1, start=state, first_phase=phase.index, symmetry=False)
    return {hole for pv in game.vars for _, hole in pv.undefined + pv.cycles}


def test_each_hole_the_interpreter_shows_is_one_the_encoding_reports_word_for_word():
    seen = set()
    for name, text in GAMES:
        scenario = load(str(PARITY / f"{name}.mafia"))
        for phase, state, found in played_holes(scenario, text):
            if not found:
                continue
            encoded = encoded_holes(scenario, state, phase)
            for hole in found:
                seen.add(hole.kind)
                assert hole in encoded, (name, str(phase), hole, sorted(h.message for h in encoded))
                twin = next(h for h in encoded if h == hole)
                assert twin.message == hole.message and not twin.case
    assert SHARED <= seen, SHARED - seen


def test_a_played_game_adds_the_case_at_hand_after_the_shared_text():
    hole = holes.no_row("rule scared", "scared", case="no row of this table covers 3")
    assert hole == holes.no_row("rule scared", "scared")
    assert str(hole) == "rule scared: a table with no row for this case (no row of this table covers 3)"


def _made_outside(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)
            and ((isinstance(n.func, ast.Name) and n.func.id == "Hole")
                 or (isinstance(n.func, ast.Attribute) and n.func.attr == "Hole"))]


@pytest.mark.parametrize("path", sorted(p for p in CHECKER.rglob("*.py") if p.name != "holes.py"),
                         ids=lambda p: str(p.relative_to(CHECKER)))
def test_holes_are_made_only_in_holes_py(path: Path):
    assert _made_outside(path) == [], f"{path.relative_to(ROOT)} makes a Hole: add a maker to checker/holes.py"
