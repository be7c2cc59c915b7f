"""The skill bus on 2,000 skills and 10,000 bindings over 30 event types: events dispatched per
second, logged (the real path: each event, its log row and the cooldowns it starts in one
transaction) and as a dry run (nothing written).

Usage: python benchmarks/bench_bus.py [--skills 2000] [--bindings 10000] [--types 30]
                                      [--seconds 3] [--seed 5]

Bindings (about 330 per event type, every one of them considered by each event of its type):
one in twenty without conditions, the others with one to three (exact values of repo and
git.branch, regexes on file.path); priorities from -5 to 10; three in five with a cooldown of
10, 60 or 600 s; a tenth disabled. A fifth of the skills are llm skills the gate keeps out
(untrusted), a few more are in states that are not exposed. One emit_event binding per event
type starts a one-step chain now and then. Each event has a repo, a branch and a file path;
the clock moves one second per event, so cooldowns start and expire. A dispatch counts as one
event, the events it emits included. A dispatch gives back every binding's outcome, built when
first read (most callers only log them): the time to read them all is shown apart.

Target: at least 2,000 events/s logged. Figures only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skill_studio.core.bus import dispatch as bus
from skill_studio.core.bus.dispatch import Binding, Condition
from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Lifecycle, Origin
from skill_studio.core.store import Store

REPOS = ["api", "web", "docs", "infra", "mobile"]
BRANCHES = ["main", "dev", "release", "feature/x"]
PATHS = ["src/app.py", "src/ui/view.ts", "README.md", "docs/guide.rst", "tests/test_app.py", "Makefile",
         "infra/main.tf", "web/index.html"]
REGEXES = [r"/\.py$/", r"/^src\//", r"/\.(ts|js)$/", r"/^tests?\//", r"/\.md$/", r"/(?i)makefile/"]


def build(store: Store, skills: int, bindings: int, types: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    batch = []
    for i in range(skills):
        name = f"skill-{i:05d}"
        text = f"---\nname: {name}\ndescription: Synthetic skill {i}. Use when testing.\n---\n# Skill {i}\n\nBody.\n"
        origin = Origin.LLM if rng.random() < 0.2 else Origin.HUMAN
        skill = build_skill(text.encode(), name, [], origin=origin, source=f"{name}/SKILL.md")
        skill.lifecycle = Lifecycle.RELEASED if rng.random() < 0.85 else rng.choice(list(Lifecycle))
        batch.append(skill)
    store.add_many(batch)
    event_types = [f"event_{t:02d}" for t in range(types)]
    made = []
    for n in range(bindings):
        conditions = []
        for _ in range(rng.choice([0] + [1] * 10 + [2] * 7 + [3] * 2)):
            kind = rng.random()
            if kind < 0.4:
                conditions.append(Condition("repo", rng.choice(REPOS)))
            elif kind < 0.6:
                conditions.append(Condition("git.branch", rng.choice(BRANCHES)))
            else:
                conditions.append(Condition("file.path", rng.choice(REGEXES)))
        action = rng.choice(["invoke_skill", "inject_context", "call_tool", "notify"])
        params = {"inject_context": {"text": f"Note {n}: {{file.path}} changed on {{git.branch}}"},
                  "call_tool": {"tool": f"tool_{n % 50}", "arguments": {"path": "{file.path}", "note": n}},
                  "notify": {"message": f"{{repo}}: {{file.path}} (rule {n})", "channel": "dev"},
                  "invoke_skill": {}}[action]
        made.append(Binding(f"skill-{rng.randrange(skills):05d}", rng.choice(event_types), action, params,
                            conditions, priority=rng.randint(-5, 10),
                            cooldown=float(rng.choice([0, 0, 10, 60, 600])), enabled=rng.random() > 0.1))
    for t in event_types:   # one chain per event type, for a twentieth of its events
        made[rng.randrange(len(made))] = Binding(
            f"skill-{rng.randrange(skills):05d}", t, "emit_event",
            {"event_type": rng.choice(event_types), "payload": {"from": "{repo}"}},
            [Condition("repo", rng.choice(REPOS)), Condition("git.branch", rng.choice(BRANCHES))])
    store.add_bindings(made)
    return event_types


def run(store: Store, event_types: list[str], seconds: float, record: bool, seed: int) -> None:
    rng = random.Random(seed)
    clock = datetime(2030, 1, 1, tzinfo=UTC)
    times, fired, considered, chains, reading = [], 0, 0, 0, 0.0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        payload = {"repo": rng.choice(REPOS), "git": {"branch": rng.choice(BRANCHES)},
                   "file": {"path": rng.choice(PATHS)}}
        clock += timedelta(seconds=1)
        t0 = time.perf_counter()
        d = bus.dispatch(store, rng.choice(event_types), payload, clock, record=record)
        times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        stack = [d]
        while stack:
            e = stack.pop()
            fired += len(e.fired)
            considered += len(e.outcomes)
            chains += bool(e.emitted)
            stack += e.emitted
        reading += time.perf_counter() - t0
    n = len(times)
    times.sort()
    label = "logged" if record else "dry run"
    print(f"{label:>8}: {n / sum(times):8,.0f} events/s   p50 {statistics.median(times) * 1000:6.3f} ms   "
          f"p95 {times[int(n * 0.95) - 1] * 1000:6.3f} ms   ({n:,} events, {considered / n:.0f} bindings "
          f"considered and {fired / n:.1f} fired per event, emitted events included; {chains / n:.0%} emitted); "
          f"reading every outcome afterwards: {reading / n * 1000:.3f} ms per event", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skills", type=int, default=2000)
    ap.add_argument("--bindings", type=int, default=10_000)
    ap.add_argument("--types", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bus.db")
        t0 = time.perf_counter()
        types = build(store, args.skills, args.bindings, args.types, args.seed)
        total, enabled = store.binding_counts()
        print(f"{len(store):,} skills, {total:,} bindings ({enabled:,} enabled) over {len(types)} event types, "
              f"built in {time.perf_counter() - t0:.1f} s", flush=True)
        t0 = time.perf_counter()
        for t in types:   # the first event of a type reads its bindings into the index
            bus.dispatch(store, t, {}, record=False)
        print(f"index of the {len(types)} event types read in {time.perf_counter() - t0:.2f} s", flush=True)
        run(store, types, args.seconds, True, args.seed)
        run(store, types, args.seconds, False, args.seed)
        size = store.path.stat().st_size + Path(f"{store.path}-wal").stat().st_size
        print(f"log: {store.event_count():,} events kept (retention {store.event_retention():,}); "
              f"store and WAL {size / 2**20:.1f} MiB")
        store.close()


if __name__ == "__main__":
    main()
