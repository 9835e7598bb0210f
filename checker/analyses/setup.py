"""The `setup` analysis: can each declared composition start a game at all?

Composition arithmetic (roles add up to players, no role over its maximum, both a town and
a dark side present), the spec's own pre-start checks (`precheck`), and win conditions that
already hold before anyone acts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .. import registry
from ..evaluate import EvalError, Evaluator, initial_state
from ..findings import Finding, Related
from ..model import Composition, Scenario
from ..prestart import prechecks, side_kinds
from ..vocabulary import sides_set

if TYPE_CHECKING:
    from ..ast import Cites
    from ..source import Span

KIND = "setup"


def _ids(*cites: Cites) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for group in cites:
        for ref in group:
            seen.setdefault(ref.id, None)
    return tuple(seen)


def _finding(code: str, message: str, span: Span | None, related: Iterable[Related] = (),
             rules: Iterable[str] = ()) -> Finding:
    c = registry.CODES[code]
    return Finding(code, c.kind, c.severity, message, span, tuple(related), tuple(rules))


def analyse(scenario: Scenario) -> list[Finding]:
    findings: list[Finding] = []
    if not scenario.compositions:
        findings.append(_finding(registry.NO_COMPOSITION,
                                 f"scenario '{scenario.text}' declares no composition",
                                 scenario.span))
    for comp in scenario.compositions:
        findings.extend(_composition(scenario, comp))
    findings.extend(_declarations(scenario))
    return sorted(findings, key=Finding.sort_key)


def _composition(scenario: Scenario, comp: Composition) -> list[Finding]:
    out: list[Finding] = []
    roles = scenario.role_by_key
    where = f"composition {comp.title}"
    if comp.total != comp.players:
        out.append(_finding(
            registry.COUNT_MISMATCH,
            f"{where}: the roles add up to {comp.total} seats, not {comp.players} players",
            comp.players_span,
            [Related(f"{roles[r].display} × {n}", span)
             for (r, n), span in zip(comp.entries, comp.entry_spans)],
            _ids(comp.cites)))
    for (role_key, count), span in zip(comp.entries, comp.entry_spans):
        role = roles[role_key]
        if role.max is not None and count > role.max:
            out.append(_finding(
                registry.OVER_MAXIMUM,
                f"{where}: {role.display} appears {count} times; its maximum is {role.max}",
                span, [Related(f"the maximum of {role.display}", role.span)],
                _ids(comp.cites, role.cites)))
    kinds = side_kinds(scenario, [r for r, _ in comp.entries])
    if "town" not in kinds:
        out.append(_finding(registry.NO_TOWN, f"{where} has no role on a town side",
                            comp.span, rules=_ids(comp.cites)))
    if "dark" not in kinds:
        out.append(_finding(registry.NO_DARK, f"{where} has no role on a dark side",
                            comp.span, rules=_ids(comp.cites)))
    if comp.total != comp.players:
        return out  # the checks below need the seats to be the players

    for check, holds in prechecks(scenario, comp.seats()):
        if isinstance(holds, EvalError):
            out.append(_finding(registry.PRECHECK_ERROR,
                                f"{where}: pre-start check \"{check.message}\" cannot be "
                                f"evaluated: {holds}", check.span, rules=_ids(check.cites)))
            continue
        if holds:
            code = registry.PRECHECK_ERROR if check.severity == "error" else registry.PRECHECK_WARNING
            out.append(_finding(code, f"{where}: {check.message}", check.span,
                                [Related("the composition", comp.span)],
                                _ids(check.cites, comp.cites)))
    ev = Evaluator(scenario, initial_state(scenario, comp.seats()))
    for win in scenario.wins:
        try:
            holds = bool(ev.value(win.cond, {}))
        except EvalError:
            continue
        if holds:
            side = scenario.side_by_key[win.side.key]
            out.append(_finding(registry.WON_AT_START,
                                f"{where}: {side.display} has already won when the game starts",
                                win.span, [Related("the composition", comp.span)],
                                _ids(win.cites, comp.cites)))
    return out


def _declarations(scenario: Scenario) -> list[Finding]:
    out: list[Finding] = []
    seated = {r for comp in scenario.compositions for r, _ in comp.entries}
    if scenario.compositions:
        for role in scenario.roles:
            if role.key not in seated:
                out.append(_finding(registry.UNUSED_ROLE,
                                    f"role {role.display} is in no composition", role.span,
                                    rules=_ids(role.cites)))
    with_win = {w.side.key for w in scenario.wins}
    with_roles = {s for r in scenario.roles for s in (r.side,) + r.side_choices if s}
    with_roles |= entered_in_play(scenario)
    unwritten = {w.side.key: w for w in scenario.open_wins}
    for side in scenario.sides:
        if side.key in unwritten:
            # `win SIDE unspecified "why"`: still no condition, but an open question, not "cannot win".
            open_win = unwritten[side.key]
            out.append(_finding(registry.SIDE_WITHOUT_WIN,
                                f"side {side.display} has no win condition: the rulebook does not "
                                f"write it ({open_win.unspecified})", open_win.span,
                                rules=_ids(side.cites, open_win.cites)))
        elif side.key not in with_win:
            out.append(_finding(registry.SIDE_WITHOUT_WIN,
                                f"side {side.display} has no win condition", side.span,
                                rules=_ids(side.cites)))
        if side.key not in with_roles:
            out.append(_finding(registry.EMPTY_SIDE,
                                f"no role belongs to side {side.display}", side.span,
                                rules=_ids(side.cites)))
    return out


def entered_in_play(scenario: Scenario) -> set[str]:
    """The sides an effect puts players on by name (`set side = lovers`): no role starts on
    them, but play brings players there."""
    owners = [a.effects for a in scenario.abilities] + [r.then for r in scenario.rules]
    return {side for effects in owners for side in sides_set(effects) if side in scenario.side_by_key}
