"""Fuzz inputs and the oracle they are judged by, shared by tests/test_fuzz.py (a few hundred
inputs, in the suite) and bench/fuzz.py (10,000, by hand).

Inputs are of two families:
- generated: specs and queries built from the grammar's constructs with random names (in
  several scripts), numbers and nesting, some well past the limits;
- mutated: the bundled specs, the broken examples, the bad inputs and the what-if queries
  with slices deleted or repeated, tokens swapped, and characters that have broken tools
  before inserted (bidi controls, odd line breaks, NUL, quotes, brackets, huge numbers).

The oracle runs the command line's own handlers in this process (not `main`, whose
catch-all would hide a crash as exit 4) and accepts only an exit code of 0 to 3 with no
internal error reported; an exception, exit 4, `internal error` in the output or going
past the time limit is a failure.
"""

from __future__ import annotations

import io
import random
import re
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC_SEEDS = sorted([*ROOT.glob("specs/*.mafia"), *ROOT.glob("examples/broken/*.mafia"),
                     *ROOT.glob("tests/bad/*.mafia")])
QUERY_SEEDS = sorted([*ROOT.glob("examples/whatif/*.query"), *ROOT.glob("examples/games/*.query")])
QUERY_SPEC = ROOT / "specs" / "gangster.mafia"

# Characters and snippets that have broken parsers, reports or viewers.
ODD = ["\u202e", "\u2066", "\u200f", "\u2028", "\u2029", "\r", "\x0b", "\x0c", "\x85", "\x00",
       "\x1b[8m", "\ufeff", "\u200c", "ي", "ك", "о", "\\", '\\"', '"', "#", "{", "}", "(", ")",
       "\n", "\t", "999999999999", "-1", "0", "..", "@", "@0", "@99", "*", ",", ";", ":",
       "if true then ", "not ", "after 1 night: ", "(" * 70, "{" * 70, "not " * 1000,
       "if true then " * 700, "after 1 night: " * 800, "\U0001F600", "\udcff"]
# Nesting without brackets, as long as it gets: each stage after the parser recurses.
BOMBS = [("if true then ", "kill shot"), ("after 1 night: ", "kill shot"), ("not ", "true")]
KEYWORDS = ["scenario", "side", "role", "team", "composition", "phases", "ability", "rule", "day",
            "win", "priority", "setting", "assume", "item", "kind", "memory", "wake", "resolve",
            "precheck", "acknowledge", "query", "night", "expect", "state", "can", "must",
            "within", "winner", "stays", "leaves", "by", "at", "target", "where", "effect",
            "kill", "save", "block", "cites", "when", "then", "else", "and", "or", "in"]
NAMES = ["boss", "citizen", "doctor", "dоctor", "town", "mafia", "shot", "شهروند", "رئیس",
         "Комиссар", "a_b", "jack", "nobody", "vote", "kick", "day", "night"]
LONG_NAME = "x" * 250  # past MAX_NAME_LENGTH, now and then


def _name(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.01:
        return LONG_NAME
    return rng.choice(NAMES) if roll < 0.7 else "n" + str(rng.randrange(10 ** rng.randrange(1, 8)))


def _number(rng: random.Random) -> str:
    return str(rng.choice([0, 1, 2, 3, 4, 5, 10, 60, 61, 100, 10 ** 6] + [10 ** 12] * (rng.random() < 0.2)))


def _expr(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.3:
        return rng.choice(["true", "false", "alive(mafia) == 0", "alive(town) > 1",
                           "count(p where p.role == boss) >= 1", "target.alive",
                           "target.side == town", "alive(all) >= 3"] * 3
                          + [f"count(p where p.role == {_name(rng)}) >= {_number(rng)}",
                             f"{_name(rng)}", _number(rng)])
    pick = rng.randrange(5)
    if pick == 0:
        return "not " + _expr(rng, depth - 1)
    if pick == 1:
        return f"({_expr(rng, depth - 1)})"
    if pick == 2:
        return f"({_expr(rng, depth - 1)}) {rng.choice(['and', 'or'])} ({_expr(rng, depth - 1)})"
    if pick == 3:
        return f"({_expr(rng, depth - 1)}) {rng.choice(['==', '!=', '<', '>=', '+', '*'])} ({_expr(rng, depth - 1)})"
    return f"cases {{ {_expr(rng, depth - 1)}: 1, else: 2 }}"


def _effect(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.35:
        why = rng.choice(["why", "a\\nb", 'q\\"q', "\\"])  # escapes a witness script must keep
        return rng.choice(["kill shot", "save from shot", "block", "nothing", "inquire",
                           f'unspecified "{why}"', "convert to citizen", "stay", "win town"] * 3
                          + [f"convert to {_name(rng)}", f"win {_name(rng)}"])
    pick = rng.randrange(3)
    if pick == 0:
        if rng.random() < 0.3:  # nesting without brackets, as a person would write it
            return f"if {_expr(rng, depth - 1)} then {_effect(rng, depth - 1)}"
        return f"if {_expr(rng, depth - 1)} then {{ {_effect(rng, depth - 1)} }} else {{ {_effect(rng, depth - 1)} }}"
    if pick == 1:
        body = _effect(rng, depth - 1)
        return f"after {rng.choice(['1', '2', _number(rng)])} night: " + (body if rng.random() < 0.5 else f"{{ {body} }}")
    return f"{_effect(rng, depth - 1)}; {_effect(rng, depth - 1)}"


def generated_spec(rng: random.Random) -> str:
    """A spec from the grammar's constructs: often valid, sometimes nested past the limits."""
    bomb = rng.random() < 0.15  # then the rest stays simple, so the bomb reaches the builder
    deep = 1 if bomb else rng.choice([1, 2, 3, 5, 8, 40, 120])
    roles = list(dict.fromkeys(["boss", "citizen"] + [
        rng.choice(["doctor", "دکتر", "комиссар", "x1"]) if rng.random() < 0.9 else _name(rng)
        for _ in range(rng.randrange(0, 4))]))
    lines = [f'scenario {_name(rng)} "{_name(rng)}" {{ prefix {rng.choice(["GA", "XX", "x"])} }}',
             'side town "Town" town', 'side mafia "Mafia" dark', 'kind shot "Shot"']
    for i, role in enumerate(roles):
        side = "mafia" if i == 0 else rng.choice(["town"] * 10 + ["mafia", _name(rng)])
        lines.append(f'role {role} "{_name(rng)}" {{ side {side}{"  plain" if i % 2 else ""} }}')
    members = ", ".join(f"{r} * {rng.randrange(1, 4)}" if rng.random() < 0.3 else r for r in roles)
    lines.append(f"composition {_number(rng) if rng.random() < 0.2 else len(roles)} {{ {members} }}")
    lines.append(rng.choice(["phases { start intro_night  cycle day, night }",
                             "phases { cycle day, night  wins checked after day, night }", ""]))
    lines.append(rng.choice(["day { vote majority  tie no_exit }", "day { vote quorum by alive { 1..3: 2, else: 1 } }", ""]))
    for _ in range(rng.randrange(0, 3)):
        lines.append(f"ability a{rng.randrange(1000)} {{ by {rng.choice(roles)}  at night  "
                     f"target where {_expr(rng, deep)}  effect {_effect(rng, deep)} }}")
    for _ in range(rng.randrange(0, 2)):
        condition = _expr(rng, deep).replace("target", "p")  # a rule names its player p
        lines.append(f"rule r{rng.randrange(1000)} for p: if {condition} then {_effect(rng, deep)}")
    if bomb:
        head, tail = rng.choice(BOMBS)
        bomb = head * rng.choice([3000, 800, 95]) + tail  # 3000: past the 2048 frames Hypothesis allows
        lines.append(f"rule bomb for p: if true then {bomb}" if tail != "true" else f"win town when {bomb}")
    lines.append(f"win town when {_expr(rng, 2)}")
    lines.append(f"win mafia when {_expr(rng, 2)}")
    if rng.random() < 0.3:
        lines.append(f"setting {_name(rng)}: bool = {_expr(rng, deep)}")
    rng.shuffle(lines) if rng.random() < 0.1 else None
    return "\n".join(lines) + "\n"


def generated_query(rng: random.Random) -> str:
    """A query against gangster: phases, state, settings, expectations and open questions."""
    parts = []
    if rng.random() < 0.3:
        value = "not " * rng.choice([1, 50, 1000]) + "true" if rng.random() < 0.3 else _expr(rng, 3)
        parts.append(f"setting {rng.choice(['doctor_self_save', _name(rng)])} = {value}")
    if rng.random() < 0.3:
        parts.append(f"state {{ dead {_name(rng)}  counter {_name(rng)} {_name(rng)} = {_number(rng)} }}")
    for n in range(1, rng.randrange(1, 4)):
        parts.append(f"night {n} {{ {rng.choice(['shot', 'save', 'inquiry', _name(rng)])} on "
                     f"{rng.choice(['doctor', 'detective', '@1', '@' + _number(rng), _name(rng)])} }}")
        parts.append(f"day {n + 1} {{ vote {rng.choice(['none', '@2', _name(rng)])} }}")
    for _ in range(rng.randrange(0, 3)):
        parts.append(rng.choice([f"expect winner {_name(rng)}", f"expect stays {_name(rng)}",
                                 f"expect leaves {_name(rng)} by {_name(rng)}",
                                 "expect verdict determined", "expect no winner"]))
    if rng.random() < 0.15:
        parts = [f"{rng.choice(['can', 'must'])} {rng.choice(['winner', 'stays', 'leaves'])} "
                 f"{_name(rng)} within {rng.choice(['1', '2', '21', '1000000'])}"] + parts[:1]
    return "\n".join(parts)


def _mild(text: str, rng: random.Random) -> str:
    """One edit that keeps the text parsing most of the time, so the later stages (the
    resolver, the analyses, the reports) see it: a line repeated, two lines swapped, a number
    changed, a name replaced by another of the file, an odd character in a comment."""
    lines = text.split("\n")
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    op = rng.randrange(5)
    if op == 0:
        lines.insert(b, lines[a])
    elif op == 1:
        lines[a], lines[b] = lines[b], lines[a]
    elif op == 2:
        numbers = [m for m in re.finditer(r"\b\d+\b", text)]
        if numbers:
            m = rng.choice(numbers)
            return text[:m.start()] + _number(rng) + text[m.end():]
    elif op == 3:
        words = re.findall(r"[^\W\d]\w*", text)
        if words:
            old, new = rng.choice(words), rng.choice(words)
            return re.sub(rf"\b{re.escape(old)}\b", new, text, count=rng.randrange(1, 3))
    else:
        lines[a] += " # " + rng.choice(ODD) + rng.choice(NAMES)
    return "\n".join(lines)


def mutate(text: str, rng: random.Random) -> str:
    """`text` with one mild edit (half the time, see _mild) or one to four random ones."""
    if text and rng.random() < 0.5:
        return _mild(text, rng)
    for _ in range(rng.randrange(1, 5)):
        if not text:
            text = rng.choice(ODD)
            continue
        i = rng.randrange(len(text) + 1)
        j = min(len(text), i + rng.randrange(1, 200))
        op = rng.randrange(8)
        if op == 0:
            text = text[:i] + text[j:]  # delete a slice
        elif op == 1:
            k = rng.randrange(len(text) + 1)
            text = text[:k] + text[i:j] + text[k:]  # repeat a slice elsewhere
        elif op == 2:
            text = text[:i] + rng.choice(ODD) + text[i:]  # an odd character or snippet
        elif op == 3:
            text = text[:i] + rng.choice(KEYWORDS + NAMES) + " " + text[i:]
        elif op == 4:
            lines = text.split("\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif op == 5:
            text = text[:i]  # truncated
        elif op == 6:
            words = text.split(" ")
            words[rng.randrange(len(words))] = rng.choice(KEYWORDS + NAMES + [_number(rng)])
            text = " ".join(words)
        else:
            text = text[:i] + text[i:j] * rng.randrange(2, 30) + text[j:]  # a slice many times
    return text


@dataclass
class Verdict:
    ok: bool
    what: str  # the command that ran
    detail: str  # why it failed, or the exit code
    seconds: float


class _TimeUp(Exception):
    pass


@contextmanager
def time_limit(seconds: float):
    """Raise _TimeUp after `seconds` (a hang is a failure, not a stuck run)."""
    def stop(signum, frame):
        raise _TimeUp()

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run(argv: list[str], limit: float = 20.0) -> Verdict:
    """One command through the command line's handlers, judged."""
    from mafiacheck import cli

    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    what = " ".join(a if len(a) < 60 else a[:57] + "..." for a in argv)
    try:
        with time_limit(limit):
            args = cli.build_parser().parse_args(argv)
            code = cli._dispatch(args, out, err)
    except cli.UsageError as exc:
        return Verdict(False, what, f"usage error: {exc}", time.perf_counter() - started)
    except _TimeUp:
        return Verdict(False, what, f"no answer within {limit} s (a hang)", time.perf_counter() - started)
    except Exception as exc:  # noqa: BLE001 - this is what the fuzzer looks for
        import traceback
        return Verdict(False, what, "".join(traceback.format_exception(exc))[-2000:],
                       time.perf_counter() - started)
    seconds = time.perf_counter() - started
    output = out.getvalue() + err.getvalue()
    if code not in (0, 1, 2, 3):
        return Verdict(False, what, f"exit {code}: {output[-1500:]}", seconds)
    if "internal error" in output or "Traceback" in output or "MC900" in output:
        return Verdict(False, what, f"exit {code}, internal error: {output[-1500:]}", seconds)
    return Verdict(True, what, f"exit {code}", seconds)


def judge(kind: str, text: str, folder: Path, index: int, spec: Path = QUERY_SPEC,
          deep: bool = False) -> list[Verdict]:
    """Write the input to a file in `folder` and run what applies to it: a spec is checked
    (`setup`, or with `deep` every analysis at bound 1 under a small resource limit) and
    formatted; a query is asked of `spec` and formatted."""
    if kind == "spec":
        path = folder / f"fuzz{index}.mafia"
        path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
        verdicts = [run(["check", str(path), "--no-config", "--select", "setup"]),
                    run(["fmt", "--check", str(path)])]
        if deep and verdicts[0].ok and verdicts[0].detail in ("exit 0", "exit 1"):
            verdicts.append(run(["check", str(path), "--no-config", "--bound", "1",
                                 "--rlimit", "2000000", "--timeout", "5"], limit=300.0))
        return verdicts
    path = folder / f"fuzz{index}.query"
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    return [run(["ask", str(spec), str(path), "--timeout", "5", "--rlimit", "3000000"], limit=120.0),
            run(["fmt", "--check", str(path)])]


def case(rng: random.Random) -> tuple[str, str, str, Path]:
    """(kind, family, text, the spec a query is asked of) of one random input."""
    roll = rng.random()
    if roll < 0.25:
        return "spec", "generated spec", generated_spec(rng), QUERY_SPEC
    if roll < 0.35:
        return "query", "generated query", generated_query(rng), QUERY_SPEC
    if roll < 0.80:
        seed = rng.choice(SPEC_SEEDS)
        return ("spec", f"mutated {seed.name}",
                mutate(seed.read_bytes().decode("utf-8", "surrogateescape"), rng), QUERY_SPEC)
    seed = rng.choice(QUERY_SEEDS)
    text = seed.read_text(encoding="utf-8")
    blocks = text.split("\nquery ")  # one query of the file, mutated: whole files are slow
    block = rng.choice(blocks)
    block = block if block.startswith("query") else "query " + block
    spec = ROOT / "specs" / (seed.stem + ".mafia")  # a rulebook's queries, asked of it
    if not spec.exists():  # a bundled example rulebook's (examples/rulebooks/)
        spec = ROOT / "examples" / "rulebooks" / (seed.stem + ".mafia")
    return "query", f"mutated {seed.name}", mutate(block, rng) if rng.random() < 0.8 else block, spec
