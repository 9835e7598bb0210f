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

import z3

_IF = z3.Z3_OP_ITE
_ADD = z3.Z3_OP_ADD
_SUB = z3.Z3_OP_SUB
_MUL = z3.Z3_OP_MUL
_NEG = z3.Z3_OP_UMINUS
_NUM = z3.Z3_OP_ANUM
_VAR = z3.Z3_OP_UNINTERPRETED


class Ranges:
    """Ranges of integer terms of one context: declared for variables, derived for terms."""

    def __init__(self):
        self._known: dict = {}  # term id -> (term, (lo, hi) or None); the term keeps the id alive

    def declare(self, var, lo: int, hi: int) -> None:
        self._known[var.get_id()] = (var, (lo, hi))

    def of(self, term) -> tuple[int, int] | None:
        """(lo, hi) with lo <= term <= hi in every model, or None if not known."""
        if isinstance(term, int):
            return (term, term)
        hit = self._known.get(term.get_id())
        if hit is not None:
            return hit[1]
        # Iterative, children first: state terms nest as deep as the game is long.
        stack = [term]
        while stack:
            t = stack[-1]
            if t.get_id() in self._known:
                stack.pop()
                continue
            kids = [c for c in _operands(t) if c.get_id() not in self._known]
            if kids:
                stack.extend(kids)
                continue
            stack.pop()
            self._known[t.get_id()] = (t, self._combine(t))
        return self._known[term.get_id()][1]

    def _get(self, t):
        return self._known[t.get_id()][1]

    def _combine(self, t):
        k = _kind(t)
        if k == _NUM:
            v = t.as_long()
            return (v, v)
        if k == _VAR:
            return None  # not declared
        if k == _IF:
            a, b = self._get(t.arg(1)), self._get(t.arg(2))
            return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
        args = [self._get(c) for c in t.children()]
        if any(a is None for a in args):
            return None
        if k == _ADD:
            return (sum(a[0] for a in args), sum(a[1] for a in args))
        if k == _SUB:
            lo, hi = args[0]
            for a in args[1:]:
                lo, hi = lo - a[1], hi - a[0]
            return (lo, hi)
        if k == _NEG:
            return (-args[0][1], -args[0][0])
        if k == _MUL:
            lo, hi = args[0]
            for a in args[1:]:
                products = [lo * a[0], lo * a[1], hi * a[0], hi * a[1]]
                lo, hi = min(products), max(products)
            return (lo, hi)
        return None


def _operands(t) -> list:
    """The integer operands whose ranges t's range is made of (not an `if`'s condition)."""
    k = _kind(t)
    if k in (_NUM, _VAR):
        return []
    if k == _IF:
        return [t.arg(1), t.arg(2)]
    return t.children()


def _kind(t) -> int:
    return z3.Z3_get_decl_kind(t.ctx_ref(), z3.Z3_get_app_decl(t.ctx_ref(), t.as_ast()))
