"""A game grown phase by phase (Game.grow, read through Prefix) is the game built at that
length: the same constraints in the same order, whichever length was built first. The
deepening search relies on it; a difference would make a verdict depend on the depths asked
before it (and the solver's search on the order constraints arrived in)."""

from pathlib import Path

import pytest

from mafiacheck.encode.unroll import Game, Prefix
from mafiacheck.pipeline import load

SPECS = Path(__file__).resolve().parent.parent / "specs"


def _text(constraints: list) -> list[str]:
    return [c.sexpr() for c in constraints]


@pytest.mark.parametrize("name", ["gangster", "godfather_nostradamus"])
def test_a_grown_prefix_is_the_game_built_at_its_length(name):
    sc = load(str(SPECS / f"{name}.mafia"))
    seats = sc.compositions[0].seats()
    grown = Game(sc, seats, 3)
    assert grown.symmetry_breaking(grown.states), "the composition has interchangeable seats"
    for length in (5, 7):
        grown.grow(length)
        fresh = Game(sc, seats, length)
        assert _text(Prefix(grown, length).constraints) == _text(Prefix(fresh, length).constraints)
        assert _text(Prefix(fresh, length).constraints) == _text(fresh.whole())
    # A shorter prefix of the grown game is the shorter game too.
    assert _text(Prefix(grown, 3).constraints) == _text(Game(sc, seats, 3).whole())


def test_a_game_without_symmetry_breaking_has_none():
    sc = load(str(SPECS / "gangster.mafia"))
    game = Game(sc, sc.compositions[0].seats(), 3, symmetry=False)
    assert game.symmetry_breaking(game.states) == [] and game.whole() == game.constraints
