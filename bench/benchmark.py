"""Benchmarks (not tests): how long the analyses take, and how the encoding scales.

    python bench/benchmark.py            # the default tables, a few minutes
    python bench/benchmark.py --full     # bigger grids (bound 2, players up to 30)
    python bench/benchmark.py --only gangster --arithmetic   # Gangster on the arithmetic solver
    python bench/benchmark.py --preprocess   # with the preprocessing solver where it applies
    python bench/benchmark.py --like-for-like [--anchors DIR] [--runs N]   # table 5 only
    python bench/benchmark.py --profile-ask    # where ask's time goes on table 5's questions
    python bench/benchmark.py --startup        # start-up of the commands, the parser's construction

Tables:
  1. each analysis per bundled spec, at bounds 1 and 2;
  2. the three Gangster questions of design.md (can the town win, can the mafia win, is
     there an unfinished game) for k = 1..10, answered in-process on one encoding of 10
     rounds built once, its phases given to one solver a round at a time;
  3. the same reachability questions answered by the Z3 encoding and by exhaustive
     enumeration through the interpreter, on a scenario small enough to enumerate;
  4. scaling over player count and bound on a generated scenario;
  5. (--like-for-like) the like-for-like comparison of issue 12: the anchors' Gangster core
     (bench/gangster_core.mafia) asked the anchors' 30 questions through the code path of
     `mafiacheck ask`, beside the peers in ../shared/anchors/gangster (clingo, hand-written
     Z3 fresh and incremental, the explicit-state referee), called in place; every answer
     must agree (exit 1 otherwise).
Times are wall-clock seconds on this machine; questions are bounded by the solver's
resource limit, so the answers themselves do not depend on the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import z3

ROOT = Path(__file__).resolve().parent.parent

from mafiacheck.analyses.encoded import DEFAULT_DEPTH, Encoded, Options  # noqa: E402
from mafiacheck.encode.solver import Limits, check, make_solver  # noqa: E402
from mafiacheck.encode.unroll import NONE, Game  # noqa: E402
from mafiacheck.evaluate import initial_state  # noqa: E402
from mafiacheck.interpreter.bind import BoundUse  # noqa: E402
from mafiacheck.phases import matches, sequence  # noqa: E402
from mafiacheck.interpreter.play import Player  # noqa: E402
from mafiacheck.pipeline import ANALYSES, ENCODED, load  # noqa: E402


def table(title, header, rows):
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(str(x) for x in row) + " |")
    sys.stdout.flush()


def solver_name(finite, preprocess):
    return "finite-domain" if finite else "preprocessing" if preprocess else "plain QF_LIA"


def fmt(seconds):
    return f"{seconds:.2f}"


# ---------------------------------------------------------------- 1. analyses per spec

def analyses_per_spec(bounds, preprocess=False):
    rows = []
    for path in sorted((ROOT / "specs").glob("*.mafia")):
        scenario = load(str(path))
        for bound in bounds:
            start = time.perf_counter()
            # As the default check: what no game of `bound` rounds answers is asked of longer ones.
            options = Options(bound=bound, deepen_to=max(bound, DEFAULT_DEPTH), preprocess=preprocess)
            encs = [Encoded(scenario, c, options) for c in scenario.compositions]
            build = time.perf_counter() - start
            if any(e.error for e in encs):
                rows.append([path.stem, bound, fmt(build), "not encoded: " + str(next(e.error for e in encs if e.error))]
                            + [""] * (len(ENCODED) - 1))
                continue
            cells = [path.stem, f"{bound}-{options.deepen_to}" if options.deepen_to > bound else bound, fmt(build)]
            for kind in sorted(ENCODED):
                t0 = time.perf_counter()
                found = ANALYSES[kind](scenario, encs)
                cells.append(f"{fmt(time.perf_counter() - t0)} ({len(found)})")
            rows.append(cells)
    table("Analyses per spec (seconds; findings in brackets)",
          ["spec", "rounds", "encode"] + sorted(ENCODED), rows)


# ---------------------------------------------------------------- 2. the Gangster questions

def gangster_questions(max_k, preprocess=False, finite=True):
    """One encoding of max_k rounds, built once; a solver takes its phases one round at a
    time (incremental unrolling) and answers the three questions per bound with push/pop."""
    scenario = load(str(ROOT / "specs" / "gangster.mafia"))
    seats = scenario.compositions[0].seats()
    t0 = time.perf_counter()
    game = Game(scenario, seats, 1 + 2 * max_k)  # its symmetry breaking added a round at a time
    build = time.perf_counter() - t0
    solver = make_solver(game.ctx, Limits(timeout=300, rlimit=200_000_000), preprocess=preprocess,
                         finite=finite and game.finite)
    rows, total, added = [], build, 0
    for k in range(1, max_k + 1):
        t0 = time.perf_counter()
        end = game.marks[2 * k]  # the opening phase and k rounds
        solver.add(game.constraints[added:end])
        for st in game.states[2 * k - 1 if k > 1 else 0: 2 * k + 2]:
            solver.add(game.symmetry(st))
        added = end
        feed = time.perf_counter() - t0
        last = game.states[1 + 2 * k].winner
        answers, times = [], []
        for goal in (last == game.ids.sides.index("town"), last == game.ids.sides.index("mafia"),
                     last == NONE):
            solver.push()
            solver.add(goal)
            r = check(solver)
            solver.pop()
            answers.append({"sat": "yes", "unsat": "no"}.get(r.status, r.status))
            times.append(r.seconds)
        total += feed + sum(times)
        rows.append([k, f"{sum(times):.3f}"] + [f"{a} {t:.3f}" for a, t in zip(answers, times)])
    table(f"Gangster: can the town win / can the mafia win / is there an unfinished game, within k rounds "
          f"({solver_name(finite and game.finite, preprocess)} solver)",
          ["k", "questions", "town wins", "mafia wins", "unfinished"], rows)
    print(f"\nencoding of {max_k} rounds built once: {build:.2f} s; all {3 * max_k} questions with it: "
          f"{total:.2f} s in total")


# ---------------------------------------------------------------- 3. Z3 against enumeration

MINI = """
scenario mini "Mini" { prefix MI }
side town "Town" town
side mafia "Mafia" dark
role boss "Boss" { side mafia }
role doc "Doc" { side town }
role citizen "Citizen" { side town  plain }
composition {n} { boss, doc, citizen * {c} }
kind shot "Shot"
phases { start night  cycle day, night  wins checked after day, night }
ability shot { by boss  at night  target where target.alive  effect kill shot }
ability heal { by doc  at night  target where target.alive  limit 1 per game on self  effect save from shot }
day { vote majority  tie no_exit }
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town)
"""


def enumerate_wins(scenario, seats, phases):
    """Every game of the interpreter, phase by phase, with states deduplicated: which sides
    can win within the phases."""
    player = Player(scenario)
    state = initial_state(scenario, seats)
    seq = sequence(scenario, state, phases)
    frontier = {state.key(): state}
    winners = set()
    for phase in seq:
        nxt = {}
        for st in frontier.values():
            for uses in _all_choices(scenario, st, phase):
                results, problems = player.play(st, phase, uses)
                if problems:
                    continue
                for new, report in results:
                    if report.winner:
                        winners.add(report.winner)
                    else:
                        nxt.setdefault(new.key(), new)
        frontier = nxt
    return winners


def _all_choices(scenario, st, phase):
    n = len(st.roles)
    options = []
    for a in scenario.abilities:
        if not any(matches(r, phase, r.moment) for r in a.phases):
            continue
        actors = [s for s in range(n) if st.alive[s] and st.roles[s] == a.actor.name.key]
        choice = [None] + [BoundUse(a.key, s, (t,), ()) for s in actors for t in range(n) if st.alive[t]]
        options.append(choice)
    if phase.kind == "day":
        options.append([BoundUse(None, None, (t,), (), "player") for t in range(n) if st.alive[t]]
                       + [BoundUse(None, None, (), (), "none")])
    for combo in itertools.product(*options):
        yield [u for u in combo if u is not None]


def z3_wins(scenario, seats, phases):
    game = Game(scenario, seats, phases)
    solver = make_solver(game.ctx, Limits(timeout=300, rlimit=200_000_000), finite=game.finite)
    solver.add(game.whole())
    out = set()
    for side in ("town", "mafia"):
        sid = game.ids.sides.index(side)
        solver.push()
        solver.add(z3.Or([st.winner == sid for st in game.states]))
        if check(solver).status == "sat":
            out.add(side)
        solver.pop()
    return out


def against_enumeration(sizes, max_k):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            spec = Path(tmp) / f"mini{n}.mafia"
            spec.write_text(MINI.replace("{n}", str(n)).replace("{c}", str(n - 2)), encoding="utf-8")
            scenario = load(str(spec))
            seats = scenario.compositions[0].seats()
            for k in range(1, max_k + 1):
                phases = 2 * k
                t0 = time.perf_counter()
                a = z3_wins(scenario, seats, phases)
                tz = time.perf_counter() - t0
                t0 = time.perf_counter()
                b = enumerate_wins(scenario, seats, phases)
                te = time.perf_counter() - t0
                rows.append([n, k, ", ".join(sorted(a)) or "none", fmt(tz), ", ".join(sorted(b)) or "none",
                             fmt(te), f"{te / tz:.1f}" if tz else "-", "yes" if a == b else "NO"])
    table("Which sides can win within k rounds: Z3 against exhaustive enumeration through the interpreter",
          ["players", "k", "Z3 answer", "Z3 s", "enumeration answer", "enumeration s", "ratio", "agree"], rows)


# ---------------------------------------------------------------- 4. scaling

SCALING = """
scenario scale "Scale" { prefix SC }
side town "Town" town
side mafia "Mafia" dark
role boss "Boss" { side mafia }
role thug "Thug" { side mafia }
role doc "Doc" { side town }
role sheriff "Sheriff" { side town  }
role citizen "Citizen" { side town  plain }
composition {n} { boss, thug * {m}, doc, sheriff, citizen * {c} }
kind shot "Shot"
team mafia { members side mafia  one of shot per night  leader boss then any }
phases { start night  cycle day, night  wins checked after day, night }
ability shot { by team mafia  at night  target where target.alive and target.side != mafia  effect kill shot }
ability heal { by doc  at night  target where target.alive  limit 1 per game on self  effect save from shot }
ability check { by sheriff  at night  target where target.alive  effect inquire }
day { vote majority  tie no_exit }
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town)
"""


def scaling(players, bounds):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in players:
            m = max(1, n // 4) - 1
            spec = Path(tmp) / f"scale{n}.mafia"
            spec.write_text(SCALING.replace("{n}", str(n)).replace("{m}", str(m))
                            .replace("{c}", str(n - m - 3)), encoding="utf-8")
            scenario = load(str(spec))
            seats = scenario.compositions[0].seats()
            cells = [n]
            for k in bounds:
                t0 = time.perf_counter()
                game = Game(scenario, seats, 2 * k)
                solver = make_solver(game.ctx, Limits(timeout=300, rlimit=500_000_000), finite=game.finite)
                solver.add(game.whole())
                solver.add(game.states[-1].winner == game.ids.sides.index("town"))
                r = check(solver)
                cells.append(f"{fmt(time.perf_counter() - t0)} {r.status}")
            rows.append(cells)
    table("Scaling: can the town win within k rounds (encode + solve seconds, answer)",
          ["players"] + [f"k={k}" for k in bounds], rows)


# ---------------------------------------------------------------- 5. like for like (issue 12)

CORE = ROOT / "bench" / "gangster_core.mafia"
LFL = {"a": "town win within k", "b": "mafia win within k", "c": "exactly k rounds, no winner"}


def default_anchors() -> Path:
    """../shared/anchors/gangster relative to the repository root; in a git worktree, relative
    to the main checkout's root (where ../shared is) when the worktree has no ../shared."""
    here = ROOT.parent / "shared" / "anchors" / "gangster"
    if here.is_dir():
        return here
    try:
        common = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
                                cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return here
    main_root = Path(common).parent if common else None
    there = main_root.parent / "shared" / "anchors" / "gangster" if main_root else None
    return there if there is not None and there.is_dir() else here


def load_anchors(path: Path):
    """The anchors' run.py (clingo), bmc_z3.py and referee.py, imported in place."""
    if not (path / "run.py").is_file():
        sys.exit(f"no anchors at {path} (give --anchors DIR, the folder with run.py, gangster.lp, "
                 "bmc_z3.py and referee.py)")
    sys.path.insert(0, str(path))
    spec = importlib.util.spec_from_file_location("gangster_anchor_run", path / "run.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    return run


def core_queries(kmax):
    """The 30 questions as one query file. (a) and (b) are `can winner SIDE within k`, (c) is
    `can winner none within k` (a game nobody has won after its k rounds): with one opening
    phase (the intro night), `within k` is 2k phases from the start, which is exactly the
    anchors' k rounds (intro night, day 1, night 1, …, night k-1, day k)."""
    goal = {"a": "winner town", "b": "winner mafia", "c": "winner none"}
    return "".join(f'query {q}_{k} "{LFL[q]}, k = {k}" {{ can {goal[q]} within {k} }}\n'
                   for k in range(1, kmax + 1) for q in LFL)


def ours_pass(scenario, source, queries, kmax):
    """Each question through queries.answer_all (what `mafiacheck ask` calls), timed one at a
    time, sharing the games as `mafiacheck ask` does with a file of them (open_questions.Reuse,
    told of every question first): {(k, q): (answer, seconds, problem or None)}."""
    from mafiacheck.crosscheck.open_questions import Reuse
    from mafiacheck.encode.solver import Limits
    from mafiacheck.interpreter.bind import Binder
    from mafiacheck.queries import answer_all

    reuse = Reuse(scenario, Limits(timeout=120))
    for query in queries:
        reuse.plan(Binder(scenario, source.path).bind(query))
    out = {}
    for query in queries:
        q, k = query.name.text.split("_")
        k = int(k)
        t0 = time.perf_counter()
        ((answer, *_),) = answer_all(scenario, source, [query], reuse=reuse)
        dt = time.perf_counter() - t0
        problem = None
        if answer.verdict == "yes":
            o = answer.outcomes[0] if answer.outcomes else None
            want = {"a": "town", "b": "mafia", "c": None}[q]
            if o is None or o.winner != want or (q == "c" and len(o.reports) != 2 * k):
                problem = "its game, replayed by the interpreter, does not answer the question"
        out[k, q] = (answer.verdict, dt, problem)
    return out


def peers_pass(run, kmax):
    out = {"clingo": {}, "z3": {}, "z3inc": {}}
    for k in range(1, kmax + 1):
        for q in LFL:
            r = run.solve_clingo(k, q)
            out["clingo"][k, q] = (r["answer"], r["seconds"])
            r = run.bmc_z3.solve_fresh(k, q)
            out["z3"][k, q] = (r["answer"], r["seconds"])
    for q in LFL:
        for r in run.bmc_z3.solve_incremental(kmax, q):
            out["z3inc"][r["k"], q] = (r["answer"], r["seconds"])
    t0 = time.perf_counter()
    out["referee"] = run.referee.explore(kmax)
    out["referee_s"] = time.perf_counter() - t0
    return out


def mafiacheck_cmd():
    exe = shutil.which("mafiacheck", path=os.path.dirname(sys.executable)) or shutil.which("mafiacheck")
    return [exe] if exe else [sys.executable, "-m", "mafiacheck"]


def cli_pass(query_file):
    """`mafiacheck ask` end to end (a fresh process: start-up, parse, every question, report)."""
    t0 = time.perf_counter()
    r = subprocess.run(mafiacheck_cmd() + ["ask", str(CORE), str(query_file), "--format", "json"],
                       capture_output=True, text=True, cwd=ROOT)
    dt = time.perf_counter() - t0
    try:
        verdicts = [a["verdict"] for a in json.loads(r.stdout)["answers"]]
    except (ValueError, KeyError):
        verdicts = None
    return dt, verdicts, r


def reuse_estimate(kmax=10, implied=False):
    """Not the ask path: what one encoding shared by the 30 questions would cost. One Game of
    kmax rounds, its phases given to one solver a round at a time (Game.marks), each question
    asked with push/pop under answer_open's conditions (no undefined, contradictory or
    overlapping phase). implied: also the fact the anchors state by hand, derived here from
    `exit required` and `exits 1` of this spec (not by the tool): a day that is played removes
    exactly one player, so after the d-th day at most n - d are alive.
    Returns {(k, q): (answer, seconds)} and the build seconds."""
    from mafiacheck.interpreter.bind import Binder
    from mafiacheck.query_text import load_queries

    scenario = load(str(CORE))
    source, queries = load_queries(core_queries(1))
    bound = Binder(scenario, source.path).bind(queries[0])
    t0 = time.perf_counter()
    game = Game(scenario, bound.seats, 2 * kmax, start=bound.state, first_phase=bound.state.phase_index + 1,
                symmetry=False)
    build = time.perf_counter() - t0
    solver = make_solver(game.ctx, Limits(timeout=120), finite=game.finite)
    ctx, n = game.ctx, game.n
    one, zero = z3.IntVal(1, ctx), z3.IntVal(0, ctx)
    town, mafia = game.ids.sides.index("town"), game.ids.sides.index("mafia")
    out, added, days = {}, 0, 0
    for k in range(1, kmax + 1):
        t0 = time.perf_counter()
        end = game.marks[2 * k - 1]
        solver.add(game.constraints[added:end])
        added = end
        for t in range(2 * k - 2 if k > 1 else 0, 2 * k):
            pv = game.vars[t]
            solver.add([z3.Not(c) for c, _ in pv.undefined] + [z3.Not(c) for c, *_ in pv.contradictions]
                       + [z3.Not(pv.overlap)])
            if implied and pv.phase.kind == "day":
                days += 1
                alive = game.states[t + 1].alive
                solver.add(z3.Implies(pv.active, z3.Sum([z3.If(a, one, zero) for a in alive]) <= n - days))
        feed = time.perf_counter() - t0
        states = game.states[1:2 * k + 1]
        goals = {"a": z3.Or([st.winner == town for st in states]),
                 "b": z3.Or([st.winner == mafia for st in states]),
                 "c": game.states[2 * k].winner == NONE}
        for q, goal in goals.items():
            t0 = time.perf_counter()
            solver.push()
            solver.add(goal)
            r = check(solver)
            solver.pop()
            out[k, q] = ({"sat": "yes", "unsat": "no"}.get(r.status, r.status),
                         time.perf_counter() - t0 + (feed if q == "a" else 0.0))
    return out, build


def like_for_like(anchors: Path, runs: int, kmax: int = 10) -> int:
    import clingo

    from mafiacheck.query_text import load_queries

    run = load_anchors(anchors)
    med = statistics.median
    print(f"\nlike for like: {CORE.relative_to(ROOT)} against the anchors in {anchors}")
    print(f"clingo {clingo.__version__}, {os.cpu_count()} CPUs; {runs} passes, medians "
          "(each pass: ours, then clingo and Z3 fresh per question, Z3 incremental, the referee)")

    t0 = time.perf_counter()
    scenario = load(str(CORE))
    load_s = time.perf_counter() - t0
    text = core_queries(kmax)
    source, queries = load_queries(text)
    # warm-up, not timed, as run.py warms up its engines
    ours_pass(scenario, source, queries[:1], kmax)
    run.solve_clingo(3, "a")
    run.bmc_z3.solve_fresh(3, "a")

    passes, shared = [], []
    for _ in range(runs):
        ours = ours_pass(scenario, source, queries, kmax)
        passes.append((ours, peers_pass(run, kmax)))
        shared.append((reuse_estimate(kmax), reuse_estimate(kmax, implied=True)))

    expressible = text
    with tempfile.TemporaryDirectory() as tmp:
        qfile = Path(tmp) / "core.query"
        qfile.write_text(expressible, encoding="utf-8")
        single = Path(tmp) / "core_one.query"
        single.write_text(expressible.splitlines()[0] + "\n", encoding="utf-8")
        cli = [cli_pass(qfile) for _ in range(runs)]
        cli_one = [cli_pass(single)[0] for _ in range(runs)]

    problems = []
    yn = {"sat": "yes", "unsat": "no"}
    for i, (ours, peers) in enumerate(passes, 1):
        for (k, q), (verdict, _, problem) in ours.items():
            want = "yes" if peers["referee"][k][q] else "no"
            got = {"ours": verdict, **{e: yn[peers[e][k, q][0]] for e in ("clingo", "z3", "z3inc")}}
            if any(v != want for v in got.values()):
                problems.append(f"pass {i} k={k} ({q}): {got}, referee {want}")
            if problem:
                problems.append(f"pass {i} k={k} ({q}): ours: {problem}")
    for i, (plain, implied) in enumerate(shared, 1):
        for label, (answers, _) in (("shared", plain), ("shared+implied", implied)):
            for (k, q), (verdict, _) in answers.items():
                if verdict != passes[0][0][k, q][0]:
                    problems.append(f"pass {i} k={k} ({q}): {label} encoding answers {verdict}")
    ab = [(k, q) for k in range(1, kmax + 1) for q in LFL]
    for i, (_, verdicts, r) in enumerate(cli, 1):
        want = [passes[0][0][key][0] for key in ab]
        if verdicts != want:
            problems.append(f"CLI run {i}: exit {r.returncode}, verdicts {verdicts}, in-process {want}; "
                            + r.stderr.strip()[-300:])

    def m(engine, k, q):
        if engine == "ours":
            return med([o[k, q][1] for o, _ in passes])
        return med([p[engine][k, q][1] for _, p in passes])

    rows, tot = [], dict.fromkeys(("ours", "clingo", "z3", "z3inc"), 0.0)
    for k in range(1, kmax + 1):
        for q in LFL:
            t = {e: m(e, k, q) for e in tot}
            for e in tot:
                tot[e] += t[e]
            rows.append([k, f"({q}) {LFL[q]}", passes[0][0][k, q][0], f"{t['ours']:.3f}",
                         f"{t['clingo']:.4f}", f"{t['z3']:.4f}", f"{t['z3inc']:.4f}",
                         f"{t['ours'] / t['clingo']:.0f}"])
    rows.append(["all", f"{3 * kmax} questions", "", f"{tot['ours']:.2f}", f"{tot['clingo']:.3f}",
                 f"{tot['z3']:.3f}", f"{tot['z3inc']:.3f}", f"{tot['ours'] / tot['clingo']:.0f}"])
    table(f"Gangster core, like for like: the anchors' {3 * kmax} questions (medians, seconds)",
          ["k", "question", "answer", "ours s", "clingo s", "z3 s", "z3-inc s", "ours/clingo"], rows)
    pass_tot = lambda e: [sum(t for _, t, *_ in (o if e == "ours" else p[e]).values()) for o, p in passes]  # noqa: E731
    print(f"\nper-pass totals (min-max): ours {min(pass_tot('ours')):.2f}-{max(pass_tot('ours')):.2f} s, "
          f"clingo {min(pass_tot('clingo')):.3f}-{max(pass_tot('clingo')):.3f} s, "
          f"z3 {min(pass_tot('z3')):.3f}-{max(pass_tot('z3')):.3f} s, "
          f"z3-inc {min(pass_tot('z3inc')):.3f}-{max(pass_tot('z3inc')):.3f} s; "
          f"referee (explicit state, k = 1..{kmax}) {med([p['referee_s'] for _, p in passes]):.2f} s")
    print(f"ours in one process: loading the spec {load_s:.2f} s (parse, resolve), then the {3 * kmax} questions "
          f"{tot['ours']:.2f} s = {(load_s + tot['ours']) / tot['clingo']:.0f}x clingo's {tot['clingo']:.3f} s "
          f"(target: 3x)")
    print(f"`mafiacheck ask {CORE.relative_to(ROOT)} FILE` end to end, a fresh process: the {3 * kmax} questions "
          f"{med(d for d, *_ in cli):.2f} s; one question (k = 1, (a)) {med(cli_one):.2f} s")
    rows, sums = [], [0.0] * 4
    for k in range(1, kmax + 1):
        cells = [sum(m("ours", k, q) for q in LFL), sum(m("clingo", k, q) for q in LFL)]
        for j in range(2):
            cells.append(med([sum(sh[j][0][k, q][1] for q in LFL) for sh in shared]))
        sums = [a + b for a, b in zip(sums, cells)]
        rows.append([k] + [f"{c:.3f}" for c in cells])
    builds = [med([sh[j][1] for sh in shared]) for j in range(2)]
    rows.append(["build", "", "", f"{builds[0]:.3f}", f"{builds[1]:.3f}"])
    rows.append(["all", f"{sums[0]:.2f}", f"{sums[1]:.3f}", f"{sums[2] + builds[0]:.2f}", f"{sums[3] + builds[1]:.2f}"])
    rows.append(["/clingo", f"{sums[0] / sums[1]:.0f}", "1", f"{(sums[2] + builds[0]) / sums[1]:.0f}",
                 f"{(sums[3] + builds[1]) / sums[1]:.0f}"])
    table("Not the ask path yet: the same questions on one shared encoding (reuse_estimate), per k, "
          "(a)+(b)+(c), medians, seconds",
          ["k", "ours (ask)", "clingo", "shared encoding", "shared + implied day count"], rows)
    if problems:
        print(f"\nAGREEMENT: FAILED ({len(problems)} problems)")
        for x in problems:
            print("  " + x)
        return 1
    print(f"\nAGREEMENT: ours, clingo, z3, z3-inc and the referee give the same answer to all "
          f"{3 * kmax} questions in all {runs} passes, and so do the shared encodings; the CLI gives "
          "the in-process answers; "
          "every yes of ours comes with a game the interpreter replays and that answers the question")
    return 0


@contextlib.contextmanager
def phase_timers(into: dict):
    """Wall-clock seconds of each part of answer_open, summed into `into` while active: binding
    the query, building the Game (Python term building, with the roles and ranges fixpoints),
    proving and stating the counting facts (encode/lemmas.py), handing the terms to the solver,
    solving, replaying the witness through the interpreter.
    The parts are wrapped where answer_open calls them; nothing else changes."""
    from mafiacheck.crosscheck import open_questions as oq
    from mafiacheck.interpreter.bind import Binder

    inner = [0.0]  # seconds spent in timed parts called from the part running now

    def timed(name, fn, stats=False):
        # Exclusive times: a part called from another (the lemmas' window games build phases,
        # and add terms) is counted as itself only, so the parts add up to the total.
        def wrapper(*args, **kwargs):
            t0, outer = time.perf_counter(), inner[0]
            inner[0] = 0.0
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.perf_counter() - t0
                into[name] = into.get(name, 0.0) + spent - inner[0]
                inner[0] = outer + spent
                if stats and args:
                    st = args[0].statistics()
                    for key in ("sat conflicts", "conflicts"):
                        if key in st.keys():
                            into["conflicts"] = into.get("conflicts", 0) + st.get_key_value(key)
                            break
        return wrapper

    from mafiacheck.encode import lemmas
    from mafiacheck.encode.unroll import Game

    # The Game is built lazily, a phase at a time, as questions reach further (Game.extend):
    # both its construction and each extension are building.
    saved = [(oq, "Game", oq.Game), (Game, "extend", Game.extend), (oq, "make_solver", oq.make_solver),
             (oq, "check", oq.check), (oq, "_replay", oq._replay), (oq, "fix_choices", oq.fix_choices),
             (lemmas, "implied", lemmas.implied), (Binder, "bind", Binder.bind), (z3.Solver, "add", z3.Solver.add)]
    oq.Game = timed("build", oq.Game)
    Game.extend = timed("build", Game.extend)
    lemmas.implied = timed("lemmas", lemmas.implied)
    oq.make_solver = timed("solver", oq.make_solver)
    oq.check = timed("solve", oq.check, stats=True)
    oq._replay = timed("replay", oq._replay)
    oq.fix_choices = timed("fix", oq.fix_choices)
    Binder.bind = timed("bind", Binder.bind)
    z3.Solver.add = timed("add", z3.Solver.add)
    try:
        yield into
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def profile_ask(kmax=10, runs=3):
    """Where the time of the 30 like-for-like questions goes, per question (medians over runs)."""
    from mafiacheck.queries import answer_all
    from mafiacheck.query_text import load_queries

    t0 = time.perf_counter()
    scenario = load(str(CORE))
    load_s = time.perf_counter() - t0
    from mafiacheck.crosscheck.open_questions import Reuse
    from mafiacheck.encode.solver import Limits
    from mafiacheck.interpreter.bind import Binder

    source, queries = load_queries(core_queries(kmax))
    answer_all(scenario, source, queries[:1])  # warm-up
    parts = ("bind", "build", "lemmas", "solver", "add", "solve", "replay")
    per = {}
    for _ in range(runs):
        # As ours_pass (and `mafiacheck ask` with a file of them): the questions share games.
        reuse = Reuse(scenario, Limits(timeout=120))
        for query in queries:
            reuse.plan(Binder(scenario, source.path).bind(query))
        for query in queries:
            q, k = query.name.text.split("_")
            into = {}
            t0 = time.perf_counter()
            with phase_timers(into):
                ((answer, *_),) = answer_all(scenario, source, [query], reuse=reuse)
            into["total"] = time.perf_counter() - t0
            into["verdict"] = answer.verdict
            per.setdefault((int(k), q), []).append(into)
    med = statistics.median
    rows, tot = [], dict.fromkeys(parts + ("other", "total"), 0.0)
    for (k, q), xs in per.items():
        cell = {p: med([x.get(p, 0.0) for x in xs]) for p in parts + ("total",)}
        cell["other"] = max(0.0, cell["total"] - sum(cell[p] for p in parts))
        for p in tot:
            tot[p] += cell[p]
        rows.append([k, q, xs[0]["verdict"]] + [f"{cell[p]:.3f}" for p in parts + ("other", "total")]
                    + [int(med([x.get("conflicts", 0) for x in xs]))])
    rows.append(["all", "", ""] + [f"{tot[p]:.2f}" for p in parts + ("other", "total")] + [""])
    table("Where `ask`'s time goes on the 30 like-for-like questions (medians, seconds): bind the query, "
          "build the Game (Python term building), prove the counting facts, make the solver, add the terms to it, solve, replay "
          "the witness through the interpreter",
          ["k", "q", "answer", "bind", "build", "lemmas", "solver", "add", "solve", "replay", "other", "total",
           "conflicts"], rows)
    share = ", ".join(f"{p} {100 * tot[p] / tot['total']:.0f}%" for p in parts + ("other",))
    print(f"\nloading the spec once (parse, resolve): {load_s:.2f} s; shares of the {3 * kmax} questions: {share}")


def startup(runs=11):
    """Start-up costs: each command in a fresh process (median of `runs`), and building the
    Lark parser in this process, from scratch and from its cache file."""
    from lark import Lark

    from mafiacheck import parser as mparser

    cmd = mafiacheck_cmd()
    commands = [["--help"], ["explain", "MC203"], ["fmt", "--check", "specs/gangster.mafia"],
                ["check", str(CORE.relative_to(ROOT)), "--select", "setup"],
                ["ask", str(CORE.relative_to(ROOT)), "can winner town within 1"]]
    rows = []
    for args in commands:
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run(cmd + args, capture_output=True, cwd=ROOT)
            times.append(time.perf_counter() - t0)
        rows.append(["mafiacheck " + " ".join(a if " " not in a else f"'{a}'" for a in args),
                     f"{statistics.median(times):.3f}", f"{min(times):.3f}-{max(times):.3f}"])
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], capture_output=True)
    rows.append(["python -c pass (the interpreter alone)", f"{time.perf_counter() - t0:.3f}", ""])
    grammar = mparser.grammar_text()
    options = dict(parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True,
                   start=list(mparser.START_RULES))
    built = []
    for _ in range(5):
        t0 = time.perf_counter()
        Lark(grammar, **options)
        built.append(time.perf_counter() - t0)
    rows.append(["Lark parser built (in process)", f"{statistics.median(built):.3f}", ""])
    if hasattr(mparser, "cached_lark"):
        with tempfile.TemporaryDirectory() as tmp:
            saved = os.environ.get("XDG_CACHE_HOME")
            os.environ["XDG_CACHE_HOME"] = tmp
            try:
                mparser.cached_lark()
                loaded = []
                for _ in range(5):
                    t0 = time.perf_counter()
                    mparser.cached_lark()
                    loaded.append(time.perf_counter() - t0)
            finally:
                if saved is None:
                    os.environ.pop("XDG_CACHE_HOME", None)
                else:
                    os.environ["XDG_CACHE_HOME"] = saved
        rows.append(["Lark parser loaded from its cache (parser.cached_lark)",
                     f"{statistics.median(loaded):.3f}", ""])
    table(f"Start-up (seconds; commands: median of {runs} fresh processes)", ["what", "median s", "range"], rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true", help="the bigger grids")
    parser.add_argument("--only", choices=["specs", "gangster", "enumeration", "scaling"])
    parser.add_argument("--arithmetic", action="store_true",
                        help="the Gangster questions on the arithmetic solver, not the finite-domain one")
    parser.add_argument("--preprocess", action="store_true",
                        help="the preprocessing solver (Options.preprocess) instead of check's default")
    parser.add_argument("--like-for-like", action="store_true",
                        help="only table 5: the Gangster core against the anchors (clingo, hand-written Z3)")
    parser.add_argument("--anchors", type=Path, default=None,
                        help="the anchors' folder (default: ../shared/anchors/gangster from the repository root)")
    parser.add_argument("--runs", type=int, default=3, help="passes of table 5 (medians are shown)")
    parser.add_argument("--kmax", type=int, default=10, help="table 5's largest k (default 10)")
    parser.add_argument("--startup", action="store_true",
                        help="only the start-up table: commands in fresh processes, the Lark parser's construction")
    parser.add_argument("--profile-ask", action="store_true",
                        help="only the breakdown of ask's time on the like-for-like questions")
    args = parser.parse_args()
    print(f"z3 {z3.get_version_string()}, python {sys.version.split()[0]}")
    if args.startup:
        startup()
        return
    if args.profile_ask:
        profile_ask(args.kmax, runs=args.runs)
        return
    if args.like_for_like:
        sys.exit(like_for_like(args.anchors or default_anchors(), args.runs, args.kmax))
    if args.only in (None, "specs"):
        analyses_per_spec([1, 2] if args.full else [1], preprocess=args.preprocess)
    if args.only in (None, "gangster"):
        gangster_questions(10, preprocess=args.preprocess, finite=not args.arithmetic)
    if args.only in (None, "enumeration"):
        against_enumeration([4, 5, 6] if args.full else [4, 5], 4 if args.full else 3)
    if args.only in (None, "scaling"):
        scaling([8, 12, 16, 20, 25, 30] if args.full else [8, 12, 16],
                [1, 2, 4, 8, 12] if args.full else [1, 2, 4])


if __name__ == "__main__":
    main()
