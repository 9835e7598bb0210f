"""Every finding code in one place: its kind, name, default severity and documentation.

This table feeds `mafiacheck explain` and machine-readable reports; analyses refer to codes
by the constants below, so a code cannot be used without being documented here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    code: str
    kind: str
    name: str
    severity: str
    summary: str
    why: str
    example: str
    fix: str


CODES: dict[str, Code] = {}


def _code(code: str, kind: str, name: str, severity: str, summary: str, why: str, example: str, fix: str) -> str:
    CODES[code] = Code(code, kind, name, severity, summary, why, example, fix)
    return code


NO_COMPOSITION = _code(
    "MC100", "setup", "no-composition", "error",
    "The spec declares no composition, so no game can be set up.",
    "Every analysis starts from a seating of roles; without one there is nothing to check.",
    "scenario s { prefix S }\nside town \"Town\" town\nrole citizen { side town }",
    "Add `composition N { role * count, ... }` for each player count the rulebook lists.")

COUNT_MISMATCH = _code(
    "MC101", "setup", "composition-count-mismatch", "error",
    "A composition's roles do not add up to its declared number of players.",
    "A moderator dealing the cards would end with players and no card, or cards and no player.",
    "composition 10 { godfather, doctor, citizen * 7 }   # 9 roles for 10 players",
    "Fix the counts so the roles add up to the player count, or the player count to the roles.")

OVER_MAXIMUM = _code(
    "MC102", "setup", "role-over-maximum", "error",
    "A composition uses a role more times than the role's `max` allows.",
    "The rulebook (or the app) refuses to start such a game.",
    "role doctor { side town  max 1 }\ncomposition 8 { doctor * 2, ... }",
    "Lower the count in the composition, or raise the role's `max` if the rulebook allows it.")

NO_TOWN = _code(
    "MC103", "setup", "no-town-side", "error",
    "A composition has no role on a town side.",
    "With nobody to defend, the game is decided before it starts; the app refuses it.",
    "composition 3 { godfather, nato, killer }",
    "Add town roles to the composition.")

NO_DARK = _code(
    "MC104", "setup", "no-dark-side", "error",
    "A composition has no role on a dark side.",
    "With nobody to hunt, the town has won before the first night; the app refuses it.",
    "composition 3 { doctor, citizen * 2 }",
    "Add a dark role (mafia, yakuza, …) to the composition.")

PRECHECK_ERROR = _code(
    "MC105", "setup", "precheck-failed", "error",
    "A pre-start check the spec declares with `precheck error` fails on a composition.",
    "The rulebook says a game in this state must not start.",
    'precheck error "no players" when players == 0',
    "Change the composition or settings so the condition no longer holds.")

PRECHECK_WARNING = _code(
    "MC106", "setup", "precheck-warning", "warning",
    "A pre-start check the spec declares with `precheck warning` holds on a composition.",
    "The rulebook warns the host about such a game but lets it start.",
    'precheck warning "an Immortal is in the game" when count(p where p.role == immortal) > 0',
    "Confirm the setup is intended; the warning is part of the rulebook's own checks.")

UNUSED_ROLE = _code(
    "MC107", "setup", "role-unused", "warning",
    "A role is declared but no composition seats it.",
    "Its abilities and rules can never apply: either a composition is missing, or the role is.",
    "role priest { side town }   # in no composition",
    "Add the role to the compositions the rulebook gives, or remove it.")

WON_AT_START = _code(
    "MC108", "setup", "won-at-start", "error",
    "A side's win condition already holds when the game starts.",
    "The game would end before anyone acts.",
    "composition 2 { godfather, citizen }   # parity at the start",
    "Change the composition, or the win condition.")

SIDE_WITHOUT_WIN = _code(
    "MC109", "setup", "side-without-win", "warning",
    "A side has no win condition.",
    "Players on that side cannot win; if the rulebook gives one, the spec is missing it.",
    'side jack "Jack" independent   # no `win jack when ...`',
    "Add `win SIDE when CONDITION`, or an `assume` saying why the side cannot win.")

EMPTY_SIDE = _code(
    "MC110", "setup", "side-without-roles", "warning",
    "A side is declared but no role belongs to it.",
    "The side's win condition and counts are dead weight, or a role's side is wrong.",
    'side yakuza "Yakuza" dark   # no role says `side yakuza`',
    "Give the side its roles, or remove it.")

MIXED_SCRIPT = _code(
    "MC111", "setup", "mixed-script-name", "warning",
    "A name mixes letters of scripts that look alike (Latin, Cyrillic, Greek), such as a "
    "Cyrillic `о` in `dоctor`.",
    "The two names look the same to a reader but are different names to the checker: a rule "
    "written about `dоctor` never applies to the Doctor, and a review cannot see why.",
    "role doctor { side town }\nrule heal for p: if p.role == dоctor then stay on p   # Cyrillic о",
    "Retype the name in one script. Names in one script (all Persian, all Russian) are fine.")

INCONCLUSIVE = _code(
    "MC200", "inconclusive", "inconclusive", "error",
    "An analysis could not decide: the solver hit its time or resource limit, or the Z3 "
    "encoding does not cover a construct the spec uses.",
    "An undecided check is not a pass: the gate fails until the question is answered.",
    "mafiacheck check specs/ --timeout 1   # too short for the question",
    "Raise --timeout, lower --bound, or (for an unsupported construct) run the interpreter on "
    "the situations you care about with `mafiacheck ask` until the encoding covers it.")

INTERNAL_ERROR = _code(
    "MC900", "internal", "internal-error", "error",
    "An analysis stopped on an error in the checker itself (a bug), not in the spec.",
    "The analysis did not run to the end, so nothing it would have found is known; this is "
    "never the solver giving up (MC200) and fails the gate with its own exit code, 4.",
    "mafiacheck check spec.mafia   # internal error in the stalemate analysis (ValueError: …)",
    "Report it with the spec that shows it; until it is fixed, `--select` the other analyses.")

UNREACHABLE_WIN = _code(
    "MC201", "unreachable-win", "unreachable-win", "warning",
    "No game within the bound ends with this side's win condition holding. The checker then "
    "tries an induction proof (k-induction on \"the side has not won\" from any well-formed "
    "state); where it succeeds, the finding says no game of any length reaches the win and is "
    "an error. Otherwise it is a warning: longer games were not searched, so it is evidence, "
    "not proof; raise --bound to look further.",
    "A side that cannot win makes the scenario unfair or broken; often a win condition is "
    "missing a case, or an ability that should help the side can never be used.",
    'win jack when alive(mafia) == 0 and alive(town) == 0   # nobody can arrange that',
    "Check the side's win condition against the rulebook; if the rulebook allows the win, "
    "the spec is missing a rule or ability that leads there.")

WIN_OVERLAP = _code(
    "MC202", "win-overlap", "win-overlap", "error",
    "A reachable state meets two sides' win conditions and no `priority` says who wins.",
    "The moderator cannot announce a winner: the rulebook must say which win comes first.",
    "win town when alive(mafia) == 0\nwin jack when alive(mafia) == 0 and jack_alive",
    "Add `priority A > B` if the rulebook orders the wins, or make the conditions exclusive.")

UNDEFINED = _code(
    "MC203", "undefined", "undefined", "error",
    "A reachable situation where the rules decide nothing for something that must be decided: "
    "an effect the rulebook leaves unspecified, a vote with no quorum, a tie with no tie rule.",
    "The moderator has to invent a rule mid-game.",
    'effect unspecified "performed per this version\'s regulations"',
    "Ask the rulebook's authors; then write the rule, or close the hole with a named `assume`.")

CONTRADICTION = _code(
    "MC204", "contradiction", "contradiction", "error",
    "Two rules apply at once and conclude opposite things (a player leaves / stays), and "
    "neither is declared an exception of the other.",
    "The rulebook gives two answers for the same night; moderators will disagree.",
    "rule doctor_priority for p: if save(p) then stay on p\n"
    "rule slaughter for p: if kill(p, slaughter) then leave slaughter on p",
    "Decide which rule wins and say so with `overrides`, or narrow one rule's condition.")

DEAD_ABILITY = _code(
    "MC205", "dead-rule", "dead-ability", "warning",
    "An ability that no game within the bound can ever use.",
    "A role's power that never applies is usually a mistake in its conditions or phases.",
    "ability purchase { by saul  at night  when left(mafia) >= 4 … }   # only 3 mafia",
    "Check the ability's `at`, `when`, target filter and limits against the rulebook.")

DEAD_RULE = _code(
    "MC206", "dead-rule", "dead-rule", "warning",
    "A rule whose condition no game within the bound can meet.",
    "A rule that can never apply is dead weight, or guards a case the rules make impossible.",
    "rule x for p: if kill(p, shot) and p.role == immortal … (the immortal is in no composition)",
    "Check the rule's condition; remove it if the case really cannot happen.")

AMBIGUOUS_ORDER = _code(
    "MC207", "ambiguous-order", "ambiguous-order", "error",
    "Two steps the spec leaves unordered give different outcomes on a reachable night, "
    "depending on which resolves first.",
    "The announced wake-up order is not the resolution order; the moderator must pick one.",
    "ability guard { … effect protect from block }\nability hostage { … effect block }",
    "Declare the order with `resolve A before B` if the rulebook gives one, or keep it open "
    "and record the choice with a named `assume`.")

UNUSED_ACKNOWLEDGEMENT = _code(
    "MC300", "acknowledgement", "unused-acknowledgement", "warning",
    "An `acknowledge` declaration matches no finding of the analyses that ran.",
    "A stale acknowledgement hides nothing today but would silently accept a different finding "
    "tomorrow; the hole it named may have been closed, or its names no longer fit.",
    'acknowledge MC207 on guard_protect, hostage "left to the moderator"   # but a `resolve` '
    "now orders them",
    "Remove the acknowledgement, or fix its code or names so it matches the finding it meant.")

AMBIGUOUS_RESOLUTION = _code(
    "MC208", "ambiguous-resolution", "ambiguous-resolution", "error",
    "Uses of one ability that depend on each other — two players who block each other, each "
    "with a blocking ability — have more than one consistent outcome on a reachable night "
    "(either block could be the one that takes effect), or none at all (an odd cycle of "
    "blocks). So do the uses of blocking abilities the spec leaves unordered when their users' "
    "blocks form a ring (a block cycle: two who block each other, or more, each blocking the "
    "next one's user and the last the first's; whichever resolves first takes effect and stops "
    "the next); the abilities and their players are named, and every consistent reading (which "
    "of the ring's uses take effect) is listed. Each outcome is shown.",
    "The rulebook does not say who acts first when two players take each other away; the "
    "moderator must pick, and two moderators will pick differently.",
    "role hostage_taker { side mafia }\n"
    "composition 6 { hostage_taker * 2, … }\n"
    "ability hostage { by hostage_taker  at night  target where target.alive  effect block }",
    "Say what happens when blockers block each other (a rule that the first in seat order "
    "wins, or that both are blocked; for abilities in a ring, `resolve A before B`) and encode it, "
    "or keep the hole with a named `assume`.")

STALEMATE = _code(
    "MC209", "stalemate", "stalemate", "error",
    "A reachable state where nobody has won and no sequence of legal choices can end the game. "
    "Proved for every length when the states like it form a closed set (no phase leads out of "
    "it or to a win); otherwise reported as a warning that says how many further phases were "
    "searched.",
    "The moderator is left with a game that can never finish: the players still in it can "
    "neither be removed nor win. Usually a win condition misses a line-up (only neutral "
    "players left, a strict majority where parity was meant), or the last way to remove a "
    "player (a vote, a shot) is closed by a filter or a limit.",
    "ability shot \"Shot\" { by boss  at night  limit 1 per game  … }\n"
    "day { candidates where candidate in accused … }   # the accuser is dead\n"
    "win mafia when alive(mafia) > alive(town)",
    "Give every line-up a way forward: a win condition that covers it (parity, last player "
    "standing), or a way to remove a player that cannot run out; if the rulebook really lets "
    "such a game hang, close the hole with a named `assume` (a draw rule).")

def lookup(code: str) -> Code | None:
    return CODES.get(code.upper())
