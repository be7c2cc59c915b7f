"""Matching a query over 100,000 skills (SPEC §8), with the card vectors cached.

Usage: python benchmarks/bench_match.py [--n 100000 | --db PATH] [--runs 100]

The synthetic store is the one bench_query builds (built once and kept, see stores.py); a store
given with --db is used as it is and never written. Either is measured on a copy without the
vectors a run kept. The first query embeds every skill's card (name and description) and keeps
the vectors; the figures that follow are per query from then on, for each strategy, with
queries made of words the library uses or taken from descriptions. Target: under 100 ms per
query with vectors cached. Figures only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import random
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_query import build
from make_library import WORDS

from skill_studio.core.agents import matching
from skill_studio.core.store import Store


def figures(label: str, times: list[float]) -> None:
    times = sorted(t * 1000 for t in times)
    p95 = times[max(0, int(len(times) * 0.95) - 1)]
    print(f"{label:34} p50 {statistics.median(times):7.1f} ms   p95 {p95:7.1f} ms   worst {times[-1]:7.1f} ms",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, help="skills in the synthetic store (default 100,000)")
    ap.add_argument("--db", type=Path, help="match over this store (on a copy: it is not written)")
    ap.add_argument("--runs", type=int, default=100)
    args = ap.parse_args()
    import stores

    def build_to(path: Path, n: int) -> None:
        with Store(path) as store:
            build(store, n - len(store), start=len(store))

    with stores.measured(args.db, args.n, build_to, program="bench_match") as measured, \
            tempfile.TemporaryDirectory() as tmp:
        print(measured.summary, flush=True)
        path = measured.path
        if not measured.given:   # the synthetic store is kept: measured on a copy too
            path = Path(tmp) / "store.db"
            stores.copy(measured.path, path)
        with sqlite3.connect(path) as conn:   # the first query embeds every card, as on a first run
            conn.execute("DELETE FROM skill_vectors")
        store = Store(path)
        rng = random.Random(9)
        # Half the queries are a few words of some skill's description (they have answers), half
        # are words the library uses at random.
        cards = store.match_cards()
        queries = []
        for i in range(args.runs):
            if i % 2 == 0:
                words = rng.choice(cards)[1].split()
                start = rng.randrange(max(1, len(words) - 6))
                queries.append(" ".join(words[start:start + rng.randint(4, 7)]))
            else:
                queries.append(" ".join(rng.sample(WORDS, rng.randint(2, 6))))
        t0 = time.perf_counter()
        first = matching.match(store, queries[0], 10, "vectors")
        print(f"{len(store):,} skills; first query (every card embedded, then kept): "
              f"{time.perf_counter() - t0:.2f} s", flush=True)
        t0 = time.perf_counter()
        for q in queries:   # each word's counts and forms are looked up once per library state, then kept
            matching.match(store, q, 10, "keywords")
        print(f"the queries' words looked up once: {time.perf_counter() - t0:.2f} s", flush=True)
        for strategy in matching.STRATEGIES:
            times, found = [], 0
            for q in queries:
                t0 = time.perf_counter()
                r = matching.match(store, q, 10, strategy)
                times.append(time.perf_counter() - t0)
                found += len(r.matches)
            figures(f"{strategy} ({found / len(queries):.1f} matches/query)", times)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory {peak:,.0f} MiB; first query found {len(first.matches)} skill(s)")
        store.close()


if __name__ == "__main__":
    main()
