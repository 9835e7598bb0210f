"""The grammar: fragments through the extra start rules, and tables that must match it."""

import re

import pytest
from lark import Tree

from mafiacheck import ast
from mafiacheck.build import _Builder, build
from mafiacheck.errors import SpecError
from mafiacheck.parser import TERMINAL_WORDS, grammar_text, parse
from mafiacheck.source import SourceFile


def fragment(text: str, start: str):
    source = SourceFile("<test>", text)
    return build(parse(source, start), source)


def test_expression_precedence():
    e = fragment("a or b and not c", "expr")
    assert isinstance(e, ast.BinOp) and e.op == "or"
    assert isinstance(e.right, ast.BinOp) and e.right.op == "and"
    assert isinstance(e.right.right, ast.Not)


def test_comparison_and_membership():
    e = fragment("target not in blacklist", "expr")
    assert isinstance(e, ast.Compare) and e.op == "not in"
    e = fragment("alive(mafia) >= alive(town)", "expr")
    assert e.op == ">=" and isinstance(e.left, ast.Call) and e.left.func.key == "alive"


def test_by_table_and_cases():
    e = fragment("by alive { 8..10: 4, 6..7: 3, 4..5: 2 }", "expr")
    assert [(c.low, c.high) for c in e.cases] == [(8, 10), (6, 7), (4, 5)]
    e = fragment("cases { alive >= 8: 2, else: 1 }", "expr")
    assert e.arms[-1].cond is None and e.arms[-1].value == ast.Num(1)


def test_persian_digits_are_numbers():
    assert fragment("۱۲", "expr") == ast.Num(12)


def test_effect_sequence_with_condition():
    seq = fragment("if guess == target.role then kill definite else nothing; lose gun on actor",
                   "effect_seq")
    assert isinstance(seq[0], ast.IfEffect)
    assert seq[0].then[0].verb == "kill" and seq[0].then[0].name.key == "definite"
    assert seq[1].verb == "lose" and seq[1].on == ast.Ref(ast.Name("actor", "actor"))


def test_declaration_fragment_keeps_spans():
    d = fragment('role doctor "پزشک" { side town }', "decl")
    assert d.label == "پزشک"
    assert (d.span.line, d.span.column, d.span.end_column) == (1, 1, 33)


def test_spans_are_left_out_of_equality():
    a = fragment("role x { side t }", "decl")
    b = fragment("\n\n   role x {\n side t }", "decl")
    assert a == b and a.span != b.span


def test_keywords_are_soft():
    # `town` is the side-kind keyword, and still a name where a name is expected.
    d = fragment('side town "Town" town', "decl")
    assert d.name.key == "town" and d.kind == "town"


def test_russian_and_persian_names():
    d = fragment('role бессмертный "Бессмертный" { side город }', "decl")
    assert d.name.text == "бессмертный"
    d = fragment('role رویین‌تن { side شهر }', "decl")
    assert "\u200c" in d.name.text and "\u200c" not in d.name.key


def _grammar_rule_handlers():
    names = set()
    for line in grammar_text().splitlines():
        m = re.match(r"\s*[?!]?([a-z_][a-z0-9_]*)\s*:", line)
        if m:
            names.add(m.group(1))
        names.update(re.findall(r"->\s*([a-z_][a-z0-9_]*)", line))
    return names


def test_every_grammar_rule_has_a_builder_handler():
    # Inlined rules (`?rule`) only need a handler when they keep more than one child, but a
    # handler for every name is the simple invariant that keeps a new rule from leaking.
    inlined_without_alias = {"decl", "scenario_field", "role_field", "team_field", "phases_field",
                             "ability_field", "actor", "phase_nums", "timing", "choice", "limit",
                             "blocked_mode",
                             "effect", "effect_body", "rule_tail", "day_field", "vote_spec",
                             "setting_type", "memory_type", "expr", "or_expr", "and_expr",
                             "query_field", "state_item", "choice_item", "expectation", "goal", "assumed",
                             "not_expr", "comparison", "sum", "product", "atom", "tie_by", "tie_pick"}
    missing = [n for n in _grammar_rule_handlers() - inlined_without_alias
               if not hasattr(_Builder, n)]
    assert missing == []


def test_only_rules_without_spans_can_match_nothing():
    # The builder gives every node the span of the text its rule matched and refuses a rule
    # that matched none; only `start` and `queries` (an empty file) can, and they have no span.
    from lark import Lark
    from lark.parsers.grammar_analysis import calculate_sets

    from mafiacheck.parser import START_RULES

    parser = Lark(grammar_text(), parser="lalr", start=list(START_RULES), maybe_placeholders=True)
    _, _, nullable = calculate_sets(parser.rules)
    assert {str(r.name) for r in nullable} == {"start", "queries"}
    assert fragment("", "start").decls == ()
    assert fragment("", "queries") == ()


def test_every_named_terminal_has_words():
    defined = set(re.findall(r"^([A-Z_]+)(?:\.\d+)?\s*:", grammar_text(), re.M))
    assert defined - set(TERMINAL_WORDS) == set()


def test_the_default_handler_refuses_unknown_rules():
    builder = _Builder(SourceFile("<t>", ""))
    with pytest.raises(NotImplementedError):
        builder.transform(Tree("no_such_rule", []))


@pytest.mark.parametrize("text", ["role { }", "composition { a }", "win when", "ability a { by }"])
def test_fragments_with_syntax_errors_raise_spec_errors(text):
    with pytest.raises(SpecError) as info:
        fragment(text, "decl")
    assert "expected" in info.value.diagnostics[0].message
