"""Name resolution and validation: from the AST to the scenario model, or located errors.

All problems in a file are collected (not just the first), each pointing at the place to
fix. Names are looked up by key (see text.name_key), so Arabic and Persian spellings of the
same letter, and a name written with or without a zero-width non-joiner, are one name.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from . import ast
from .errors import Diagnostic, SpecError
from .limits import MAX_PLAYERS
from .model import (BUILTIN_KINDS, PERIODS, PHASE_NAMES, TIE_RULES, WIN_CHECK_POINTS, Ability,
                    Acknowledgement, Appearance, Composition, Counter, Day, Phases, Role, Scenario, Side,
                    StartOption, Team, TieRule)
from .narrow import effect_name, present, present_expr
from .source import Span
from . import vocabulary
from .vocabulary import PLAYERLESS, flat, nodes

# What a name in an expression can denote, by namespace.
VALUE_SPACES = ("side", "role", "setting", "memory", "item", "kind", "option", "variant")

# Types of expressions. "any" is compatible with everything (used where a check would need
# more than this light type system knows).
INT, BOOL, PLAYER, PLAYERS, ROLE, SIDE, KIND, ITEM, VARIANT, STRING, OPTION, ANY, ABILITY = (
    "number", "condition", "player", "set of players", "role", "side", "kind", "item",
    "item variant", "string", "option", "any", "ability")

# What a set-valued setting (`setting NAME: set of role = {…}`) can hold: the element's
# namespace and type, and the type of the set.
SET_ELEMENTS = {"role": ("role", ROLE, "set of roles"), "side": ("side", SIDE, "set of sides"),
                "kind": ("kind", KIND, "set of kinds")}
SET_TYPES = {t: elem for _, elem, t in SET_ELEMENTS.values()}  # set type -> element type

PLAYER_ATTRIBUTES = {
    "alive": BOOL, "role": ROLE, "side": SIDE, "plain": BOOL, "left_by": KIND,
    "revealed": BOOL, "blocked": BOOL,
}

# name -> (parameter types, result type). Event predicates hold for the phase being resolved.
FUNCTIONS = {
    "alive": ((SIDE,), INT),
    "left": ((SIDE,), INT),
    "died": ((SIDE,), INT),
    "first": ((PLAYERS,), PLAYER),
    "second": ((PLAYERS,), PLAYER),
    "size": ((PLAYERS,), INT),
    "holds": ((PLAYER, ITEM), BOOL),
    "item_variant": ((PLAYER, ITEM), VARIANT),
    "kill": ((PLAYER, KIND), BOOL),
    "attacked_by": ((PLAYER, PLAYER), BOOL),
    "save": ((PLAYER,), BOOL),
    "protect": ((PLAYER, KIND), BOOL),
    "block": ((PLAYER,), BOOL),
    "inquire": ((PLAYER,), BOOL),
    "voted": ((PLAYER,), BOOL),
    "leaves": ((PLAYER,), BOOL),
    "targeted": ((PLAYER, ABILITY), BOOL),
    "chosen": ((PLAYER, ABILITY), BOOL),
    "used": ((ABILITY,), BOOL),
    "uses": ((ABILITY,), INT),
    "appearance": ((PLAYER, ROLE), STRING),
    "linked": ((PLAYER,), PLAYER),
    "blocked": ((PLAYER,), BOOL),
    "setting": ((OPTION,), ANY),
    # History: the phases of the ability in a row, up to the last one played, in which the
    # player made no use of it; and whether he made a use of it in the phase being resolved
    # (a use a block took away counts as made).
    "idle": ((PLAYER, ABILITY), INT),
    "acted": ((PLAYER, ABILITY), BOOL),
}
# `chosen(p, A)` reads the other choices of the phase: only legality conditions may ask it.
CHOICES_IN_VIEW = "chosen ok"  # a scope marker no name can spell (names have no spaces)
# Words that stand for values without being declared.
BUILTIN_VALUES = {"alive": INT, "players": INT, "round": INT, "all": SIDE, "nobody": PLAYERS}
# `alive(x)` and friends accept a role as well as a side: both name a group of players.
GROUP = (SIDE, ROLE)

EFFECT_STEP_NAMES = ("kill", "save", "protect", "block", "inquire", "convert", "reveal", "link",
                     "revive", "give", "mark", "leave", "stay", "learn", "deaths", "announce",
                     "votes", "wins")
PROTECTABLE = ("block", "inquire", "convert", "kill", "any")
# What `on EVENT` can wait for (docs/language.md says which of them a resolution fires).
TRIGGER_EVENTS = ("leave", "kill", "voted", "drawn", "revived", "targeted")


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


@dataclass
class Symbol:
    space: str
    key: str
    span: Span | None
    type: str
    node: ast.Decl | None = None  # the declaration, for the names declared by one


@dataclass
class Scope:
    names: dict[str, tuple[str, Span | None]] = field(default_factory=dict)

    def child(self, **bindings: tuple[str, Span | None]) -> "Scope":
        new = Scope(dict(self.names))
        for key, (typ, span) in bindings.items():
            new.names[key] = (typ, span)
        return new


class Resolver:
    def __init__(self, spec: ast.Spec) -> None:
        self.spec = spec
        self.path = spec.path
        self.diagnostics: list[Diagnostic] = []
        self.spaces: dict[str, dict[str, Symbol]] = {}
        self.counters: dict[str, Span | None] = {}
        self.idle_abilities: dict[str, None] = {}  # abilities whose history `idle(p, A)` reads
        self.counted_abilities: dict[str, None] = {}  # abilities whose count `uses(A)` reads

    # -------------------------------------------------------------- reporting

    def error(self, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(message, span, self.path, hint))

    def _suggest(self, key: str, candidates: Iterable[str]) -> str | None:
        close = difflib.get_close_matches(key, sorted(candidates), n=1, cutoff=0.7)
        return f"did you mean '{close[0]}'?" if close else None

    # -------------------------------------------------------------- declaring

    def declare(self, space: str, name: ast.Name, typ: str, node: ast.Decl | None = None) -> None:
        table = self.spaces.setdefault(space, {})
        if name.key in table:
            first = table[name.key]
            where = f" at line {first.span.line}" if first.span else ""
            hint = None
            first_name = getattr(first.node, "name", None)  # not every declaration has a name
            if isinstance(first_name, ast.Name) and first_name.text != name.text:
                hint = ("Arabic ي/ك and Persian ی/ک, and zero-width non-joiners, count as the "
                        f"same in names: '{first_name.text}' and '{name.text}' are one name")
            self.error(f"{space} '{name.text}' is declared twice (first{where})", name.span, hint)
            return
        table[name.key] = Symbol(space, name.key, name.span, typ, node)

    def lookup(self, name: ast.Name, spaces: tuple[str, ...], what: str) -> Symbol | None:
        found = [f for f in (self.spaces.get(s, {}).get(name.key) for s in spaces) if f is not None]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            kinds = " and ".join(f"{_a(f.space)} (line {f.span.line if f.span else '?'})" for f in found)
            self.error(f"'{name.text}' is ambiguous here: it is {kinds}", name.span,
                       "rename one of them")
            return None
        elsewhere = [s for s in self.spaces if name.key in self.spaces[s] and s not in spaces]
        if elsewhere:
            self.error(f"'{name.text}' is {_a(elsewhere[0])}, but {_a(what)} is expected here",
                       name.span)
            return None
        pool = {k for s in spaces for k in self.spaces.get(s, {})}
        self.error(f"unknown {what} '{name.text}'", name.span, self._suggest(name.key, pool))
        return None

    # -------------------------------------------------------------- entry point

    def run(self) -> Scenario:
        decls = self.spec.decls
        by_type: dict[type, list] = {}
        for d in decls:
            by_type.setdefault(type(d), []).append(d)
        get = lambda t: by_type.get(t, [])  # noqa: E731

        scenarios = get(ast.ScenarioDecl)
        if not scenarios:
            first = self.spec.decls[0].span if self.spec.decls else None
            # A file of comments only has no declaration to point at: its first line, then.
            at = (Span(self.path, first.line, first.column, first.line, first.column + 1) if first
                  else Span(self.path, 1, 1, 1, 2))
            self.error("the spec has no `scenario` declaration", at,
                       'start the file with: scenario NAME "display name" { prefix XX }')
        for extra in scenarios[1:]:
            self.error("a spec holds one scenario; this is a second `scenario` declaration",
                       extra.span)

        self._declare_all(decls)

        sides = tuple(self._side(d) for d in get(ast.SideDecl))
        roles = tuple(self._role(d) for d in get(ast.RoleDecl))
        teams = tuple(self._team(d) for d in get(ast.TeamDecl))
        compositions = tuple(self._composition(d) for d in get(ast.CompositionDecl))
        self._alternatives(compositions)
        phases = self._phases(get(ast.PhasesDecl))
        for d in get(ast.SettingDecl):
            self._setting(d)
        for d in get(ast.MemoryDecl):
            if d.initial is not None:
                self.expect(d.initial, Scope(), {"player": PLAYER, "players": PLAYERS,
                                                 "int": INT, "role": ROLE}[d.type])
        abilities = tuple(self._ability(d) for d in get(ast.AbilityDecl))
        self._check_team_options(teams, abilities)
        for d in get(ast.RuleDecl):
            self._rule(d)
        days = get(ast.DayDecl)
        for extra in days[1:]:
            self.error("a spec has one `day` declaration; this is a second one", extra.span)
        day = self._day(days[0]) if days else None
        for d in get(ast.WinDecl):
            self.lookup(d.side, ("side",), "side")
            if d.cond is not None:
                self.expect(d.cond, Scope(), BOOL)
            self._check_readings(d.schedules)
        for side in {d.side.key for d in get(ast.WinDecl) if d.unspecified is not None}:
            both = [d for d in get(ast.WinDecl) if d.side.key == side]
            if len(both) > 1:
                self.error(f"side '{both[0].side.text}' has a written win and an unspecified one: "
                           "a win the rulebook does not write has no other condition",
                           next(d for d in both if d.unspecified is not None).span)
        for d in get(ast.PriorityDecl):
            for n in d.order:
                self.lookup(n, ("side",), "side")
        for d in get(ast.WakeDecl):
            self._phase_name(d.phase)
            for n in d.order:
                self.lookup(n, ("ability", "team", "role"), "ability, team or role")
        for d in get(ast.ResolveDecl):
            for n in d.first + d.then:
                if n.key not in EFFECT_STEP_NAMES:
                    self.lookup(n, ("ability", "rule", "team"), "ability, rule or effect step")
        for d in get(ast.PrecheckDecl):
            self.expect(d.cond, Scope(), BOOL)
        acknowledgements = tuple(filter(None, (self._acknowledgement(d, days)
                                               for d in get(ast.AcknowledgeDecl))))

        if self.diagnostics:
            raise SpecError(self.diagnostics)
        head = scenarios[0]
        fields = {c.keyword: c for c in head.clauses}
        return Scenario(
            path=self.path, key=head.name.key, text=head.name.text, label=head.label,
            source=fields["source"].strings[0] if "source" in fields else None,
            prefix=fields["prefix"].names[0].text if "prefix" in fields else None,
            language=fields["language"].names[0].text if "language" in fields else None,
            sides=sides, roles=roles, teams=teams, compositions=compositions, phases=phases,
            abilities=abilities, rules=tuple(get(ast.RuleDecl)), day=day,
            wins=tuple(d for d in get(ast.WinDecl) if d.unspecified is None),
            open_wins=tuple(d for d in get(ast.WinDecl) if d.unspecified is not None),
            priorities=tuple(get(ast.PriorityDecl)),
            settings=tuple(get(ast.SettingDecl)), assumptions=tuple(get(ast.AssumeDecl)),
            items=tuple(get(ast.ItemDecl)), kinds=tuple(get(ast.KindDecl)),
            memories=tuple(get(ast.MemoryDecl)), wakes=tuple(get(ast.WakeDecl)),
            resolves=tuple(get(ast.ResolveDecl)), prechecks=tuple(get(ast.PrecheckDecl)),
            cites=tuple(_walk_cites(self.spec.decls)), span=head.span,
            acknowledgements=acknowledgements, idle_abilities=tuple(self.idle_abilities),
            counted_abilities=tuple(self.counted_abilities))

    def _acknowledgement(self, d: ast.AcknowledgeDecl, days: list[ast.DayDecl]) -> Acknowledgement | None:
        from .registry import CODES

        code = d.code.text.upper()
        if code not in CODES:
            self.error(f"unknown finding code '{d.code.text}'", d.code.span,
                       self._suggest(code, set(CODES)) or "`mafiacheck explain` lists the codes")
            return None
        if CODES[code].kind == "inconclusive":
            self.error("an inconclusive result cannot be acknowledged: the checker did not "
                       "decide, so there is nothing to accept", d.code.span,
                       "raise --rlimit or --timeout, or simplify the spec")
            return None
        if not d.reason or not d.reason.strip():
            self.error("an acknowledgement needs a reason", d.span)
        targets = []
        for name in d.on:
            if name.key == "day" and days and not any("day" in t for t in self.spaces.values()):
                targets.append(days[0].span)
                continue
            spaces = tuple(s for s in self.spaces if s not in ("option", "variant"))
            sym = self.lookup(name, spaces, "declared name")
            if sym is not None and sym.node is not None:
                targets.append(sym.node.span)
        return Acknowledgement(code, tuple(n.text for n in d.on), tuple(targets), d.reason or "",
                               d.cites, d.span)

    def _declare_all(self, decls: Iterable[ast.Decl]) -> None:
        for d in decls:
            if isinstance(d, ast.ScenarioDecl):
                seen = set()
                for c in d.clauses:
                    if c.keyword in seen and c.keyword != "note":
                        self.error(f"`{c.keyword}` is given twice in the scenario header", c.span)
                    seen.add(c.keyword)
            elif isinstance(d, ast.SideDecl):
                self.declare("side", d.name, SIDE, d)
            elif isinstance(d, ast.RoleDecl):
                self.declare("role", d.name, ROLE, d)
                for c in d.clauses:
                    if c.keyword == "counter":
                        self.counters.setdefault(c.names[0].key, c.span)
            elif isinstance(d, ast.TeamDecl):
                self.declare("team", d.name, "team", d)
            elif isinstance(d, ast.AbilityDecl):
                self.declare("ability", d.name, ABILITY, d)
            elif isinstance(d, ast.RuleDecl):
                self.declare("rule", d.name, "rule", d)
            elif isinstance(d, ast.SettingDecl):
                typ = {"bool": BOOL, "int": INT, "enum": OPTION}.get(d.type)
                if d.type == "set":
                    elem = SET_ELEMENTS.get(present(d.element, "the element kind of a set setting").key)
                    typ = elem[2] if elem else ANY
                self.declare("setting", d.name, present(typ, f"the type of a `{d.type}` setting"), d)
                for opt in d.options:
                    table = self.spaces.setdefault("option", {})
                    table.setdefault(opt.key, Symbol("option", opt.key, opt.span, OPTION))
            elif isinstance(d, ast.AssumeDecl):
                self.declare("assumption", d.name, "assumption", d)
            elif isinstance(d, ast.ItemDecl):
                self.declare("item", d.name, ITEM, d)
                for variant, _ in d.variants:
                    table = self.spaces.setdefault("variant", {})
                    table.setdefault(variant.key, Symbol("variant", variant.key, variant.span, VARIANT))
            elif isinstance(d, ast.KindDecl):
                if d.name.key in BUILTIN_KINDS and d.label is None:
                    self.error(f"'{d.name.text}' is a built-in kind of exit and needs no declaration",
                               d.name.span, f"to give it the rulebook's name, write "
                               f"`kind {d.name.text} \"LABEL\"`")
                self.declare("kind", d.name, KIND, d)  # a built-in one declared: its label
            elif isinstance(d, ast.MemoryDecl):
                typ = {"player": PLAYER, "players": PLAYERS, "int": INT, "role": ROLE}[d.type]
                self.declare("memory", d.name, typ, d)
        kinds = self.spaces.setdefault("kind", {})
        for builtin in BUILTIN_KINDS:
            kinds.setdefault(builtin, Symbol("kind", builtin, None, KIND))

    # -------------------------------------------------------------- sides, roles, teams

    def _side(self, d: ast.SideDecl) -> Side:
        return Side(d.name.key, d.name.text, d.label, d.kind, d.cites, d.span)

    def _role(self, d: ast.RoleDecl) -> Role:
        side = None
        choices: tuple[str, ...] = ()
        counts_as = None
        plain = False
        maximum = None
        akas: list[str] = []
        appearances: list[Appearance] = []
        counters: list[Counter] = []
        side_clauses = [c for c in d.clauses if c.keyword in ("side", "side_choice")]
        if not side_clauses:
            self.error(f"role '{d.name.text}' has no side", d.name.span,
                       "add `side NAME` inside the role's braces")
        for extra in side_clauses[1:]:
            self.error(f"role '{d.name.text}' has more than one side clause", extra.span)
        for c in d.clauses:
            if c.keyword == "side" and c is side_clauses[0]:
                sym = self.lookup(c.names[0], ("side",), "side")
                side = sym.key if sym else None
            elif c.keyword == "side_choice" and c is side_clauses[0]:
                keys = []
                for n in c.names:
                    sym = self.lookup(n, ("side",), "side")
                    if sym:
                        keys.append(sym.key)
                if len(keys) < 2 and len(keys) == len(c.names):
                    self.error("a chosen side needs at least two sides to choose from", c.span)
                choices = tuple(keys)
            elif c.keyword == "counts_as":
                sym = self.lookup(c.names[0], ("side",), "side")
                counts_as = sym.key if sym else None
            elif c.keyword == "counts_none":
                counts_as = ""
            elif c.keyword == "plain":
                plain = True
            elif c.keyword == "max":
                maximum = present(c.number, "the number of `max N`")
                if maximum < 1:
                    self.error("a role's maximum must be at least 1", c.span)
            elif c.keyword == "aka":
                akas.extend(c.strings)
            elif c.keyword == "appears":
                roles = []
                for n in c.names:
                    sym = self.lookup(n, ("role",), "role")
                    if sym:
                        roles.append(sym.key)
                appearances.append(Appearance(c.strings[0], tuple(roles), c.cites, c.span))
            elif c.keyword == "counter":
                if any(k.key == c.names[0].key for k in counters):
                    self.error(f"counter '{c.names[0].text}' is declared twice in this role",
                               c.names[0].span)
                initial = present_expr(c.value, "the initial value of a counter")
                self.expect(initial, Scope(), INT)
                counters.append(Counter(c.names[0].key, initial, c.span))
        seen_to: dict[str, Span | None] = {}
        for a in appearances:
            for r in a.to_roles:
                if r in seen_to:
                    self.error(f"role '{d.name.text}' is given two appearances to '{r}'", a.span)
                seen_to[r] = a.span
        return Role(d.name.key, d.name.text, d.label, tuple(akas), side, choices, counts_as,
                    plain, maximum, tuple(appearances), tuple(counters), d.cites, d.span)

    def _team(self, d: ast.TeamDecl) -> Team:
        members_side = None
        members: list[str] = []
        options: tuple[str, ...] = ()
        per = None
        leaders: list[str] = []
        fallback = False
        option_cites: tuple[str, ...] = ()
        leader_cites: tuple[str, ...] = ()
        excluded: ast.Clause | None = None
        for c in d.clauses:
            if c.keyword == "except":
                if excluded is not None:
                    self.error(f"team '{d.name.text}' has two `except` clauses", c.span,
                               "join the conditions with `or`")
                excluded = c
                var = c.names[0]
                scope = Scope().child(**{var.key: (PLAYER, var.span), CHOICES_IN_VIEW: (ANY, None)})
                cond = present_expr(c.value, "the condition of `except`")
                self.expect(cond, scope, BOOL)
                # Who is in the team must always be decided: a table or `case` without a
                # row for some state would leave it open.
                for x in nodes(cond):
                    if isinstance(x, (ast.ByTable, ast.Cases)):
                        self.error("the condition of `except` cannot read a table or a `case`",
                                   getattr(x, "span", c.span), "write the condition with `and`/`or`")
            elif c.keyword == "members_side":
                sym = self.lookup(c.names[0], ("side",), "side")
                members_side = sym.key if sym else None
            elif c.keyword == "members":
                for n in c.names:
                    sym = self.lookup(n, ("role",), "role")
                    if sym:
                        members.append(sym.key)
            elif c.keyword == "one_of":
                count = present(c.number, "the number of options of `one of`")
                option_names, per_name = c.names[:count], c.names[count]
                keys = []
                for n in option_names:
                    sym = self.lookup(n, ("ability",), "ability")
                    if sym:
                        keys.append(sym.key)
                options = tuple(keys)
                option_cites = tuple(r.id for r in c.cites)
                if per_name.key not in PERIODS:
                    self.error(f"unknown period '{per_name.text}'", per_name.span,
                               "use one of: " + ", ".join(PERIODS))
                per = per_name.key
            elif c.keyword == "leader":
                for n in c.names:
                    sym = self.lookup(n, ("role",), "role")
                    if sym:
                        leaders.append(sym.key)
                fallback = bool(c.strings)
                leader_cites = tuple(r.id for r in c.cites)
        if members_side is None and not members:
            self.error(f"team '{d.name.text}' has no members", d.name.span,
                       "add `members side NAME` or `members ROLE, ROLE`")
        return Team(d.name.key, d.label, members_side, tuple(members), options, per,
                    tuple(leaders), fallback, d.cites, d.span, option_cites, leader_cites,
                    excluded.names[0].key if excluded else None,
                    excluded.value if excluded else None,
                    tuple(r.id for r in excluded.cites) if excluded else ())

    def _check_team_options(self, teams: Sequence[Team], abilities: Sequence[Ability]) -> None:
        by_key = {a.key: a for a in abilities}
        for team in teams:
            for key in team.options:
                ability = by_key.get(key)
                if ability is None:
                    continue
                acts_for = ability.for_team or (
                    ability.actor.name.key if ability.actor and ability.actor.kind == "team"
                    and ability.actor.name is not None else None)
                if acts_for != team.key:
                    self.error(f"ability '{ability.text}' is one of the options of team "
                               f"'{team.key}' but is not used by or for that team",
                               ability.name_span,
                               f"add `for team {team.key}` or `by team {team.key}` to it")
        team_keys = {t.key for t in teams}
        for a in abilities:
            if a.for_team and a.for_team in team_keys:
                team = next(t for t in teams if t.key == a.for_team)
                if team.options and a.key not in team.options:
                    self.error(f"ability '{a.text}' acts for team '{team.key}' but is not among "
                               "the team's options", a.name_span)

    def _composition(self, d: ast.CompositionDecl) -> Composition:
        if d.players < 1 or d.players > MAX_PLAYERS:
            self.error(f"a composition of {d.players} players: the number must be between 1 "
                       f"and {MAX_PLAYERS}", d.players_span)
        entries = []
        seen: dict[str, Span | None] = {}
        for e in d.entries:
            sym = self.lookup(e.role, ("role",), "role")
            if e.count < 1:
                self.error(f"a role's count must be at least 1 (got {e.count})", e.span)
            if sym is None:
                continue
            if sym.key in seen:
                self.error(f"role '{e.role.text}' is listed twice in this composition; "
                           "give it once with a count", e.span,
                           f"write `{e.role.text} * N`")
                continue
            seen[sym.key] = e.span
            entries.append((sym.key, e.count))
        return Composition(d.players, d.label, tuple(entries), tuple(e.span for e in d.entries),
                           d.cites, d.span, d.players_span, d.name)

    def _alternatives(self, comps: tuple[Composition, ...]) -> None:
        """Compositions of one player count are a setup's alternatives: each must be named,
        and the names must differ, or no report or query could tell them apart."""
        names: dict[str, Composition] = {}
        for i, c in enumerate(comps):
            if c.name is not None:
                if c.name.key in names:
                    self.error(f"composition name '{c.name.text}' is used twice", c.name.span)
                names[c.name.key] = c
            elif any(o.players == c.players for j, o in enumerate(comps) if j != i):
                self.error(f"there are several compositions of {c.players} players: name each "
                           "one so reports and queries can tell them apart", c.players_span,
                           f"write `composition {c.players} NAME {{ … }}`")

    def _phase_name(self, name: ast.Name) -> None:
        if name.key not in PHASE_NAMES:
            self.error(f"unknown phase '{name.text}'", name.span,
                       self._suggest(name.key, PHASE_NAMES) or "phases are: " + ", ".join(PHASE_NAMES))

    def _phases(self, decls: list[ast.PhasesDecl]) -> Phases | None:
        if not decls:
            return None
        for extra in decls[1:]:
            self.error("a spec has one `phases` declaration; this is a second one", extra.span)
        d = decls[0]
        starts: list[StartOption] = []
        cycle: tuple[str, ...] = ()
        checked: tuple[str, ...] = ()
        readings: tuple[tuple[str, ...], ...] = ()
        for c in d.clauses:
            if c.keyword == "wins_checked":
                if readings:
                    self.error("`wins checked` is given twice; a rulebook's several readings go "
                               "on one line, joined by `or`", c.span,
                               "wins checked after day, night or after vote")
                self._check_readings(c.schedules)
                readings = tuple(tuple(n.key for n in s.points) for s in c.schedules)
                checked = readings[0]
                continue
            for n in c.names:
                self._phase_name(n)
            if c.keyword == "start":
                if c.value is not None:
                    self.expect(c.value, Scope(), BOOL)
                starts.append(StartOption(tuple(n.key for n in c.names), c.value, c.span))
            elif c.keyword == "cycle":
                cycle = tuple(n.key for n in c.names)
        if not cycle:
            self.error("`phases` needs a `cycle`, such as `cycle day, night`", d.span)
        reading_cites = tuple(dict.fromkeys(r.id for c in d.clauses if c.keyword == "wins_checked"
                                            for r in c.cites))
        return Phases(tuple(starts), cycle, checked, d.cites, d.span, readings, reading_cites)

    def _check_readings(self, schedules: Iterable[ast.CheckSchedule]) -> None:
        """Check points must be known; readings joined by `or` must differ."""
        seen: dict[frozenset[str], ast.CheckSchedule] = {}
        for s in schedules:
            for n in s.points:
                if n.key not in WIN_CHECK_POINTS:
                    self.error(f"unknown check point '{n.text}'", n.span,
                               "wins can be checked after: " + ", ".join(WIN_CHECK_POINTS))
            key = frozenset(n.key for n in s.points)
            if key in seen:
                self.error("this reading of when wins are checked repeats an earlier one",
                           s.span)
            seen[key] = s

    def _setting(self, d: ast.SettingDecl) -> None:
        if d.type == "int":
            low, high = present(d.low, "an int setting's low"), present(d.high, "an int setting's high")
            if low > high:
                self.error(f"empty range {low}..{high}", d.span)
            self.expect(d.default, Scope(), INT)
            if isinstance(d.default, ast.Num) and not low <= d.default.value <= high:
                self.error(f"default {d.default.value} is outside {low}..{high}", d.default.span)
        elif d.type == "bool":
            self.expect(d.default, Scope(), BOOL)
        elif d.type == "set":
            element = present(d.element, "the element kind of a set setting")
            elem = SET_ELEMENTS.get(element.key)
            if elem is None:
                self.error(f"a setting cannot be a set of '{element.text}'", element.span,
                           "a set-valued setting holds roles, sides or kinds: `set of role`, "
                           "`set of side`, `set of kind`")
                return
            if not isinstance(d.default, ast.SetLit):
                self.error(f"the default of a set of {element.key}s is written "
                           f"{{NAME, NAME}} (or {{}} for none)", d.default.span)
                return
            self._set_items(d.default, elem[0])
        else:
            if not (isinstance(d.default, ast.Ref) and d.default.name.key in {o.key for o in d.options}):
                self.error("the default must be one of the options: "
                           + ", ".join(o.text for o in d.options), d.default.span)
            seen = set()
            for o in d.options:
                if o.key in seen:
                    self.error(f"option '{o.text}' is listed twice", o.span)
                seen.add(o.key)

    def _set_items(self, lit: ast.SetLit, space: str) -> None:
        """The items of a set of roles (sides, kinds) written out: each one of those, once."""
        seen = set()
        for item in lit.items:
            if not isinstance(item, ast.Ref):
                self.error(f"expected the name of a {space} here", item.span)
                continue
            if item.name.key not in self.spaces.get(space, {}):
                self.error(f"'{item.name.text}' is not a {space}", item.name.span,
                           self._suggest(item.name.key, self.spaces.get(space, {})))
            elif item.name.key in seen:
                self.error(f"{space} '{item.name.text}' is listed twice", item.name.span)
            seen.add(item.name.key)

    # -------------------------------------------------------------- abilities

    def _ability(self, d: ast.AbilityDecl) -> Ability:
        what = "card" if d.is_card else "ability"
        by = [c for c in d.clauses if c.keyword == "by"]
        actor = by[0].actor if by else None
        if not by and not d.is_card:
            self.error(f"{what} '{d.name.text}' does not say who uses it", d.name.span,
                       "add `by ROLE`, `by team NAME`, `by moderator` or `by holder of ITEM`")
        for extra in by[1:]:
            self.error(f"{what} '{d.name.text}' has more than one `by`", extra.span)
        if actor is not None:
            self._actor(actor, d.is_card)
        for_team = None
        for c in d.clauses:
            if c.keyword == "for_team":
                sym = self.lookup(present(c.team, "the team of `for team T`"), ("team",), "team")
                for_team = sym.key if sym else None
        phases = tuple(p for c in d.clauses if c.keyword == "at" for p in c.phases)
        triggers = tuple(present(c.trigger, "the trigger of `on`") for c in d.clauses if c.keyword == "on")
        if not phases and not triggers and not d.is_card:
            self.error(f"{what} '{d.name.text}' does not say when it is used", d.name.span,
                       "add `at night`, `at day before vote`, or a trigger such as `on leave by vote next night`")
        for p in phases:
            self._phase_ref(p)
        for t in triggers:
            self._trigger(t)
        # A trigger with no timing acts when it happens: `on leave` is `on leave immediately`.
        triggers = tuple(t if t.timing is not None else replace(t, timing="immediately")
                         for t in triggers)

        scope = Scope().child(actor=(PLAYER, None))
        target_clauses = [c for c in d.clauses if c.keyword in ("target", "targets", "targets_up_to")]
        for extra in target_clauses[1:]:
            self.error(f"{what} '{d.name.text}' has more than one target clause", extra.span)
        target_count = target_filter = None
        if target_clauses:
            tc = target_clauses[0]
            target_count = present_expr(tc.count, "the number of targets")
            self.expect(target_count, scope, INT)
            if isinstance(tc.count, ast.Num) and tc.count.value < 1:
                self.error("the number of targets must be at least 1", tc.count.span)
            scope = scope.child(target=(PLAYER, None), targets=(PLAYERS, None))
            target_filter = tc.filter
        choices = []
        for c in d.clauses:
            if c.keyword == "choose":
                ch = present(c.choice, "the choice of `choose`")
                typ = {"role": ROLE, "side": SIDE, "player": PLAYER, "variant": VARIANT,
                       "option": OPTION}[ch.kind]
                if ch.kind == "variant":
                    self.lookup(ch.names[0], ("item",), "item")
                if ch.kind == "option":
                    for n in ch.names:
                        self.spaces.setdefault("option", {}).setdefault(
                            n.key, Symbol("option", n.key, n.span, OPTION))
                if ch.binds.key in scope.names:
                    self.error(f"'{ch.binds.text}' is already a name in this ability", ch.binds.span)
                scope = scope.child(**{ch.binds.key: (typ, ch.binds.span)})
                choices.append(ch)
        legality = scope.child(**{CHOICES_IN_VIEW: (ANY, None)})
        if target_filter is not None:
            self.expect(target_filter, legality, BOOL)

        limits: list[ast.Limit] = []
        for c in d.clauses:
            if c.keyword == "limit":
                limit = present(c.limit, "the limit of `limit`")
                self._limit(limit, limits, d)
                limits.append(limit)
        conditions = []
        for c in d.clauses:
            if c.keyword == "when":
                cond = present_expr(c.cond, "the condition of `when`")
                self.expect(cond, legality, BOOL)
                conditions.append(cond)
        effects = tuple(e for c in d.clauses if c.keyword == "effect" for e in c.effects)
        if not effects:
            self.error(f"{what} '{d.name.text}' has no effect", d.name.span,
                       "add `effect ...`, for example `effect kill shot`")
        for e in effects:
            self._effect(e, scope)
        if target_count is None and target_filter is None and not triggers:
            # Each effect acts on the ability's targets unless it says `on`: with none, it
            # would act on nobody, and the game would go on as if it were not written.
            for e in flat(effects):
                if e.on is None and e.verb not in PLAYERLESS:
                    self.error(f"`{e.verb}` in {what} '{d.name.text}' acts on the ability's targets, and "
                               "it has none", e.span,
                               "give the ability a target (`target where …`, `targets N`), or say whom the "
                               "effect is on (`on PLAYER`)")
        optional = any(c.keyword == "optional" for c in d.clauses)
        if optional and any(c.keyword == "mandatory" for c in d.clauses):
            self.error(f"{what} '{d.name.text}' is both optional and mandatory", d.name.span)
        blocked = [c for c in d.clauses if c.keyword == "blocked"]
        for extra in blocked[1:]:
            self.error(f"{what} '{d.name.text}' says twice whether blocked uses count", extra.span)
        if blocked and not any(l.kind == "count" and (l.on_self or (l.per is not None and l.per.key == "game"))
                               for l in limits):
            self.error(f"{what} '{d.name.text}' has no limit per game or on self for a blocked use "
                       "to count against", blocked[0].span, "add `limit N per game`, or drop this line")
        if blocked and actor is not None and actor.kind == "moderator":
            self.error("the moderator's abilities are never blocked", blocked[0].span)
        clause_cites = tuple(r for c in d.clauses for r in c.cites)
        up_to = bool(target_clauses) and target_clauses[0].keyword == "targets_up_to"
        return Ability(d.name.key, d.name.text, d.label, d.is_card, actor, for_team, phases,
                       triggers, target_count, target_filter, up_to, tuple(choices), tuple(limits),
                       tuple(conditions), effects, optional, clause_cites, d.cites, d.span,
                       d.name.span, d.clauses,
                       blocked_uses=present(blocked[0].mode, "the mode of `blocked uses`") if blocked else "count",
                       blocked_why=blocked[0].text if blocked else None,
                       mandatory=any(c.keyword == "mandatory" for c in d.clauses))

    def _actor(self, actor: ast.Actor, is_card: bool) -> None:
        if actor.kind == "role":
            for name in actor.roles or (present(actor.name, "the role of `by ROLE`"),):
                self.lookup(name, ("role",), "role")
        elif actor.kind == "team":
            self.lookup(present(actor.name, "the team of `by team T`"), ("team",), "team")
        elif actor.kind == "holder":
            self.lookup(present(actor.name, "the item of `by holder of ITEM`"), ("item",), "item")
        elif actor.kind == "drawer" and not is_card:
            self.error("only a card is used by its drawer", actor.span)

    def _phase_ref(self, p: ast.PhaseRef) -> None:
        self._phase_name(p.phase)
        if p.exact is not None and p.exact < 0:
            self.error("phase numbers start at 0", p.span)
        if p.moment and p.phase.key not in ("day", "intro_day", "blind_day"):
            self.error(f"`{p.moment} vote` only makes sense for a day", p.span)

    def _trigger(self, t: ast.Trigger) -> None:
        if t.event.key not in TRIGGER_EVENTS:
            self.error(f"unknown trigger '{t.event.text}'", t.event.span,
                       "triggers are: " + ", ".join(TRIGGER_EVENTS))
        for n in t.by:
            # A kind of exit is the usual meaning (`on leave by vote`); abilities and roles
            # are looked at only when no kind has the name.
            if n.key not in self.spaces.get("kind", {}):
                self.lookup(n, ("ability", "role"), "kind of exit, ability or role")
        if t.timing_phase is not None:
            self._phase_name(t.timing_phase)
        if t.event.key == "revived" and t.by:
            self.error("`on revived` takes no `by`: a return has no kind", t.by[0].span)

    def _limit(self, limit: ast.Limit, earlier: list[ast.Limit], d: ast.AbilityDecl) -> None:
        if limit.kind == "no_repeat":
            if any(l.kind == "no_repeat" for l in earlier):
                self.error("`limit no repeat` is given twice", limit.span)
            return
        count = present(limit.count, "the count of a `N per PERIOD` limit")
        per = present(limit.per, "the period of a `N per PERIOD` limit")
        if count < 1:
            self.error(f"a limit of {count} means the ability can never be used",
                       limit.span, "remove the ability instead, or give a limit of at least 1")
        if per.key not in PERIODS:
            self.error(f"unknown period '{per.text}'", per.span,
                       "use one of: " + ", ".join(PERIODS))
        for other in earlier:
            if other.kind != "count" or other.per is None or other.per.key != per.key:
                continue
            if other.on_self == limit.on_self:
                self.error(f"a second limit per {per.text}"
                           + (" on self" if limit.on_self else ""), limit.span)
            else:
                whole, on_self = (other, limit) if limit.on_self else (limit, other)
                if present(on_self.count, "a limit's count") > present(whole.count, "a limit's count"):
                    self.error(f"the limit on self ({on_self.count} per {per.text}) is "
                               f"larger than the limit on all uses ({whole.count})", on_self.span)

    # -------------------------------------------------------------- effects

    def _effect(self, e: ast.AnyEffect, scope: Scope) -> None:
        if isinstance(e, ast.IfEffect):
            self.expect(e.cond, scope, BOOL)
            for x in e.then + e.otherwise:
                self._effect(x, scope)
            return
        if isinstance(e, ast.AfterEffect):
            if e.count < 1:
                self.error("`after` needs a count of at least 1", e.span)
            if e.unit.key not in ("night", "day", "round"):
                self.error(f"`after` counts nights, days or rounds, not '{e.unit.text}'", e.unit.span)
            for x in e.body:
                self._effect(x, scope)
            return
        v = e.verb
        if v in ("kill", "leave"):
            self.lookup(effect_name(e), ("kind",), "kind of exit")
        elif v == "save":
            for n in e.names:
                if n.key != "any":
                    self.lookup(n, ("kind",), "kind of exit")
        elif v == "protect":
            for n in e.names:
                if n.key not in PROTECTABLE:
                    self.lookup(n, ("kind",), "kind of exit or effect (block, inquire, convert)")
        elif v == "convert":
            self.lookup(effect_name(e), ("role",), "role")
        elif v in ("give", "lose"):
            sym = self.lookup(effect_name(e), ("item",), "item")
            if sym and e.names and isinstance(sym.node, ast.ItemDecl):  # an item's symbol holds it
                variants = {var.key for var, _ in sym.node.variants}
                if e.names[0].key not in variants:
                    self.error(f"item '{effect_name(e).text}' has no variant '{e.names[0].text}'",
                               e.names[0].span)
        elif v in ("mark", "unmark"):
            sym = self.lookup(effect_name(e), ("memory",), "memory")
            if sym and sym.type not in (PLAYER, PLAYERS):
                self.error(f"memory '{effect_name(e).text}' does not hold players", effect_name(e).span)
        elif v == "consume":
            if effect_name(e).key not in self.counters:
                self.error(f"unknown counter '{effect_name(e).text}'", effect_name(e).span,
                           self._suggest(effect_name(e).key, self.counters) or
                           "declare it in a role: `counter NAME = 1`")
        elif v == "set":
            if effect_name(e).key in self.counters:
                self.expect(present_expr(e.value, f"the value of `{v}`"), scope, INT)
            elif effect_name(e).key == "side" and "side" not in self.spaces.get("memory", {}):
                self.expect(present_expr(e.value, f"the value of `{v}`"), scope, SIDE)  # `set side = prediction on actor`
            else:
                sym = self.lookup(effect_name(e), ("memory",), "counter or memory")
                if sym:
                    self.expect(present_expr(e.value, f"the value of `{v}`"), scope, sym.type)
        elif v == "learn":
            self.infer(present_expr(e.value, f"the value of `{v}`"), scope)
        elif v == "cancel":
            self.lookup(effect_name(e), ("ability",), "ability")
        elif v == "win":
            self.lookup(effect_name(e), ("side",), "side")
        elif v == "link" and e.name is not None:
            self.lookup(e.name, ("kind",), "kind of exit")  # `link … with grief`
        if e.on is not None:
            typ = self.infer(e.on, scope)
            if typ not in (PLAYER, PLAYERS, ANY, None):
                self.error(f"`on` needs a player or a set of players, not {_a(typ)}", e.on.span)

    # -------------------------------------------------------------- rules and the day

    def _rule(self, d: ast.RuleDecl) -> None:
        scope = Scope()
        for v in d.variables:
            if v.key in scope.names:
                self.error(f"variable '{v.text}' is bound twice", v.span)
            scope = scope.child(**{v.key: (PLAYER, v.span)})
        self.expect(d.cond, scope, BOOL)
        for u in d.unless:
            self.expect(u, scope, BOOL)
        for e in d.then:
            self._effect(e, scope)
            self._exit_inside(e)
        self._late_intentions(d)
        for n in d.overrides:
            if n.key == d.name.key:
                self.error("a rule cannot override itself", n.span)
            elif n.key == "vote" and "vote" not in self.spaces.get("ability", {}):
                pass  # the day's vote exit, which every scenario has
            else:
                self.lookup(n, ("ability", "rule"), "ability or rule")
        for n in d.under:
            self.lookup(n, ("assumption",), "assumption")
        for p in d.at:
            self._phase_ref(p)

    def _late_intentions(self, d: ast.RuleDecl) -> None:
        """An attack, save or protection is weighed at the deaths; a rule that neither blocks
        nor decides exits acts after them, and one that decides exits applies its other effects
        after them too, so there such an effect would change nothing."""
        if vocabulary.is_blocking(d.then):
            return
        for e in vocabulary.flat(d.then):
            if e.verb in vocabulary.INTENTIONS:
                self.error(f"a rule's `{e.verb}` would act after the deaths and change nothing",
                           e.span, "a rule decides exits itself: write `leave KIND on p` or "
                           "`stay on p` (with `overrides` for an exception to an ability)")
                return

    def _exit_inside(self, e: ast.AnyEffect) -> None:
        """A rule's `leave`/`stay` is its conclusion, weighed at the deaths whatever an `if` or
        `after` around it says: both implementations read it so, so it must be written plainly."""
        if not isinstance(e, (ast.IfEffect, ast.AfterEffect)):
            return
        for inner in vocabulary.flat((e,)):
            if inner.verb in ("leave", "stay"):
                word = "an `if`" if isinstance(e, ast.IfEffect) else "an `after`"
                self.error(f"a rule's `{inner.verb}` cannot be inside {word}: it would be taken as "
                           "the rule's conclusion whatever the condition", inner.span,
                           "put the condition in the rule's own `if … then` (or `unless`), or "
                           "write a second rule")
                return

    def _day(self, d: ast.DayDecl) -> Day:
        vote = quorum = tie = exit_mode = None
        tie_rule: TieRule | None = None
        weight = None
        exits = 1
        candidates = []
        seen = {}
        for c in d.clauses:
            if c.keyword in seen and c.keyword not in ("candidates", "note"):
                self.error(f"`{c.keyword}` is given twice in the day", c.span)
            seen[c.keyword] = c
            if c.keyword == "vote":
                vote = c.strings[0]
                quorum = c.value
                if quorum is not None:
                    self.expect(quorum, Scope(), INT)
            elif c.keyword == "tie":
                tie = c.names[0].key
                tie_rule = self._tie_rule(c.tie) if c.tie is not None else TieRule(tie)
            elif c.keyword == "weight":
                weight = present_expr(c.value, "the weight of `weight`")
                self.expect(weight, Scope().child(voter=(PLAYER, None)), INT)
            elif c.keyword == "exits":
                exits = present(c.number, "the number of `exits N`")
                if exits < 1:
                    self.error("a day allows at least 1 exit; to forbid exits, leave out `vote`",
                               c.span)
            elif c.keyword == "exit_mode":
                exit_mode = c.strings[0]
            elif c.keyword == "candidates":
                allowed = present_expr(c.value, "the filter of `candidates`")
                self.expect(allowed, Scope().child(candidate=(PLAYER, None)), BOOL)
                candidates.append((c.number, allowed))
        if weight is not None and vote is None:
            self.error("a `weight` counts votes: the day needs a `vote` line", seen["weight"].span)
        clause_cites = tuple(r for c in d.clauses for r in c.cites)
        vote_cites = tuple(r for c in d.clauses if c.keyword in ("vote", "tie", "weight", "exits", "exit_mode")
                           for r in c.cites)
        candidate_cites = tuple(c.cites for c in d.clauses if c.keyword == "candidates")
        return Day(d.label, vote, quorum, tie, exits, exit_mode, tuple(candidates),
                   clause_cites, d.cites, d.span, vote_cites, candidate_cites, tie_rule, weight)

    def _tie_rule(self, spec: ast.TieSpec) -> TieRule:
        kind = spec.rule.key
        if kind not in TIE_RULES:
            self.error(f"unknown tie rule '{spec.rule.text}'", spec.rule.span,
                       "tie rules are: " + ", ".join(TIE_RULES))
        chooser = bool(spec.roles) or spec.item is not None
        if kind == "chosen" and not chooser:
            self.error("`tie chosen` needs the tie-breaker: `by ROLE, …` or `by holder of ITEM`",
                       spec.rule.span)
        elif kind != "chosen" and chooser:
            self.error(f"only `tie chosen` names a tie-breaker, not `tie {spec.rule.text}`",
                       spec.rule.span)
        roles = tuple(sym.key for sym in (self.lookup(n, ("role",), "role") for n in spec.roles)
                      if sym is not None)
        item = None
        if spec.item is not None:
            sym = self.lookup(spec.item, ("item",), "item")
            item = sym.key if sym is not None else None
        then = None
        if spec.then is not None:
            if kind != "revote":
                self.error(f"only `tie revote` has a `then` (what a second tie does), not "
                           f"`tie {spec.rule.text}`", spec.then.rule.span)
            elif spec.then.rule.key == "revote":
                self.error("a second tie cannot be revoted again: say what it does "
                           "(`then no_exit`, `then random`, …)", spec.then.rule.span)
            else:
                then = self._tie_rule(spec.then)
        return TieRule(kind, roles, item, then)

    # -------------------------------------------------------------- expressions

    def expect(self, expr: ast.Expr, scope: Scope, want: str) -> None:
        if self._contextual(expr, scope, want):
            return
        got = self.infer(expr, scope)
        if got is None or want == ANY or got == ANY:
            return
        if got != want and not (want in GROUP and got in GROUP):
            self.error(f"expected {_a(want)} here, but this is {_a(got)}", expr.span)

    def _contextual(self, expr: ast.Expr, scope: Scope, want: str) -> bool:
        """Where one type is wanted, a bare name is first looked up among things of that
        type, so an item and a kind may share a name (`gun`) without being ambiguous."""
        if not isinstance(expr, ast.Ref) or expr.name.key in scope.names:
            return False
        spaces = {SIDE: ("side", "role"), ROLE: ("role",), KIND: ("kind",), ITEM: ("item",),
                  VARIANT: ("variant",), OPTION: ("option",)}.get(want, ())
        found = [s for s in spaces if expr.name.key in self.spaces.get(s, {})]
        if len(found) > 1:
            self.lookup(expr.name, tuple(found), want)
        return bool(found)

    def infer(self, e: ast.Expr, scope: Scope) -> str | None:
        """The type of an expression, reporting what does not fit; None after an error."""
        if isinstance(e, ast.Num):
            return INT
        if isinstance(e, ast.Str):
            return STRING
        if isinstance(e, ast.Bool):
            return BOOL
        if isinstance(e, ast.Ref):
            key = e.name.key
            if key in scope.names:
                return scope.names[key][0]
            found = [s for s in VALUE_SPACES if key in self.spaces.get(s, {})]
            if not found and key in BUILTIN_VALUES:
                return BUILTIN_VALUES[key]
            sym = self.lookup(e.name, VALUE_SPACES, "name")
            return sym.type if sym else None
        if isinstance(e, ast.Attr):
            obj = self.infer(e.obj, scope)
            if obj is None:
                return None
            if obj not in (PLAYER, ANY):
                self.error(f"only a player has attributes; this is {_a(obj)}", e.obj.span)
                return None
            key = e.attr.key
            if key in PLAYER_ATTRIBUTES:
                return PLAYER_ATTRIBUTES[key]
            if key in self.counters:
                return INT
            self.error(f"unknown attribute '{e.attr.text}'", e.attr.span,
                       self._suggest(key, list(PLAYER_ATTRIBUTES) + list(self.counters)))
            return None
        if isinstance(e, ast.Call):
            return self._call(e, scope)
        if isinstance(e, ast.Not):
            self.expect(e.operand, scope, BOOL)
            return BOOL
        if isinstance(e, ast.BinOp):
            want = BOOL if e.op in ("and", "or") else INT
            self.expect(e.left, scope, want)
            self.expect(e.right, scope, want)
            return want
        if isinstance(e, ast.Compare):
            left = self.infer(e.left, scope)
            if e.op in ("==", "!=") and left not in (None, ANY) and self._contextual(e.right, scope, left):
                return BOOL
            if e.op in ("==", "!=") and left in SET_TYPES and isinstance(e.right, ast.SetLit):
                self._set_items(e.right, next(k for k, v in SET_ELEMENTS.items() if v[2] == left))
                return BOOL
            right = self.infer(e.right, scope)
            if e.op in ("in", "not in"):
                if right not in (PLAYERS, ANY, None) and right not in SET_TYPES \
                        and not isinstance(e.right, ast.SetLit):
                    self.error(f"`{e.op}` needs a set on its right, not {_a(right)}", e.right.span)
                elif right in SET_TYPES and left not in (None, ANY) and left != SET_TYPES[right] \
                        and not self._contextual(e.left, scope, SET_TYPES[right]):
                    self.error(f"this is {_a(left)}, but the set holds {SET_TYPES[right]}s, "
                               "so this is always " + ("false" if e.op == "in" else "true"),
                               e.span)
            elif e.op in ("<", "<=", ">", ">="):
                for side, typ in ((e.left, left), (e.right, right)):
                    if typ is not None and typ not in (INT, ANY):
                        self.error(f"`{e.op}` compares numbers, not {_a(typ)}", side.span)
            elif left is not None and right is not None and ANY not in (left, right) and left != right:
                hint = None
                if isinstance(e.left, ast.Attr) and {left, right} == {ROLE, SIDE}:
                    hint = f"did you mean `.{'side' if right == SIDE else 'role'}`?"
                self.error(f"comparing {_a(left)} with {_a(right)} is always "
                           + ("false" if e.op == "==" else "true"), e.span, hint)
            return BOOL
        if isinstance(e, ast.SetLit):
            types = {self.infer(i, scope) for i in e.items} - {None}
            if types <= {PLAYER, PLAYERS}:
                return PLAYERS
            return types.pop() if len(types) == 1 else ANY
        if isinstance(e, ast.Count):
            element = PLAYER
            if e.within is not None:
                within = self.infer(e.within, scope)
                if isinstance(e.within, ast.SetLit):
                    element = within if within not in (PLAYERS, None) else PLAYER
                elif within in SET_TYPES:
                    element = SET_TYPES[within]
                elif within not in (PLAYERS, ANY, None):
                    self.error(f"`count({e.var.text} in …)` needs a set, not {_a(within)}",
                               e.within.span)
            inner = scope.child(**{e.var.key: (element, e.var.span)})
            self.expect(e.cond, inner, BOOL)
            return INT
        if isinstance(e, ast.ByTable):
            self.expect(e.subject, scope, INT)
            result = None
            ranges: list[tuple[int, int, Span]] = []
            for case in e.cases:
                if case.low is not None:
                    low, high = case.low, present(case.high, "the top of a `LOW..HIGH` row")
                    if low > high:
                        self.error(f"empty range {low}..{high}", case.span)
                    for lo, hi, span in ranges:
                        if low <= hi and lo <= high:
                            self.error(f"range {low}..{high} overlaps "
                                       f"{lo}..{hi} (line {span.line if span else '?'})", case.span)
                    ranges.append((low, high, case.span))
                result = self._same(result, self.infer(case.value, scope), case.value)
            return result
        if isinstance(e, ast.Cases):
            result = None
            for arm in e.arms:
                if arm.cond is not None:
                    self.expect(arm.cond, scope, BOOL)
                result = self._same(result, self.infer(arm.value, scope), arm.value)
            return result
        raise TypeError(f"unknown expression node {type(e).__name__}")

    def _same(self, so_far: str | None, typ: str | None, expr: ast.Expr) -> str | None:
        if so_far is None or typ is None or so_far == typ or ANY in (so_far, typ):
            return so_far or typ
        self.error(f"this arm is {_a(typ)}, but the earlier arms are not", expr.span)
        return so_far

    def _history_ability(self, e: ast.Call, d: ast.AbilityDecl) -> None:
        """`idle(p, A)` and `acted(p, A)` follow a player's own uses of an ability at its phases."""
        when = [c for c in d.clauses if c.keyword in ("at", "on")]
        if d.is_card or any(c.keyword == "on" for c in when) or not when:
            self.error(f"'{e.func.text}' follows the uses of an ability at its phases; "
                       f"'{d.name.text}' is a card or is triggered", e.args[1].span)
            return
        if e.func.key == "idle":
            self.idle_abilities.setdefault(d.name.key, None)

    def _call(self, e: ast.Call, scope: Scope) -> str | None:
        key = e.func.key
        if key not in FUNCTIONS:
            self.error(f"unknown function '{e.func.text}'", e.func.span,
                       self._suggest(key, FUNCTIONS) or "functions are: " + ", ".join(sorted(FUNCTIONS)))
            for a in e.args:
                self.infer(a, scope)
            return None
        params, result = FUNCTIONS[key]
        if key == "chosen" and CHOICES_IN_VIEW not in scope.names:
            self.error("`chosen(p, ABILITY)` reads the other choices of the same phase, so it "
                       "belongs in an ability's `target where` or `when`", e.span,
                       "in a rule, `targeted(p, ABILITY)` says whom a use that took effect named")
        if len(e.args) != len(params):
            self.error(f"'{e.func.text}' takes {len(params)} argument"
                       f"{'s' if len(params) != 1 else ''}, not {len(e.args)}", e.span)
            return result
        for arg, want in zip(e.args, params):
            if want == ABILITY:
                if isinstance(arg, ast.Ref):
                    sym = self.lookup(arg.name, ("ability",), "ability")
                    # an ability's symbol holds its declaration
                    if sym is not None and key in ("idle", "acted") and isinstance(sym.node, ast.AbilityDecl):
                        self._history_ability(e, sym.node)
                    if key == "uses":
                        self.counted_abilities.setdefault(arg.name.key, None)
                else:
                    self.error("expected the name of an ability", arg.span)
            elif want == KIND and isinstance(arg, ast.Ref) and arg.name.key in PROTECTABLE:
                continue  # `protect(p, block)`: protection from an effect, not from a kind
            else:
                self.expect(arg, scope, want)
        return result


def _walk_cites(value: object) -> Iterator[ast.RuleRef]:
    """Every rule id cited anywhere in the declarations, in the order written."""
    return (x for x in nodes(value) if isinstance(x, ast.RuleRef))


def resolve(spec: ast.Spec) -> Scenario:
    """Resolve and validate a spec; raise SpecError with every problem found."""
    return Resolver(spec).run()
