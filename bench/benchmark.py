"""Benchmarks (not tests): how long the analyses take, and how the encoding scales.

    python bench/benchmark.py            # the default tables, a few minutes
    python bench/benchmark.py --full     # bigger grids (bound 2, players up to 30)
    python bench/benchmark.py --only gangster --arithmetic   # Gangster on the arithmetic solver
    python bench/benchmark.py --preprocess   # with the preprocessing solver where it applies

Tables:
  1. each analysis per bundled spec, at bounds 1 and 2;
  2. the three Gangster questions of design.md (can the town win, can the mafia win, is
     there an unfinished game) for k = 1..10, answered in-process on one encoding of 10
     rounds built once, its phases given to one solver a round at a time;
  3. the same reachability questions answered by the Z3 encoding and by exhaustive
     enumeration through the interpreter, on a scenario small enough to enumerate;
  4. scaling over player count and bound on a generated scenario.
Times are wall-clock seconds on this machine; questions are bounded by the solver's
resource limit, so the answers themselves do not depend on the machine.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path

import z3

ROOT = Path(__file__).resolve().parent.parent

from mafiacheck.analyses.encoded import Encoded, Options  # noqa: E402
from mafiacheck.encode.solver import Limits, check, make_solver  # noqa: E402
from mafiacheck.encode.unroll import NONE, Game  # noqa: E402
from mafiacheck.evaluate import initial_state  # noqa: E402
from mafiacheck.interpreter.bind import BoundUse  # noqa: E402
from mafiacheck.interpreter.phases import matches, sequence  # noqa: E402
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
            encs = [Encoded(scenario, c, Options(bound=bound, preprocess=preprocess)) for c in scenario.compositions]
            build = time.perf_counter() - start
            if any(e.error for e in encs):
                rows.append([path.stem, bound, fmt(build), "not encoded: " + str(next(e.error for e in encs if e.error))]
                            + [""] * (len(ENCODED) - 1))
                continue
            cells = [path.stem, bound, fmt(build)]
            for kind in sorted(ENCODED):
                t0 = time.perf_counter()
                found = ANALYSES[kind](scenario, encs)
                cells.append(f"{fmt(time.perf_counter() - t0)} ({len(found)})")
            rows.append(cells)
    table("Analyses per spec (seconds; findings in brackets)",
          ["spec", "bound", "encode"] + sorted(ENCODED), rows)


# ---------------------------------------------------------------- 2. the Gangster questions

def gangster_questions(max_k, preprocess=False, finite=True):
    """One encoding of max_k rounds, built once; a solver takes its phases one round at a
    time (incremental unrolling) and answers the three questions per bound with push/pop."""
    scenario = load(str(ROOT / "specs" / "gangster.mafia"))
    seats = scenario.compositions[0].seats()
    t0 = time.perf_counter()
    game = Game(scenario, seats, 1 + 2 * max_k, symmetry=False)
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
        last = game.states[1 + 2 * k]["winner"]
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
    solver.add(game.constraints)
    out = set()
    for side in ("town", "mafia"):
        sid = game.ids.sides.index(side)
        solver.push()
        solver.add(z3.Or([st["winner"] == sid for st in game.states]))
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
                solver.add(game.constraints)
                solver.add(game.states[-1]["winner"] == game.ids.sides.index("town"))
                r = check(solver)
                cells.append(f"{fmt(time.perf_counter() - t0)} {r.status}")
            rows.append(cells)
    table("Scaling: can the town win within k rounds (encode + solve seconds, answer)",
          ["players"] + [f"k={k}" for k in bounds], rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true", help="the bigger grids")
    parser.add_argument("--only", choices=["specs", "gangster", "enumeration", "scaling"])
    parser.add_argument("--arithmetic", action="store_true",
                        help="the Gangster questions on the arithmetic solver, not the finite-domain one")
    parser.add_argument("--preprocess", action="store_true",
                        help="the preprocessing solver (Options.preprocess) instead of check's default")
    args = parser.parse_args()
    print(f"z3 {z3.get_version_string()}, python {sys.version.split()[0]}")
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
