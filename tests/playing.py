"""Playing a query through the interpreter in tests, and holding the encoding to it: one set
of helpers for the probe tests (splits, parity, compositions, ties, titles, weights)."""

from mafiacheck.crosscheck.differential import compare
from mafiacheck.interpreter.bind import Binder
from mafiacheck.interpreter.play import Player
from mafiacheck.query_text import load_queries


def bind(scenario, text: str):
    """The one query of `text`, bound to the scenario."""
    source, (query,) = load_queries(text)
    return Binder(scenario, source.path).bind(query)


def interpret(scenario, text: str):
    return Player(scenario).answer(bind(scenario, text))


def agreed(scenario, body: str):
    """`query q { body }` bound, and the interpreter's answer to it, once the encoding is
    shown to allow exactly the interpreter's outcomes of its first phase."""
    bound = bind(scenario, f"query q {{ {body} }}")
    phase, uses = bound.phases[0]
    verdict = compare(scenario, bound.state, phase, uses)
    assert verdict.agree, verdict.detail
    return bound, Player(scenario).answer(bound)


def every_phase_agrees(scenario, text: str):
    """The one query of `text` played phase by phase through the interpreter, the encoding
    held to each phase (from the interpreter's state before it); the interpreter's answer."""
    bound = bind(scenario, text)
    state = bound.state
    for phase, uses in bound.phases:
        verdict = compare(scenario, state, phase, uses)
        assert verdict.agree, f"{phase}: {verdict.detail}"
        results, _ = Player(scenario).play(state, phase, uses)
        if not results:
            break
        state = results[-1][0]
    return Player(scenario).answer(bound)
