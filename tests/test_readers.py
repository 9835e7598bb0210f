"""Uses of one blocking ability that block each other, when more players could hold it than
the readings of every possible holder can be listed for (a conversion can make any citizen a
holder): the encoding allows exactly the interpreter's outcomes, and marks the same holes
(several consistent readings, or none), whichever seats act."""

from pathlib import Path

import pytest
import z3

from mafiacheck import holes
from mafiacheck.crosscheck.differential import compare, fix_choices
from mafiacheck.encode.solver import Limits, ask, make_solver
from mafiacheck.encode.unroll import Game
from mafiacheck.interpreter.bind import Binder
from mafiacheck.interpreter.play import Player
from mafiacheck.pipeline import check_file, load
from mafiacheck.query_text import load_queries

from strategies import load_text

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "tests" / "fixtures" / "splits" / "recruited_jailers.mafia"
JAILERS = load(str(SPEC))

# The readings of who is blocked, each with the holes of its phase (the interpreter's).
SCRIPTS = [
    # Each Jailer jails the other: either block can be the one that holds.
    ("jail by jailer@1 on jailer@2  jail by jailer@2 on jailer@1  shot on doc", 2, {"several"}),
    # One jails the other, who jails a citizen: only the first block holds.
    ("jail by jailer@1 on jailer@2  jail by jailer@2 on citizen@1  shot on doc", 1, set()),
    # Each jails himself: no reading is consistent, and both act.
    ("jail by jailer@1 on jailer@1  jail by jailer@2 on jailer@2  heal on doc", 1, {"none"}),
    # A recruited Jailer (a seat no Jailer was dealt) and a dealt one block each other.
    ("jail by @5 on jailer@1  jail by jailer@1 on @5", 2, {"several"}),
    # One jails himself while the other jails a citizen: no reading (a blocked Jailer's
    # block does not happen, so he is not blocked).
    ("jail by jailer@1 on jailer@1  jail by jailer@2 on citizen@1", 1, {"none"}),
    # One jails the other, who jails himself: he is blocked either way, one reading.
    ("jail by jailer@1 on jailer@2  jail by jailer@2 on jailer@2", 1, set()),
    # Three Jailers at once, in a ring: blocked are one of them, or the two the others jail…
    ("jail by jailer@1 on jailer@2  jail by jailer@2 on @5  jail by @5 on jailer@1", 1, {"none"}),
    # … and two that jail each other while the third jails a citizen.
    ("jail by jailer@1 on jailer@2  jail by jailer@2 on jailer@1  jail by @5 on citizen@2", 2, {"several"}),
]


def bound(scenario, script: str):
    state = "state { role @5 = jailer }" if "@5" in script else ""
    source, (q,) = load_queries(f"query q {{ {state} night 1 {{ {script} }} }}")
    return Binder(scenario, source.path).bind(q)


def interpreter_holes(scenario, b) -> tuple[int, set]:
    phase, uses = b.phases[0]
    results, problems = Player(scenario).play(b.state.clone(), phase, uses)
    assert not problems, [p.message for p in problems]
    kinds = {holes.MUTUAL_SEVERAL: "several", holes.MUTUAL_NONE: "none"}
    return len(results), {kinds[h.kind] for _, r in results for h in r.holes if h.kind in kinds}


def encoded_holes(scenario, b) -> set:
    """The holes the encoding marks for the phase, as for compare: each must hold in every
    game with these choices, or in none."""
    phase, uses = b.phases[0]
    state = b.state.clone()
    completed = Player(scenario).complete(state, phase, uses)
    game = Game(scenario, tuple(state.roles), 1, start=state, first_phase=phase.index, symmetry=False)
    assert game.restricted is None or "Jail" in game.restricted
    pv = game.vars[0]
    solver = make_solver(game.ctx, Limits(timeout=20), finite=game.finite)
    solver.add(game.constraints)
    solver.add(fix_choices(game, pv, completed, scenario))
    out = set()
    for kind in ("several", "none"):
        marked = z3.Or([c for c, _, k in pv.mutual if k == kind] + [z3.BoolVal(False, game.ctx)])
        can, cannot = ask(solver, marked).status, ask(solver, z3.Not(marked)).status
        assert "unknown" not in (can, cannot)
        assert can != cannot, f"{kind}: marked in some games with these choices only"
        if can == "sat":
            out.add(kind)
    return out


def test_more_than_four_players_could_hold_the_jail():
    game = Game(JAILERS, JAILERS.compositions[0].seats(), 1)
    jail = JAILERS.ability_by_key["jail"]
    assert len(game.actor_keys(jail)) > 4


@pytest.mark.parametrize("script, outcomes, marked", SCRIPTS)
def test_the_encoding_allows_exactly_the_interpreters_readings(script, outcomes, marked):
    b = bound(JAILERS, script)
    assert interpreter_holes(JAILERS, b) == (outcomes, marked)
    phase, uses = b.phases[0]
    verdict = compare(JAILERS, b.state, phase, uses)
    assert verdict.agree and verdict.detail == f"{outcomes} outcome(s) agree", verdict.detail
    assert encoded_holes(JAILERS, b) == marked


def test_the_analysis_finds_both_holes_and_is_not_inconclusive():
    found = check_file(str(SPEC), select=("ambiguous-resolution",)).findings
    assert not [f.message for f in found if f.code == "MC200"]
    messages = [f.message for f in found if f.code == "MC208"]
    assert any("2 consistent outcomes" in m for m in messages), messages
    assert any("no consistent outcome" in m for m in messages), messages


def test_more_users_at_once_than_the_encoding_follows_are_inconclusive():
    # Five Jailers dealt: five uses of the Jail can act together, more than the encoding
    # lists readings for; every encoded analysis says so rather than answer for fewer.
    text = SPEC.read_text(encoding="utf-8").replace(
        "composition 7 { boss, jailer * 2, doc, citizen * 3 }",
        "composition 8 { boss, jailer * 5, doc, citizen }")
    sc = load_text(text)
    assert sc is not None
    from mafiacheck.analyses.encoded import Encoded, Options
    enc = Encoded(sc, sc.compositions[0], Options(bound=1))
    why = enc.unfollowed()
    assert why is not None and "Jail" in why, why
