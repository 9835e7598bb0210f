"""The effect vocabulary, its categories, and one walk over the syntax tree.

Both implementations of the game (the interpreter in `interpreter/`, the Z3 encoding in
`encode/`) read an effect's meaning from here: which verbs block, which decide exits, which
change the state (and so wait for the deaths when acting together), which only record
something. `tests/test_vocabulary.py` holds every verb of the grammar to a category here, and
to a handler in the resolver, the interpreter and the encoder.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import fields, is_dataclass

from typing import TYPE_CHECKING

from . import ast

if TYPE_CHECKING:
    from .model import Ability, Scenario

# ------------------------------------------------------------------ the verbs, by what they do

# Intentions recorded during a resolution and weighed at the deaths.
INTENTIONS = frozenset({"kill", "save", "protect"})
# Verbs that decide an exit outright (rules' conclusions, and abilities that say so).
EXITS = frozenset({"leave", "stay"})
# Verbs of the blocking stage: they run before the actions they take away (`cancel`: the
# target's uses of one ability).
BLOCKS = frozenset({"block", "unblock", "cancel"})
# Verbs that change the state: acting together, they wait until after the deaths.
STATE_WRITES = frozenset({"convert", "reveal", "link", "revive", "give", "lose", "mark", "unmark",
                          "consume", "set"})
# Verbs that tell someone something, or note what the rulebook leaves open.
NOTES = frozenset({"inquire", "learn", "announce", "unspecified", "nothing"})
# Verbs that act on the game itself.
CONTROL = frozenset({"draw", "win"})

VERBS = INTENTIONS | EXITS | BLOCKS | STATE_WRITES | NOTES | CONTROL
# Verbs that act on nobody in particular: the only ones an ability with no target may use
# without `on PLAYER` (every other effect acts on each target, and so on nobody).
PLAYERLESS = frozenset({"announce", "unspecified", "nothing", "win"})

# Protections that shield from an ability's kind of effect rather than defeat an attack.
SHIELDS = frozenset({"block", "inquire", "convert"})


def flat(effects: Iterable[ast.AnyEffect]) -> Iterator[ast.Effect]:
    """The plain effects of a sequence, through every `if` branch and `after` body."""
    for e in effects:
        if isinstance(e, ast.IfEffect):
            yield from flat(e.then)
            yield from flat(e.otherwise)
        elif isinstance(e, ast.AfterEffect):
            yield from flat(e.body)
        else:
            yield e


def verbs(effects: Iterable[ast.AnyEffect]) -> set[str]:
    return {e.verb for e in flat(effects)}


def decides_exits(effects: Iterable[ast.AnyEffect]) -> bool:
    """Whether the effects say outright who leaves or stays (`leave K`, `stay`)."""
    return bool(verbs(effects) & EXITS)


def is_blocking(effects: Iterable[ast.AnyEffect]) -> bool:
    """Whether the effects belong to the blocking stage: a block, an unblock, a cancel,
    or a protection from blocks."""
    return any(e.verb in BLOCKS or (e.verb == "protect" and any(n.key == "block" for n in e.names))
               for e in flat(effects))


def in_block_cycles(scenario: Scenario, ability: Ability) -> bool:
    """Whether the uses of a blocking ability can be part of a block cycle across abilities
    (a ring of users of unordered abilities, each blocking the next, the last the first): a
    role's ability that blocks, not a card (one a phase), nor a team's option (one use a
    phase for the team), nor one that waits to act on a trigger."""
    return ability.actor is not None and ability.actor.kind == "role" and not ability.is_card \
        and "block" in verbs(ability.effects) and not any(t.timing == "immediately" for t in ability.triggers) \
        and not any(ability.key in team.options for team in scenario.teams)


Use = tuple[str, int]  # (ability key, the user's seat): one use of a ring


def block_rings(links: Iterable[tuple[Use, Use]]) -> list[tuple[Use, ...]]:
    """The rings of a block graph: each link (u, v) says that u's block can resolve before v
    and take v away (in some order the rules allow). A ring is a cycle of k >= 2 links through
    uses of k different abilities by k different players, listed once, from the use of the
    least ability key, in the direction of its blocks. Both implementations find their block
    cycles with it (Resolver._block_cycles, encode.blocking.block_cycles): there are few
    blocking abilities (a ring has at most as many uses), so every path is followed."""
    after: dict[Use, list[Use]] = {}
    for u, v in links:
        if u[0] != v[0] and u[1] != v[1]:
            after.setdefault(u, []).append(v)
    rings = []

    def extend(path: list[Use]) -> None:
        for v in sorted(after.get(path[-1], ())):
            if v == path[0] and len(path) >= 2:
                rings.append(tuple(path))
            elif v[0] > path[0][0] and all(v[0] != u[0] and v[1] != u[1] for u in path):
                extend(path + [v])
    for start in sorted(after):
        extend([start])
    return rings


# ------------------------------------------------------------------ one walk over the tree

def nodes(tree: object) -> Iterator[object]:
    """Every syntax node in a tree (an expression, an effect, a declaration, or a tuple of
    them), the tree first, spans left out."""
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(reversed(x))
        elif is_dataclass(x) and not isinstance(x, type):
            yield x
            stack.extend(reversed([getattr(x, f.name) for f in fields(x) if f.name != "span"]))


def calls(tree: object, name: str) -> bool:
    """Whether the tree calls the function or predicate `name(…)`."""
    return any(isinstance(x, ast.Call) and x.func.key == name for x in nodes(tree))


def refers_to(tree: object, name: str) -> bool:
    """Whether the tree names `name` (a binding such as `targets`, a setting, a memory)."""
    return name in _names(tree)


# id(tree) -> (the tree, the names it refers to): the encoder asks of the same trees for
# every candidate use and phase. The tree is kept so that its id is not reused.
_NAMES: dict[int, tuple[object, frozenset[str]]] = {}
_NAMES_KEPT = 20_000


def _names(tree: object) -> frozenset[str]:
    hit = _NAMES.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    names = frozenset(x.name.key for x in nodes(tree) if isinstance(x, ast.Ref))
    if len(_NAMES) >= _NAMES_KEPT:  # a long editor session reads many versions of a spec
        _NAMES.clear()
    _NAMES[id(tree)] = (tree, names)
    return names


def has_table(tree: object) -> bool:
    """Whether the tree holds a `by` table or `cases` (which can have no row for a case)."""
    return any(isinstance(x, (ast.ByTable, ast.Cases)) for x in nodes(tree))


def sides_set(effects: Iterable[ast.AnyEffect]) -> set[str]:
    """The names an effect puts players' sides to (`set side = lovers`): the sides entered in
    play, when they name sides."""
    return {e.value.name.key for e in flat(effects)
            if e.verb == "set" and e.name is not None and e.name.key == "side" and isinstance(e.value, ast.Ref)}
