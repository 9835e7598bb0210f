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


def _code(code, kind, name, severity, summary, why, example, fix) -> str:
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

def lookup(code: str) -> Code | None:
    return CODES.get(code.upper())
