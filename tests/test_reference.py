"""docs/language.md, the language reference, is tied to the grammar and to the tables the code
dispatches on, so that it cannot drift: every keyword of the grammar, every effect verb,
predicate, function, attribute and built-in name is documented in it (in backticks), and
every example block parses; an example marked as an excerpt of a bundled file is that file's
own text."""

import re
from pathlib import Path

import pytest

from mafiacheck import model, resolve, vocabulary
from mafiacheck.interpreter import resolution
from mafiacheck.parser import lark_parser, parse
from mafiacheck.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "language.md"
TEXT = REFERENCE.read_text(encoding="utf-8")

# Punctuation of the grammar: documented together in "Lexical matters", not as words.
PUNCTUATION = {",", "{", "}", "(", ")", ":", ";", "=", "*", "..", "@", ".", ">",
               # COMP_OP and ADD_OP, the operators (documented in "Expressions")
               "==", "!=", "<=", ">=", "<", "+", "-"}
# Named terminals that are not keywords: names, numbers, strings, rule ids, comments.
NOT_KEYWORDS = {"NAME", "INT", "STRING", "RULE_ID", "COMMENT"}


def _code_spans(text: str) -> set[str]:
    """The words written in inline backticks (code blocks left out)."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    words: set[str] = set()
    for span in re.findall(r"`([^`]+)`", prose):
        words.update(re.findall(r"[^\W\d][\w]*", span))
        words.update(span.split())
    return words


def grammar_keywords(grammar_text: str | None = None) -> set[str]:
    """Every literal of the grammar: the keyword terminals Lark makes of its strings, and the
    words of the named terminals that are alternatives of literals (SIDE_KIND, MOMENT, …)."""
    if grammar_text is None:
        terminals = lark_parser().terminals
    else:
        from lark import Lark
        terminals = Lark(grammar_text, parser="lalr", start=["start", "queries"]).terminals
    out = set()
    for t in terminals:
        if t.name.startswith("__IGNORE") or t.name in NOT_KEYWORDS:
            continue
        if type(t.pattern).__name__ == "PatternStr":
            out.add(t.pattern.value)
            continue
        alternatives = re.fullmatch(r"\(\?:(.*)\)", t.pattern.value)
        assert alternatives, f"terminal {t.name} ({t.pattern.value}) is neither a keyword nor allowed"
        out.update(a.replace("\\", "") for a in alternatives.group(1).split("|"))
    return out


def undocumented(words, text: str = TEXT) -> list[str]:
    spans = _code_spans(text)
    return sorted(w for w in words if w not in spans)


def test_the_grammar_has_keywords():
    keywords = grammar_keywords()
    assert {"scenario", "immediately", "mandatory", "quorum", "within", "town", "after"} <= keywords


def test_every_keyword_of_the_grammar_is_documented():
    assert undocumented(grammar_keywords() - PUNCTUATION) == []


def test_every_punctuation_mark_is_documented():
    assert undocumented(PUNCTUATION) == []


def test_a_new_keyword_would_fail_the_check():
    # The check itself: a grammar with one more keyword, or a reference with one entry less.
    from mafiacheck.parser import grammar_text

    grown = grammar_text().replace('| "nothing"', '| "nothing"\n       | "shuffle" on?', 1)
    assert undocumented(grammar_keywords(grown) - PUNCTUATION) == ["shuffle"]
    shrunk = re.sub(r"\bmandatory\b", "obligatory", TEXT)
    assert undocumented(grammar_keywords() - PUNCTUATION, shrunk) == ["mandatory"]


# ---------------------------------------------------------------- the tables the code reads

TABLES = {
    "effect verbs (vocabulary.VERBS)": vocabulary.VERBS,
    "effect handlers (Resolver APPLY)": set(resolution.APPLY) | resolution.APPLY_WHOLE,
    "functions and predicates (resolve.FUNCTIONS)": set(resolve.FUNCTIONS),
    "player attributes": set(resolve.PLAYER_ATTRIBUTES),
    "built-in values": set(resolve.BUILTIN_VALUES),
    "resolution steps": set(resolve.EFFECT_STEP_NAMES),
    "protections": set(resolve.PROTECTABLE),
    "triggers": set(resolve.TRIGGER_EVENTS),
    "phase names": set(model.PHASE_NAMES),
    "tie rules": set(model.TIE_RULES),
    "limit periods": set(model.PERIODS),
    "win check points": set(model.WIN_CHECK_POINTS),
    "built-in kinds": set(model.BUILTIN_KINDS),
    "set settings": set(resolve.SET_ELEMENTS),
}


@pytest.mark.parametrize("table", TABLES)
def test_every_name_the_code_knows_is_documented(table):
    assert undocumented(TABLES[table]) == []


def test_every_function_has_its_own_row():
    # A function or predicate is documented as a call: `name(` opens a table row.
    rows = {name for cell in re.findall(r"^\|([^|\n]*)\|", TEXT, re.M)
            for name in re.findall(r"`([a-z_]+)\(", cell)}
    assert sorted(set(resolve.FUNCTIONS) - rows) == []


def test_every_effect_verb_has_its_own_row():
    rows = {name for cell in re.findall(r"^\|([^|\n]*)\|", TEXT, re.M)
            for name in re.findall(r"`([a-z_]+)\b", cell)}
    assert sorted(vocabulary.VERBS - rows) == []


# ---------------------------------------------------------------- the examples

BLOCKS = re.findall(r"```(mafia[-a-z]*)\n(.*?)```", TEXT, re.S)
START = {"mafia": "start", "mafia-query": "queries"}


def test_the_reference_has_examples():
    assert len([b for b in BLOCKS if b[0] == "mafia"]) >= 30
    assert {kind for kind, _ in BLOCKS} == {"mafia", "mafia-expr", "mafia-query"}


def _source(block: str) -> Path | None:
    first = block.splitlines()[0]
    m = re.fullmatch(r"# from (\S+)", first.strip())
    return ROOT / m.group(1) if m else None


def _wholes(block: str) -> list[str]:
    """An excerpt of a declaration (clauses, an effect, a rule's condition) made whole in the
    ways it can be: as written with missing braces closed, inside an ability, inside the day,
    or as a rule's condition."""
    lines = [ln for ln in block.splitlines() if not ln.strip().startswith("#")]
    text = "\n".join(lines)
    closed = text + "\n}" * (text.count("{") - text.count("}"))
    if not (lines and lines[0].startswith((" ", "\t"))):
        return [closed]
    return ["ability excerpt {\n" + text + "\n}", "day {\n" + text + "\n}",
            "rule excerpt for w:\n" + text + "\nthen nothing"]


def _parses_as_one_of(texts: list[str], start: str) -> None:
    from mafiacheck.errors import SpecError

    errors = []
    for text in texts:
        try:
            parse(SourceFile("docs/language.md", text), start)
            return
        except SpecError as exc:
            errors.append(exc.diagnostics[0].message)
    raise AssertionError("the example parses in no form: " + "; ".join(errors))


@pytest.mark.parametrize("kind,block", BLOCKS, ids=lambda x: x.splitlines()[0][:40] if "\n" in x else x)
def test_example_parses(kind, block):
    if kind == "mafia-expr":
        for line in block.splitlines():
            parse(SourceFile("docs/language.md", line), "expr")
        return
    _parses_as_one_of(_wholes(block) if _source(block) else [block], START[kind])


@pytest.mark.parametrize("kind,block", [b for b in BLOCKS if _source(b[1])],
                         ids=lambda x: x.splitlines()[0][:40] if "\n" in x else x)
def test_excerpt_is_the_bundled_files_text(kind, block):
    path = _source(block)
    assert path is not None and path.is_file(), f"no file {path}"
    lines = {ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()}
    missing = [ln for ln in block.splitlines()[1:] if ln.strip() and ln.strip() not in lines]
    assert missing == []


def test_the_readme_links_the_reference():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/language.md)" in readme


# ---------------------------------------------------------------- the timing it states

TIMING = """
scenario timing "Timing" { prefix TI }
side town "Town" town
side mafia "Mafia" dark
role boss "Boss" { side mafia }
role citizen "Citizen" { side town  plain }
composition 5 { boss, citizen * 4 }
kind shot "Shot"
memory m: set of player
ability shot { by boss  at night  target where target.alive  effect kill shot; mark in m }
ability tag { by boss  at night  target where target.alive  effect mark in m }
ability look { by boss  at intro_night, night  target where target.alive
  effect if target in m then announce "marked" else announce "unmarked"; learn round }
ability late { by boss  at day after vote  target where target.alive
  effect if voted(target) then announce "voted" else announce "not voted";
         if target.left_by == vote then announce "left by vote" else announce "no left_by"; learn round }
rule seen for p: if p in m and p.alive then announce "a rule after the deaths sees the mark"
phases { start intro_night  cycle day, night }
day { vote majority  tie no_exit }
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town) + 5
"""


def _answer(tmp_path, query: str):
    from mafiacheck.interpreter.bind import Binder
    from mafiacheck.interpreter.play import Player
    from mafiacheck.pipeline import load
    from mafiacheck.query_text import load_queries

    spec = tmp_path / "timing.mafia"
    spec.write_text(TIMING, encoding="utf-8")
    scenario = load(str(spec))
    source, (q,) = load_queries("query q {\n" + query + "\n}")
    answer = Player(scenario).answer(Binder(scenario, source.path).bind(q))
    assert answer.verdict == "determined", answer.problems
    (outcome,) = answer.outcomes
    return outcome.reports


def test_a_nights_mark_is_seen_after_its_deaths_not_by_that_nights_actions(tmp_path):
    (night,) = _answer(tmp_path, "night 1 { tag on citizen@2  look on citizen@2 }")
    assert "unmarked" in night.announcements  # the other action of the night: not yet
    assert "a rule after the deaths sees the mark" in night.announcements
    (_, day) = _answer(tmp_path, "night 1 { tag on citizen@2 }\nday 2 { late on citizen@2 }")
    assert "a rule after the deaths sees the mark" in day.announcements  # and every later phase


def test_a_vote_exit_is_seen_after_the_vote_and_legality_is_the_days_start(tmp_path):
    # `late on citizen@2`, the player voted out: legal (target.alive is judged at the start
    # of the day), and its effects see `voted` and `left_by` of that vote.
    (day,) = _answer(tmp_path, "day 1 { vote citizen@2  late on citizen@2 }")
    assert "voted" in day.announcements and "left by vote" in day.announcements


def test_round_is_zero_in_the_openings_then_the_phase_number(tmp_path):
    reports = _answer(tmp_path, "intro_night { look on citizen@1 }\nday 1 { late on citizen@1 }\n"
                                "night 1 { look on citizen@1 }\nday 2 { late on citizen@1 }")
    assert [x for r in reports for _, _, x in r.learned] == ["0", "1", "1", "2"]
