"""The witness search one round past a depth the solver gave up on (Encoded.past): its
`decided` literals mean what the clean conditions they stand for mean, it finds the same
earliest phase as the plain search, and a witness whose earlier phases the solver gave up on
says that a shorter game is not ruled out, where it once claimed to be the shortest."""

import re
from pathlib import Path

import z3

from mafiacheck.analyses import win_overlap
from mafiacheck.analyses.encoded import Encoded, Options
from mafiacheck.encode.solver import Result, ask
from mafiacheck.pipeline import load

ROOT = Path(__file__).parent.parent


def _gangster(bound):
    sc = load(str(ROOT / "specs" / "gangster.mafia"))
    comp = next(c for c in sc.compositions if c.total == c.players)
    return Encoded(sc, comp, Options(bound=bound))


def test_a_decided_literal_is_exactly_its_phases_being_clean():
    plain, guarded = _gangster(2), _gangster(2)
    guarded.guarded_clean = True
    for t in range(len(guarded.prefix.vars)):
        literal = guarded.clean_until(t)
        assert z3.is_const(literal) and literal.decl().name() == f"decided {t}"
        # Same context (one game per Encoded here): the plain term carried over by translation.
        term = plain.clean_until(t).translate(guarded.prefix.ctx)
        assert ask(guarded.solver, literal, z3.Not(term)).status == "unsat"
        # And the literal can be set whenever the phases are clean: it constrains nothing else.
        assert ask(guarded.solver, term, z3.Not(literal)).status == "sat"
        assert ask(guarded.solver, term, literal).status == "sat"


def test_the_guarded_search_finds_the_same_earliest_phase():
    """gangster's win overlap comes after night 4, in games of four rounds."""
    answers = []
    for guarded_clean in (False, True):
        enc = _gangster(4)
        enc.guarded_clean = guarded_clean
        status, t, _, open_before = enc.first(lambda t: win_overlap._goal(enc, t))
        answers.append((status, t, open_before))
    assert answers[0] == answers[1]
    status, t, open_before = answers[0]
    phases = [str(p) for p in _gangster(4).prefix.phases]
    assert status == "sat" and phases[t] == "night 4"
    # What the narrowing could not rule out is named, and is earlier than the witness.
    for name in re.findall(r"after ([^:;]+): the solver gave up", open_before or ""):
        assert phases.index(name) < t


def test_a_witness_whose_earlier_phases_were_not_ruled_out_says_so():
    """The narrowing questions answered `unknown` (as a solver past its limit would): the
    game found stands, and the phases before it are named as open, not passed over."""
    enc = _gangster(4)
    asked = enc.ask
    calls = []

    def giving_up_after_the_first(*goal, **kw):
        calls.append(kw)
        if len(calls) == 1:
            return asked(*goal, **kw)
        return Result("unknown", None, "resource limit reached", 0.0)
    enc.ask = giving_up_after_the_first
    status, t, result, open_before = enc.first(lambda t: win_overlap._goal(enc, t), narrow_fallback=False)
    assert status == "sat" and result is not None
    assert str(enc.prefix.phases[t]) == "night 4"
    assert open_before is not None and "after day 4: the solver gave up (resource limit reached)" in open_before
    assert open_before.startswith(f"after {enc.prefix.phases[0]}: the solver gave up")
    assert all(kw.get("fallback") is False for kw in calls[1:])
