"""The encoding's symbolic state (encode/state.py): every operation over the whole state
reaches every field, so a field added later cannot be forgotten by one of them."""

import dataclasses
from functools import cache
from pathlib import Path

import pytest
import z3

from mafiacheck.encode.state import SymState, state_fields
from mafiacheck.encode.unroll import Game
from mafiacheck.evaluate import State
from mafiacheck.pipeline import load

ROOT = Path(__file__).resolve().parent.parent
# Between them, these hold every field of the state with at least one term (checked below).
SPECS = ["specs/godfather_nostradamus.mafia", "specs/godfather_jack.mafia", "specs/night_of_mafia.mafia",
         "tests/fixtures/lab.mafia", "tests/fixtures/mechanics/lovers.mafia", "tests/fixtures/wins.mafia",
         "tests/fixtures/mechanics/triggers.mafia"]


@cache
def game(spec: str) -> Game:
    sc = load(str(ROOT / spec))
    return Game(sc, sc.compositions[0].seats(), 1, symmetry=False)


def leaves(value) -> int:
    """The terms in a field's value, counted without SymState's walk."""
    if isinstance(value, list):
        return sum(leaves(v) for v in value)
    if isinstance(value, dict):
        return sum(leaves(v) for v in value.values())
    return 0 if value is None else 1


# The fields that are the phase's, not the state's: the only ones a walk leaves out.
SCRATCH = {"round", "defenses"}
STATE = [f.name for f in dataclasses.fields(SymState) if f.name not in SCRATCH]


def fresh(g: Game, tag: str) -> SymState:
    return g.state_vars(tag)


def test_the_specs_hold_every_field():
    have = {path[0] for spec in SPECS for path in fresh(game(spec), "x").slots()}
    assert have == set(STATE)
    assert sorted(f.name for f in state_fields()) == sorted(STATE)


@pytest.mark.parametrize("spec", SPECS)
def test_the_walk_reaches_every_term_of_every_field(spec):
    st = fresh(game(spec), "w")
    paths = list(st.slots())
    assert len(paths) == len(set(paths))
    for name in STATE:
        mine = [p for p in paths if p[0] == name]
        assert len(mine) == leaves(getattr(st, name)), name
        assert all(st.get(p) is not None for p in mine)
    canonical = [p for p, _ in st.terms()]
    assert sorted(canonical, key=repr) == sorted(paths, key=repr)
    names = [p[0] for p in canonical]
    assert names == sorted(names)  # by field name, as the induction's paths always were


@pytest.mark.parametrize("spec", SPECS)
def test_equating_two_states_reaches_every_term(spec):
    g = game(spec)
    S, cur, S2 = fresh(g, "a"), fresh(g, "b"), fresh(g, "c")
    before = len(g.constraints)
    g.equate(S2, cur, S, z3.Bool("active", g.ctx))
    added = g.constraints[before:]
    del g.constraints[before:]
    # Neither side is known, so every term of the next state is a variable equal to the
    # phase's result, each stated once (ranged integers have their range stated too).
    pinned = {str(c.arg(0)) for c in added if z3.is_eq(c)}
    assert pinned == {str(S2.get(p)) for p in S2.slots()}


@pytest.mark.parametrize("spec", SPECS)
def test_a_copy_shares_no_table_and_mapped_replaces_every_term(spec):
    st = fresh(game(spec), "k")
    copy = st.copy()
    marker = z3.Int("marker", game(spec).ctx)
    for p in list(copy.slots()):
        copy.put(p, marker)
    assert all(not st.get(p).eq(marker) for p in st.slots())
    assert all(copy.get(p).eq(marker) for p in copy.slots())
    mapped = st.mapped(lambda x: marker)
    assert all(mapped.get(p).eq(marker) for p in mapped.slots())
    assert all(not st.get(p).eq(marker) for p in st.slots())


def test_the_phase_fields_are_not_state():
    g = game("tests/fixtures/wins.mafia")
    st = dataclasses.replace(fresh(g, "r"), round=g.I(3), defenses=[("save", 0)])
    assert {p[0] for p in st.slots()} <= set(STATE)
    assert st.copy().round is st.round and st.copy().defenses == st.defenses


def test_link_kinds_only_where_links_carry_exits():
    assert game("tests/fixtures/mechanics/lovers.mafia").states[1].link_kinds is not None
    assert game("tests/fixtures/wins.mafia").states[1].link_kinds is None
    assert not any(p[0] == "link_kinds" for p in game("tests/fixtures/wins.mafia").states[1].slots())


def test_the_fields_named_as_the_interpreters_state_are_its_fields():
    # Where the two hold the same thing they have one name (encode/state.py's docstring
    # maps the others).
    mine = {f.name for f in dataclasses.fields(SymState)}
    theirs = {f.name for f in dataclasses.fields(State)}
    shared = {"alive", "roles", "sides", "left_by", "counters", "items", "uses", "self_uses", "last_targets",
              "pending", "links", "revealed", "drawn", "readings", "uses_open", "idle", "link_kinds", "round"}
    assert shared <= mine & theirs
    assert mine - theirs == {"memories_set", "memories_one", "memories_int", "delayed_counts",
                             "delayed_targets", "winner", "counter_given", "defenses"}
