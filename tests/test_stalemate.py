"""The stalemate analysis: a stuck game found however deep, or none for every length."""

from pathlib import Path

from mafiacheck.analyses.encoded import Options
from mafiacheck.encode import progress
from mafiacheck.encode.solver import Limits
from mafiacheck.pipeline import check_file, load

HERE = Path(__file__).parent / "fixtures" / "stalemate"


def _stalemate(name):
    result = check_file(str(HERE / name), select=("stalemate",), options=Options(bound=1))
    assert not result.diagnostics
    return result.findings


def test_a_stuck_game_past_the_bound_is_found():
    # The stuck line-up needs the Boss's shot, which comes only on night 3: a game of more
    # rounds than --bound 1 reaches it, and the finding says how deep it searched.
    (finding,) = _stalemate("deep.mafia")
    assert finding.code == "MC209", finding.message
    assert "proved for every length" in finding.message
    assert "up to 3 rounds" in finding.message
    assert finding.witness is not None


def test_no_stuck_game_is_proved_for_every_length():
    # No finding at all (not the old note that a stuck game was not ruled out).
    assert _stalemate("ends.mafia") == []


def test_a_free_state_with_no_way_forward_that_no_game_reaches():
    sc = load(str(HERE / "unreachable.mafia"))
    seats = sc.compositions[0].seats()
    limits = Limits(60, 20_000_000)
    accuser = seats.index("accuser")
    # Without the invariants, a well-formed state with the Accuser gone (and nobody left to
    # vote out, the bullet spent) is a candidate...
    bare = progress.Proof(sc, seats, limits)
    status, values, _ = progress.verdict(bare, [])
    assert status == "candidate"
    assert values[("alive", accuser)] is False
    # ...which the invariants (the Accuser never leaves) rule out: no finding for every length.
    proof, why = progress.prove(sc, seats, limits)
    assert why is None and ("alive", accuser) in proof.lemmas
    assert progress.verdict(proof, [])[0] == "proved"
    assert _stalemate("unreachable.mafia") == []


def test_houdini_asks_each_real_state_once(monkeypatch):
    # A real state's check assumes none of the candidates, so a later pass (after the free
    # steps dropped some) cannot drop more there: each is asked once, the free steps until
    # nothing changes.
    sc = load(str(HERE / "unreachable.mafia"))
    seats = sc.compositions[0].seats()
    asked = []
    keep = progress._keep_holding

    def counting(limits, todo, game, facts, st):
        asked.append((game is proof.real, game.states.index(st)))
        return keep(limits, todo, game, facts, st)

    monkeypatch.setattr(progress, "_keep_holding", counting)
    proof = progress.Proof(sc, seats, Limits(60, 20_000_000))
    proof.houdini(progress.candidate_lemmas(proof.real))
    real = [i for is_real, i in asked if is_real]
    assert sorted(real) == list(range(len(proof.real.states)))
    free = [i for is_real, i in asked if not is_real]
    assert len(free) >= 2 * proof.period  # at least the pass that changed nothing
    assert ("alive", seats.index("accuser")) in proof.lemmas
