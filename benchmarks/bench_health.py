"""A whole health run (scores, vectors, near-duplicates, plan, the run kept) on 10,000 and 50,000 skills.

Usage: python benchmarks/bench_health.py [--sizes 10000 50000] [--check 2000]

Targets: 10,000 skills under 5 s, 50,000 under 60 s, peak memory under 1.5 GB. Each size is
measured twice on the same store: the first run computes every skill's vector (a library
checked for the first time), the second finds them stored (every later run: only skills whose
content changed are embedded again). The near-duplicate pairs are also checked against an
exact brute-force computation on --check skills (bench_similarity.check). Figures only.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_query import build
from bench_similarity import check, peak_mib, worker_peak_mib

from skill_studio.core.health import checks as health
from skill_studio.core.store import Store


def measure(n: int, folder: Path) -> None:
    store = Store(folder / f"health-{n}.db")
    t0 = time.perf_counter()
    build(store, n)
    print(f"{n:,} skills: store built in {time.perf_counter() - t0:.0f} s", flush=True)
    for label in ("first run (every vector computed)", "next run (vectors stored)"):
        t0 = time.perf_counter()
        result = health.run(store, parallel=True)   # as the command line and the window run it
        seconds = time.perf_counter() - t0
        planned = sum(result.summary["actions"].values())
        print(f"  {label}: {seconds:.2f} s — {len(result.pairs)} near-duplicate pairs, {planned} planned "
              f"actions, bands {result.summary['bands']}; peak memory so far {peak_mib():.0f} MiB", flush=True)
    store.close()


def health_workers() -> int:
    from skill_studio.core.health import similarity
    return min(similarity.MAX_WORKERS, len(os.sched_getaffinity(0)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    ap.add_argument("--check", type=int, default=2000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            measure(n, Path(tmp))
        if args.check:
            check(args.check, Path(tmp))
    workers = health_workers()
    print(f"peak memory: {peak_mib():.0f} MiB in this process, {worker_peak_mib():.0f} MiB in the largest of "
          f"{workers} worker processes: at most {peak_mib() + workers * worker_peak_mib():.0f} MiB together "
          f"(target < 1,536 MiB)")


if __name__ == "__main__":
    main()
