"""How often matching finds the right skill: recall@1, recall@5 and MRR on a labelled set.

Usage: python benchmarks/bench_match_quality.py [--corpus tests/fixtures/match_eval] [--seed 7] [--show]

The corpus is a folder of skills and ``requests.yaml`` (natural requests, each with the skills
that answer it and its kind: direct, paraphrase, no-shared-word, family). The skills are
imported into a fresh store and given a use history drawn at random (uses, successes, last use):
a real library's skills are used unevenly, and a ranking must not let that outweigh relevance.

Printed for each strategy of ``skill_studio.core.agents.matching`` and for the floor, plain BM25
over name and description (SQLite FTS5, every word of the query OR'd): recall@1, recall@5 and MRR
over all requests, and MRR per kind. ``--show`` lists the requests the default strategy misses
at 5. Figures only; nothing here asserts.
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skill_studio.core.agents import matching
from skill_studio.core.health import scores
from skill_studio.core.library.importer import import_paths
from skill_studio.core.model import Lifecycle
from skill_studio.core.store import Store

ROOT = Path(__file__).resolve().parent.parent
DEPTH = 10   # ranks read per request


def load(corpus: Path) -> list[dict]:
    requests = yaml.safe_load((corpus / "requests.yaml").read_text(encoding="utf-8"))
    return [{"request": r["request"], "expected": set(r["expected"]), "kind": r.get("kind", "direct")}
            for r in requests]


def build(store: Store, corpus: Path, seed: int) -> None:
    """Import the skills, release them (so the gate shows them) and give each a use history."""
    report = import_paths(store, [corpus / "skills"])
    skipped = [e for e in report.entries if e.status == "skipped"]
    if skipped:
        raise SystemExit(f"corpus skills skipped on import: {[(e.source, e.reason) for e in skipped]}")
    rng = random.Random(seed)
    now = scores.utcnow()
    for name in sorted(store.names()):
        store.set_state(name, lifecycle=Lifecycle.RELEASED, trust_tier=3, reason="evaluation library")
        uses = rng.choice([0, 0, 0, 1, 3, 8, 20, 40])
        rate = rng.random()
        start = now - timedelta(days=rng.uniform(0, 120))
        for k in range(uses):
            store.record_use(name, rng.random() < rate, now=start + timedelta(hours=k))


def plain_bm25(store: Store) -> sqlite3.Connection:
    """A second index of name and description alone, default bm25 and tokenizer."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5 (name, description)")
    db.executemany("INSERT INTO t VALUES (?, ?)", [(r[0], r[1]) for r in store.match_cards()])
    return db


def bm25_ranking(db: sqlite3.Connection, query: str) -> list[str]:
    words = list(dict.fromkeys(w.casefold() for w in re.findall(r"\w+", query)))   # every word, as typed
    if not words:
        return []
    q = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    return [r[0] for r in db.execute("SELECT name FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?", (q, DEPTH))]


def figures(rankings: list[list[str]], requests: list[dict]) -> dict:
    out: dict = {"r1": 0.0, "r5": 0.0, "mrr": 0.0, "kinds": {}}
    kinds: dict[str, list[float]] = {}
    for ranking, req in zip(rankings, requests):
        place = next((k for k, n in enumerate(ranking, 1) if n in req["expected"]), None)
        rr = 1.0 / place if place else 0.0
        out["r1"] += place == 1
        out["r5"] += bool(place and place <= 5)
        out["mrr"] += rr
        kinds.setdefault(req["kind"], []).append(rr)
    n = len(requests)
    for key in ("r1", "r5", "mrr"):
        out[key] /= n
    out["kinds"] = {k: sum(v) / len(v) for k, v in sorted(kinds.items())}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(ROOT / "tests" / "fixtures" / "match_eval"))
    ap.add_argument("--seed", type=int, default=7, help="the random use history")
    ap.add_argument("--show", action="store_true", help="list the default strategy's misses")
    args = ap.parse_args()
    corpus = Path(args.corpus)
    requests = load(corpus)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "eval.db")
        build(store, corpus, args.seed)
        counts = {k: sum(r["kind"] == k for r in requests) for k in sorted({r["kind"] for r in requests})}
        print(f"{len(store)} skills, {len(requests)} requests ({', '.join(f'{k} {n}' for k, n in counts.items())})")
        rows = {"plain BM25 (floor)": [bm25_ranking(plain_bm25(store), r["request"]) for r in requests]}
        for strategy in matching.STRATEGIES:
            rows[strategy + (" (default)" if strategy == matching.DEFAULT_STRATEGY else "")] = [
                [m.name for m in matching.match(store, r["request"], DEPTH, strategy).matches] for r in requests]
        kinds = sorted({r["kind"] for r in requests})
        print(f"{'ranking':24} {'recall@1':>9} {'recall@5':>9} {'MRR':>7}  " + "  ".join(f"{k:>14}" for k in kinds))
        results = {}
        for label, rankings in rows.items():
            f = results[label] = figures(rankings, requests)
            print(f"{label:24} {f['r1']:9.3f} {f['r5']:9.3f} {f['mrr']:7.3f}  "
                  + "  ".join(f"{f['kinds'].get(k, 0):14.3f}" for k in kinds))
        floor, default = results["plain BM25 (floor)"], results[matching.DEFAULT_STRATEGY + " (default)"]
        print(f"default / floor: MRR {default['mrr'] / floor['mrr']:.2f}x, recall@5 "
              f"{default['r5'] / floor['r5']:.2f}x")
        if args.show:
            ranked = rows[matching.DEFAULT_STRATEGY + " (default)"]
            for ranking, req in zip(ranked, requests):
                if not set(ranking[:5]) & req["expected"]:
                    want = sorted(req["expected"])
                    print(f"  miss [{req['kind']}] {req['request']!r}: want {want}, got {ranking[:5]}")
        store.close()


if __name__ == "__main__":
    main()
