"""Similarity speed: embedding (refresh) and near-duplicate search on 10,000 and 50,000 skills.

Usage: python benchmarks/bench_similarity.py [--sizes 10000 50000] [--check 2000]

Each size is built in a temporary store with the same generator and store code
as bench_query.py. Prints the time of a cold refresh (every vector computed), in
this process and then with worker processes (as the health check runs it), a
warm refresh (none), near_duplicates and max_similarity, the peak memory of the
process, and whether near_duplicates on --check skills equals a brute-force
n x n computation. Figures only: nothing here fails on time.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_query import build
from make_library import generate

from skill_studio.core.health.similarity import SimilarityIndex
from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin
from skill_studio.core.store import Store


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def worker_peak_mib() -> float:
    """The peak memory of the largest worker process that has ended (0 when none ran)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def timed(label: str, fn):
    t0 = time.perf_counter()
    result = fn()
    print(f"  {label:34} {time.perf_counter() - t0:7.2f} s   (peak RSS {peak_mib():6.0f} MiB)", flush=True)
    return result


def run(n: int, folder: Path) -> None:
    print(f"{n:,} skills", flush=True)
    with Store(folder / f"sim-{n}.db") as store:
        timed("build store", lambda: build(store, n))
        index = SimilarityIndex(store)
        computed = timed("refresh, cold, in this process", index.refresh)
        print(f"  vectors computed: {computed:,} (dim {index.embedder.dim})")
        index.embedder.model += "-again"   # every vector stale again: the same work with worker processes
        timed("refresh, cold, worker processes", lambda: index.refresh(parallel=True))
        timed("refresh, warm", index.refresh)
        pairs = timed("near_duplicates(0.75)", index.near_duplicates)
        print(f"  pairs >= 0.75: {len(pairs):,}")
        timed("max_similarity", index.max_similarity)
        timed("scan (both in one pass)", index.scan)


def add_copies(store: Store, k: int) -> None:
    """Lightly edited copies of the first k generated skills (one line changed, one removed)."""
    skills = []
    for name, text, _ in generate(k, seed=11):
        lines = text.replace(f"name: {name}", f"name: {name}-copy", 1).split("\n")
        lines[-3] += " Also check the output first."
        del lines[-5]
        skills.append(build_skill("\n".join(lines).encode(), f"{name}-copy", [], origin=Origin.LLM,
                                  source=f"{name}-copy/SKILL.md"))
    store.add_many(skills)


def check(n: int, folder: Path) -> None:
    print(f"brute-force check on {n:,} skills", flush=True)
    with Store(folder / f"check-{n}.db") as store:
        build(store, n)
        add_copies(store, 50)
        index = SimilarityIndex(store)
        index.refresh()
        for threshold in (0.75, 0.3):
            pairs = index.near_duplicates(threshold)
            names, m = index.matrix()
            sims = m @ m.T
            i, j = np.nonzero(np.triu(sims >= threshold, k=1))
            expected = {(names[a], names[b]): float(sims[a, b]) for a, b in zip(i, j)}
            got = {(p.a, p.b): p.similarity for p in pairs}
            worst = max((abs(got[k] - expected[k]) for k in got.keys() & expected.keys()), default=0.0)
            same = got.keys() == expected.keys()
            copies = sum(a.endswith("-copy") or b.endswith("-copy") for a, b in got)
            print(f"  threshold {threshold}: {len(got):,} pairs ({copies} with an edited copy), "
                  f"same pairs as brute force: {same}, largest difference {worst:.2e}")
        off = sims[~np.eye(len(names), dtype=bool)]
        print(f"  similarity of distinct skills: mean {off.mean():.3f}, max {off.max():.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 50_000])
    ap.add_argument("--check", type=int, default=2000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.check:
            check(args.check, Path(tmp))
        for n in args.sizes:
            run(n, Path(tmp))
    print(f"peak RSS of the whole run: {peak_mib():.0f} MiB")


if __name__ == "__main__":
    main()
