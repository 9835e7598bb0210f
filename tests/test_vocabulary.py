"""Every verb of the language is handled, or declared unsupported with a reason, by each
implementation, as pySMT's walkers are held complete: a verb one side ignores is a bug."""

import re
from pathlib import Path

from mafiacheck import vocabulary
from mafiacheck.encode import acting
from mafiacheck.interpreter import resolution

GRAMMAR = (Path(__file__).resolve().parent.parent / "grammar" / "mafia.lark").read_text(encoding="utf-8")
GRAMMAR_VERBS = set(re.findall(r"-> effect_(\w+)", GRAMMAR)) - {"if", "after", "field"}  # effect_field: the clause


def test_the_vocabulary_is_the_grammars():
    assert GRAMMAR_VERBS == set(vocabulary.VERBS)
    groups = [vocabulary.INTENTIONS, vocabulary.EXITS, vocabulary.BLOCKS, vocabulary.STATE_WRITES,
              vocabulary.NOTES, vocabulary.CONTROL]
    assert sum(len(g) for g in groups) == len(vocabulary.VERBS), "each verb is in one category"


def test_the_interpreter_handles_every_verb():
    handled = set(resolution.APPLY) | set(resolution.APPLY_WHOLE)
    assert handled == set(vocabulary.VERBS), handled ^ set(vocabulary.VERBS)
    for verb, method in resolution.APPLY.items():
        assert callable(getattr(resolution.Resolver, method)), verb


def test_the_encoding_handles_or_declines_every_verb():
    # The blocking verbs act in the blocking stage (blocking.py); an acting step declines them.
    handled = set(acting.ACTING) | set(acting.UNSUPPORTED)
    assert handled == set(vocabulary.VERBS), handled ^ set(vocabulary.VERBS)
    assert not set(acting.ACTING) & set(acting.UNSUPPORTED)
    assert all(reason for reason in acting.UNSUPPORTED.values())
