"""One resolution of a phase in the encoding (a night, or one moment of a day): the context
the stages share, and the intentions its steps record for the deaths to weigh.

The stages are the interpreter's (interpreter/resolution.py), one module each: effects falling
due (delayed.py), the vote (vote.py), the blocking steps (blocking.py), the acting steps
(acting.py), the deaths (deaths.py) and the state after them (commit.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import z3

from .phase_vars import Use, team_use
from .state import SymState
from .terms import And, Eq, Events

if TYPE_CHECKING:
    from .phase_vars import PhaseVars
    from .unroll import Game


@dataclass
class Intents:
    """What the steps of a resolution record, as conditions, for the deaths to decide on."""

    attacks: list = field(default_factory=list)  # (kind, source, seat, cond)
    defenses: list = field(default_factory=list)  # (kinds or None, seat, cond)
    strict: list = field(default_factory=list)  # ("leave"|"stay", seat, kind, source, overrides, cond)
    writes: list = field(default_factory=list)  # (effect, seat, cond, view, source, use)
    schedules: list = field(default_factory=list)  # (delay slot, count, cond, target)
    # Blocks, unblocks, cancels and protections from blocks falling due (delayed.fall_due):
    # they act before the first blocking step, as the interpreter's due effects do.
    due_blocks: list = field(default_factory=list)  # (effect, seat, cond)


@dataclass
class Pass:
    game: Game
    t: int
    tag: str  # n (night), b / v / a (before, at and after the vote); a trailing 2: what exits set off
    pv: PhaseVars
    S: SymState  # the state the resolution starts from
    events: Events
    intents: Intents

    @property
    def n(self) -> int:
        return self.game.n

    def event(self, key: tuple, cond: z3.BoolRef) -> None:
        self.events.add(key, cond)


def acted_events(p: Pass, u: Use) -> list[tuple[tuple, z3.BoolRef]]:
    """`acted(s, A)` of a use, as Resolver.run_step records it: a choice made, taken effect
    or not; a team's use counts for every player."""
    if u.actor is None:
        return []
    game = p.game
    return [(("acted", s, u.ability.key), And(u.acts, Eq(u.actor, s, game.ctx) if not team_use(u) else game.B(True)))
            for s in range(p.n)]
