"""The deaths (stage 3 of a resolution, as Resolver.deaths and Resolver.decide): who leaves is
decided by the rules. A rule's `leave`/`stay` outranks every default cause; an attack is a
default cause unless a save or protection of its kind defeats it, or a `stay` that overrides
its source; a `leave` and a blanket `stay` with neither overriding the other contradict.
Rules that read who leaves (`leaves(p)`) are decided as the interpreter iterates them."""

from __future__ import annotations

import z3

from .. import holes
from ..ast import RuleDecl
from ..narrow import effect_name, present
from ..vocabulary import calls, flat
from .commit import link_changes
from .phase_vars import NONE
from .passes import Pass
from .terms import And, Eq, If, Implies, Not, Or, compare_op, count_of, truth

ROUNDS = 4  # the chain of decisions with `leaves(p)` the encoding follows; longer is a hole


def deaths(p: Pass) -> tuple[list, list, list]:
    """(leave[s], the kind of exit[s], the exit rules' bindings that applied)."""
    game, pv, n = p.game, p.pv, p.n
    F = game.B(False)
    rules = [r for r in game.rules_now(pv.phase, p.tag) if game.sc.rule_stage(r) == "exit"]
    fixpoint = any(_reads_leaves(r) for r in rules)
    static: dict = {}
    if not fixpoint:
        decided_all, kind_of, contras, rule_hits = _decide(p, rules, fixpoint, static, None)
    else:
        # As the interpreter: decide with nobody leaving, then with those decided, until the
        # decision repeats.
        current = [F] * n
        chain = []
        for _ in range(ROUNDS):
            nxt = _decide(p, rules, fixpoint, static, current)
            stable = And([Eq(nxt[0][s], current[s]) for s in range(n)])
            chain.append((stable, current, nxt))
            current = nxt[0]
        decided_all, kind_of, contras, rule_hits = chain[-1][2]
        settled = [F] * n
        chosen = chain[-1][2]
        for stable, before, _ in reversed(chain):
            settled = [If(stable, before[s], settled[s]) for s in range(n)]
        unstable = Not(Or([stable for stable, _, _ in chain]))
        pv.undefined.append((And(pv.active, unstable), holes.unstable()))
        decided_all = [If(unstable, chosen[0][s], settled[s]) for s in range(n)]
        kind_of = chosen[1]
    for rule, _, cond, _ in rule_hits:
        pv.rule_hits.append((rule.name.key, And(pv.active, cond)))
    leave = _with_contradictions(p, decided_all, contras)
    pv.leaves.append(leave)
    if p.tag == "v":
        pv.vote_leaves = leave  # the vote's own exits, for wins checked after a vote exit
    return leave, kind_of, rule_hits


def _with_contradictions(p: Pass, decided_all: list, contras: list) -> list:
    """Where two rules contradict, a choice says which one the outcome follows; they are
    decided one at a time, as the interpreter branches on them."""
    game, pv, S = p.game, p.pv, p.S
    leave = []
    choices = []
    for s in range(p.n):
        contradiction, pairs = contras[s]
        choice = game.bool_var(f"t{p.t}_{p.tag}_contra{s}")
        choices.append((contradiction, choice))
        for cond, leave_rule, stay_rule in pairs:
            pv.contradictions.append((cond, s, leave_rule, stay_rule))
        leave.append(And(S.alive[s], If(contradiction, choice, decided_all[s])))
    game.add(compare_op("<=", count_of([And(cnd, ch) for cnd, ch in choices], game.ctx), 1))
    for cnd, ch in choices:
        game.add(Implies(Not(cnd), Not(ch)))
    return leave


def _decide(p: Pass, rules: list[RuleDecl], fixpoint: bool, static: dict,
            left: list | None) -> tuple[list, list, list, list]:
    """One decision of who leaves, with `leaves(p)` read from `left` (as the interpreter's
    iteration does). Returns (decided, kinds, contradictions, hits)."""
    game, n = p.game, p.n
    evs = p.events
    if left is not None:
        evs = p.events.copy()
        for s in range(n):
            evs.add(("left", s), left[s])
    all_strict = list(p.intents.strict)
    hits: list = []
    for rule in rules:
        # Rules that do not read who leaves give the same conclusions every round of the
        # fixpoint: compiled once.
        if left is not None and rule.name.key in static:
            cached_strict, cached_hits = static[rule.name.key]
            all_strict.extend(cached_strict)
            hits.extend(cached_hits)
            continue
        mark = (len(all_strict), len(hits))
        for _, env, cond, view in game.bindings(rule, p.S, evs, no_leaves=not fixpoint):
            hits.append((rule, env, cond, view))
            over = tuple(nm.key for nm in rule.overrides)
            for e in flat(rule.then):
                if e.verb in ("leave", "stay"):
                    targets = game.seats_on(e, view, None)
                    for s in range(n):
                        target = targets[s]
                        if truth(target) is False:
                            continue
                        all_strict.append((e.verb, s, effect_name(e).key if e.verb == "leave" else None,
                                           rule.name.key, over, And(cond, target)))
        if left is not None and not _reads_leaves(rule):
            static[rule.name.key] = (all_strict[mark[0]:], hits[mark[1]:])
    decided_all, kinds, contras = [], [], []
    for s in range(n):
        decided, kind, contra = _seat(p, s, [x for x in all_strict if x[1] == s])
        decided_all.append(decided)
        kinds.append(kind)
        contras.append(contra)
    decided_all, kinds = _followers(p, decided_all, kinds)
    return decided_all, kinds, contras, hits


def _followers(p: Pass, decided: list, kinds: list) -> tuple[list, list]:
    """As Resolver._followers: a player whose link carries an exit (`link … with KIND`) and who
    does not leave by his own cause leaves by that kind when the player he is linked to leaves
    in this resolution, along chains; the links this phase makes hold already."""
    game, S, n = p.game, p.S, p.n
    if not game.links_carry_exits:
        return decided, kinds
    links, link_kind = list(S.links), list(present(S.link_kinds, "the links' kinds"))
    for e, s, on, view, _a, u in p.intents.writes:
        if e.verb == "link":
            for q, here, to, kind in link_changes(game, e, s, on, view, u):
                links[q] = If(here, to, links[q])
                link_kind[q] = If(here, kind, link_kind[q])
    carries = [Not(Eq(k, game.I(NONE))) for k in link_kind]
    if all(truth(c) is False for c in carries):
        return decided, kinds
    out = list(decided)
    for _ in range(game.follow_depth):
        out = [Or(decided[q], And(S.alive[q], carries[q],
                                  Or([And(Eq(links[q], game.I(r)), out[r]) for r in range(n) if r != q])))
               for q in range(n)]
    return out, [If(decided[q], kinds[q], link_kind[q]) for q in range(n)]


def _seat(p: Pass, s: int, mine: list) -> tuple[z3.BoolRef, z3.ArithRef, tuple[z3.BoolRef, list]]:
    """For one seat: whether he leaves, how, and where rules contradict on him."""
    game, S = p.game, p.S
    F = game.B(False)
    names = {x[3] for x in mine}

    def overridden(x: tuple) -> z3.BoolRef:
        return Or([y[5] for y in mine if x[3] in y[4] and y[3] != x[3] and x[3] in names] or [F])
    live = [(x, And(x[5], Not(overridden(x)))) for x in mine]
    leaves = [(x, on) for x, on in live if x[0] == "leave"]
    blanket = Or([on for x, on in live if x[0] == "stay" and not x[4]] or [F])
    any_leave = Or([on for _, on in leaves] or [F])
    scoped_cache: dict = {}

    def scoped(src: str) -> z3.BoolRef:
        if src not in scoped_cache:
            scoped_cache[src] = Or([on for x, on in live if x[0] == "stay" and src in x[4]] or [F])
        return scoped_cache[src]
    causes = []
    for kind, src, seat, cond in p.intents.attacks:
        if seat != s:
            continue
        defended = Or([dc for kinds_, ds, dc in p.intents.defenses if ds == s and (kinds_ is None or kind in kinds_)]
                      or [F])
        causes.append((kind, And(cond, Not(defended), Not(scoped(src)))))
    contradiction = And(any_leave, blanket, S.alive[s])
    # Every pair of a live `leave` rule and a live blanket `stay` rule clashes (each rule's
    # bindings joined first, so pairs are of rules, not bindings).
    leave_by: dict = {}
    for xl, on_l in leaves:
        leave_by.setdefault(xl[3], []).append(on_l)
    stay_by: dict = {}
    for xs, on_s in live:
        if xs[0] == "stay" and not xs[4]:
            stay_by.setdefault(xs[3], []).append(on_s)
    pairs = [(And(Or(ls), Or(ss), S.alive[s]), lr, sr)
             for lr, ls in leave_by.items() for sr, ss in stay_by.items()]
    default = And(Not(any_leave), Not(blanket), Or([cc for _, cc in causes] or [F]))
    decided = And(S.alive[s], Or(And(any_leave, Not(blanket)), default))
    # How they leave: the first rule that says so, else the first undefeated cause.
    kind = game.I(NONE)
    for kd, cc in reversed(causes):
        kind = If(cc, game.I(game.ids.value("kind", kd)), kind)
    for x, on in reversed(leaves):
        kind = If(on, game.I(game.ids.value("kind", x[2])), kind)
    return decided, kind, (contradiction, pairs)


def _reads_leaves(rule: RuleDecl) -> bool:
    return calls((rule.cond, rule.unless, rule.then), "leaves")
