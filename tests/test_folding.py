"""The encoder's folding constructors (encode/terms.py): a constant is recognised whatever
built it, in every context, and a term that is not one is never taken for one."""

import z3

from mafiacheck.encode.terms import And, Eq, If, Not, Or, truth


def test_constants_are_recognised_however_they_were_made():
    for ctx in (z3.Context(), z3.Context()):
        x = z3.Bool("x", ctx)
        assert truth(z3.BoolVal(True, ctx)) is True
        assert truth(z3.BoolVal(False, ctx)) is False
        # Made by Z3's simplifier, not by the encoder: the same term.
        assert truth(z3.simplify(z3.Or(x, z3.Not(x)))) is True
        assert truth(z3.simplify(z3.And(x, z3.Not(x)))) is False
        assert truth(x) is None
        assert truth(z3.Not(x)) is None
        # An application over a constant is not itself one.
        assert truth(z3.And(z3.BoolVal(True, ctx))) is None
        assert truth(True) is True and truth(False) is False


def test_connectives_fold_known_operands():
    ctx = z3.Context()
    x, y = z3.Bool("x", ctx), z3.Bool("y", ctx)
    true, false = z3.BoolVal(True, ctx), z3.BoolVal(False, ctx)
    assert And(x, true).eq(x)
    assert truth(And(x, false)) is False
    assert truth(Or(x, true)) is True
    assert Or(false, y).eq(y)
    assert truth(Not(false)) is True
    assert If(true, x, y).eq(x) and If(false, x, y).eq(y)
    n = z3.Int("n", ctx)
    assert truth(Eq(n, n)) is True
    assert truth(Eq(z3.IntVal(2, ctx), 2)) is True
    assert truth(Eq(n, 2)) is None
    assert Eq(n, z3.Int("m", ctx)).eq(n == z3.Int("m", ctx))
