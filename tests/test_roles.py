"""The roles a seat can ever hold (encode/roles.py): exact where the rules make it obvious,
and never missing a role that a game through the interpreter gives a seat."""

import random
from pathlib import Path

import pytest

from mafiacheck.crosscheck.differential import random_walk
from mafiacheck.encode.unroll import Game
from mafiacheck.pipeline import load

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.mafia"))


def possible(scenario, composition):
    return Game(scenario, composition.seats(), 1, symmetry=False).roles_of


def test_gangster_swap_reaches_only_the_nato_and_the_killer():
    sc = load(str(ROOT / "specs" / "gangster.mafia"))
    comp = sc.compositions[0]
    roles = possible(sc, comp)
    for seat, role in enumerate(comp.seats()):
        expected = {"nato", "killer"} if role in ("nato", "killer") else {role}
        assert roles[seat] == expected, (seat, role)


def test_buying_reaches_only_plain_citizens():
    # G2: `if target.role == citizen then convert to bought`
    sc = load(str(ROOT / "specs" / "godfather_jack.mafia"))
    comp = sc.compositions[0]
    roles = possible(sc, comp)
    for seat, role in enumerate(comp.seats()):
        assert roles[seat] == ({"citizen", "bought"} if role == "citizen" else {role})


def test_a_rule_converts_every_seat_its_condition_allows():
    # CO-R15: only the Guard's armour turns him into a citizen.
    sc = load(str(ROOT / "specs" / "commando.mafia"))
    comp = sc.compositions[0]
    roles = possible(sc, comp)
    for seat, role in enumerate(comp.seats()):
        assert roles[seat] == ({"guard", "citizen"} if role == "guard" else {role})


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_no_game_gives_a_seat_a_role_outside_its_set(path):
    sc = load(str(path))
    for comp in sc.compositions:
        roles = possible(sc, comp)
        rng = random.Random(7)
        for _ in range(12):
            for state, _, _ in random_walk(sc, comp.seats(), rng, 9):
                for seat, role in enumerate(state.roles):
                    assert role in roles[seat], (comp.players, seat, role)
