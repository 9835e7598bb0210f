"""How many rounds the rules of one stage take to settle: what a rule reads and writes, and
the bound both implementations' rule passes are held to.

The rules of a stage (those that block, after each blocking step; the others, after the
deaths) are applied as a moderator does, until nothing changes: in declaration order, each
binding of a rule acting once a phase (the first time it applies), in rounds, until a round
acts on no new binding (interpreter/resolution.py: Resolver.fire_rules). A round reads the
state the rounds before it left, so a rule that reads what a later-declared rule writes (or
what its own other bindings write) can apply only in a later round. As no binding acts twice,
this always ends, and never oscillates: each round but the last acts on a new binding.

Both implementations follow at most as many rounds as the stage has rules (`max_rounds`):
rules that read only what rules declared before them write settle in one round, and a chain
of rules each reading what a later one writes settles within that many. Only rules that feed
each other in a cycle (or the bindings of one rule each other) can go on longer; if one still
applies anew after that many rounds, both report a hole (holes.UNSETTLED) instead of going on.

The interpreter simply plays the rounds. The encoding unrolls them (encode/rule_pass.py), and
`rounds` says which rules can newly apply in which round, from what each rule reads and
writes: an over-approximation (a verb whose readers are not listed is read by every rule),
so the rounds it leaves out change nothing, and it asks about the hole only where a rule can
still apply anew.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import ast
from .vocabulary import flat, nodes

# A write that any expression may read.
ANY = ("any", "")

# What a conversion changes: a player's role, side, plainness and counters, and every count
# of a side or a role. ("attr", COUNTERS) stands for any counter (`p.NAME` of no built-in).
COUNTERS = "#counter"
_BUILT_IN_ATTRS = frozenset({"alive", "role", "side", "plain", "left_by", "revealed", "blocked"})
_SIDES = {("attr", "side"), ("call", "alive"), ("call", "left"), ("call", "died"), ("call", "appearance")}

# What each verb changes, as the expressions that can see it: ("attr", NAME) for `p.NAME`,
# ("call", NAME) for `NAME(…)`, ("ref", NAME) for a bare name (a memory, `alive`).
_SEEN_BY = {
    "convert": _SIDES | {("attr", "role"), ("attr", "plain"), ("attr", COUNTERS)},
    "revive": {("attr", "alive"), ("attr", "left_by"), ("call", "alive"), ("call", "left"), ("ref", "alive")},
    "link": {("call", "linked")},
    "reveal": {("attr", "revealed")},
    "give": {("call", "holds"), ("call", "item_variant")},
    "lose": {("call", "holds"), ("call", "item_variant")},
    "inquire": {("call", "inquire")},
    "block": {("call", "block"), ("call", "blocked"), ("attr", "blocked")},
    "unblock": {("call", "blocked"), ("attr", "blocked")},
    "protect": {("call", "protect")},
    # A cancel takes away uses of later steps: `used`, `targeted` and `acted` of those.
    "cancel": {("call", "used"), ("call", "targeted"), ("call", "acted")},
    "kill": {("call", "kill"), ("call", "attacked_by")},
    "save": {("call", "save")},
}
# Verbs no expression can see (a drawn card is seen by the card's legality, not by rules).
_UNSEEN = frozenset({"win", "nothing", "announce", "learn", "unspecified", "leave", "stay", "draw"})
# Functions of one player (their first argument) rather than of the whole table.
_OF_A_PLAYER = frozenset({"holds", "item_variant", "inquire", "block", "blocked", "protect", "kill",
                          "save", "linked", "appearance", "attacked_by", "targeted", "acted", "leaves",
                          "voted", "idle", "chosen"})


def _effect_writes(e: ast.Effect) -> set[tuple[str, str]]:
    v = e.verb
    if v in _UNSEEN:
        return set()
    name = e.name.key if e.name is not None else ""
    if v in ("mark", "unmark"):
        return {("ref", name)}
    if v == "consume":
        return {("attr", name), ("attr", COUNTERS)}
    if v == "set":
        if name == "side":
            return set(_SIDES)
        return {("attr", name), ("attr", COUNTERS), ("ref", name)}  # a counter or a memory
    return set(_SEEN_BY.get(v, {ANY}))


def writes(rule: ast.RuleDecl) -> set[tuple[str, str]]:
    """What a rule's effects can change, as the expressions that can see it (ANY: any)."""
    out: set[tuple[str, str]] = set()
    for e in flat(rule.then):
        out |= _effect_writes(e)
    return out


def _token(x: object) -> tuple[str, str] | None:
    if isinstance(x, ast.Attr):
        return ("attr", x.attr.key)
    if isinstance(x, ast.Call):
        return ("call", x.func.key)
    if isinstance(x, ast.Ref):
        return ("ref", x.name.key)
    return None


def _conditions(rule: ast.RuleDecl) -> tuple:
    return (rule.cond,) + tuple(rule.unless)


def reads(rule: ast.RuleDecl) -> set[tuple[str, str]]:
    """What decides whether a binding of the rule applies: every name its condition and its
    `unless` read (a counter read also as ("attr", COUNTERS))."""
    out: set[tuple[str, str]] = set()
    for x in nodes(_conditions(rule)):
        token = _token(x)
        if token is not None:
            out.add(token)
            if token[0] == "attr" and token[1] not in _BUILT_IN_ATTRS:
                out.add(("attr", COUNTERS))
    return out


def _seen(seen: set, changed: set) -> bool:
    return bool(seen & changed) or (ANY in changed and bool(seen))


def _own_seat_only(rule: ast.RuleDecl) -> bool:
    """Whether a binding of the rule changes only what no other binding reads: a rule of one
    variable whose effects act on that player, reading what they change only of that player
    (`p.NAME`, `holds(p, …)`), so its bindings never feed each other."""
    if len(rule.variables) != 1:
        return False
    var = rule.variables[0].key
    mine = ast.Ref(ast.Name(var, var))
    changed = writes(rule)
    if ANY in changed:
        return False
    for e in flat(rule.then):
        if _effect_writes(e) and not (isinstance(e.on, ast.Ref) and e.on.name.key == var):
            return False
    for x in nodes(_conditions(rule)):
        token = _token(x)
        if token is None or not _seen({token} | ({("attr", COUNTERS)} if token[0] == "attr" else set()),
                                      changed):
            continue
        if isinstance(x, ast.Attr) and _is(x.obj, mine):
            continue
        if isinstance(x, ast.Call) and x.func.key in _OF_A_PLAYER and x.args and _is(x.args[0], mine):
            continue
        return False
    return True


def _is(x: object, ref: ast.Ref) -> bool:
    return isinstance(x, ast.Ref) and x.name.key == ref.name.key


def depends(reader: ast.RuleDecl, writer: ast.RuleDecl) -> bool:
    """Whether what `writer` changes can change whether `reader` newly applies (a rule on
    itself: whether one binding's changes can make another apply)."""
    if reader is writer and _own_seat_only(reader):
        return False
    return _seen(reads(reader), writes(writer))


@dataclass(frozen=True)
class Rounds:
    """The rounds a stage's rules are applied in: `live[r]` are the positions of the rules
    that can newly apply in round r+1 (every rule in the first). `unsettled` are those that
    can still newly apply after the last: empty when the rules settle within the rounds."""

    live: tuple[frozenset[int], ...]
    unsettled: frozenset[int]


# The rounds of each list of rules asked about, by the rules' identities (the rules are kept
# with it, so an identity is never reused while its entry lives): both implementations ask
# once per resolution, and the answer is a static fact of the spec.
_ROUNDS: dict[tuple[int, ...], tuple[tuple[ast.RuleDecl, ...], Rounds]] = {}


def rounds(rules: Sequence[ast.RuleDecl]) -> Rounds:
    """As `_rounds`, once per list of rules."""
    key = tuple(id(r) for r in rules)
    hit = _ROUNDS.get(key)
    if hit is None:
        if len(_ROUNDS) >= 512:  # a long-lived process (the language server) reloads specs
            _ROUNDS.clear()
        hit = _ROUNDS[key] = (tuple(rules), _rounds(rules))
    return hit[1]


def _rounds(rules: Sequence[ast.RuleDecl]) -> Rounds:
    """The rounds in which the rules (in declaration order) can newly apply, up to as many
    rounds as there are rules (`max_rounds`).

    A rule can newly apply in round r > 1 only when a rule it depends on may have acted since
    it was last read: one at or after it in round r-1, or one before it in round r. When no
    rule can in some round, the rounds before it are enough: without a cycle of rules (or of
    one rule's bindings) feeding each other that takes at most as many rounds as rules."""
    m = len(rules)
    deps = [[j for j in range(m) if depends(rules[i], rules[j])] for i in range(m)]
    live = [frozenset(range(m))] if m else []
    while live:
        now: set[int] = set()
        for i in range(m):
            if any((j >= i and j in live[-1]) or (j < i and j in now) for j in deps[i]):
                now.add(i)
        if not now:
            return Rounds(tuple(live), frozenset())
        if len(live) == max_rounds(rules):
            return Rounds(tuple(live), frozenset(now))
        live.append(frozenset(now))
    return Rounds((), frozenset())


def max_rounds(rules: Sequence[ast.RuleDecl]) -> int:
    """The rounds a stage's rules are applied in at most: as many as there are rules. Rules
    that feed each other in a cycle and still apply anew after that many rounds are a hole
    (holes.UNSETTLED) in both implementations."""
    return max(1, len(rules))
