"""Query speed on a 100,000-skill store: a page of cards, full-text search, counts.

Usage: python benchmarks/bench_query.py [--n 100000] [--db PATH] [--runs 200]

The store is built once (through the same codec and store code an import
uses) and kept at --db for later runs. Prints p50 and p95 per query; the
target is a p50 under 20 ms for each.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from make_library import COMMON, WORDS, generate

from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Lifecycle, Origin, SkillFile
from skill_studio.core.store import Filters, Store

STATES = [s.value for s in Lifecycle]


def build(store: Store, n: int) -> None:
    rng = random.Random(3)
    t0 = time.perf_counter()
    batch = []
    for i, (name, text, extra) in enumerate(generate(n, seed=11)):
        files = [SkillFile(p, t.encode(), m) for p, (t, m) in sorted(extra.items())]
        origin = rng.choice([Origin.HUMAN, Origin.HUMAN, Origin.LLM, Origin.BUILTIN])
        skill = build_skill(text.encode(), name, files, origin=origin, source=f"{name}/SKILL.md")
        skill.lifecycle = Lifecycle(rng.choice(STATES))
        batch.append(skill)
        if len(batch) == 1000:
            store.add_many(batch)
            batch = []
            if (i + 1) % 10_000 == 0:
                print(f"  built {i + 1:,} skills in {time.perf_counter() - t0:.0f} s", flush=True)
    if batch:
        store.add_many(batch)
    store._conn.execute("PRAGMA optimize")


def measure(label: str, fn, runs: int) -> None:
    fn()  # warm
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    p50 = statistics.median(times)
    p95 = times[int(len(times) * 0.95) - 1]
    verdict = "ok" if p50 < 20 else "OVER TARGET"
    print(f"{label:48} p50 {p50:7.2f} ms   p95 {p95:7.2f} ms   ({verdict})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "skill-studio-bench-100k.db")
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    store = Store(args.db)
    if len(store) < args.n:
        print(f"building a {args.n:,}-skill store at {args.db} (once) ...", flush=True)
        build(store, args.n - len(store))
    total = len(store)
    print(f"store: {total:,} skills, {args.db.stat().st_size / 2**20:,.0f} MiB")
    rng = random.Random(5)
    per_state = store.counts()["lifecycle"]

    def page():
        state = rng.choice(STATES)
        pages = max(1, per_state[state] // 200)
        store.list(Filters(lifecycle=state), limit=200, offset=200 * rng.randrange(pages))

    def first_page():
        store.list(Filters(lifecycle=rng.choice(STATES)), limit=200)

    mid = WORDS[len(COMMON) + 20: len(COMMON) + 2000]

    def word() -> str:
        return rng.choice(mid)

    def prefix() -> str:  # a word being typed
        w = rng.choice(mid)
        return w[: max(3, len(w) - 2)]

    def search(text, sort: str, lifecycle=None):
        """A page of 200 search results; ``text`` is called for each run."""
        return lambda: store.list(Filters(text=text(), lifecycle=lifecycle() if lifecycle else None),
                                  sort=sort, limit=200)

    def names_for_filter():
        store.names(Filters(lifecycle=rng.choice(STATES)))

    keys = {state: store.names(Filters(lifecycle=state)) for state in STATES}

    def page_by_keys():
        names = keys[rng.choice(STATES)]
        start = 200 * rng.randrange(max(1, len(names) // 200))
        store.cards(names[start:start + 200])

    measure("page of 200 cards, lifecycle filter (first)", first_page, args.runs)
    measure("page of 200 cards by keys (any page)", page_by_keys, args.runs)
    measure("keys of a lifecycle filter (a view's reset)", names_for_filter, args.runs)
    measure("page of 200 cards by OFFSET (any page)", page, args.runs)
    common, state = (lambda: rng.choice(COMMON)), (lambda: rng.choice(STATES))
    measure("FTS search box: one word, first 200 by name", search(word, "name"), args.runs)
    measure("FTS search box while typing (prefix), by name", search(prefix, "name"), args.runs)
    measure("FTS search box: common word + lifecycle tab", search(common, "name", state), args.runs)
    measure("FTS search, one word, top 200 by relevance", search(word, "relevance"), args.runs)
    measure("FTS search, two words, top 200", search(lambda: f"{common()} {word()}", "relevance"), args.runs)
    measure("FTS search while typing (prefix), top 200", search(prefix, "relevance"), args.runs)
    measure("FTS search, very common word, top 200", search(common, "relevance"), max(20, args.runs // 10))
    measure("counts per lifecycle and origin", lambda: store.counts(), args.runs)
    store.close()


if __name__ == "__main__":
    main()
