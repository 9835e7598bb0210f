"""`mafiacheck fmt`: the canonical layout never changes meaning, keeps comments and strings,
is idempotent and does not depend on the spacing it was given."""

import io
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Lark

from mafiacheck import fmt
from mafiacheck.build import build
from mafiacheck.cli import main
from mafiacheck.errors import SpecError
from mafiacheck.loader import decode_source
from mafiacheck.parser import START_RULES, grammar_text, parse

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    [p for p in (ROOT / "specs").rglob("*.mafia")]
    + [p for p in (ROOT / "examples").rglob("*") if p.suffix in fmt.SUFFIXES]
    + [p for p in (ROOT / "tests" / "fixtures").rglob("*") if p.suffix in fmt.SUFFIXES])
IDS = [str(p.relative_to(ROOT)) for p in FILES]


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def ast_of(text: str, path: str):
    source = decode_source(path, text.encode("utf-8"))
    return build(parse(source, fmt.start_rule_for(path)), source)


_seen: list = []
_LEXED = Lark(grammar_text(), parser="lalr", lexer="contextual", start=list(START_RULES),
              lexer_callbacks={"COMMENT": _seen.append})


def comments_and_strings(text: str, path: str):
    """Comments (trailing whitespace aside) and raw string tokens, as the grammar's lexer sees
    them: an account independent of the formatter's own."""
    _seen.clear()
    tree = _LEXED.parse(text, start=fmt.start_rule_for(path))
    strings = [str(t) for t in tree.scan_values(lambda v: getattr(v, "type", None) == "STRING")]
    return Counter(str(c).rstrip(" \t\r\f\v") for c in _seen), strings


@pytest.fixture(scope="module")
def formatted():
    return {p: fmt.format_text(read(p), str(p)) for p in FILES}


# ------------------------------------------------------------------ every file in the repository

@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_round_trip(path, formatted):
    original, out = read(path), formatted[path]
    assert ast_of(out, str(path)) == ast_of(original, str(path)), "formatting changed the AST"
    assert fmt.format_text(out, str(path)) == out, "formatting is not idempotent"
    assert comments_and_strings(out, str(path)) == comments_and_strings(original, str(path))
    assert out.endswith("\n") and not out.endswith("\n\n") and "\r" not in out
    assert not re.search(r"[ \t]+\n", out), "trailing whitespace left"
    assert "\n\n\n" not in out and not out.startswith("\n")


def test_the_bundled_files_are_formatted(formatted):
    """The repository follows its own format (`mafiacheck fmt specs examples tests/fixtures`)."""
    unformatted = [str(p.relative_to(ROOT)) for p in FILES if formatted[p] != read(p)]
    assert unformatted == []


def test_the_repository_has_files_of_every_kind():
    suffixes = Counter(p.suffix for p in FILES)
    assert suffixes[".mafia"] >= 20 and suffixes[".query"] >= 5


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "bad").glob("*.mafia")),
                         ids=lambda p: p.name)
def test_broken_inputs_are_refused_or_kept(path):
    # Files that cannot be read or parsed are refused with located errors; the rest format
    # without a change of tokens. Never another exception.
    try:
        out = fmt.format_text(path.read_bytes().decode("utf-8", errors="replace"), str(path))
    except SpecError as exc:
        assert exc.diagnostics
    else:
        assert fmt.format_text(out, str(path)) == out


def test_tight_brace_rules_exist_in_the_grammar():
    rules = set(re.findall(r"->\s*(\w+)|^\??(\w+):", grammar_text(), re.M))
    names = {a or b for a, b in rules}
    assert fmt.TIGHT_BRACES <= names


# ------------------------------------------------------------------ the canonical form, exactly

GOLDEN = [
    # spacing around operators, commas, calls, attributes, sets; two spaces between clauses
    ('role  citizen "C"{side town plain max 1}\n'
     'win town when alive ( mafia )==0 and(p.alive)\n'
     'ability a{by x at night target where target.role in { a , b } and count( p where p.alive )>1'
     ' effect if x then { kill y ; save from z } else nothing}\n',
     'role citizen "C" { side town  plain  max 1 }\n'
     'win town when alive(mafia) == 0 and (p.alive)\n'
     'ability a { by x  at night  target where target.role in {a, b} and count(p where p.alive) > 1'
     '  effect if x then { kill y; save from z } else nothing }\n'),
    # indentation by braces; blank lines collapsed, dropped after `{` and before `}`; comments
    # indented like the code after them; trailing comments lined up; CRLF and trailing spaces
    ('\r\n\r\n# header   \r\nrole r "R" {\r\n\r\n\tside a   # why\r\n        max 1 # m\r\n\r\n\r\n'
     '      # the end\r\n\r\n}\r\n\r\n\r\n\r\nside a "A" town   \r\n\r\n  cites GA-R01\r\n\r\n',
     '# header\nrole r "R" {\n  side a  # why\n  max 1   # m\n\n  # the end\n}\n\nside a "A" town\n'
     '  cites GA-R01\n'),
    # continuation lines keep their indentation relative to the clause's first line; items
    # after `{ first,` line up with the first; a declaration never shares a line
    ('  rule r for p :\n    if kill( p , shot )\n           and p.role==x\n    then stay on p\n'
     'composition 4 { a,\n b * 2,\n c } side a "A" town side b "B" dark\n'
     'ability s {\nby a\n  effect if x\n         then kill y\n         else nothing }\n',
     'rule r for p:\n  if kill(p, shot)\n         and p.role == x\n  then stay on p\n'
     'composition 4 { a,\n                b * 2,\n                c }\nside a "A" town\n'
     'side b "B" dark\n'
     'ability s {\n  by a\n  effect if x\n         then kill y\n         else nothing }\n'),
    # strings are kept byte for byte, ZWNJ and right-to-left marks included
    ('role invulnerable "رویین\u200cتن" { aka "گادفادر\u200f"  side town }\n',
     'role invulnerable "رویین\u200cتن" { aka "گادفادر\u200f"  side town }\n'),
]

GOLDEN_QUERY = (
    'query q "Q" {players a , citizen @ 2 ,@3\n'
    'state{memory m={ @1 ,a } dead x holds @9 gun ( war )}\n'
    'night 1 {shot on a vote @2} day 2 {  } expect stays a }\n',
    'query q "Q" { players a, citizen@2, @3\n'
    '              state { memory m = {@1, a}  dead x  holds @9 gun(war) }\n'
    '              night 1 { shot on a  vote @2 }  day 2 { }  expect stays a }\n')


@pytest.mark.parametrize("before,after", GOLDEN,
                         ids=["spacing", "blank-lines", "continuations", "strings"])
def test_golden(before, after):
    assert fmt.format_text(before, "g.mafia") == after
    assert fmt.format_text(after, "g.mafia") == after


def test_tabs_in_indentation_count_as_one_level():
    before = 'ability a {\n\tby x\n\teffect if a\n\t\tthen kill b\n\t\telse nothing\n}\n'
    after = 'ability a {\n  by x\n  effect if a\n    then kill b\n    else nothing\n}\n'
    assert fmt.format_text(before, "t.mafia") == after


def test_golden_query():
    before, after = GOLDEN_QUERY
    assert fmt.format_text(before, "g.query") == after


def test_comment_only_file_and_byte_order_mark():
    assert fmt.format_text("# just a note   \n\n\n", "c.mafia") == "# just a note\n"
    source = decode_source("b.mafia", b"\xef\xbb\xbfside a \"A\" town")
    assert fmt.format_source(source) == 'side a "A" town\n'


# ------------------------------------------------------------------ any spacing, one layout

WORD = re.compile(r"[\w\u200c\"]")


def perturb(text: str, path: str, rnd: random.Random) -> str:
    """Change the spacing of a formatted text without changing what the rules keep: spaces
    between tokens of a line (removed only where the tokens cannot merge), before trailing
    comments and at line ends; how many blank lines stand where there is at least one;
    blank lines at both ends; a whole top-level declaration shifted right; CRLF endings."""
    toks, _ = fmt._read(text, fmt.start_rule_for(path))
    heads = {t.token.line for t in toks if t.head_of == -1}
    out, prev_end = [], 0
    shift = 0
    for t in toks + [None]:
        start = t.token.start_pos if t else len(text)
        gap = text[prev_end:start]
        if "\n" not in gap and "#" not in gap and t and prev_end:
            a, b = text[prev_end - 1], text[start]
            low = 1 if (WORD.match(a) and WORD.match(b)) else 0
            gap = "".join(rnd.choice(" \t") for _ in range(rnd.randint(low, 3)))
        elif "\n" in gap or "#" in gap:
            lines = gap.split("\n")
            new = []
            for k, line in enumerate(lines):
                if k == len(lines) - 1:  # the indentation of the token's own line
                    if t and t.token.line in heads:
                        shift = rnd.randint(0, 4)
                    new.append(" " * shift + line if t else line)
                    continue
                stripped = line.strip(" \t")
                if stripped.startswith("#") and k == 0 and prev_end:
                    line = " " * rnd.randint(0, 4) + stripped  # before a trailing comment
                elif stripped.startswith("#"):
                    line = " " * (shift + rnd.randint(0, 6)) + stripped
                elif not stripped and k > 0:  # a blank line: one or more
                    new.extend(" " * rnd.randint(0, 3) for _ in range(rnd.randint(0, 2)))
                new.append(line + " " * rnd.randint(0, 2))
            gap = "\n".join(new)
            if not prev_end:
                gap = "\n" * rnd.randint(0, 2) + gap
            if not t:
                gap += "\n" * rnd.randint(0, 3)
        out.append(gap)
        if t:
            out.append(t.text)
            prev_end = t.token.end_pos
    result = "".join(out)
    return result.replace("\n", "\r\n") if rnd.random() < 0.2 else result


PERTURBED = [ROOT / "specs" / "gangster.mafia", ROOT / "tests" / "fixtures" / "lab.mafia",
             ROOT / "examples" / "whatif" / "gangster.query"]


@pytest.mark.parametrize("path", PERTURBED, ids=lambda p: p.name)
@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_spacing_does_not_matter(path, formatted, seed):
    canonical = formatted[path]
    noisy = perturb(canonical, str(path), random.Random(seed))
    assert ast_of(noisy, str(path)) == ast_of(canonical, str(path))
    assert fmt.format_text(noisy, str(path)) == canonical


def relayout(text: str, path: str, rnd: random.Random) -> str:
    """Break lines between random tokens, join others, indent at random: any layout."""
    toks, _ = fmt._read(text, fmt.start_rule_for(path))
    out, prev_end = [], 0
    for t in toks + [None]:
        start = t.token.start_pos if t else len(text)
        gap = text[prev_end:start]
        if t and prev_end and "#" not in gap:
            r = rnd.random()
            if r < 0.2:
                gap = "\n" * rnd.randint(1, 3) + " " * rnd.randint(0, 20)
            elif r < 0.4:
                gap = " "
        out.append(gap)
        if t:
            out.append(t.text)
            prev_end = t.token.end_pos
    return "".join(out)


@pytest.mark.parametrize("path", PERTURBED[1:], ids=lambda p: p.name)
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_any_layout_formats_once_and_for_all(path, formatted, seed):
    noisy = relayout(formatted[path], str(path), random.Random(seed))
    once = fmt.format_text(noisy, str(path))
    assert fmt.format_text(once, str(path)) == once
    assert ast_of(once, str(path)) == ast_of(formatted[path], str(path))


# ------------------------------------------------------------------ the command line

UGLY = 'side town "Town"   town\nrole citizen "C" {side town plain}\n'
PRETTY = 'side town "Town" town\nrole citizen "C" { side town  plain }\n'


def run(*args, cwd=ROOT):
    exe = shutil.which("mafiacheck")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "mafiacheck", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, encoding="utf-8")


def call(*args):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def test_check_lists_files_that_would_change(tmp_path):
    (tmp_path / "ugly.mafia").write_text(UGLY, encoding="utf-8")
    (tmp_path / "pretty.mafia").write_text(PRETTY, encoding="utf-8")
    r = run("fmt", "--check", str(tmp_path))
    assert r.returncode == 1, r.stderr
    assert f"would reformat {tmp_path / 'ugly.mafia'}" in r.stdout
    assert "pretty.mafia" not in r.stdout
    assert (tmp_path / "ugly.mafia").read_text(encoding="utf-8") == UGLY
    code, out, _ = call("fmt", "--check", str(tmp_path / "pretty.mafia"))
    assert code == 0 and "0 files would be reformatted, 1 already formatted" in out


def test_diff_prints_a_unified_diff_and_changes_nothing(tmp_path):
    path = tmp_path / "ugly.mafia"
    path.write_text(UGLY, encoding="utf-8")
    r = run("fmt", "--diff", str(path))
    assert r.returncode == 0, r.stderr
    assert f"--- {path}\n+++ {path} (formatted)\n" in r.stdout
    assert '\n-role citizen "C" {side town plain}\n' in r.stdout
    assert '\n+role citizen "C" { side town  plain }\n' in r.stdout
    assert path.read_text(encoding="utf-8") == UGLY
    code, out, _ = call("fmt", "--diff", "--check", str(path))
    assert code == 1 and "+++" in out and "would reformat" in out


def test_fmt_rewrites_in_place_queries_too(tmp_path):
    spec, query = tmp_path / "a.mafia", tmp_path / "sub" / "q.query"
    query.parent.mkdir()
    spec.write_bytes(UGLY.replace("\n", "\r\n").encode("utf-8"))
    query.write_text("query q {night 1 {shot on a}}", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a spec", encoding="utf-8")
    code, out, err = call("fmt", str(tmp_path))
    assert code == 0, err
    assert spec.read_bytes() == PRETTY.encode("utf-8")
    assert query.read_text(encoding="utf-8") == "query q { night 1 { shot on a } }\n"
    assert "2 files reformatted, 0 already formatted" in out
    assert call("fmt", "--check", str(tmp_path))[0] == 0


def test_a_file_that_does_not_parse_is_reported_and_left_alone(tmp_path):
    bad, good = tmp_path / "bad.mafia", tmp_path / "good.mafia"
    text = 'side town "Town" town\nrole x { sied town }\n'
    bad.write_text(text, encoding="utf-8")
    good.write_text(UGLY, encoding="utf-8")
    r = run("fmt", str(tmp_path))
    assert r.returncode == 2
    assert f"{bad}:2:10: error: unexpected name 'sied'" in r.stderr
    assert "did you mean 'side'?" in r.stderr and "Traceback" not in r.stderr + r.stdout
    assert bad.read_text(encoding="utf-8") == text
    assert good.read_text(encoding="utf-8") == PRETTY  # the others are still formatted


def test_unreadable_inputs_exit_two(tmp_path):
    code, _, err = call("fmt", str(tmp_path / "missing.mafia"))
    assert code == 2 and "no such file or folder" in err
    (tmp_path / "empty").mkdir()
    code, _, err = call("fmt", str(tmp_path / "empty"))
    assert code == 2 and "no .mafia or .query files" in err
    (tmp_path / "bin.mafia").write_bytes(b"\x00\x01")
    code, _, err = call("fmt", "--check", str(tmp_path / "bin.mafia"))
    assert code == 2 and "binary data" in err
