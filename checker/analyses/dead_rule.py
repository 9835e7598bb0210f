"""`dead-rule`: abilities no game within the bound can use, and exit rules whose condition no
game meets."""

from __future__ import annotations

from typing import TYPE_CHECKING

import z3

from .. import registry
from ..findings import Finding
from ..crosscheck.witness import model_of
from . import game_of
from .encoded import Encoded

if TYPE_CHECKING:
    from ..encode.unroll import Game
    from ..model import Scenario

# What can be dead: ("ability", its key) or ("rule", its name's key).
Event = tuple[str, str]


def analyse(scenario: Scenario, encodings: list[Encoded]) -> list[Finding]:
    out = []
    if any(e.error for e in encodings):
        return [e.unsupported("which abilities and rules can apply") for e in encodings if e.error][:1]
    live: set[Event] = set()
    undecided: set[Event] = set()
    reached: list[tuple[Encoded, str | None]] = []  # per composition, the deepest encoding searched, and why not deeper
    for enc in encodings:
        seen = set(live)
        start = 0
        newly, undecided_here = _live(enc, seen, start)
        seen |= newly
        undecided |= undecided_here
        deepest, short = enc, None
        longer: Encoded | str
        # What no game of these rounds uses is asked of longer games (their later phases).
        while not undecided_here and _pending(deepest, seen) and deepest.options.bound < enc.depth_limit:
            longer = enc.at_bound(deepest.options.bound + 1)
            if isinstance(longer, str):
                short = longer
                break
            start = len(game_of(deepest).vars)
            newly, undecided_deeper = _live(longer, seen, start)
            if undecided_deeper:
                short = f"a game of {longer.options.bound} rounds: the solver gave up"
                break
            seen |= newly
            deepest = longer
        live |= seen
        reached.append((deepest, short))
    encodings = [e for e, _ in reached]
    shorts = [s for _, s in reached if s]
    live_abilities = {k for kind, k in live if kind == "ability"}
    live_rules = {k for kind, k in live if kind == "rule"}
    where = "; ".join(e.where for e in encodings)
    if shorts:
        where += f"; a longer game was not searched ({shorts[0]})"
    for a in scenario.abilities:
        if a.key in live_abilities:
            continue
        if ("ability", a.key) in undecided:
            out.append(encodings[0].inconclusive(f"whether {a.display} can be used", "the solver gave up", a.span))
            continue
        c = registry.CODES[registry.DEAD_ABILITY]
        out.append(Finding(c.code, c.kind, c.severity,
                           f"ability {a.display} can never be used ({where}){_proof(encodings, ('ability', a.key))}",
                           a.name_span or a.span,
                           rules=tuple(dict.fromkeys(r.id for r in a.clause_cites + a.cites))))
    for rule in scenario.rules:
        if rule.name.key in live_rules:
            continue
        hits = [name for enc in encodings for pv in game_of(enc).vars for name, _ in pv.rule_hits
                if name == rule.name.key]
        if not hits:
            continue  # only exit rules are tracked; others are not judged here
        if ("rule", rule.name.key) in undecided:
            out.append(encodings[0].inconclusive(f"whether rule {rule.name.text} can apply", "the solver gave up",
                                                 rule.span))
            continue
        c = registry.CODES[registry.DEAD_RULE]
        out.append(Finding(c.code, c.kind, c.severity,
                           f"rule {rule.name.text} can never apply ({where}){_proof(encodings, ('rule', rule.name.key))}",
                           rule.name.span or rule.span,
                           rules=tuple(r.id for r in rule.cites)))
    return out


def _proof(encodings: list[Encoded], key: Event) -> str:
    """What k-induction (encode/induction.py) adds to the bounded verdict: that it holds for
    games of every length, or why no proof was found."""
    from ..encode.induction import prove_absent
    from ..encode.invariants import strengthening
    from ..encode.terms import Unsupported

    def event(game: Game, i: int) -> list:  # a free-start window (induction.Windows)
        pv = game.vars[i]
        conds = [u.used for u in pv.uses if ("ability", u.ability.key) == key]
        conds += [c for name, c in pv.rule_hits if ("rule", name) == key]
        return [z3.Or(conds) if conds else z3.BoolVal(False, game.ctx)]
    depths: list[int] = []
    for enc in encodings:
        try:
            status, k, why = prove_absent(enc, event, what="it", clean_before=False,
                                          invariants=strengthening(enc, clean=False))
        except Unsupported as exc:
            return f"; no proof for every length (the induction step does not support {exc})"
        if status == "unknown":
            return f"; no proof for every length (the solver gave up on the induction step ({why}))"
        if status != "proved":
            return f"; no proof for every length ({why})"
        if k is not None:  # proved: at some depth
            depths.append(k)
    k = max(depths)
    return f"; induction over {k} phase{'s' if k != 1 else ''} rules out every longer game"


def _conditions(enc: Encoded, start: int) -> dict[Event, list]:
    """(kind, key) -> the conditions, phase by phase from `start`, that the ability is used
    or the exit rule applies."""
    conds: dict[Event, list] = {}
    for pv in game_of(enc).vars[start:]:
        for u in pv.uses:
            conds.setdefault(("ability", u.ability.key), []).append(u.used)
        for name, c in pv.rule_hits:
            conds.setdefault(("rule", name), []).append(c)
    return conds


def _pending(enc: Encoded, live: set[Event]) -> bool:
    return any(k not in live for k in _conditions(enc, 0))


def _live(enc: Encoded, known: set[Event], start: int) -> tuple[set[Event], set[Event]]:
    """What a game of the encoding uses, from phase `start` on, among what is not known to be
    live: (live, undecided). One question for a game that uses anything not yet seen
    used; every ability the answer uses is live. Repeated until no game uses a new one: few
    questions, not one each."""
    conds = _conditions(enc, start)
    live: set[Event] = set()
    while True:
        pending = {k: z3.Or(v) for k, v in conds.items() if k not in known and k not in live}
        if not pending:
            return live, set()
        result = enc.ask(z3.Or(list(pending.values())), fast=True)
        if result.status == "unsat":
            return live, set()
        if result.status == "unknown":
            return live, set(pending)
        live |= {k for k, c in pending.items() if z3.is_true(model_of(result).eval(c, model_completion=True))}
