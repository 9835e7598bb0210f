"""The rules of one stage applied until nothing changes (as Resolver.fire_rules): in rounds,
each in declaration order; in a round, a rule's bindings are read before any of them acts,
and each binding acts once a phase, the first time it applies. The encoding unrolls the rounds
rule_rounds.rounds says the rules can need; rules that could still apply anew after as many
rounds as there are rules are a hole (holes.UNSETTLED), as in the interpreter."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import z3

from .. import holes
from ..rule_rounds import max_rounds, rounds
from .terms import And, Not, Or

if TYPE_CHECKING:
    from .passes import Pass


def settle(p: Pass, rules: list, fired: dict, read: Callable, act: Callable, guard: z3.BoolRef | None = None,
           hits: bool = True) -> None:
    """Apply `rules`: `read(rule)` gives the bindings (combo, env, cond, view) of a rule as it
    reads the state now; `act(rule, combo, env, now, view)` applies a binding's effects where
    `now` holds. `fired` (rule, combo) -> where that binding has acted this phase, updated.
    `guard`: where the rules are read (an order of the blocking steps); `hits`: record where
    each binding applies, for the dead-rule analysis."""
    game, pv = p.game, p.pv
    F = game.B(False)
    plan = rounds(rules)
    for live in plan.live:
        for i in sorted(live):
            rule = rules[i]
            for combo, env, cond, view in list(read(rule)):  # every binding read before any acts
                key = (rule.name.key, combo)
                before = fired.get(key, F)
                now = And(cond, Not(before))
                fired[key] = Or(before, cond)
                if hits:
                    pv.rule_hits.append((rule.name.key, And(pv.active, cond)))
                act(rule, combo, env, now, view)
    for i in sorted(plan.unsettled):
        rule = rules[i]
        anew = Or([And(cond, Not(fired.get((rule.name.key, combo), F)))
                   for combo, _, cond, _ in read(rule)])
        pv.undefined.append((And(pv.active, anew, guard if guard is not None else game.B(True)),
                             holes.unsettled(rule.name.text, rule.name.key, max_rounds(rules))))
