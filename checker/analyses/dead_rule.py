"""`dead-rule`: abilities no game within the bound can use, and exit rules whose condition no
game meets."""

from __future__ import annotations

import z3

from .. import registry
from ..findings import Finding
from .encoded import Encoded


def analyse(scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    if any(e.error for e in encodings):
        return [e.unsupported("which abilities and rules can apply") for e in encodings if e.error][:1]
    live_abilities, live_rules = set(), set()
    undecided = set()
    for enc in encodings:
        game = enc.game
        # Ask for a game that uses any ability not yet seen used; every ability the answer
        # uses is live. Repeat until no game uses a new one: few questions, not one each.
        conds = {}
        for pv in game.vars:
            for u in pv.uses:
                conds.setdefault(("ability", u.ability.key), []).append(u.used)
            for name, c in pv.rule_hits:
                conds.setdefault(("rule", name), []).append(c)
        live = {("ability", k) for k in live_abilities} | {("rule", k) for k in live_rules}
        while True:
            pending = {k: z3.Or(v) for k, v in conds.items() if k not in live}
            if not pending:
                break
            result = enc.ask(z3.Or(list(pending.values())), fast=True)
            if result.status == "unsat":
                break
            if result.status == "unknown":
                undecided.update(pending)
                break
            newly = {k for k, c in pending.items()
                     if z3.is_true(result.model.eval(c, model_completion=True))}
            live |= newly
        live_abilities |= {k for kind, k in live if kind == "ability"}
        live_rules |= {k for kind, k in live if kind == "rule"}
    where = "; ".join(e.where for e in encodings)
    for a in scenario.abilities:
        if a.key in live_abilities:
            continue
        if ("ability", a.key) in undecided:
            out.append(encodings[0].inconclusive(f"whether {a.display} can be used", "the solver gave up", a.span))
            continue
        c = registry.CODES[registry.DEAD_ABILITY]
        out.append(Finding(c.code, c.kind, c.severity,
                           f"ability {a.display} can never be used ({where})", a.name_span or a.span,
                           rules=tuple(dict.fromkeys(r.id for r in a.clause_cites + a.cites))))
    for rule in scenario.rules:
        if rule.name.key in live_rules:
            continue
        hits = [name for enc in encodings for pv in enc.game.vars for name, _ in pv.rule_hits
                if name == rule.name.key]
        if not hits:
            continue  # only exit rules are tracked; others are not judged here
        if ("rule", rule.name.key) in undecided:
            out.append(encodings[0].inconclusive(f"whether rule {rule.name.text} can apply", "the solver gave up",
                                                 rule.span))
            continue
        c = registry.CODES[registry.DEAD_RULE]
        out.append(Finding(c.code, c.kind, c.severity,
                           f"rule {rule.name.text} can never apply ({where})", rule.name.span or rule.span,
                           rules=tuple(r.id for r in rule.cites)))
    return out
