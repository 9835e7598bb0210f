"""Witnesses: the game a model describes, as a query script the interpreter replays.

A witness is only shown after the interpreter, playing the same choices, reaches what the
solver claimed. A witness that does not replay is a bug, reported as such, never shown as
evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import z3

from ..encode.unroll import NONE, Game
from ..interpreter.bind import Binder
from ..interpreter.play import Answer, Outcome, Player
from ..model import Scenario
from ..moderator_log import Names, phase_lines
from ..phases import use_moment
from ..query_text import load_queries
from ..text import quote

if TYPE_CHECKING:
    from ..encode.phase_vars import PhaseVars
    from ..encode.solver import Result
    from ..encode.unroll import Prefix
    from ..interpreter.resolution import Report
    from ..phases import Phase


@dataclass
class Witness:
    script: str  # a query, in the query language
    phases: list[tuple[Phase, list[str]]]  # [(phase, [choice text])]
    answer: Answer | None = None

    def to_json(self) -> dict:
        return {
            "script": self.script,
            "phases": [{"phase": str(p), "choices": list(choices)} for p, choices in self.phases],
        }


def model_of(result: Result) -> z3.ModelRef:
    """The model of a question the solver answered "sat" (no other answer has one)."""
    if result.model is None:
        raise ValueError(f"the solver's answer ({result.status}) has no model")
    return result.model


def _val(model: z3.ModelRef, term: z3.ExprRef | int) -> int:
    """A term's value in the model: a Z3 expression, or a value the encoding fixed."""
    if isinstance(term, int):
        return term
    return model.eval(term, model_completion=True).as_long()


def _true(model: z3.ModelRef, term: z3.ExprRef) -> bool:
    return z3.is_true(model.eval(term, model_completion=True))


def extract(game: Game | Prefix, model: z3.ModelRef, upto: int | None = None, name: str = "witness",
            label: str = "") -> Witness:
    """The choices of the model's game, phase by phase (up to phase `upto`, inclusive)."""
    ids = game.ids
    phases: list[tuple[Phase, list[str]]] = []
    last = len(game.vars) - 1 if upto is None else upto
    for t, pv in enumerate(game.vars[: last + 1]):
        choices = []
        for u in pv.uses:
            if not _true(model, u.used):
                continue
            a = u.ability
            text = a.key
            if u.actor is not None:
                text += f" by @{_val(model, u.actor) + 1}"
            if u.targets:
                count = _val(model, u.count)
                if count > 0:
                    text += " on " + ", ".join(f"@{_val(model, tj) + 1}" for tj in u.targets[:count])
            if a.choices:
                shown = []
                for ch in a.choices:
                    v = _val(model, u.values[ch.binds.key])
                    table = {"role": ids.roles, "side": ids.sides, "variant": ids.all_variants,
                             "option": ids.options}.get(ch.kind)
                    shown.append(table[v] if table is not None else f"@{v + 1}")
                text += " as " + ", ".join(shown)
            if u.moment in ("before", "after") and u.moment != use_moment(a, pv.phase):
                text += f" {u.moment} vote"  # an ability of both moments, used at its second
            choices.append(text)
        if pv.vote_kind is not None:
            kind = _val(model, pv.vote_kind)
            if kind == 1:
                choices.append(f"vote @{_val(model, pv.vote_target) + 1}")
            elif kind == 2:
                one, other = (_val(model, x) for x in pv.tie)
                choices.append(f"vote tie @{one + 1}, @{other + 1}" + _tie_pick(game, model, pv))
        if not choices and pv.phase.is_day and pv.vote_kind is not None and \
                _val(model, game.states[t].winner) == NONE:
            choices.append("vote none")
        phases.append((pv.phase, choices))
    return Witness(_script(game, phases, name, label), phases)


def _tie_pick(game: Game | Prefix, model: z3.ModelRef, pv: PhaseVars) -> str:
    """How the tie came out, where a player's choice or a second vote decides it."""
    rule = game.sc.day.tie_rule if game.sc.day is not None else None
    if rule is None or rule.kind not in ("chosen", "revote"):
        return ""
    if pv.retie is not None and _true(model, pv.retie):
        return " then tie"
    x = _val(model, pv.vote_target)
    return f" then @{x + 1}" if x != NONE else ""


def _script(game: Game | Prefix, phases: list[tuple[Phase, list[str]]], name: str, label: str) -> str:
    lines = [f"query {name} {quote(label)} {{", f"  composition {composition_ref(game.sc, game.seats)}"]
    for phase, choices in phases:
        head = phase.kind + (f" {phase.number}" if phase.kind in ("day", "night") else "")
        lines.append(f"  {head} {{ {'  '.join(choices)} }}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def composition_ref(scenario: Scenario, seats: tuple[str, ...]) -> str:
    """How a witness names the game's composition: by its name when it has one (two
    alternatives may share a player count), else by its player count."""
    for comp in scenario.compositions:
        if comp.seats() == tuple(seats):
            return comp.ref
    return str(len(seats))


def replay(game: Game | Prefix, witness: Witness) -> Answer:
    """Play the witness through the interpreter."""
    source, (query,) = load_queries(witness.script)
    bound = Binder(game.sc, source.path).bind(query)
    witness.answer = Player(game.sc).answer(bound)
    return witness.answer


def evidence(w: Witness, scenario: Scenario | None = None, seats: tuple[str, ...] | None = None) -> dict:
    """A finding's witness as data: the script, the choices per phase, and the moderator's log
    of its replay through the interpreter (first outcome), in the scenario's own names."""
    data = w.to_json()
    if w.answer is not None:
        data["replay"] = {"verdict": w.answer.verdict,
                          "winners": [o.winner for o in w.answer.outcomes]}
        if scenario is not None and seats is not None and w.answer.outcomes:
            names = Names(scenario, seats)
            log = []
            choices = {str(p): c for p, c in w.phases}
            for report in w.answer.outcomes[0].reports:
                # A phase the rules leave open is followed in one order: the log names it.
                order = " → ".join(names.step(s) for s in report.order if s != "deaths")
                log.append(f"{report.phase}" + (f" (resolved: {order})" if report.readings > 1 and order else "") + ":")
                if choices.get(str(report.phase)):
                    log.append("  choices: " + "; ".join(choices[str(report.phase)]))
                log += [f"  {line}" for line in phase_lines(names, report, seats)]
            data["log"] = log
    return data


def last_phase_outcomes(scenario: Scenario, seats: tuple[str, ...], outcomes: Sequence[Outcome],
                        heading: Callable[[int, Names, Report], list[str]]) -> list[list[str]]:
    """The last phase of each outcome as the moderator's log, headed by `heading(i, names,
    report)`: for a finding about how the outcomes of one phase differ."""
    names = Names(scenario, seats)
    return [heading(i, names, o.reports[-1]) + phase_lines(names, o.reports[-1], seats, reading=False)
            for i, o in enumerate(outcomes, 1)]
