"""Compiling spec expressions to Z3 terms over one phase's state and events.

Every value is an integer or a boolean term: seats, roles, sides, kinds, item variants and
setting options are numbered (see `Ids`). A set of players is a `Seats` value: for each seat,
the condition under which it is a member.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, KeysView, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import z3

from .. import ast
from ..model import BUILTIN_KINDS, Scenario
from ..narrow import present, ref_key
from ..vocabulary import has_table

if TYPE_CHECKING:
    from ..source import Span
    from .state import SymState
    from .unroll import Game

# ------------------------------------------------------------------ folding constructors
#
# The encoder builds its terms through these rather than z3.And/Or/If/...: constants are
# folded in Python (a rule that cannot apply to a seat is `false` at once, not a term for Z3
# to simplify), which keeps both the terms and the time spent building them small.


def truth(x: z3.BoolRef | bool) -> bool | None:
    """True or False for a constant boolean term (or a Python bool), else None."""
    if x is True or x is False:
        return x
    # Z3 keeps one `true` and one `false` term per context (a term is constant exactly when it
    # is one of them): comparing the pointers is a Python comparison, where asking Z3 was two
    # foreign calls, on the path of every connective the encoder builds.
    _, _, false, true = _constants(x.ctx)
    a = x.ast.value
    return True if a == true else False if a == false else None


def number(x: z3.ArithRef | int) -> int | None:
    """The value of a constant integer term (or a Python int), else None."""
    if isinstance(x, int):
        return x
    ctx, a = x.ctx_ref(), x.as_ast()
    if z3.Z3_is_numeral_ast(ctx, a):
        return int(z3.Z3_get_numeral_string(ctx, a))
    return None


def _constants(ctx: z3.Context) -> tuple[z3.BoolRef, z3.BoolRef, int, int]:
    """The context's `false` and `true` terms and their addresses."""
    # Kept on their context, not in a table keyed by it: a table's entries would hold their
    # context alive (a term refers to it), and every game with it.
    kept = getattr(ctx, "_mafiacheck_bools", None)
    if kept is None:
        false, true = z3.BoolVal(False, ctx), z3.BoolVal(True, ctx)
        kept = ctx._mafiacheck_bools = (false, true, false.ast.value, true.ast.value)
    return kept


def _bool(value: bool, ctx: z3.Context) -> z3.BoolRef:
    false, true, _, _ = _constants(ctx)
    return true if value else false


def _args(args: tuple) -> Sequence[Any]:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return args[0]
    return args


def _ctx_of(xs: Iterable[Any]) -> z3.Context | None:
    for x in xs:
        if isinstance(x, z3.ExprRef):
            return x.ctx
    return None


def _connective(args: tuple, absorbing: bool, mk: Callable[..., z3.BoolRef]) -> z3.BoolRef:
    """`and` (absorbing False) or `or` (absorbing True), folding operands whose value is known."""
    xs = _args(args)
    keep = []
    for x in xs:
        v = truth(x)
        if v is absorbing:
            return x if isinstance(x, z3.ExprRef) else _bool(absorbing, _ctx_of(xs))
        if v is None:
            keep.append(x)
    if not keep:
        return _bool(not absorbing, _ctx_of(xs))
    if len(keep) == 1:
        return keep[0]
    return _nary(mk, keep)


def And(*args: Any) -> z3.BoolRef:
    return _connective(args, False, z3.Z3_mk_and)


def Or(*args: Any) -> z3.BoolRef:
    return _connective(args, True, z3.Z3_mk_or)


def _nary(make: Callable[..., z3.BoolRef], args: list) -> z3.BoolRef:
    """z3.And / z3.Or over boolean terms of one context, without z3's per-argument coercion."""
    ctx = args[0].ctx
    return z3.BoolRef(make(ctx.ref(), len(args), _ast_array(args)), ctx)


def _ast_array(args: Sequence[z3.ExprRef]) -> Any:
    """The terms as the C array z3's n-ary constructors take."""
    array = (z3.Ast * len(args))()
    for i, a in enumerate(args):
        array[i] = a.as_ast()
    return array


def Not(x: z3.BoolRef) -> z3.BoolRef:
    v = truth(x)
    if v is not None:
        return _bool(not v, x.ctx)
    return negation(x)


# The term z3.Not / z3.If / == / z3.Sum would make, straight from the C API: z3's Python
# constructors check and coerce their arguments' sorts on every call, which was about a third
# of the time spent building a game. Only for operands of the sorts the encoder uses (Bool,
# Int), the coercions of which are none; anything else goes through z3.


def negation(x: z3.BoolRef) -> z3.BoolRef:
    """not x, unfolded (z3.Not)."""
    return z3.BoolRef(z3.Z3_mk_not(x.ctx_ref(), x.as_ast()), x.ctx)


def _ite(c: Any, a: Any, b: Any) -> Any:
    if isinstance(c, z3.BoolRef):
        if isinstance(a, z3.BoolRef) and isinstance(b, z3.BoolRef):
            return z3.BoolRef(z3.Z3_mk_ite(c.ctx_ref(), c.as_ast(), a.as_ast(), b.as_ast()), c.ctx)
        if isinstance(a, z3.ArithRef) and isinstance(b, z3.ArithRef):
            return z3.ArithRef(z3.Z3_mk_ite(c.ctx_ref(), c.as_ast(), a.as_ast(), b.as_ast()), c.ctx)
    return z3.If(c, a, b)


def _eq(a: Any, b: Any) -> Any:
    """a == b as z3's operator makes it: an int operand becomes a numeral of the other's
    context, and the operands come in the order Python's `==` gives them to z3."""
    if (isinstance(a, int) and not isinstance(a, bool) and isinstance(b, z3.ArithRef)) or \
            (type(a) is not type(b) and isinstance(b, type(a))):
        # Python asks the right operand first when its type is the left's subclass (a
        # numeral, IntNumRef, on the right of an ArithRef), so the term is made swapped.
        a, b = b, a
    if isinstance(a, z3.ArithRef):
        if isinstance(b, int) and not isinstance(b, bool):
            b = z3.IntVal(b, a.ctx)
        if isinstance(b, z3.ArithRef):
            return z3.BoolRef(z3.Z3_mk_eq(a.ctx_ref(), a.as_ast(), b.as_ast()), a.ctx)
    elif isinstance(a, z3.BoolRef) and isinstance(b, z3.BoolRef):
        return z3.BoolRef(z3.Z3_mk_eq(a.ctx_ref(), a.as_ast(), b.as_ast()), a.ctx)
    return a == b


def _add(terms: list) -> z3.ArithRef:
    """z3.Sum of two or more integer terms."""
    if not all(isinstance(t, z3.ArithRef) for t in terms):
        return z3.Sum(terms)
    ctx = terms[0].ctx
    return z3.ArithRef(z3.Z3_mk_add(ctx.ref(), len(terms), _ast_array(terms)), ctx)


def Implies(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    va = truth(a)
    if va is False:
        return _bool(True, a.ctx)
    if va is True:
        return b
    vb = truth(b)
    if vb is True:
        return b
    if vb is False:
        return negation(a)
    return z3.Implies(a, b)


def If(c: z3.BoolRef, a: Any, b: Any) -> Any:
    v = truth(c)
    if v is True:
        return a
    if v is False:
        return b
    if isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) and a.eq(b):
        return a
    return _ite(c, a, b)


# Terms with a small known set of values (a free start's role of a seat: see
# Game._small_domains), per context: term id -> (term, {value: condition}). `term == k` is
# then the condition for k (false for a value outside the set), folded like a constant.
_DOMAINS_USED = [False]  # whether any term has a domain: most games have none, so Eq skips the look-up


def register_domain(term: z3.ArithRef, conditions: dict) -> None:
    domains = getattr(term.ctx, "_mafiacheck_domains", None)
    if domains is None:
        domains = term.ctx._mafiacheck_domains = {}
    domains[term.get_id()] = (term, conditions)
    _DOMAINS_USED[0] = True


def Eq(a: Any, b: Any, ctx: z3.Context | None = None) -> z3.BoolRef:
    """a == b, folded when both are constants (or the same term)."""
    na, nb = _const(a), _const(b)
    if na is not None and nb is not None:
        return _bool(na == nb, ctx or _ctx_of((a, b)))
    if _DOMAINS_USED[0] and (na is None) != (nb is None):
        other, k = (b, na) if na is not None else (a, nb)
        if isinstance(other, z3.ExprRef):
            known = getattr(other.ctx, "_mafiacheck_domains", None)
            hit = known.get(other.get_id()) if known else None
            if hit is not None:
                return hit[1].get(k, _bool(False, other.ctx))
    if isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) and a.eq(b):
        return _bool(True, a.ctx)
    return _eq(a, b)


def Ne(a: Any, b: Any, ctx: z3.Context | None = None) -> z3.BoolRef:
    return Not(Eq(a, b, ctx))


def _const(x: Any) -> bool | int | None:
    if isinstance(x, (bool, int)):
        return x
    if z3.is_bool(x):
        return truth(x)
    return number(x)


def Sum(terms: Sequence[Any], ctx: z3.Context | None = None) -> z3.ArithRef:
    """The sum of integer terms, with the constants added up in Python."""
    total, rest = 0, []
    for t in terms:
        v = number(t)
        if v is None:
            rest.append(t)
        else:
            total += v
    if not rest:
        return z3.IntVal(total, ctx if ctx is not None else _ctx_of(terms))
    if total:
        rest.append(z3.IntVal(total, rest[0].ctx))
    return rest[0] if len(rest) == 1 else _add(rest)


def count_of(conds: Iterable[Any], ctx: z3.Context) -> z3.ArithRef:
    """How many of conds hold: the sum of 0/1 terms, constants counted in Python."""
    one, zero = z3.IntVal(1, ctx), z3.IntVal(0, ctx)
    total, rest = 0, []
    for c in conds:
        v = truth(c)
        if v is True:
            total += 1
        elif v is None:
            rest.append(_ite(c, one, zero))
    if not rest:
        return z3.IntVal(total, ctx)
    if total:
        rest.append(z3.IntVal(total, ctx))
    return rest[0] if len(rest) == 1 else _add(rest)


def compare_op(op: str, left: Any, right: Any, ctx: z3.Context | None = None) -> z3.BoolRef:
    """left OP right for integer terms, folded when both are constants."""
    nl, nr = _const(left), _const(right)
    if nl is not None and nr is not None:
        value = {"==": nl == nr, "!=": nl != nr, "<": nl < nr, "<=": nl <= nr,
                 ">": nl > nr, ">=": nl >= nr}[op]
        return _bool(value, ctx or _ctx_of((left, right)))
    if op == "==":
        return Eq(left, right, ctx)
    if op == "!=":
        return Ne(left, right, ctx)
    return {"<": lambda: left < right, "<=": lambda: left <= right,
            ">": lambda: left > right, ">=": lambda: left >= right}[op]()


class Unsupported(Exception):
    """A construct the encoding does not cover yet: the analysis reports `inconclusive`."""

    def __init__(self, message: str, span: Span | None = None):
        super().__init__(message)
        self.span = span


class Ids:
    """The numbering of everything a term can denote."""

    def __init__(self, scenario: Scenario):
        self.roles = [r.key for r in scenario.roles]
        self.sides = [s.key for s in scenario.sides]
        self.kinds = [k.name.key for k in scenario.kinds if k.name.key not in BUILTIN_KINDS] \
            + list(BUILTIN_KINDS)  # a built-in kind declared only to give it a label
        self.items = [i.name.key for i in scenario.items]
        self.variants = {i.name.key: [v.key for v, _ in i.variants] for i in scenario.items}
        options: dict[str, None] = {}
        for s in scenario.settings:
            for o in s.options:
                options.setdefault(o.key, None)
        for a in scenario.abilities:
            for c in a.choices:
                if c.kind == "option":
                    for n in c.names:
                        options.setdefault(n.key, None)
        self.options = list(options)
        self.all_variants = list(dict.fromkeys(v for vs in self.variants.values() for v in vs))
        # An item held with no variant (an item that has none: a title, a badge): a value of
        # its own, neither "not held" (NONE) nor any variant.
        self.no_variant = len(self.all_variants)

    def item_value(self, held: bool, variant: str | None) -> int:
        """An item's value in the state: NONE, the variant held, or held with no variant."""
        if not held:
            return -1
        return self.value("variant", variant) if variant else self.no_variant

    def constant(self, key: str) -> int | None:
        """The number of a role, side, kind, variant or option named by key."""
        for table in (self.roles, self.sides, self.kinds, self.all_variants, self.options):
            if key in table:
                return table.index(key)
        return None

    def value(self, kind: str, key: str | None) -> int:
        if key is None:
            return -1
        table = {"role": self.roles, "side": self.sides, "variant": self.all_variants,
                 "option": self.options, "kind": self.kinds}[kind]
        return table.index(key)


@dataclass
class Seats:
    """A set of players: member[s] is when seat s belongs."""

    member: list

    def contains(self, seat: z3.ArithRef | int) -> z3.BoolRef:
        if isinstance(seat, int):
            return self.member[seat]
        return Or([And(Eq(seat, i), m) for i, m in enumerate(self.member)])


class Events:
    """Event conditions, gathered as lists and joined once: building a long chain of `Or`s
    one disjunct at a time is what made the encoding slow."""

    def __init__(self, ctx: z3.Context, initial: dict | None = None):
        self.ctx = ctx
        self.parts: dict = {}
        self.cache: dict = {}
        for key, cond in (initial or {}).items():
            self.add(key, cond)

    def add(self, key: tuple, cond: z3.BoolRef) -> None:
        if truth(cond) is False:  # z3.is_false is several calls deep; this is one
            return
        self.parts.setdefault(key, []).append(cond)
        self.cache.pop(key, None)

    def get(self, key: tuple, default: z3.BoolRef | None = None) -> z3.BoolRef:
        if key not in self.parts:
            return default if default is not None else z3.BoolVal(False, self.ctx)
        if key not in self.cache:
            parts = self.parts[key]
            self.cache[key] = parts[0] if len(parts) == 1 else Or(parts)
        return self.cache[key]

    def keys(self) -> KeysView[tuple]:
        return self.parts.keys()

    def copy(self) -> "Events":
        out = Events(self.ctx)
        out.parts = {k: list(v) for k, v in self.parts.items()}
        return out

    def __iter__(self) -> Iterator[tuple]:
        return iter(self.parts)


class View:
    """What an expression sees: a state (a SymState), events, settings, bindings."""

    def __init__(self, enc: Game, state: SymState, events: Events, env: dict):
        self.enc = enc
        self.state = state
        self.events = events
        self.env = env

    def with_env(self, **more: Any) -> View:
        return View(self.enc, self.state, self.events, {**self.env, **more})


def pick(seat: Any, values: Sequence[Any]) -> Any:
    """values[seat] for a symbolic seat, as an If-chain. A seat that is nobody (-1: no link, no
    player remembered, an empty set's first) has no value: false, or -1, as the interpreter's
    attributes of nobody are None."""
    nobody = _nobody(values[0])
    if isinstance(seat, int):
        return values[seat] if 0 <= seat < len(values) else nobody
    known = number(seat)
    if known is not None:
        return values[known] if 0 <= known < len(values) else nobody
    out = nobody
    for i in range(len(values) - 1, -1, -1):
        out = If(Eq(seat, i), values[i], out)
    return out


def _nobody(example: Any) -> Any:
    if isinstance(example, bool) or z3.is_bool(example):
        return _bool(False, example.ctx if isinstance(example, z3.ExprRef) else None)
    if isinstance(example, int):
        return -1
    return z3.IntVal(-1, example.ctx)


class Compiler:
    def __init__(self, enc: Game):
        self.enc = enc
        self.sc: Scenario = enc.sc
        self.ids: Ids = enc.ids
        self.ctx = enc.ctx
        self.n = len(enc.seats)
        self.setting_keys = {s.name.key: s for s in self.sc.settings}
        self.memory_keys = {m.name.key: m for m in self.sc.memories}
        self._true, self._false = z3.BoolVal(True, self.ctx), z3.BoolVal(False, self.ctx)
        self._ints: dict = {}
        self._skip_ok: dict = {}
        self._groups: dict = {}
        self._tables: dict = {}  # id(expression) -> (whether it holds a table, the expression)
        self._texts: dict = {}  # text -> the number it stands for, in a learned value

    def B(self, value: bool) -> z3.BoolRef:
        return self._true if value else self._false

    def I(self, value: int) -> z3.ArithRef:
        term = self._ints.get(value)
        if term is None:
            term = self._ints[value] = z3.IntVal(value, self.ctx)
        return term

    # -------------------------------------------------------------- groups

    def in_group(self, view: View, key: str, seat: int) -> z3.BoolRef:
        """Whether seat belongs to a side (as counted for wins) or has a role."""
        st = view.state
        # The same role and side terms give the same answer: built once.
        memo = (key, st.roles[seat].get_id(), st.sides[seat].get_id())
        known = self._groups.get(memo)
        if known is None:
            known = self._groups[memo] = (self._in_group(view, key, seat), st.roles[seat], st.sides[seat])
        return known[0]

    def _in_group(self, view: View, key: str, seat: int) -> z3.BoolRef:
        st = view.state
        if key == "all":
            return self.B(True)
        if key in self.ids.sides:
            side = self.ids.sides.index(key)
            counted = []
            for r in self.sc.roles:
                rid = self.ids.roles.index(r.key)
                if r.counts_as is None:
                    counted.append(And(Eq(st.roles[seat], rid), Eq(st.sides[seat], side)))
                elif r.counts_as == key:
                    counted.append(Eq(st.roles[seat], rid))
            return Or(counted) if counted else self.B(False)
        return Eq(st.roles[seat], self.ids.roles.index(key))

    # -------------------------------------------------------------- values

    def value(self, e: ast.Expr | None, view: View) -> Any:
        # None (a part the spec leaves out) is no expression the encoding covers: Unsupported.
        if isinstance(e, ast.Num):
            return self.I(e.value)
        if isinstance(e, ast.Bool):
            return self.B(e.value)
        if isinstance(e, ast.Str):
            if view.env.get("__texts"):
                # What a player learns is never compared: a text stands for a number of its own
                # (the value is read only for the holes of its tables).
                return self.I(self._texts.setdefault(e.value, len(self._texts)))
            raise Unsupported("text values", e.span)
        if isinstance(e, ast.Ref):
            return self.ref(e, view)
        if isinstance(e, ast.Attr):
            return self.attr(e, view)
        if isinstance(e, ast.Not):
            return Not(self.value(e.operand, view))
        if isinstance(e, ast.BinOp):
            left = self.value(e.left, view)
            if e.op in ("and", "or") and truth(left) is (e.op == "or") and self._skippable(e.right, view):
                return left  # false and …, true or …: the rest cannot matter
            if e.op in ("and", "or"):  # the right side is read only when the left leaves it open
                right = self.value(e.right, self.under(view, e.right, left if e.op == "and" else Not(left)))
            else:
                right = self.value(e.right, view)
            return {"and": lambda: And(left, right), "or": lambda: Or(left, right),
                    "+": lambda: left + right, "-": lambda: left - right,
                    "*": lambda: left * right}[e.op]()
        if isinstance(e, ast.Compare):
            return self.compare(e, view)
        if isinstance(e, ast.SetLit):
            items = [self.value(i, view) for i in e.items]
            return ("set", items)
        if isinstance(e, ast.Count):
            if e.within is not None and self._constant_set(e.within, view):
                # count(r in SET where …) over roles (sides, kinds): one term per element
                keys = sorted({present(number(x), "a value of a constant set") for x in self.value(e.within, view)[1]})
                return count_of([self.value(e.cond, view.with_env(**{e.var.key: self.I(k)}))
                                 for k in keys], self.ctx)
            within = None if e.within is None else self.seats_of(self.value(e.within, view))
            return count_of([And(within.member[s], self.value(e.cond, self.under(
                                 view.with_env(**{e.var.key: s}), e.cond, within.member[s])))
                             if within is not None else self.value(e.cond, view.with_env(**{e.var.key: s}))
                             for s in range(self.n)], self.ctx)
        if isinstance(e, ast.ByTable):
            subject = self.value(e.subject, view)
            rows = [self.B(True) if case.low is None else And(subject >= case.low, subject <= case.high)
                    for case in e.cases]
            values = []
            for i, case in enumerate(e.cases):  # a row's value is read only when it is the row
                values.append(self.value(case.value, self.under(
                    view, case.value, And(rows[i], *[Not(r) for r in rows[:i]]))))
            return self._table(view, rows, values)
        if isinstance(e, ast.Cases):
            rows, values = [], []
            for arm in e.arms:  # as the interpreter: the arms in order, up to the first that holds
                before = And([Not(r) for r in rows] or [self.B(True)])
                cond = self.B(True) if arm.cond is None else \
                    self.value(arm.cond, self.under(view, arm.cond, before))
                values.append(self.value(arm.value, self.under(view, arm.value, And(before, cond))))
                rows.append(cond)
            return self._table(view, rows, values)
        if isinstance(e, ast.Call):
            return self.call(e, view)
        raise Unsupported(f"expression {type(e).__name__}", getattr(e, "span", None))

    def _no_value(self, values: Any) -> Any:
        """What a table stands for where no row covers the case (a hole, recorded by
        _no_row): false for a table of truths, 0 for one of numbers, so the If-chain over
        its rows has one sort (a `cases` of `true`/`false` arms with no `else` once mixed
        the two, a Z3 sort error)."""
        return self.B(False) if any(isinstance(v, z3.BoolRef) for v in values) else self.I(0)

    def _skippable(self, e: ast.Expr, view: View) -> bool:
        """Whether e may be left uncompiled when its value cannot matter: it records no
        table holes, and compiles at all (checked once, so an unsupported construct is
        still reported)."""
        key = (id(e), bool(view.env.get("__no_leaves")))
        known = self._skip_ok.get(key)
        if known is None:
            known = not has_table(e)
            if known:
                self.value(e, view.with_env(__holes=[]))  # raises Unsupported as before
            self._skip_ok[key] = known
        return known

    def _table(self, view: View, rows: list, values: list) -> Any:
        """The value of the first row that holds (rows and values in the table's order)."""
        result = self._no_value(values)
        for row, v in reversed(list(zip(rows, values))):
            result = If(row, v, result)
        self._no_row(view, rows)
        return result

    def _no_row(self, view: View, rows: list) -> None:
        """A table with no row for the case at hand has no value: record when that happens
        (where the expression is read at all: see `under`)."""
        holes = view.env.get("__holes")
        if holes is not None:
            holes.append(And(view.env.get("__guard", self.B(True)), Not(Or(rows))))

    def under(self, view: View, e: ast.Expr | None, cond: z3.BoolRef) -> View:
        """The view to read e in when it is read only where cond holds (the right side of
        `and`, a row's value): a table in e with no row is a hole only there, as the
        interpreter, which evaluates lazily, finds it. Views of expressions without a
        table are left as they are."""
        known = self._tables.get(id(e))
        if known is None:
            known = self._tables[id(e)] = (has_table(e), e)
        if not known[0] or view.env.get("__holes") is None:
            return view
        return view.with_env(__guard=And(view.env.get("__guard", self.B(True)), cond))

    def ref(self, e: ast.Ref, view: View) -> Any:
        key = e.name.key
        if key in view.env:
            return view.env[key]
        st = view.state
        if key in self.setting_keys:
            value = self.enc.settings[key]
            if isinstance(value, bool):
                return self.B(value)
            if isinstance(value, int):
                return self.I(value)
            if isinstance(value, frozenset):  # `set of role` (side, kind): fixed for the game
                element = present(self.setting_keys[key].element, "a set setting's element").key
                return ("set", [self.I(self.ids.value(element, v)) for v in sorted(value)])
            return self.I(self.ids.value("option", value))
        if key in self.memory_keys:
            m = self.memory_keys[key]
            if m.type == "players":
                return Seats(st.memories_set[key])
            if m.type == "player":
                return st.memories_one[key]
            if m.type == "int":
                return st.memories_int[key]
            raise Unsupported(f"memory of type {m.type}", e.span)
        if key == "alive" and key not in self.ids.sides:
            return count_of(st.alive, self.ctx)
        if key == "players":
            return self.I(self.n)
        if key == "round":
            number_ = view.env.get("__round", 0 if view.state.round is None else view.state.round)
            # A term where the round is not known (encode/roles.py's abstract phase).
            return number_ if isinstance(number_, z3.ExprRef) else self.I(number_)
        constant = self.ids.constant(key)
        if constant is not None:
            return self.I(constant)
        raise Unsupported(f"the name '{e.name.text}' in this position", e.span)

    def attr(self, e: ast.Attr, view: View) -> Any:
        seat = self.value(e.obj, view)
        st = view.state
        key = e.attr.key
        if key == "alive":
            return pick(seat, st.alive)
        if key == "role":
            return pick(seat, st.roles)
        if key == "side":
            return pick(seat, st.sides)
        if key == "plain":
            plain_roles = [self.ids.roles.index(r.key) for r in self.sc.roles if r.plain]
            return Or([Eq(pick(seat, st.roles), r) for r in plain_roles]) if plain_roles else self.B(False)
        if key == "left_by":
            return pick(seat, st.left_by)
        if key == "revealed":
            return pick(seat, st.revealed)
        if key == "blocked":
            return pick(seat, [view.events.get(("blocked", s), self.B(False)) for s in range(self.n)])
        return pick(seat, [st.counters[s].get(key, self.I(0)) for s in range(self.n)])

    def compare(self, e: ast.Compare, view: View) -> z3.BoolRef:
        if e.op in ("in", "not in"):
            member = self.member(e.left, e.right, view)
            return member if e.op == "in" else Not(member)
        left, right = self.value(e.left, view), self.value(e.right, view)
        if e.op in ("==", "!=") and isinstance(left, tuple) and isinstance(right, tuple):
            # Two sets of constants (a `set of role` setting and a set written out).
            same = And([self.member_of(x, right) for x in left[1]]
                       + [self.member_of(x, left) for x in right[1]] or [self.B(True)])
            return same if e.op == "==" else Not(same)
        return compare_op(e.op, left, right, self.ctx)

    def _constant_set(self, e: ast.Expr, view: View) -> bool:
        """Whether an expression is a set of roles, sides or kinds known before the game."""
        if isinstance(e, ast.Ref) and e.name.key not in view.env and e.name.key in self.setting_keys:
            return self.setting_keys[e.name.key].type == "set"
        return isinstance(e, ast.SetLit) and all(
            isinstance(i, ast.Ref) and i.name.key not in view.env and self.ids.constant(i.name.key) is not None
            for i in e.items)

    def member_of(self, value: Any, coll: Any) -> z3.BoolRef:
        """Whether a constant term is one of a ("set", terms) value's terms."""
        return Or([Eq(value, x, self.ctx) for x in coll[1]]) if coll[1] else self.B(False)

    def member(self, item: ast.Expr, collection: ast.Expr, view: View) -> z3.BoolRef:
        value = self.value(item, view)
        coll = self.value(collection, view)
        if isinstance(coll, Seats):
            return coll.contains(value)
        if isinstance(coll, tuple) and coll[0] == "set":
            members = []
            for x in coll[1]:
                if isinstance(x, Seats):
                    members.append(x.contains(value))
                else:
                    members.append(Eq(value, x, self.ctx))
            return Or(members) if members else self.B(False)
        raise Unsupported("`in` on this kind of value", collection.span)

    def seats_of(self, value: Any) -> Seats:
        """A player or set of players as a set of seats."""
        if isinstance(value, Seats):
            return value
        if isinstance(value, tuple) and value[0] == "set":
            sets = [self.seats_of(v) for v in value[1]]
            return Seats([Or([s.member[i] for s in sets]) for i in range(self.n)])
        if isinstance(value, int) or z3.is_int_value(value):
            # A known seat: membership is plain true or false, not a term per seat.
            seat = value if isinstance(value, int) else value.as_long()
            return Seats([self.B(seat == i) for i in range(self.n)])
        return Seats([Eq(value, i) for i in range(self.n)])

    def call(self, e: ast.Call, view: View) -> Any:
        name = e.func.key
        st = view.state
        if name in ("alive", "left", "died"):
            key = e.args[0].name.key if isinstance(e.args[0], ast.Ref) else None
            if key is None:
                raise Unsupported(f"{name}() of an expression", e.span)
            terms = []
            for s in range(self.n):
                member = self.in_group(view, key, s)
                if name == "alive":
                    cond = And(member, st.alive[s])
                elif name == "left":
                    cond = And(member, Not(st.alive[s]))
                else:
                    cond = And(member, view.events.get(("left", s), self.B(False)))
                terms.append(cond)
            return count_of(terms, self.ctx)
        if name in ("first", "second"):
            seats = self.seats_of(self.value(e.args[0], view)).member
            index = 0 if name == "first" else 1
            # The seats in the set, lowest first: the index-th of them (-1 when absent).
            result = self.I(-1)
            for s in range(self.n - 1, -1, -1):
                before = count_of(seats[:s], self.ctx)
                result = If(And(seats[s], Eq(before, index)), self.I(s), result)
            return result
        if name == "size":
            seats = self.seats_of(self.value(e.args[0], view)).member
            return count_of(seats, self.ctx)
        if name in ("holds", "item_variant"):
            seat = self.value(e.args[0], view)
            item = ref_key(e.args[1], "the item of holds()")
            values = [st.items[(item, s)] for s in range(self.n)]
            held = pick(seat, values)
            return compare_op(">=", held, 0) if name == "holds" else held
        if name == "linked":
            return pick(self.value(e.args[0], view), st.links)
        if name == "used":
            return view.events.get(("used", ref_key(e.args[0], "the ability of used()")), self.B(False))
        if name == "uses":
            # As the interpreter: every use counted so far in the game, by everyone (a
            # team's or the moderator's under one key, the others per player).
            ability = ref_key(e.args[0], "the ability of uses()")
            return Sum([v for (a, _), v in st.uses.items() if a == ability], self.ctx)
        if name == "idle":
            seat = self.value(e.args[0], view)
            ability = ref_key(e.args[1], "the ability of idle()")
            return pick(seat, [st.idle[(ability, s)] for s in range(self.n)])
        if name == "leaves":
            if view.env.get("__no_leaves"):
                raise Unsupported("exit rules that depend on who leaves (leaves())", e.span)
            seat = self.value(e.args[0], view)
            return pick(seat, [view.events.get(("left", s), self.B(False)) for s in range(self.n)])
        # Event predicates.
        args = []
        for a in e.args:
            if isinstance(a, ast.Ref) and a.name.key not in view.env and \
                    (self.ids.constant(a.name.key) is not None or a.name.key in self.sc.ability_by_key
                     or a.name.key in ("block", "inquire", "convert", "kill", "any")):
                args.append(("const", a.name.key))
            else:
                args.append(("term", self.value(a, view)))
        if name in ("kill", "save", "protect", "block", "inquire", "voted", "blocked", "attacked_by", "targeted",
                    "chosen", "acted"):
            seat = args[0][1]
            rest = tuple(v for kind, v in args[1:])
            if name == "attacked_by":
                other = args[1][1]
                return Or([And(Eq(pick(seat, [self.I(i) for i in range(self.n)]), i),
                               Eq(pick(other, [self.I(j) for j in range(self.n)]), j),
                                     view.events.get((name, i, j), self.B(False)))
                              for i in range(self.n) for j in range(self.n)])
            options = [And(Eq(seat, i), view.events.get((name, i) + rest, self.B(False)))
                       if not isinstance(seat, int) else view.events.get((name, i) + rest, self.B(False))
                       for i in range(self.n) if not isinstance(seat, int) or seat == i]
            return Or(options) if options else self.B(False)
        raise Unsupported(f"the function {e.func.text}()", e.span)
