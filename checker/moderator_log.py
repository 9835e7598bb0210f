"""The moderator's log of a game, in the scenario's own names: how a seat, a step, a kind of
exit and a side are named, and what one phase's report says, as lines or as data. Shared by
the answers to what-if queries, the simulated games and the witnesses of findings."""

from __future__ import annotations

from collections.abc import Sequence

from .interpreter.resolution import Report
from .model import Scenario
from .text import printable


class Names:
    """Display names for seats, abilities, kinds and sides."""

    def __init__(self, scenario: Scenario, seats: tuple[str, ...]):
        self.sc = scenario
        self.seats = seats

    def seat(self, seat: int | None, roles: Sequence[str] | None = None) -> str:
        if seat is None:
            return "the moderator"
        role = (roles or self.seats)[seat]
        return f"@{seat + 1} ({self.sc.role_by_key[role].display})"

    def step(self, key: str) -> str:
        if key == "deaths":
            return "deaths"
        a = self.sc.ability_by_key.get(key)
        return a.display if a else key

    def kind(self, key: str) -> str:
        for k in self.sc.kinds:
            if k.name.key == key:
                return k.label or k.name.text
        if key == "vote":
            return "the vote"
        return key

    def source(self, key: str) -> str:
        if key == "vote":
            return "the vote"
        a = self.sc.ability_by_key.get(key)
        if a is not None:
            return a.display
        rule = next((r for r in self.sc.rules if r.name.key == key), None)
        if rule is not None:
            return f"rule {rule.label or rule.name.text}"
        return key

    def side(self, key: str | None) -> str:
        if key is None:
            return "nobody"
        s = self.sc.side_by_key.get(key)
        return s.display if s else key


def phase_lines(names: Names, r: Report, roles: Sequence[str] | None, reading: bool = True) -> list[str]:
    """The moderator's log of one phase. `reading`: say when the phase is one of several
    outcomes the rules allow (off where the caller shows each outcome)."""
    out = []
    if r.readings > 1 and reading:
        # The rules leave this phase open (an order, a drawn tie): the log follows one outcome.
        out.append(f"one of {r.readings} outcomes the rules allow here")
    if r.vote:
        out.append(f"vote: {r.vote}")
    for item in r.blocked:
        out.append(f"{names.seat(item, roles)} is blocked")
    for line in r.cancelled:
        out.append(f"not carried out: {line}")
    for who, about, answer in r.learned:
        if about is None:
            out.append(f"{names.seat(who, roles)} learns: {answer}")
        else:
            out.append(f"{names.seat(who, roles)} learns that {names.seat(about, roles)} is {answer}")
    if r.exits:
        for seat, kind, by in r.exits:
            out.append(f"{names.seat(seat, roles)} leaves by {names.kind(kind)} "
                       f"(decided by {names.source(by)})")
    else:
        out.append("nobody leaves")
    for seat, why in r.survived:
        reasons = ", ".join(names.source(w.strip()) for w in why.split(",")) if why != "nothing stopped it" else why
        out.append(f"{names.seat(seat, roles)} was attacked and stays ({reasons})")
    for text in r.announcements:
        out.append(f"announced: {text}")
    for text in r.changes:
        out.append(text)
    for hole in r.holes:
        out.append(f"UNDECIDED: {hole}")
    if r.winner:
        out.append(f"the game ends: {names.side(r.winner)} wins")
    if r.cites:
        out.append(f"rules: {', '.join(r.cites)}")
    # A display string with a newline must not forge a line of the log (JSON logs too).
    return [printable(line) for line in out]


def report_json(names: Names, r: Report) -> dict:
    return {
        "phase": str(r.phase),
        "order": [s for s in r.order if s != "deaths"],
        "vote": r.vote,
        "blocked": [names.seat(s) for s in r.blocked],
        "exits": [{"seat": s + 1, "player": names.seat(s), "kind": k, "by": b} for s, k, b in r.exits],
        "stays": [{"seat": s + 1, "player": names.seat(s), "because": why} for s, why in r.survived],
        "learned": [{"who": names.seat(w), "about": None if a is None else names.seat(a), "answer": x}
                    for w, a, x in r.learned],
        "announcements": list(r.announcements),
        "changes": list(r.changes),
        "not_carried_out": list(r.cancelled),
        "undecided": [str(h) for h in r.holes],
        "rules": list(r.rules),
        "cites": list(r.cites),
        "winner": r.winner,
    }
