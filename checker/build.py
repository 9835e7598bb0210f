"""Build the AST from Lark's parse tree.

Every grammar rule has a handler here; the default handler raises, so a rule added to the
grammar without a handler fails loudly in the tests instead of leaking a Lark tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from lark import Token, Transformer, Tree, v_args
from lark.tree import Meta

from . import ast
from .errors import Diagnostic, SpecError
from .limits import MAX_INT, MAX_NAME_LENGTH
from .source import SourceFile, Span
from .text import ascii_digits, name_key


T = TypeVar("T")


# Intermediate values passed between handlers; none of them reaches the final AST.
@dataclass(frozen=True)
class _Label:
    text: str


@dataclass(frozen=True)
class _Cites:
    refs: ast.Cites


@dataclass(frozen=True)
class _Int:
    value: int
    span: Span


@dataclass(frozen=True)
class _Names:
    names: tuple[ast.Name, ...]


@dataclass(frozen=True)
class _Tagged:
    tag: str
    # What the value is depends on the tag (a Name, a tuple of Names, an int, an expression,
    # a pair): the handler that reads a tag knows its value's type, mypy cannot.
    value: Any
    span: Span | None = None


def _unquote(raw: str) -> str:
    body = raw[1:-1]
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(nxt, nxt))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


@v_args(meta=True)
class _Builder(Transformer):
    def __init__(self, source: SourceFile) -> None:
        super().__init__(visit_tokens=True)
        self.source = source
        self.diagnostics: list[Diagnostic] = []

    # -------------------------------------------------------------- helpers

    def _span(self, meta: Meta) -> Span:
        # Only `start` and `queries` can match no text (tests/test_build.py checks the
        # grammar), and neither handler asks for a span: every node that has one covers text.
        if getattr(meta, "empty", True):
            raise ValueError("a grammar rule that matched no text has no span")
        return Span(self.source.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tok_span(self, tok: Token) -> Span:
        # The lexer sets all four positions on every token it makes.
        assert tok.line is not None and tok.column is not None
        assert tok.end_line is not None and tok.end_column is not None
        return Span(self.source.path, tok.line, tok.column, tok.end_line, tok.end_column)

    def __default__(self, data: str, children: list[Any], meta: Meta) -> NoReturn:
        raise NotImplementedError(f"no AST handler for grammar rule {data!r}")

    def __default_token__(self, token: Token) -> Token:
        return token

    # -------------------------------------------------------------- tokens

    def NAME(self, tok: Token) -> ast.Name:
        span = self._tok_span(tok)
        text = str(tok)
        if len(text) > MAX_NAME_LENGTH:
            self.diagnostics.append(Diagnostic(
                f"name is {len(text)} characters long; the limit is {MAX_NAME_LENGTH}",
                Span(span.path, span.line, span.column, span.line, span.column + 1),
                self.source.path))
        return ast.Name(text, name_key(text), span)

    def RULE_ID(self, tok: Token) -> ast.RuleRef:
        return ast.RuleRef(str(tok), self._tok_span(tok))

    def STRING(self, tok: Token) -> _Label:
        return _Label(_unquote(str(tok)))

    def INT(self, tok: Token) -> _Int:
        span = self._tok_span(tok)
        digits = ascii_digits(str(tok))
        if len(digits) > 9 or int(digits) > MAX_INT:
            self.diagnostics.append(Diagnostic(
                f"number too large: the limit is {MAX_INT}", span, self.source.path))
            return _Int(0, span)
        return _Int(int(digits), span)

    def label(self, meta: Meta, children: list[Any]) -> _Label:
        return children[0]

    def cites(self, meta: Meta, children: list[Any]) -> _Cites:
        return _Cites(tuple(children))

    def name_list(self, meta: Meta, children: list[Any]) -> _Names:
        return _Names(tuple(children))

    def value(self, meta: Meta, children: list[Any]) -> str:
        (v,) = children
        return v.text if isinstance(v, ast.Name) else v.text

    # -------------------------------------------------------------- picking children

    @staticmethod
    def _pick(children: list[Any], kind: type[T]) -> list[T]:
        return [c for c in children if isinstance(c, kind)]

    def _one(self, children: list[Any], kind: type[T]) -> T | None:
        found = self._pick(children, kind)
        return found[0] if found else None

    def _only(self, children: list[Any], kind: type[T]) -> T:
        """The child of this kind that the grammar rule requires."""
        found = self._pick(children, kind)
        if not found:
            raise ValueError(f"the grammar gives this rule a {kind.__name__}")
        return found[0]

    def _cites(self, children: list[Any]) -> ast.Cites:
        found = self._pick(children, _Cites)
        return found[0].refs if found else ()

    def _label(self, children: list[Any]) -> str | None:
        found = self._pick(children, _Label)
        return found[0].text if found else None

    def _names(self, children: list[Any]) -> tuple[ast.Name, ...]:
        found = self._pick(children, _Names)
        return found[0].names if found else ()

    def _clause(self, meta: Meta, children: list[Any], keyword: str, **extra: Any) -> ast.Clause:
        names = tuple(self._pick(children, ast.Name)) + self._names(children)
        strings = tuple(c.text for c in self._pick(children, _Label))
        ints = self._pick(children, _Int)
        exprs = [c for c in children if _is_expr(c)]
        fields: dict[str, Any] = dict(
            keyword=keyword,
            names=names,
            strings=strings,
            value=exprs[0] if exprs else None,
            number=ints[0].value if ints else None,
            cites=self._cites(children),
            span=self._span(meta),
        )
        fields.update(extra)
        return ast.Clause(**fields)

    # -------------------------------------------------------------- top level

    def start(self, meta: Meta, children: list[Any]) -> tuple[ast.Decl, ...]:
        return tuple(children)

    def scenario_decl(self, meta: Meta, children: list[Any]) -> ast.ScenarioDecl:
        return ast.ScenarioDecl(children[0], self._label(children[1:2]),
                                tuple(self._pick(children, ast.Clause)), self._cites(children),
                                self._span(meta))

    def source_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "source")

    def prefix_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "prefix")

    def language_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "language")

    def note_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "note")

    def side_decl(self, meta: Meta, children: list[Any]) -> ast.SideDecl:
        kind = next(str(c) for c in children if isinstance(c, Token) and c.type == "SIDE_KIND")
        return ast.SideDecl(children[0], self._label(children), kind, self._cites(children),
                            self._span(meta))

    def role_decl(self, meta: Meta, children: list[Any]) -> ast.RoleDecl:
        return ast.RoleDecl(children[0], self._label(children[1:2]),
                            tuple(self._pick(children, ast.Clause)), self._cites(children),
                            self._span(meta))

    def aka_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "aka")

    def side_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "side")

    def side_choice_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "side_choice")

    def counts_as_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "counts_as")

    def counts_none_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "counts_none")

    def plain_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "plain")

    def max_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "max")

    def appears_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        appearance = children[0]
        rest = children[1:]
        return self._clause(meta, rest, "appears", strings=(appearance,))

    def counter_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "counter")

    def team_decl(self, meta: Meta, children: list[Any]) -> ast.TeamDecl:
        return ast.TeamDecl(children[0], self._label(children[1:2]),
                            tuple(self._pick(children, ast.Clause)), self._cites(children),
                            self._span(meta))

    def members_side_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "members_side")

    def members_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "members")

    def team_choice_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        # `one of a, b per night`: the options, then the period.
        options = self._names(children)
        per = self._pick(children, ast.Name)
        return ast.Clause("one_of", options + tuple(per), cites=self._cites(children),
                          number=len(options), span=self._span(meta))

    def leader_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        fallback = any(isinstance(c, _Tagged) and c.tag == "then_any" for c in children)
        return self._clause(meta, children, "leader", strings=("then any",) if fallback else ())

    def team_except_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        # `except p where COND`: the member the condition names is out of the team this phase.
        return self._clause(meta, children, "except")

    def leader_fallback(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("then_any", True)

    def composition_decl(self, meta: Meta, children: list[Any]) -> ast.CompositionDecl:
        players = children[0]
        entries = tuple(self._pick(children, ast.CompEntry))
        names = self._pick(children, ast.Name)
        return ast.CompositionDecl(players.value, self._label(children), entries,
                                   self._cites(children), self._span(meta), players.span,
                                   names[0] if names else None)

    def comp_entry(self, meta: Meta, children: list[Any]) -> ast.CompEntry:
        count = self._one(children, _Int)
        return ast.CompEntry(children[0], count.value if count else 1, self._span(meta))

    def phases_decl(self, meta: Meta, children: list[Any]) -> ast.PhasesDecl:
        return ast.PhasesDecl(tuple(self._pick(children, ast.Clause)), self._cites(children),
                              self._span(meta))

    def start_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "start")

    def cycle_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "cycle")

    def wins_checked_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        schedules = tuple(self._pick(children, ast.CheckSchedule))
        return self._clause(meta, children, "wins_checked", names=schedules[0].points,
                            cites=tuple(r for s in schedules for r in s.cites), schedules=schedules)

    def check_schedule(self, meta: Meta, children: list[Any]) -> ast.CheckSchedule:
        return ast.CheckSchedule(self._names(children), self._cites(children), self._span(meta))

    def win_checked(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("checked", tuple(children))

    # -------------------------------------------------------------- abilities

    def ability_decl(self, meta: Meta, children: list[Any], is_card: bool = False) -> ast.AbilityDecl:
        return ast.AbilityDecl(children[0], self._label(children[1:2]),
                               tuple(self._pick(children, ast.AbilityClause)),
                               self._cites(children), is_card, self._span(meta))

    def card_decl(self, meta: Meta, children: list[Any]) -> ast.AbilityDecl:
        return self.ability_decl(meta, children, is_card=True)

    def _aclause(self, meta: Meta, children: list[Any], keyword: str, **fields: Any) -> ast.AbilityClause:
        return ast.AbilityClause(keyword, cites=self._cites(children), span=self._span(meta),
                                 **fields)

    def by_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        return self._aclause(meta, children, "by", actor=children[0])

    def actor_team(self, meta: Meta, children: list[Any]) -> ast.Actor:
        return ast.Actor("team", children[0], self._span(meta))

    def actor_moderator(self, meta: Meta, children: list[Any]) -> ast.Actor:
        return ast.Actor("moderator", None, self._span(meta))

    def actor_holder(self, meta: Meta, children: list[Any]) -> ast.Actor:
        return ast.Actor("holder", children[0], self._span(meta))

    def actor_drawer(self, meta: Meta, children: list[Any]) -> ast.Actor:
        return ast.Actor("drawer", None, self._span(meta))

    def actor_role(self, meta: Meta, children: list[Any]) -> ast.Actor:
        names = children[0].names
        return ast.Actor("role", names[0], self._span(meta), names)

    def for_team_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        return self._aclause(meta, children, "for_team", team=children[0])

    def at_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        return self._aclause(meta, children, "at", phases=tuple(self._pick(children, ast.PhaseRef)))

    def phase_ref(self, meta: Meta, children: list[Any]) -> ast.PhaseRef:
        exact = start = moment = None
        for c in children[1:]:
            if isinstance(c, _Tagged) and c.tag == "exact":
                exact = c.value
            elif isinstance(c, _Tagged) and c.tag == "from":
                start = c.value
            elif isinstance(c, _Tagged) and c.tag == "moment":
                moment = c.value
        return ast.PhaseRef(children[0], exact, start, moment, self._span(meta))

    def phase_exact(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("exact", children[0].value)

    def phase_from(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("from", children[0].value)

    def phase_moment(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("moment", str(children[0]))

    def on_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        return self._aclause(meta, children, "on", trigger=children[0])

    def trigger(self, meta: Meta, children: list[Any]) -> ast.Trigger:
        timing = self._one(children, _Tagged)
        return ast.Trigger(children[0], self._names(children),
                           timing.tag if timing else None,
                           timing.value if timing else None, self._span(meta))

    def timing_now(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("immediately", None)

    def timing_next(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("next", children[0])

    def filter(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("filter", children[0])

    def target_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        flt = self._one(children, _Tagged)
        return self._aclause(meta, children, "target", count=ast.Num(1, self._span(meta)),
                             filter=flt.value if flt else None)

    def targets_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        flt = self._one(children, _Tagged)
        return self._aclause(meta, children, "targets", count=children[0],
                             filter=flt.value if flt else None)

    def targets_up_to_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        flt = self._one(children, _Tagged)
        return self._aclause(meta, children, "targets_up_to", count=children[0],
                             filter=flt.value if flt else None)

    def choose_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        choice, binds = children[0], children[1]
        return self._aclause(meta, children, "choose",
                             choice=ast.Choice(choice.tag, choice.value, binds, self._span(meta)))

    def choice_role(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("role", ())

    def choice_side(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("side", ())

    def choice_player(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("player", ())

    def choice_variant(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("variant", (children[0],))

    def choice_option(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("option", self._names(children))

    def limit_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        return self._aclause(meta, children, "limit", limit=children[0])

    def limit_count(self, meta: Meta, children: list[Any]) -> ast.Limit:
        count, per = children[0], children[1]
        on_self = any(isinstance(c, _Tagged) and c.tag == "self" for c in children)
        return ast.Limit("count", count.value, per, on_self, self._span(meta))

    def limit_self(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("self", True)

    def limit_no_repeat(self, meta: Meta, children: list[Any]) -> ast.Limit:
        return ast.Limit("no_repeat", span=self._span(meta))

    def when_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        return self._aclause(meta, children, "when", cond=children[0])

    def effect_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        return self._aclause(meta, children, "effect", effects=children[0])

    def blocked_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        mode = children[0]
        return self._aclause(meta, children, "blocked", mode=mode.tag, text=mode.value)

    def blocked_count(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("count", None)

    def blocked_free(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("free", None)

    def blocked_open(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("open", children[0].text)

    def optional_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        return self._aclause(meta, children, "optional")

    def mandatory_field(self, meta: Meta, children: list[Any]) -> ast.AbilityClause:
        return self._aclause(meta, children, "mandatory")

    # -------------------------------------------------------------- effects

    def effect_seq(self, meta: Meta, children: list[Any]) -> tuple[ast.AnyEffect, ...]:
        return tuple(children)

    def _body(self, value: Any) -> tuple[Any, ...]:
        return value if isinstance(value, tuple) else (value,)

    def effect_if(self, meta: Meta, children: list[Any]) -> ast.IfEffect:
        cond, then = children[0], children[1]
        otherwise = children[2] if len(children) > 2 else ()
        return ast.IfEffect(cond, self._body(then), self._body(otherwise), self._span(meta))

    def effect_after(self, meta: Meta, children: list[Any]) -> ast.AfterEffect:
        return ast.AfterEffect(children[0].value, children[1], self._body(children[2]),
                               self._span(meta))

    def _effect(self, meta: Meta, children: list[Any], verb: str, **fields: Any) -> ast.Effect:
        # The child tagged `on`, not the first tagged one: `give gun(real) on X` has a variant
        # before it.
        on = [c for c in children if isinstance(c, _Tagged) and c.tag == "on"]
        return ast.Effect(verb, on=on[0].value if on else None, span=self._span(meta), **fields)

    def on(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("on", children[0])

    def from_kinds(self, meta: Meta, children: list[Any]) -> _Names:
        return children[0]

    def variant(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("variant", children[0])

    def effect_kill(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "kill", name=children[0])

    def effect_save(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "save", names=self._names(children))

    def effect_protect(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "protect", names=self._names(children))

    def effect_block(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "block")

    def effect_inquire(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "inquire")

    def effect_convert(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "convert", name=children[0])

    def effect_reveal(self, meta: Meta, children: list[Any]) -> ast.Effect:
        what = str(children[0])
        return self._effect(meta, children, "reveal",
                            name=ast.Name(what, what, self._tok_span(children[0])))

    def effect_link(self, meta: Meta, children: list[Any]) -> ast.Effect:
        kind = [c for c in children if isinstance(c, _Tagged) and c.tag == "with"]
        together = any(isinstance(c, _Tagged) and c.tag == "together" for c in children)
        on = [c for c in children if isinstance(c, _Tagged) and c.tag == "on"]
        return ast.Effect("link", name=kind[0].value if kind else None, together=together,
                          on=on[0].value if on else None, span=self._span(meta))

    def link_together(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("together", True)

    def link_exit(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("with", children[0])

    def effect_revive(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "revive")

    def effect_give(self, meta: Meta, children: list[Any]) -> ast.Effect:
        variant = [c for c in children if isinstance(c, _Tagged) and c.tag == "variant"]
        return self._effect(meta, children, "give", name=children[0],
                            names=(variant[0].value,) if variant else ())

    def effect_mark(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "mark", name=children[0])

    def effect_unmark(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "unmark", name=children[0])

    def effect_consume(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "consume", name=children[0])

    def effect_set(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "set", name=children[0], value=children[1])

    def effect_leave(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "leave", name=children[0])

    def effect_stay(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "stay")

    def effect_unblock(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "unblock")

    def effect_learn(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "learn", value=children[0])

    def effect_announce(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "announce", value=ast.Str(children[0], self._span(meta)))

    def effect_draw(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "draw")

    def effect_lose(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "lose", name=children[0])

    def effect_cancel(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "cancel", name=children[0])

    def effect_win(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "win", name=children[0])

    def effect_unspecified(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "unspecified",
                            value=ast.Str(children[0].text, self._span(meta)))

    def effect_nothing(self, meta: Meta, children: list[Any]) -> ast.Effect:
        return self._effect(meta, children, "nothing")

    # -------------------------------------------------------------- rules, day, wins

    def rule_decl(self, meta: Meta, children: list[Any]) -> ast.RuleDecl:
        name = children[0]
        label = self._label(children[1:2])
        tagged = self._one(children, _Tagged)
        variables = tagged.value if tagged and tagged.tag == "vars" else ()
        exprs = [c for c in children if _is_expr(c)]
        cond = exprs[0]
        then = next(c for c in children if isinstance(c, tuple))
        tails = [c for c in children if isinstance(c, _Tagged) and c.tag != "vars"]
        return ast.RuleDecl(
            name, label, variables, cond, then,
            unless=tuple(t.value for t in tails if t.tag == "unless"),
            overrides=tuple(n for t in tails if t.tag == "overrides" for n in t.value),
            under=tuple(n for t in tails if t.tag == "under" for n in t.value),
            at=tuple(t.value for t in tails if t.tag == "at"),
            cites=self._cites(children), span=self._span(meta))

    def rule_vars(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("vars", tuple(children))

    def unless_tail(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("unless", children[0])

    def overrides_tail(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("overrides", children[0].names)

    def under_tail(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("under", children[0].names)

    def rule_at_tail(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("at", children[0])

    def day_decl(self, meta: Meta, children: list[Any]) -> ast.DayDecl:
        return ast.DayDecl(self._label(children), tuple(self._pick(children, ast.Clause)),
                           self._cites(children), self._span(meta))

    def vote_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        spec = children[0]
        return self._clause(meta, children[1:], "vote", strings=(spec.tag,), value=spec.value)

    def vote_majority(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("majority", None)

    def vote_plurality(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("plurality", None)

    def vote_quorum(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("quorum", children[0])

    def weight_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "weight")

    def tie_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        spec = children[0]
        return self._clause(meta, children[1:], "tie", names=(spec.rule,), tie=spec)

    def tie_spec(self, meta: Meta, children: list[Any]) -> ast.TieSpec:
        by = self._one(children, _Tagged)
        then = self._one(children[1:], ast.TieSpec)
        roles = by.value if by is not None and by.tag == "roles" else ()
        item = by.value if by is not None and by.tag == "holder" else None
        return ast.TieSpec(children[0], roles, item, then, self._span(meta))

    def tie_by_holder(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("holder", children[0])

    def tie_by_roles(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("roles", children[0].names)

    def exits_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        return self._clause(meta, children, "exits")

    def exit_mode_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        mode = next(str(c) for c in children if isinstance(c, Token))
        return self._clause(meta, children, "exit_mode", strings=(mode,))

    def candidates_field(self, meta: Meta, children: list[Any]) -> ast.Clause:
        flt = self._only(children, _Tagged)
        day = self._one(children, _Int)
        return self._clause(meta, children, "candidates", value=flt.value,
                            number=day.value if day else None)

    def day_when(self, meta: Meta, children: list[Any]) -> _Int:
        return children[0]

    def win_decl(self, meta: Meta, children: list[Any]) -> ast.WinDecl:
        checked = self._one(children, _Tagged)
        return ast.WinDecl(children[0], self._label(children),
                           next(c for c in children[1:] if _is_expr(c)), self._cites(children),
                           self._span(meta), checked.value if checked else ())

    def win_open_decl(self, meta: Meta, children: list[Any]) -> ast.WinDecl:
        strings = self._pick(children, _Label)
        label = strings[0].text if len(strings) > 1 else None
        cond = next((c for c in children[1:] if _is_expr(c)), None)
        return ast.WinDecl(children[0], label, cond, self._cites(children), self._span(meta),
                           unspecified=strings[-1].text)

    def priority_decl(self, meta: Meta, children: list[Any]) -> ast.PriorityDecl:
        return ast.PriorityDecl(tuple(self._pick(children, ast.Name)), self._cites(children),
                                self._span(meta))

    # -------------------------------------------------------------- settings and state

    def setting_decl(self, meta: Meta, children: list[Any]) -> ast.SettingDecl:
        name = children[0]
        stype = self._only(children, _Tagged)
        default = [c for c in children if _is_expr(c)][-1]
        low, high, options, element = None, None, (), None
        if stype.tag == "int":
            low, high = stype.value
        elif stype.tag == "enum":
            options = stype.value
        elif stype.tag == "set":
            element = stype.value
        return ast.SettingDecl(name, self._label(children), stype.tag, low, high, options,
                               default, self._cites(children), self._span(meta), element)

    def type_bool(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("bool", None)

    def type_int(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("int", (children[0].value, children[1].value))

    def type_enum(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("enum", children[0].names)

    def type_set(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("set", children[0])

    def assume_decl(self, meta: Meta, children: list[Any]) -> ast.AssumeDecl:
        return ast.AssumeDecl(children[0], self._label(children), self._cites(children),
                              self._span(meta))

    def item_decl(self, meta: Meta, children: list[Any]) -> ast.ItemDecl:
        variants = tuple(c.value for c in children if isinstance(c, _Tagged))
        return ast.ItemDecl(children[0], self._label(children[1:2]), variants,
                            self._cites(children), self._span(meta))

    def item_variant(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("variant", (children[0], self._label(children)))

    def kind_decl(self, meta: Meta, children: list[Any]) -> ast.KindDecl:
        return ast.KindDecl(children[0], self._label(children), self._cites(children),
                            self._span(meta))

    def memory_decl(self, meta: Meta, children: list[Any]) -> ast.MemoryDecl:
        mtype = self._only(children, _Tagged)
        initial = [c for c in children if _is_expr(c)]
        return ast.MemoryDecl(children[0], self._label(children), mtype.tag,
                              initial[0] if initial else None, self._cites(children),
                              self._span(meta))

    def mem_player(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("player", None)

    def mem_player_set(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("players", None)

    def mem_int(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("int", None)

    def mem_role(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("role", None)

    def wake_decl(self, meta: Meta, children: list[Any]) -> ast.WakeDecl:
        return ast.WakeDecl(children[0], self._names(children), self._cites(children),
                            self._span(meta))

    def resolve_decl(self, meta: Meta, children: list[Any]) -> ast.ResolveDecl:
        lists = self._pick(children, _Names)
        return ast.ResolveDecl(lists[0].names, lists[1].names, self._cites(children),
                               self._span(meta))

    def precheck_decl(self, meta: Meta, children: list[Any]) -> ast.PrecheckDecl:
        severity = str(children[0])
        return ast.PrecheckDecl(severity, self._only(children, _Label).text,
                                next(c for c in children if _is_expr(c)),
                                self._cites(children), self._span(meta))

    def acknowledge_decl(self, meta: Meta, children: list[Any]) -> ast.AcknowledgeDecl:
        return ast.AcknowledgeDecl(children[0], self._names(children), self._only(children, _Label).text,
                                   self._cites(children), self._span(meta))

    # -------------------------------------------------------------- queries

    def queries(self, meta: Meta, children: list[Any]) -> tuple[ast.Query, ...]:
        return tuple(children)

    def query(self, meta: Meta, children: list[Any]) -> ast.Query:
        name, label = children[0], self._label(children[1:2])
        fields = [c for c in children if isinstance(c, _Tagged)]
        pick = lambda tag: [f.value for f in fields if f.tag == tag]  # noqa: E731
        counted = pick("unlisted_composition")
        players = tuple(p for group in pick("players") + pick("unlisted") for p in group) + tuple(
            ast.PlayerRef(e.role, None, e.span) for _, entries in counted for e in entries
            for _ in range(e.count))
        compositions = pick("composition")
        composition_names = pick("composition_name")
        starts = pick("from")
        gaps = pick("gap")
        opens = pick("open")
        return ast.Query(name, label, players, compositions[0] if compositions else None,
                         tuple(pick("setting")), starts[0] if starts else None,
                         tuple(i for group in pick("state") for i in group),
                         tuple(pick("phase")), tuple(pick("expect")),
                         tuple(c.strings[0] for c in children if isinstance(c, ast.Clause)),
                         self._span(meta), gaps[0] if gaps else None, opens[0] if opens else None,
                         bool(pick("unlisted") or counted), counted[0][0] if counted else None,
                         composition_names[0] if composition_names else None)

    def q_open(self, meta: Meta, children: list[Any]) -> _Tagged:
        mode = str(children[0])
        goal = children[1]
        within = self._one(children, _Int)
        assumed = [c.value for c in children if isinstance(c, _Tagged) and c.tag == "assuming"]
        return _Tagged("open", ast.OpenQuestion(mode, goal.tag, goal.value if goal.tag == "winner" else None,
                                                goal.value if goal.tag != "winner" else None,
                                                within.value if within else None, self._span(meta),
                                                assumed[0] if assumed else ()))

    def assuming(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("assuming", tuple(children))

    def as_vote_none(self, meta: Meta, children: list[Any]) -> ast.Assumed:
        return ast.Assumed("vote_none", span=self._span(meta))

    def as_no_vote(self, meta: Meta, children: list[Any]) -> ast.Assumed:
        return ast.Assumed("no_vote", on=tuple(children), span=self._span(meta))

    def as_no_use(self, meta: Meta, children: list[Any]) -> ast.Assumed:
        tags = {c.tag: c.value for c in children[1:] if isinstance(c, _Tagged)}
        return ast.Assumed("no_use", children[0], tags.get("by"), tags.get("on", ()),
                           self._span(meta))

    def goal_nobody(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("nobody", None)

    def goal_winner(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("winner", children[0])

    def goal_stays(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("stays", children[0])

    def goal_leaves(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("leaves", children[0])

    def e_answer(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "answer", value=children[0].key)

    def q_gap(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("gap", children[0].text)

    def q_players(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("players", tuple(children))

    def q_unlisted(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("unlisted", tuple(children))

    def q_unlisted_composition(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("unlisted_composition", (children[0].value, tuple(self._pick(children, ast.CompEntry))))

    def q_composition(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("composition", children[0].value)

    def q_composition_name(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("composition_name", children[0])

    def q_setting(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("setting", (children[0], children[1]))

    def q_from(self, meta: Meta, children: list[Any]) -> _Tagged:
        number = children[1].value if len(children) > 1 and children[1] is not None else None
        return _Tagged("from", (children[0], number))

    def q_state(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("state", tuple(children))

    def q_phase(self, meta: Meta, children: list[Any]) -> _Tagged:
        number = self._one(children, _Int)
        uses = tuple(c for c in children if isinstance(c, ast.Use))
        return _Tagged("phase", ast.PhaseChoices(children[0], number.value if number else None,
                                                 uses, self._span(meta)))

    def q_expect(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("expect", children[0])

    def player_ref(self, meta: Meta, children: list[Any]) -> ast.PlayerRef:
        index = self._one(children, _Int)
        return ast.PlayerRef(children[0], index.value if index else None, self._span(meta))

    def seat_ref(self, meta: Meta, children: list[Any]) -> ast.PlayerRef:
        return ast.PlayerRef(None, children[0].value, self._span(meta))

    def _state(self, meta: Meta, verb: str, **fields: Any) -> ast.StateItem:
        return ast.StateItem(verb, span=self._span(meta), **fields)

    def st_dead(self, meta: Meta, children: list[Any]) -> ast.StateItem:
        kind = self._pick(children, ast.Name)
        return self._state(meta, "dead", player=children[0], name=kind[0] if kind else None)

    def st_counter(self, meta: Meta, children: list[Any]) -> ast.StateItem:
        return self._state(meta, "counter", player=children[0], name=children[1],
                           number=children[2].value)

    def st_idle(self, meta: Meta, children: list[Any]) -> ast.StateItem:
        return self._state(meta, "idle", player=children[0], name=children[1],
                           number=children[2].value)

    def st_role(self, meta: Meta, children: list[Any]) -> ast.StateItem:
        return self._state(meta, "role", player=children[0], name=children[1])

    def st_side(self, meta: Meta, children: list[Any]) -> ast.StateItem:
        return self._state(meta, "side", player=children[0], name=children[1])

    def st_holds(self, meta: Meta, children: list[Any]) -> ast.StateItem:
        return self._state(meta, "holds", player=children[0], name=children[1],
                           other=children[2] if len(children) > 2 else None)

    def st_memory(self, meta: Meta, children: list[Any]) -> ast.StateItem:
        value = children[1]
        if isinstance(value, _Int):
            return self._state(meta, "memory", name=children[0], number=value.value)
        return self._state(meta, "memory", name=children[0], players=value.value)

    def memory_value(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("players", tuple(c for c in children if c is not None))

    def memory_one(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("player", (children[0],))

    def memory_int(self, meta: Meta, children: list[Any]) -> _Int:
        return children[0]

    def st_used(self, meta: Meta, children: list[Any]) -> ast.StateItem:
        on_self = any(isinstance(c, _Tagged) and c.tag == "self" for c in children)
        return self._state(meta, "used_self" if on_self else "used", name=children[0],
                           player=children[1], number=children[2].value)

    def used_self(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("self", True)

    def st_link(self, meta: Meta, children: list[Any]) -> ast.StateItem:
        kind = [c for c in children if isinstance(c, _Tagged) and c.tag == "with"]
        return self._state(meta, "link", player=children[0], players=(children[1],),
                           name=kind[0].value if kind else None)

    def c_vote(self, meta: Meta, children: list[Any]) -> ast.Use:
        votes = self._one(children, _Int)
        # `vote P by Q, R`: the players whose votes sent P out (a tallied vote, `weight`).
        voters = tuple(c for c in children[1:] if isinstance(c, ast.PlayerRef))
        return ast.Use(None, on=(children[0],), vote="player", span=self._span(meta),
                       votes=votes.value if votes else None, ballots=voters or None,
                       counts=self._counts(children))

    def c_vote_none(self, meta: Meta, children: list[Any]) -> ast.Use:
        return ast.Use(None, vote="none", span=self._span(meta))

    def c_vote_tie(self, meta: Meta, children: list[Any]) -> ast.Use:
        tied = tuple(c for c in children if isinstance(c, ast.PlayerRef))
        votes = self._one(children, _Int)
        picks = [c for c in children if isinstance(c, _Tagged) and c.tag in ("player", "tie")]
        pick = picks[0] if picks else None
        return ast.Use(None, on=tied, vote="tie", span=self._span(meta),
                       pick=pick.value if pick is not None and pick.tag == "player" else None,
                       retie=pick is not None and pick.tag == "tie",
                       votes=votes.value if votes else None, counts=self._counts(children))

    def _counts(self, children: list[Any]) -> tuple[tuple[ast.PlayerRef, int], ...]:
        return tuple(c.value for c in children if isinstance(c, _Tagged) and c.tag == "count")

    def vote_count(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("count", (children[0], children[1].value))

    def tie_pick_player(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("player", children[0])

    def tie_pick_tie(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("tie", True)

    def c_use(self, meta: Meta, children: list[Any]) -> ast.Use:
        tags = {c.tag: c.value for c in children[1:] if isinstance(c, _Tagged)}
        return ast.Use(children[0], tags.get("by"), tags.get("on", ()), tags.get("as", ()),
                       span=self._span(meta), moment=tags.get("moment"))

    def use_by(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("by", children[0])

    def use_on(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("on", tuple(children))

    def use_as(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("as", tuple(children))

    def use_moment(self, meta: Meta, children: list[Any]) -> _Tagged:
        return _Tagged("moment", str(children[0]))

    def _expect(self, meta: Meta, kind: str, **fields: Any) -> ast.Expectation:
        return ast.Expectation(kind, span=self._span(meta), **fields)

    def e_leaves(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        kind = self._pick(children, ast.Name)
        return self._expect(meta, "leaves", player=children[0], name=kind[0] if kind else None,
                            phase=self._in_phase(children))

    def e_stays(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "stays", player=children[0], phase=self._in_phase(children))

    def in_phase(self, meta: Meta, children: list[Any]) -> _Tagged:
        number = self._one(children, _Int)
        return _Tagged("in", (children[0], number.value if number else None))

    def _in_phase(self, children: list[Any]) -> Any:
        found = [c.value for c in children if isinstance(c, _Tagged) and c.tag == "in"]
        return found[0] if found else None

    def e_exits(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "exits", player=children[0], number=children[1].value)

    def e_role(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "role", player=children[0], name=children[1])

    def e_side(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "side", player=children[0], name=children[1])

    def e_counter(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "counter", player=children[0], name=children[1],
                            number=children[2].value)

    def e_no_announcement(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "no_announcement")

    def e_announces(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "announces", value=children[0].text)

    def e_reveals(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        shown = self._pick(children, ast.Name)
        return self._expect(meta, "reveals", player=children[0], name=shown[0] if shown else None)

    def e_learns_nothing(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "learns_nothing", player=children[0])

    def e_winner(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "winner", name=children[0])

    def e_no_winner(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "no_winner")

    def e_verdict(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "verdict", value=children[0].key)

    def e_learns(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        about = children[2] if len(children) > 2 else None
        return self._expect(meta, "learns", player=children[0], value=children[1], about=about)

    def e_illegal(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "illegal")

    def e_precheck(self, meta: Meta, children: list[Any]) -> ast.Expectation:
        return self._expect(meta, "precheck", value=children[0].text)

    # -------------------------------------------------------------- expressions

    def not_op(self, meta: Meta, children: list[Any]) -> ast.Not:
        return ast.Not(children[0], self._span(meta))

    def or_expr(self, meta: Meta, children: list[Any]) -> ast.Expr:
        return self._fold("or", children, meta)

    def and_expr(self, meta: Meta, children: list[Any]) -> ast.Expr:
        return self._fold("and", children, meta)

    def _fold(self, op: str, children: list[Any], meta: Meta) -> ast.Expr:
        result = children[0]
        for right in children[1:]:
            result = ast.BinOp(op, result, right, _join(result.span, right.span))
        return result

    def compare(self, meta: Meta, children: list[Any]) -> ast.Compare:
        return ast.Compare(str(children[1]), children[0], children[2], self._span(meta))

    def in_op(self, meta: Meta, children: list[Any]) -> ast.Compare:
        return ast.Compare("in", children[0], children[1], self._span(meta))

    def not_in_op(self, meta: Meta, children: list[Any]) -> ast.Compare:
        return ast.Compare("not in", children[0], children[1], self._span(meta))

    def binary(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return ast.BinOp(str(children[1]), children[0], children[2], self._span(meta))

    def times(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return ast.BinOp("*", children[0], children[1], self._span(meta))

    def number(self, meta: Meta, children: list[Any]) -> ast.Num:
        return ast.Num(children[0].value, self._span(meta))

    def string(self, meta: Meta, children: list[Any]) -> ast.Str:
        return ast.Str(children[0].text, self._span(meta))

    def true(self, meta: Meta, children: list[Any]) -> ast.Bool:
        return ast.Bool(True, self._span(meta))

    def false(self, meta: Meta, children: list[Any]) -> ast.Bool:
        return ast.Bool(False, self._span(meta))

    def name(self, meta: Meta, children: list[Any]) -> ast.Ref:
        return ast.Ref(children[0], self._span(meta))

    def attribute(self, meta: Meta, children: list[Any]) -> ast.Attr:
        return ast.Attr(children[0], children[1], self._span(meta))

    def call(self, meta: Meta, children: list[Any]) -> ast.Call:
        args = tuple(c for c in children[1:] if c is not None)
        return ast.Call(children[0], args, self._span(meta))

    def set_literal(self, meta: Meta, children: list[Any]) -> ast.SetLit:
        return ast.SetLit(tuple(c for c in children if c is not None), self._span(meta))

    def count(self, meta: Meta, children: list[Any]) -> ast.Count:
        if len(children) == 3:  # count(x in SET where …)
            return ast.Count(children[0], children[2], self._span(meta), children[1])
        return ast.Count(children[0], children[1], self._span(meta))

    def by_table(self, meta: Meta, children: list[Any]) -> ast.ByTable:
        return ast.ByTable(children[0], tuple(children[1:]), self._span(meta))

    def by_case(self, meta: Meta, children: list[Any]) -> ast.ByCase:
        ints = [c for c in children if isinstance(c, _Int)]
        low = ints[0].value
        high = ints[1].value if len(ints) > 1 else low
        return ast.ByCase(low, high, children[-1], self._span(meta))

    def by_else(self, meta: Meta, children: list[Any]) -> ast.ByCase:
        return ast.ByCase(None, None, children[0], self._span(meta))

    def cases(self, meta: Meta, children: list[Any]) -> ast.Cases:
        return ast.Cases(tuple(children), self._span(meta))

    def case_arm(self, meta: Meta, children: list[Any]) -> ast.CaseArm:
        return ast.CaseArm(children[0], children[1], self._span(meta))

    def case_else(self, meta: Meta, children: list[Any]) -> ast.CaseArm:
        return ast.CaseArm(None, children[0], self._span(meta))


_EXPR_TYPES = (ast.Num, ast.Str, ast.Bool, ast.Ref, ast.Attr, ast.Call, ast.BinOp, ast.Not,
               ast.Compare, ast.SetLit, ast.Count, ast.ByTable, ast.Cases)


def _is_expr(value: object) -> bool:
    return isinstance(value, _EXPR_TYPES)


def _join(a: Span, b: Span) -> Span:
    return Span(a.path, a.line, a.column, b.end_line, b.end_column)


def build(tree: Tree, source: SourceFile) -> Any:
    """Turn a parse tree (of any start rule) into AST values; raise SpecError on bad values
    such as a number over the limit."""
    builder = _Builder(source)
    result = builder.transform(tree)
    if builder.diagnostics:
        raise SpecError(builder.diagnostics)
    if tree.data == "start":
        return ast.Spec(source.path, result)
    return result
