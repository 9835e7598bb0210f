"""Broken variants: each examples/broken/*.mafia must produce exactly the findings its header
declares, no more and no fewer.

Header lines (comments anywhere in the file, usually at the top); notes (severity info) are
checked only in a file that declares their code:

    # expect: CODE KIND [rules=NAME,NAME] [about="TEXT"]
        one line per finding `check` must print. CODE and KIND must match the finding exactly.
        `rules=` names (rules, abilities, sides, roles, as the message shows them) must each
        appear in that finding's message as a whole word; quote the list when a name has a
        space: rules="name one,name two". `about=` is a phrase the message must contain.
    # bound: N
        the --bound to check with (default 1).
    # checker-bug: WHAT
        the file declares what is true of it, but the checker gets it wrong today (a missing
        finding, a crash). The case is kept and marked xfail(strict=True): it fails loudly
        once the checker is fixed, so the marker is removed then.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from mafiacheck.analyses.encoded import Options
from mafiacheck.pipeline import check_file
from mafiacheck.registry import CODES, INTERNAL_ERROR

ROOT = Path(__file__).resolve().parent.parent
BROKEN = sorted((ROOT / "examples" / "broken").glob("*.mafia"))

EXPECT = re.compile(r"^#\s*expect:\s*(MC\d{3})\s+([a-z-]+)\s*(.*?)\s*$")
OPTION = re.compile(r'(\w+)=("([^"]*)"|\S+)')
BOUND = re.compile(r"^#\s*bound:\s*(\d+)\s*$")
BUG = re.compile(r"^#\s*checker-bug:\s*(.+?)\s*$")


class Expected:
    def __init__(self, code: str, kind: str, names: tuple[str, ...], about: str | None, line: int):
        self.code, self.kind, self.names, self.about, self.line = code, kind, names, about, line

    def matches(self, finding) -> bool:
        if finding.code != self.code or finding.kind != self.kind:
            return False
        msg = finding.message
        if any(not re.search(r"(?<!\w)" + re.escape(n) + r"(?!\w)", msg) for n in self.names):
            return False
        return self.about is None or self.about in msg

    def __repr__(self) -> str:
        extra = (f" rules={','.join(self.names)}" if self.names else "") + \
                (f' about="{self.about}"' if self.about else "")
        return f"line {self.line}: {self.code} {self.kind}{extra}"


def header(path: Path) -> tuple[list[Expected], int, str | None]:
    expected, bound, bug = [], 1, None
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if m := EXPECT.match(line):
            code, kind, rest = m.groups()
            opts = {k: (q if v.startswith('"') else v) for k, v, q in OPTION.findall(rest)}
            leftover = OPTION.sub("", rest).strip()
            assert not leftover and set(opts) <= {"rules", "about"}, \
                f"{path.name}:{i}: cannot read the expect line's options: {rest!r}"
            names = tuple(n.strip() for n in opts.get("rules", "").split(",") if n.strip())
            expected.append(Expected(code, kind, names, opts.get("about"), i))
        elif m := BOUND.match(line):
            bound = int(m.group(1))
        elif m := BUG.match(line):
            bug = m.group(1)
    return expected, bound, bug


def _assign(expected: list[Expected], findings: list) -> bool:
    """Whether each expectation can be matched to its own finding (a small backtracking
    search: the lists are a handful long)."""
    def go(i: int, used: frozenset) -> bool:
        if i == len(expected):
            return True
        return any(j not in used and expected[i].matches(f) and go(i + 1, used | {j})
                   for j, f in enumerate(findings))
    return go(0, frozenset())


def _params():
    for path in BROKEN:
        _, _, bug = header(path)
        marks = [pytest.mark.xfail(strict=True, reason=f"checker bug: {bug}")] if bug else []
        yield pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("path", list(_params()))
def test_broken_variant_findings(path):
    expected, bound, _ = header(path)
    assert expected, f"{path.name} declares no `# expect:` line"
    for e in expected:
        assert e.code in CODES, f"{path.name} {e}: unknown code"
        assert CODES[e.code].kind == e.kind, f"{path.name} {e}: {e.code} is of kind {CODES[e.code].kind}"

    result = check_file(str(path), options=Options(bound=bound))
    assert not result.diagnostics, f"{path.name} does not load: {[d.message for d in result.diagnostics]}"
    # Notes (severity info, such as how far the stalemate search went) are held to the header
    # only when it declares their code.
    notes = {e.code for e in expected if CODES[e.code].severity == "info"}
    findings = [f for f in result.findings if f.severity != "info" or f.code in notes]
    got = [f"{f.code} {f.kind}: {f.message}" for f in findings]

    assert Counter(f.code for f in findings) == Counter(e.code for e in expected), \
        f"{path.name}: findings differ from the header\n  declared: {expected}\n  printed:  " + \
        "\n             ".join(got)
    assert _assign(expected, findings), \
        f"{path.name}: the codes agree, but not the names or phrases\n  declared: {expected}\n" \
        f"  printed:  " + "\n             ".join(got)


def test_broken_variants_cover_every_code():
    assert len(BROKEN) >= 12
    declared, by_code = set(), {}
    for path in BROKEN:
        expected, _, bug = header(path)
        if bug:
            continue  # a case the checker gets wrong covers nothing yet
        for e in expected:
            declared.add(e.code)
            by_code.setdefault(e.code, []).append(path.stem)
    # MC900 is a bug in the checker: no spec may produce it (the fuzz tests look for it).
    missing = set(CODES) - declared - {INTERNAL_ERROR}
    assert missing == set(), f"codes no broken variant covers: {sorted(missing)}"
