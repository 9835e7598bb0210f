"""Witnesses show the moderator only what a finding needs: the solver's game is made quieter
(Encoded.quieter) before it is shown, and stays a game the interpreter replays."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ROOT / "examples" / "broken"


def findings(path, select):
    out = subprocess.run([sys.executable, "-m", "mafiacheck", "check", str(path), "--select", select,
                          "--format", "json"], capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)["files"][0]["findings"]


def test_mutual_block_witness_has_only_the_two_blocks():
    found = findings(BROKEN / "hostage_takers_block_each_other.mafia", "ambiguous-resolution")
    several = next(f for f in found if "2 consistent outcomes" in f["message"])
    (phase,) = several["witness"]["phases"]
    assert sorted(phase["choices"]) == ["hostage by @1 on @2", "hostage by @2 on @1"]
    assert several["witness"]["replay"]["verdict"] == "ambiguous"


def test_no_single_action_of_a_quiet_game_can_be_dropped():
    import z3

    from mafiacheck.analyses.encoded import Encoded, Options
    from mafiacheck.pipeline import load

    sc = load(str(ROOT / "specs" / "gangster.mafia"))
    enc = Encoded(sc, sc.compositions[0], Options(bound=2))
    game = enc.game

    def goal(t):  # somebody has left by the end of phase t
        return [z3.Or([z3.Not(a) for a in game.states[t + 1].alive])]
    status, t, result, _ = enc.first(goal, quiet=True)
    assert status == "sat"
    kept = [u.used for pv in game.vars[: t + 1] for u in pv.uses
            if z3.is_true(result.model.eval(u.used, model_completion=True))]
    assert kept  # somebody must act for someone to leave
    off = [z3.Not(u.used) for pv in game.vars[: t + 1] for u in pv.uses
           if not z3.is_true(result.model.eval(u.used, model_completion=True))]
    for flag in kept:
        assert enc.ask(goal(t), *off, z3.Not(flag)).status == "unsat"
