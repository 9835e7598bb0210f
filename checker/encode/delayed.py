"""Delayed effects (`after N night: …`): countdowns per phase, and the effects that fall due,
applied at the start of the phase's first resolution (as Player._due_effects)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import ast, holes
from ..model import Ability
from ..narrow import effect_name, effect_text, plain_effect
from ..phases import Phase
from ..vocabulary import BLOCKS, STATE_WRITES
from .phase_vars import NONE
from .commit import write
from .passes import Pass
from .state import SymState
from .terms import And, Eq, Events, Unsupported

if TYPE_CHECKING:
    from .unroll import Game



def count_down(game: Game, S: SymState, phase: Phase) -> tuple[SymState, list]:
    """Countdowns of this phase's kind go down by one; those that reach zero fall due now.
    Returns the state with the countdowns moved, and what falls due as (owner, effect,
    key, condition, target)."""
    st = S.copy()
    due = []
    for a, index, key, e in game.delay_slots():
        k = (owner_key(a), index, key)
        ticks = e.unit.key == phase.kind or (e.unit.key == "round" and phase.kind == "night")
        if not ticks:
            continue
        c = S.delayed_counts[k]
        due.append((a, e, key, Eq(c, 1), S.delayed_targets[k]))
        st.delayed_counts[k] = game.decremented(game.B(True), c)
    return st, due


def fall_due(p: Pass, due: Sequence[tuple]) -> None:
    """The effects falling due now, before anything else: attacks and exits join the
    resolution's intentions, changes of state apply to the state it starts from."""
    game, pv = p.game, p.pv
    writes = []
    for a, e, key, cond, target in due:
        if isinstance(a, ast.RuleDecl):
            env = {v.key: seat for v, seat in zip(a.variables, key)}
            shown = f"rule {a.name.text}"
        else:
            env = {"actor": game.I(key) if key != NONE else game.I(NONE), "target": target}
            shown = a.display
        # Tables with no row in the effects falling due are holes of their owner.
        view = game.table_view(p.S, Events(game.ctx), {**env, "__guard": cond}, holes.no_row(shown, owner_key(a)))
        for y, guard in game.guarded(e.body, view):
            x = plain_effect(y)  # no `after` inside an `after` (Game._check_supported)
            g = And(pv.active, cond, guard)
            if x.verb in ("nothing", "announce", "learn"):
                continue
            if x.verb == "win":
                pv.declare(effect_name(x).key, g)
                continue
            if x.verb == "unspecified":
                pv.undefined.append((g, holes.unspecified(shown, effect_text(x), owner_key(a))))
                continue
            targets = game.seats_on(x, view, None)
            for s in range(p.n):
                on = And(g, targets[s])
                if x.verb == "kill":
                    p.intents.attacks.append((effect_name(x).key, a.key, s, on))
                    p.event(("kill", s, effect_name(x).key), on)
                    if not isinstance(a, ast.RuleDecl) and key != NONE:
                        # As the interpreter's due effect, the attack is its user's (a
                        # team's delayed attack is refused where `attacked_by` is read:
                        # Game._check_supported).
                        p.event(("attacked_by", s, key), on)
                elif x.verb in ("leave", "stay"):
                    p.intents.strict.append((x.verb, s, effect_name(x).key if x.verb == "leave" else None, a.key, (), on))
                elif x.verb in STATE_WRITES:
                    writes.append((x, s, on, view, a))
                elif x.verb in BLOCKS or (x.verb == "protect" and all(nm.key == "block" for nm in x.names)):
                    p.intents.due_blocks.append((x, s, on))
                else:
                    raise Unsupported(f"the effect `{x.verb}` after a delay", x.span)
    if writes:
        S = p.S.copy()
        for x, s, on, view, a in writes:
            write(game, S, x, s, on, view, a, None)
        p.S = S


def owner_key(owner: ast.RuleDecl | Ability) -> str:
    """The key of what owns a delayed effect: a rule or an ability."""
    return owner.name.key if isinstance(owner, ast.RuleDecl) else owner.key
