"""Between phases in the encoding (as Player._bookkeep): uses counted against the limits
(with blocked uses as the spec says), uses on oneself, last targets, `idle` counts, cards
played, and triggers pending for a later phase."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..phases import Phase
from .phase_vars import PhaseVars, team_use
from .state import SymState
from .terms import And, Eq, If, Not, Or

if TYPE_CHECKING:
    from .unroll import Game


def bookkeep(game: Game, pv: PhaseVars, S: SymState, cur: SymState, phase: Phase) -> SymState:
    st = cur.copy()
    # Per ability and actor, what the state keeps of its uses: the count (where read: always
    # with open blocked uses, Game.counts_uses), the uses on oneself, the last targets.
    keys = set(st.uses) | set(st.self_uses) | {(a, k) for a, k, _ in st.last_targets}
    for key in sorted(keys):
        a_key, actor_key = key
        mine = [u for u in pv.uses if u.ability.key == a_key and u.key == actor_key]
        lk = (a_key, actor_key, phase.kind)
        if not mine:
            # A phase of the kind it cannot be used in (`at night 1, night 3`) still comes
            # between: `limit no repeat` looks only at the phase of that kind just before.
            if lk in st.last_targets:
                st.last_targets[lk] = [game.B(False)] * game.n
            continue
        used = Or([u.acts for u in mine])
        mode = mine[0].ability.blocked_uses
        F = game.B(False)
        if mode == "free":  # a use a block took away does not count
            used = Or([And(u.acts, Not(u.blocked if u.blocked is not None else F)) for u in mine])
        if key in st.uses:
            st.uses[key] = If(used, cur.uses[key] + 1, cur.uses[key])
        if key in st.self_uses:
            self_hit = Or([And(u.acts, game.env_of(u)["targets"].contains(u.actor),
                                     Not(u.blocked) if mode == "free" and u.blocked is not None else game.B(True))
                              for u in mine if u.targets and u.actor is not None] or [F])
            st.self_uses[key] = If(self_hit, cur.self_uses[key] + 1, cur.self_uses[key])
        if mode == "open":
            taken = Or([u.blocked for u in mine if u.blocked is not None] or [F])
            st.uses_open[key] = If(taken, cur.uses_open[key] + 1, cur.uses_open[key])
            taken_self = Or([And(u.blocked, game.env_of(u)["targets"].contains(u.actor))
                                for u in mine if u.blocked is not None and u.targets and u.actor is not None] or [F])
            skey = ("self",) + key
            st.uses_open[skey] = If(taken_self, cur.uses_open[skey] + 1, cur.uses_open[skey])
        if lk in st.last_targets:
            # By day, the targets of the one use made, before the vote or after it.
            made = [(u, game.env_of(u).get("targets")) for u in mine]
            st.last_targets[lk] = [Or([And(u.acts, targets.member[s]) for u, targets in made if targets is not None]
                                      or [F])
                                   for s in range(game.n)]
    if st.idle:
        for a_key, s in sorted(st.idle):
            if any(r.phase.key == phase.kind for r in game.sc.ability_by_key[a_key].phases):
                acted = Or([And(u.acts, Eq(u.actor, s, game.ctx) if not team_use(u) else game.B(True))
                            for u in pv.uses if u.ability.key == a_key and u.actor is not None]
                           or [game.B(False)])
                st.idle[(a_key, s)] = If(acted, game.I(0), cur.idle[(a_key, s)] + 1)
    cards = [u for u in pv.uses if u.ability.is_card]
    if cards:
        for u in cards:
            st.drawn[u.key] = And(st.drawn[u.key], Not(u.acts))
    for pkey in list(st.pending):
        if pkey[2] == phase.kind:
            # Triggers recorded in this phase for a later phase of the same kind stay.
            st.pending[pkey] = And(cur.pending[pkey], Not(S.pending[pkey]))
    return st
