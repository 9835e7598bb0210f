"""A larger differential sweep than the test suite's: generated scenarios (tests/strategies.py)
until PHASES phases are compared, the coverage table, and every disagreement grouped by what
the compare says. The known splits (tests/test_splits_found.py) are drawn too unless
--avoid-known, so the sweep shows they are still found.

    python bench/differential_sweep.py --phases 2000 [--seed 0] [--avoid-known] [--show 2]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from strategies import Run, play_and_compare, scenario_texts  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phases", type=int, default=2000, help="stop once this many phases are compared")
    ap.add_argument("--seed", type=int, default=0, help="Hypothesis seed (the run is reproducible)")
    ap.add_argument("--avoid-known", action="store_true", help="stay clear of the known splits")
    ap.add_argument("--show", type=int, default=1, help="spec texts to print per kind of disagreement")
    args = ap.parse_args(argv)

    run = Run(avoid_known=args.avoid_known)
    start = time.perf_counter()

    @given(text=scenario_texts(avoid_known=args.avoid_known), seed=st.integers(0, 2**32 - 1))
    @settings(max_examples=100_000, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    def sweep(text, seed):
        if run.stats["phases"] < args.phases:
            play_and_compare(run, text, seed)

    settings_seed = __import__("hypothesis").seed(args.seed)
    try:
        settings_seed(sweep)()
    except KeyboardInterrupt:
        pass
    print(run.table())
    print(f"{time.perf_counter() - start:.0f} s")
    groups = defaultdict(list)
    for detail, text, phase, uses, *_ in run.splits:
        groups[re.sub(r"@\d+|\d+", "N", detail)].append((phase, detail, text, uses))
    print(f"\n{len(run.splits)} disagreements, {len(groups)} kinds:")
    for kind, found in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(found):>4}  {kind}")
    for kind, found in groups.items():
        for phase, detail, text, uses in found[:args.show]:
            print(f"\n--- {phase}: {detail}\nuses: {uses}\n{text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
