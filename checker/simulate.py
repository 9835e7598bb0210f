"""`mafiacheck simulate`: a scripted game played phase by phase as a moderator's log, ending
with the winner or with the first phase the rules cannot decide."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .interpreter.bind import BoundQuery
from .interpreter.legal import Problem
from .interpreter.play import Outcome, Player, verdict_of
from .model import Scenario
from .moderator_log import Names, phase_lines, report_json
from .prestart import failed


@dataclass
class Log:
    names: Names
    title: str
    phases: list = field(default_factory=list)  # (phase, report) of the game as played
    stop: str | None = None  # why the log ends before the script does
    branches: list[Outcome] = field(default_factory=list)
    problems: list = field(default_factory=list)
    exit_code: int = 0

    def render(self, fmt: str) -> str:
        if fmt == "json":
            return json.dumps({
                "version": 1, "game": self.title,
                "phases": [report_json(self.names, r) for _, r in self.phases],
                "stopped": self.stop,
                "problems": [{"message": p.message, "rules": list(p.rules)} for p in self.problems],
                "possible": [{"phases": [report_json(self.names, r) for r in o.reports]}
                             for o in self.branches],
            }, ensure_ascii=False, indent=2) + "\n"
        lines = [f"game: {self.title}", ""]
        for phase, report in self.phases:
            order = " → ".join(self.names.step(s) for s in report.order if s != "deaths")
            lines.append(f"{phase}" + (f" (resolved: {order})" if order else ""))
            lines += [f"  {line}" for line in phase_lines(self.names, report, self.names.seats)]
            lines.append("")
        if self.stop:
            lines.append(f"stopped: {self.stop}")
            for p in self.problems:
                lines.append(f"  {p.message}" + (f" [{', '.join(p.rules)}]" if p.rules else ""))
            for i, o in enumerate(self.branches, 1):
                lines.append(f"  possible outcome {i}:")
                lines += [f"    {line}" for line in phase_lines(self.names, o.reports[-1], self.names.seats)]
        return "\n".join(lines) + "\n"


def simulate(scenario: Scenario, bound: BoundQuery) -> Log:
    q = bound.query
    log = Log(Names(scenario, bound.seats), q.label or q.name.text)
    # As `ask`: a game a pre-start check stops is never played.
    stopped = [f for f in failed(scenario, bound.seats, bound.state.settings, q.unlisted_count)
               if f.severity == "error"]
    if stopped:
        log.stop = "the game cannot start: a pre-start check fails"
        log.problems = [Problem(f.message, f.rules) for f in stopped]
        log.exit_code = 1
        return log
    player = Player(scenario)
    state = bound.state
    for phase, uses in bound.phases:
        results, problems = player.play(state, phase, uses)
        outcomes = [Outcome(st, [rep]) for st, rep in results]
        verdict = verdict_of(outcomes, problems)
        if verdict == "illegal":
            log.stop = f"{phase}: a choice the rules forbid"
            log.problems = problems
            log.exit_code = 1
            return log
        if verdict != "determined":
            log.stop = f"{phase}: the rules cannot decide this phase ({verdict})"
            log.problems = [p for p in problems if p.hole]
            log.branches = outcomes
            log.exit_code = 1
            return log
        state, report = results[0]
        log.phases.append((phase, report))
        if report.winner:
            return log
    return log
