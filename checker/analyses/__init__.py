"""The analyses, one module each (pipeline.ANALYSES lists them by kind), and what the
encoded ones share to read an encoding's answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

# Only names for the type checker: the package itself loads neither Z3 nor the encoder.
if TYPE_CHECKING:
    from ..crosscheck.witness import Witness
    from ..encode.solver import Result
    from ..encode.unroll import Prefix
    from ..interpreter.play import Answer
    from .encoded import Encoded, Search


def game_of(enc: Encoded) -> Prefix:
    """The game of an encoding that was built. Only one whose encoding failed
    (Encoded.error) has none, and the analyses set those aside before they ask."""
    if enc.game is None:
        raise ValueError(f"{enc.where} is not encoded: {enc.error}")
    return enc.game


def found_game(found: Search) -> tuple[Encoded, int, Result]:
    """The encoding, phase and answer of a search that found a game (status "sat")."""
    if found.t is None or found.result is None:
        raise ValueError(f"the search found no game ({found.status})")
    return found.enc, found.t, found.result


def replayed(w: Witness) -> Answer:
    """The interpreter's answer for a witness Encoded.witness gave: it replays every one (a
    game that cannot be replayed is answered "unreplayable")."""
    if w.answer is None:
        raise ValueError("the witness was not replayed")
    return w.answer
