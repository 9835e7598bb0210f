"""The range of every integer in an unrolled game, where one can be shown.

Choice variables have small domains (a seat or nobody, a role, how many targets), and every
state integer is a term over earlier ones and choices, so interval arithmetic gives each a
range. When every integer has one, the game is a finite-domain problem: Z3's finite-domain
solver bit-blasts it to SAT, which on the bundled specs answers several times faster than
the arithmetic solver (see solver.make_solver).

A range is a sound over-approximation: it is computed from the term, never assumed. A term
whose range cannot be computed (a product of two unknowns, a division) has none, and the
game then stays with the arithmetic solver.
"""

from __future__ import annotations

from typing import Any

import z3

_IF = z3.Z3_OP_ITE
_ADD = z3.Z3_OP_ADD
_SUB = z3.Z3_OP_SUB
_MUL = z3.Z3_OP_MUL
_NEG = z3.Z3_OP_UMINUS
_NUM = z3.Z3_OP_ANUM
_VAR = z3.Z3_OP_UNINTERPRETED


class Ranges:
    """Ranges of integer terms of one context: declared for variables, derived for terms.

    Terms are walked through Z3's C API by AST id, without Python wrappers (the wrappers'
    reference counting was most of the cost). An id stays the term's because every term
    asked about or declared is kept alive here, and with it its subterms."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[int, int] | None] = {}  # AST id -> (lo, hi) or None
        self._alive: list[z3.ExprRef] = []  # the terms whose ids are keys, kept alive

    def declare(self, var: z3.ArithRef, lo: int, hi: int) -> None:
        self._alive.append(var)
        self._known[var.get_id()] = (lo, hi)

    def of(self, term: z3.ArithRef | int) -> tuple[int, int] | None:
        """(lo, hi) with lo <= term <= hi in every model, or None if not known."""
        if isinstance(term, int):
            return (term, term)
        known = self._known
        ctx = term.ctx_ref()
        root = term.as_ast()
        root_id = z3.Z3_get_ast_id(ctx, root)
        if root_id in known:
            return known[root_id]
        self._alive.append(term)  # its subterms live as long as it does
        # Iterative, children first: state terms nest as deep as the game is long.
        stack = [(root, root_id)]
        while stack:
            a, i = stack[-1]
            if i in known:
                stack.pop()
                continue
            kind = _kind(ctx, a)
            todo = [(c, z3.Z3_get_ast_id(ctx, c)) for c in _operands(ctx, a, kind)]
            todo = [x for x in todo if x[1] not in known]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            known[i] = self._combine(ctx, a, kind)
        return known[root_id]

    def _get(self, ctx: Any, a: Any) -> tuple[int, int] | None:
        return self._known[z3.Z3_get_ast_id(ctx, a)]

    def _combine(self, ctx: Any, a: Any, k: int) -> tuple[int, int] | None:
        if k == _NUM:
            v = int(z3.Z3_get_numeral_string(ctx, a))
            return (v, v)
        if k == _VAR:
            return None  # not declared
        if k == _IF:
            x, y = (self._get(ctx, z3.Z3_get_app_arg(ctx, a, j)) for j in (1, 2))
            return None if x is None or y is None else (min(x[0], y[0]), max(x[1], y[1]))
        maybe = [self._get(ctx, c) for c in _operands(ctx, a, k)]
        args = [x for x in maybe if x is not None]
        if len(args) < len(maybe):
            return None
        if k == _ADD:
            return (sum(x[0] for x in args), sum(x[1] for x in args))
        if k == _SUB:
            lo, hi = args[0]
            for x in args[1:]:
                lo, hi = lo - x[1], hi - x[0]
            return (lo, hi)
        if k == _NEG:
            return (-args[0][1], -args[0][0])
        if k == _MUL:
            lo, hi = args[0]
            for x in args[1:]:
                products = [lo * x[0], lo * x[1], hi * x[0], hi * x[1]]
                lo, hi = min(products), max(products)
            return (lo, hi)
        return None


def _operands(ctx: Any, a: Any, k: int) -> list[Any]:
    """The integer operands whose ranges a's range is made of (not an `if`'s condition)."""
    if k in (_NUM, _VAR):
        return []
    if k == _IF:
        return [z3.Z3_get_app_arg(ctx, a, 1), z3.Z3_get_app_arg(ctx, a, 2)]
    return [z3.Z3_get_app_arg(ctx, a, j) for j in range(z3.Z3_get_app_num_args(ctx, a))]


def _kind(ctx: Any, a: Any) -> int:
    if z3.Z3_get_ast_kind(ctx, a) == z3.Z3_NUMERAL_AST:
        return _NUM
    return z3.Z3_get_decl_kind(ctx, z3.Z3_get_app_decl(ctx, a))
