"""The long fuzz run: 10,000 generated and mutated specs and queries through the command
line's handlers (tests/fuzzing.py has the inputs and the oracle; tests/test_fuzz.py runs a
few hundred of them in the suite). Not a test: run it by hand after changing the reader,
the parser, the resolver or the reports.

    python bench/fuzz.py                 # 10,000 inputs, seed 0
    python bench/fuzz.py --count 500 --seed 7

Every input is judged: an exception, exit 4, an internal error in the output, or no answer
within the time limit is a failure; its input is kept under bench/fuzz-failures/ to replay
(`mafiacheck check FILE`). Exit 1 if anything failed.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import fuzzing  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--deep", type=float, default=0.01,
                        help="share of specs also checked with every analysis (bound 1, small rlimit)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    families: Counter = Counter()
    codes: Counter = Counter()
    failures = []
    slowest = (0.0, "")
    started = time.perf_counter()
    keep = ROOT / "bench" / "fuzz-failures"
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(args.count):
            kind, family, text, spec = fuzzing.case(rng)
            families[family.split(" ")[0] + " " + kind] += 1
            deep = kind == "spec" and rng.random() < args.deep
            for verdict in fuzzing.judge(kind, text, Path(tmp), index, spec, deep):
                command = verdict.what.split(" ")[0] + (" (all analyses)" if "--bound" in verdict.what else "")
                codes[command + " " + verdict.detail.split(":")[0]] += 1
                if verdict.seconds > slowest[0]:
                    slowest = (verdict.seconds, f"{family}: {verdict.what.split(' ')[0]}")
                if not verdict.ok:
                    keep.mkdir(exist_ok=True)
                    saved = keep / f"seed{args.seed}_{index}.{'mafia' if kind == 'spec' else 'query'}"
                    saved.write_bytes(text.encode("utf-8", errors="surrogatepass"))
                    failures.append((index, family, verdict, saved))
            if (index + 1) % 1000 == 0:
                print(f"  {index + 1} inputs, {len(failures)} failures, "
                      f"{time.perf_counter() - started:.0f} s", flush=True)
    total = time.perf_counter() - started
    print(f"fuzz: {args.count} inputs (seed {args.seed}) in {total:.0f} s; "
          f"{sum(codes.values())} commands; {len(failures)} failures")
    print("inputs: " + ", ".join(f"{n} {f}" for f, n in sorted(families.items())))
    print("results: " + ", ".join(f"{k}: {n}" for k, n in sorted(codes.items())))
    print(f"slowest command: {slowest[0]:.2f} s ({slowest[1]})")
    for index, family, verdict, saved in failures[:20]:
        print(f"FAILED #{index} ({family}) {verdict.what}: {verdict.detail.splitlines()[-1] if verdict.detail else ''}"
              f"\n  input kept in {saved.relative_to(ROOT)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
