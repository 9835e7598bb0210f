"""The horizon of a composition: how many rounds a game nobody has won can last.

A search to a depth is a proof for every length once the depth reaches the horizon, and a
verdict that holds only within a depth says how far that is from it. The bound follows from
the counting facts proved for the phases past which all phases are alike (encode/lemmas.py,
over every well-formed state, so over every state a game reaches): where in every phase of
the cycle a player who has left stays out, and some phase of it always removes a living
player while nobody has won, the players alive at the cycle's start (at most all of them)
can be removed only so many times. The phase that would remove one more cannot be played:
every game has a winner, or no way on, before it. Where a player can come back, or no phase
is proved to remove anyone, the state space (finite, but astronomically large) is the only
bound, and the horizon is unknown: said, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..narrow import present
from .induction import Windows, alike_from, alike_phase
from .lemmas import Fact, phase_facts, stays_out


@dataclass(frozen=True)
class Horizon:
    """`phases`: no game nobody has won is longer (None: no bound is known); `rounds`: the
    same past the opening phases, in day-night rounds as `--bound` counts them; `why`: how
    the bound follows, or why none is known."""

    phases: int | None
    rounds: int | None
    why: str

    @property
    def text(self) -> str:
        if self.rounds is None:
            return f"its horizon is unknown: no bound on how long a game can go on without a winner ({self.why})"
        s = "s" if self.rounds != 1 else ""
        return f"its horizon is {self.rounds} round{s}: no game goes on past them without a winner ({self.why})"


def horizon(windows: Windows, opening: int) -> Horizon:
    """The horizon of the windows' composition (its facts proved once and kept on `windows`,
    as lemmas.implied keeps them); `opening`: the opening phases, before round 1."""
    sc, seats = windows.sc, windows.seats
    g = alike_from(sc, seats)
    if g is None:
        return Horizon(None, None, "the spec reads `round` other than against numbers, so no two of "
                                   "its phases are known to be alike")
    period = len(present(sc.phases, "the phases").cycle)
    facts = {j: set(phase_facts(windows, j)) for j in range(g, g + period)}
    falls = stays_out(windows.get(g, 1)[0].states[0])
    back = [j for j in facts if not falls <= facts[j]]
    if back:
        return Horizon(None, None, f"a player who has left is not proved to stay out in every {_kind(windows, back[0])}")
    removing = [j for j in facts if Fact("removes") in facts[j]]
    if not removing:
        return Horizon(None, None, "no phase of the cycle is proved to remove a player while nobody has won")
    n = len(seats)
    # The (n+1)-th removing phase from g: more than the n players alive at g at most.
    t, count = g, 0
    while True:
        if alike_phase(t, g, period) in removing:
            count += 1
            if count == n + 1:
                break
        t += 1
    kinds = sorted({_kind(windows, j) for j in removing})
    rounds = -(-(t - opening) // period)
    return Horizon(t, rounds, f"every {' and every '.join(kinds)} removes a player, and nobody comes back, "
                              f"so at most {n} such phases follow phase {g + 1}")


def _kind(windows: Windows, j: int) -> str:
    """The kind of phase j (`day`, `night`), as its window plays it."""
    return windows.get(j, 1)[0].phases[0].kind
