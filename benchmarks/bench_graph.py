"""The dependency graph on synthetic libraries of 1,000 skills (3,000 depends edges) and 5,000
skills (15,000 depends edges): building it, checking its problems, and the layered and
force-directed layouts.

Usage: python benchmarks/bench_graph.py [--sizes 1000 5000] [--edges-per-skill 3] [--seed 7] [--realistic]

``--realistic`` builds libraries like real ones instead: most skills without any relation and a
few dozen small clusters (0.1 depends edge per skill).

The floor is the least any layered layout must work out, with networkx: the connected groups and
the topological generations of the depends edges. The layout's figure is printed with the
floor's and their ratio.

Targets: layout plus scene build for 1,000 skills under 1.5 s, for 5,000 under 10 s, and one
frame under 16 ms zoomed out (the whole graph) and zoomed in (life size, in the middle of it).
The scene is the Graph tab's own, drawn offscreen in a 1280 x 800 view; a frame is one
synchronous repaint of the view. On a big graph the first frame at a new zoom draws the picture
of the edges that the following frames show (zoomed out: the whole graph; zoomed in: the view
and a margin around it, drawn again when panning leaves it), so both are printed, and frames
while panning zoomed in. The libraries are built from rows, no store
needed: mostly acyclic (each edge goes from a skill to one earlier in a random order), plus a
handful of cycles, some dependencies on names that do not exist and some conflicting pairs.
Figures only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import networkx as nx

from skill_studio.core.graph.dependencies import SkillGraph
from skill_studio.core.graph.layout import layered_layout, spring_layout

LIFECYCLES = ["released"] * 6 + ["verified"] * 2 + ["candidate", "degraded", "deprecated", "archived"]


def synthetic_rows(n: int, edges: int, seed: int = 7, cycles: int = 5, missing: int = 20,
                   conflicts: int = 30) -> list[tuple]:
    """Rows as ``Store.graph_rows`` gives them, for ``n`` skills and about ``edges`` depends edges."""
    rng = random.Random(seed)
    names = [f"skill-{i:05d}" for i in range(n)]
    order = names[:]
    rng.shuffle(order)
    depends: dict[str, set[str]] = {name: set() for name in names}
    made = 0
    while made < edges - cycles * 2 - missing:
        later = rng.randrange(1, n)
        earlier = rng.randrange(later)
        if order[earlier] not in depends[order[later]]:
            depends[order[later]].add(order[earlier])
            made += 1
    for _ in range(cycles):   # a short way back up closes a cycle
        later = rng.randrange(3, n)
        earlier = later - rng.randint(1, 3)
        depends[order[later]].add(order[earlier])
        depends[order[earlier]].add(order[later])
    for i in range(missing):
        depends[rng.choice(names)].add(f"gone-{i:03d}")
    conflict: dict[str, list[str]] = {name: [] for name in names}
    for _ in range(conflicts):
        a, b = rng.sample(names, 2)
        conflict[a].append(b)
    rows = []
    for i, name in enumerate(names):
        parent = names[i - 1 - rng.randrange(min(i, 50))] if i and rng.random() < 0.1 else None
        rows.append((name, f"Synthetic skill number {i}. Use when testing.", rng.choice(LIFECYCLES),
                     rng.choice(["human", "llm", "builtin"]), rng.randint(1, 4), rng.random(), rng.random(),
                     rng.random(), rng.randint(0, 100), sorted(depends[name]), conflict[name], parent))
    return rows


def timed(label: str, func, *args):
    t0 = time.perf_counter()
    result = func(*args)
    print(f"  {label:<16} {time.perf_counter() - t0:7.3f} s", flush=True)
    return result


def best_of(func, *args, runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        func(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def floor(g: SkillGraph) -> None:
    """What any layered layout must work out: the clusters and the layers of the depends edges."""
    list(nx.weakly_connected_components(g.graph))
    list(nx.topological_generations(nx.condensation(g.depends_graph()).reverse(copy=False)))


def measure(n: int, edges: int, seed: int, realistic: bool = False) -> None:
    rows = (synthetic_rows(n, max(n // 10, 12), seed, cycles=2, missing=3, conflicts=5) if realistic
            else synthetic_rows(n, edges, seed))
    print(f"{n:,} skills, {sum(len(r[9]) for r in rows):,} depends edges:", flush=True)
    g = timed("build", SkillGraph.from_rows, rows)
    problems = timed("problems()", g.problems)
    kinds: dict[str, int] = {}
    for p in problems:
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
    print(f"  {len(g):,} nodes, {len(g.edges()):,} edges; problems: "
          + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items())), flush=True)
    t0 = time.perf_counter()
    layered = timed("layered_layout", layered_layout, g)
    layout_seconds = time.perf_counter() - t0
    layers = len({y for _, y in layered.values()})
    print(f"  {'':<16} {layers} rows of nodes", flush=True)
    timed("spring_layout", spring_layout, g)
    ours, least = best_of(layered_layout, g), best_of(floor, g)
    print(f"  layered layout, best of 5: {ours * 1000:.1f} ms; floor (networkx components + generations): "
          f"{least * 1000:.1f} ms; ratio {ours / least:.2f}x", flush=True)
    scene_figures(g, layered, problems, layout_seconds)


def scene_figures(g: SkillGraph, positions: dict, problems: list, layout_seconds: float) -> None:
    """Scene build and frame times of the Graph tab's view (offscreen)."""
    import os
    import statistics

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from skill_studio.ui.graph.graph_canvas import GraphCanvas
    from skill_studio.ui.graph.graph_scene import GraphScene

    app = QApplication.instance() or QApplication([])
    scene = GraphScene()
    canvas = GraphCanvas(scene)
    canvas.resize(1280, 800)
    canvas.show()
    t0 = time.perf_counter()
    scene.build(g, positions, problems)
    canvas.fit()
    app.processEvents()
    built = time.perf_counter() - t0
    print(f"  {'scene build':<16} {built:7.3f} s   layout + scene {layout_seconds + built:.2f} s", flush=True)

    def frame() -> float:
        t = time.perf_counter()
        canvas.viewport().repaint()
        return (time.perf_counter() - t) * 1000

    fitted = canvas.transform().m11()
    canvas._picture = None          # the first frame at this zoom draws the picture
    first = frame()
    out = statistics.median(frame() for _ in range(9))
    middle = sorted(scene.nodes.values(), key=lambda item: (item.pos().x(), item.pos().y()))[len(scene.nodes) // 2]
    canvas.resetTransform()
    canvas.centerOn(middle)
    canvas.update_detail()
    first_in = frame()
    inside = [frame() for _ in range(9)]
    panned = []
    for _ in range(9):   # pan by a fifth of the view each frame: new tiles come into view
        canvas.horizontalScrollBar().setValue(canvas.horizontalScrollBar().value() + 256)
        panned.append(frame())
    print(f"  frame, zoomed out (scale {fitted:.2f} after fit): first {first:.1f} ms, then "
          f"median {out:.1f} ms", flush=True)
    print(f"  frame, zoomed in (scale 1, the middle of the graph): first {first_in:.1f} ms, then median "
          f"{statistics.median(inside):.1f} ms; panning: median {statistics.median(panned):.1f} ms, "
          f"worst {max(panned):.1f} ms", flush=True)
    canvas.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    ap.add_argument("--edges-per-skill", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--realistic", action="store_true", help="mostly skills without relations, few clusters")
    args = ap.parse_args()
    for n in args.sizes:
        measure(n, int(n * args.edges_per_skill), args.seed, args.realistic)


if __name__ == "__main__":
    main()
