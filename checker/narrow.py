"""Narrowing an optional field that every node of its kind has.

The AST and IR keep one dataclass for several kinds of a thing (a state line, an effect, an
ability's actor), so a field that one kind always has is optional in the type. Code that has
already told the kind apart says so with `present`, and a None there fails loudly as a bug.
"""

from __future__ import annotations

from typing import TypeVar

from . import ast

T = TypeVar("T")


def present(value: T | None, what: str) -> T:
    """`value`, which every node of its kind has (the grammar or the resolver gives it); `what`
    names the part, for the error should it ever be missing."""
    if value is None:
        raise ValueError(f"{what} is missing")
    return value


def present_expr(value: ast.Expr | None, what: str) -> ast.Expr:
    """`present` for an expression: solving T against the Expr union, mypy would join its
    members to `object`."""
    if value is None:
        raise ValueError(f"{what} is missing")
    return value


def effect_name(e: ast.Effect) -> ast.Name:
    """What an effect of a named verb names (the kind of `kill`, the role of `convert`, the
    item of `give`, the side of `win` …): the grammar gives one to every effect of those verbs."""
    return present(e.name, f"the name of a `{e.verb}` effect")


def effect_text(e: ast.Effect) -> str:
    """The words of `announce "…"` and `unspecified "…"`, which the builder keeps as a string
    (both implementations read them here)."""
    if not isinstance(e.value, ast.Str):
        raise ValueError(f"a `{e.verb}` effect holds its words")
    return e.value.value


def actor_roles(actor: ast.Actor) -> tuple[ast.Name, ...]:
    """The roles that may use an ability `by ROLE` (`by nato, godfather`: each of them)."""
    return actor.roles or (present(actor.name, "the role of `by ROLE`"),)


def per_game_caps(limits: tuple[ast.Limit, ...]) -> list[int]:
    """The counts of an ability's `limit N per game` (not those on oneself)."""
    return [present(lim.count, "the count of a `limit N`") for lim in limits
            if lim.kind == "count" and not lim.on_self and present(lim.per, "the period of a `limit N`").key == "game"]


def self_caps(limits: tuple[ast.Limit, ...]) -> list[int]:
    """The counts of an ability's `limit N … on self` (uses on oneself, over the game)."""
    return [present(lim.count, "the count of a `limit N`") for lim in limits if lim.kind == "count" and lim.on_self]


def plain_effect(e: ast.AnyEffect) -> ast.Effect:
    """An effect where the rules leave no `if` or `after` (flattened, or refused before)."""
    if not isinstance(e, ast.Effect):
        raise ValueError(f"a plain effect was expected here, not {type(e).__name__}")
    return e


def ref_key(e: ast.Expr, what: str) -> str:
    """The key of a name given as an argument (`used(A)`, `holds(p, ITEM)`, `idle(p, A)`):
    the resolver has checked that it is a plain name."""
    if not isinstance(e, ast.Ref):
        raise ValueError(f"{what} is not a name")
    return e.name.key
