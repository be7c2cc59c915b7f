"""Layouts of the dependency graph: layered (prerequisites above what needs them), force-directed
and radial around one skill.

Positions are in abstract units where a node's box is about 1.0 wide and 0.4 high; a view
multiplies them. Every layout is deterministic for the same graph. The functions take any
:class:`Laid` graph: a :class:`skill_studio.core.graph.dependencies.SkillGraph` or a view of one.
"""

from __future__ import annotations

import math
from typing import Protocol

import networkx as nx
import numpy as np

from skill_studio.core.graph import clusters

Positions = dict[str, tuple[float, float]]


class Laid(Protocol):
    """What a layout reads of a graph: every relation, and the depends-on relations alone."""

    @property
    def graph(self) -> nx.MultiDiGraph: ...

    def depends_graph(self) -> nx.DiGraph: ...

X_GAP = clusters.NODE_W   # between neighbours in a layer (and columns of the grid)
LAYER_GAP = 1.5      # between layers
GRID_ROW = 0.8       # between rows of the grid of unconnected skills
SWEEPS = 4           # barycenter passes (down and up each count as one)
SPRING_NX_LIMIT = 500
SPRING_AREA = 3.0    # room per node in the force-directed layout
RING_GAP = 2.0       # radial: ring radius per hop
MIN_ARC = 1.3        # radial: room a node needs along its ring


# --- layered ------------------------------------------------------------------

def layered_layout(g: Laid) -> Positions:
    """Each cluster (skills joined by any relation) in layers by topological generation of its
    depends edges, prerequisites above (a cycle's members condensed into one layer), ordered
    within each layer by barycenter sweeps; the clusters packed in rows, biggest first, and the
    skills with no relation at all in a compact grid below them."""
    groups, loose = clusters.split(g.graph)
    parts: list[tuple[list[str], Positions]] = []
    if groups:
        # All clusters at once, then each on its own. When most skills are linked, the loose
        # ones go along; else the rest is copied (networkx walks a copy faster than a view).
        d = g.depends_graph()
        if len(loose) * 4 < len(d):
            pos, _, _ = _layers(d, sorted(d))
        else:
            linked = sorted(n for group in groups for n in group)
            kept = set(linked)
            sub: nx.DiGraph[str] = nx.DiGraph()
            sub.add_nodes_from(linked)
            sub.add_edges_from((u, v) for u, v in d.edges if u in kept and v in kept)
            pos, _, _ = _layers(sub, linked)
        parts = [(group, _compact(pos, group)) for group in groups]
    return clusters.arrange(parts, loose, GRID_ROW)


def _compact(pos: Positions, names: list[str]) -> Positions:
    """A cluster's positions from a layout of several at once: each layer's members side by
    side in the order they had there, centred on x = 0."""
    layers: dict[float, list[str]] = {}
    for n in sorted(names, key=lambda n: pos[n][0]):
        layers.setdefault(pos[n][1], []).append(n)
    out: Positions = {}
    for y, row in layers.items():
        for i, n in enumerate(row):
            out[n] = ((i - (len(row) - 1) / 2) * X_GAP, y)
    return out


def _layers(d: nx.DiGraph, names: list[str]) -> tuple[Positions, int, int]:
    """Positions of a depends graph whose nodes all have an edge, the number of layers and the
    widest layer's size."""
    cond = nx.condensation(d)
    mapping = cond.graph["mapping"]
    comp_layer = np.zeros(len(cond), dtype=np.int64)
    for level, comps in enumerate(nx.topological_generations(cond.reverse(copy=False))):
        comp_layer[comps] = level
    n = len(names)
    index = {name: i for i, name in enumerate(names)}
    comp = np.array([mapping[name] for name in names], dtype=np.int64)
    # A component's key is its first member by name, so the first order is by name.
    first = np.full(len(cond), n, dtype=np.int64)
    np.minimum.at(first, comp, np.arange(n))
    key = first[comp]
    layer = comp_layer[comp]
    count = int(layer.max()) + 1
    members = [np.flatnonzero(layer == level) for level in range(count)]   # fixed, by name
    local = np.empty(n, dtype=np.int64)
    for m in members:
        local[m] = np.arange(len(m))
    edges = np.array([(index[u], index[v]) for u, v in d.edges if comp[index[u]] != comp[index[v]]],
                     dtype=np.int64).reshape(-1, 2)
    below, above = edges[:, 0], edges[:, 1]          # the dependent, and its prerequisite higher up
    # Edges grouped by the layer of the node being placed: down sweeps look up, up sweeps look down.
    down = _group(layer[below], below, above, count)
    up = _group(layer[above], above, below, count)

    rank = np.empty(n, dtype=np.float64)
    for m in members:
        rank[m] = np.argsort(np.lexsort((m, key[m])))
    x = np.empty(n, dtype=np.float64)
    for m in members:
        x[m] = rank[m] - (len(m) - 1) / 2
    for sweep in range(SWEEPS):
        levels, groups = (range(1, count), down) if sweep % 2 == 0 else (range(count - 2, -1, -1), up)
        for level in levels:
            m = members[level]
            placed, other = groups[level]
            if len(placed) == 0 or len(m) < 2:
                continue
            total = np.bincount(local[placed], weights=x[other], minlength=len(m))
            seen = np.bincount(local[placed], minlength=len(m))
            bary = np.where(seen > 0, total / np.maximum(seen, 1), x[m])
            # A cycle's members stay together: order components by their members' mean.
            c = comp[m]
            _, inv = np.unique(c, return_inverse=True)
            group_bary = (np.bincount(inv, weights=bary) / np.bincount(inv))[inv]
            order = np.lexsort((rank[m], bary, key[m], group_bary))
            rank[m[order]] = np.arange(len(m))
            x[m] = rank[m] - (len(m) - 1) / 2
    pos = {name: (float(x[i] * X_GAP), float(layer[i] * LAYER_GAP)) for i, name in enumerate(names)}
    return pos, count, max(len(m) for m in members)


def _group(level: np.ndarray, placed: np.ndarray, other: np.ndarray, count: int) -> list:
    order = np.argsort(level, kind="stable")
    bounds = np.searchsorted(level[order], np.arange(count + 1))
    return [(placed[order[a:b]], other[order[a:b]]) for a, b in zip(bounds[:-1], bounds[1:])]


# --- force-directed -----------------------------------------------------------

def spring_layout(g: Laid, seed: int = 7) -> Positions:
    """Force-directed over every edge kind (networkx below 500 nodes, a gridded
    Fruchterman-Reingold above), scaled to about the density of the layered layout; each
    cluster then moved into its place in rows, biggest first, and the skills with no relation
    at all in a compact grid below, as there."""
    graph = g.graph
    groups, loose = clusters.split(graph)
    linked = sorted(n for group in groups for n in group)
    parts: list[tuple[list[str], Positions]] = []
    if linked:
        index = {name: i for i, name in enumerate(linked)}
        pairs = sorted({(min(index[u], index[v]), max(index[u], index[v])) for u, v in graph.edges() if u != v})
        if len(linked) < SPRING_NX_LIMIT:
            h: nx.Graph[str] = nx.Graph()
            h.add_nodes_from(linked)
            h.add_edges_from((linked[a], linked[b]) for a, b in pairs)
            raw = nx.spring_layout(h, seed=seed, method="force")
            xy = np.array([raw[name] for name in linked], dtype=np.float64)
        else:
            xy = fruchterman_reingold(len(linked), np.array(pairs, dtype=np.int64).reshape(-1, 2), seed)
        xy -= (xy.max(axis=0) + xy.min(axis=0)) / 2
        # Half the nodes within the radius that gives each about SPRING_AREA units of room.
        half = float(np.median(np.sqrt((xy * xy).sum(axis=1)))) or 1.0
        xy *= math.sqrt(0.5 * len(linked) * SPRING_AREA / math.pi) / half
        pos = {name: (float(xy[i, 0]), float(xy[i, 1])) for i, name in enumerate(linked)}
        parts = [(group, _spread_out(pos, group)) for group in groups]
    return clusters.arrange(parts, loose, GRID_ROW)


def _spread_out(pos: Positions, names: list[str], limit: int = 300, most: float = 4.0) -> Positions:
    """A small cluster's positions scaled up (at most ``most`` times) until no two of its nodes'
    rooms overlap; a big one as it is (its forces keep nodes apart, and the pairs are many)."""
    if len(names) < 2 or len(names) > limit:
        return {n: pos[n] for n in names}
    xy = np.array([pos[n] for n in names], dtype=np.float64)
    d = np.abs(xy[:, None, :] - xy[None, :, :]) / (clusters.NODE_W, clusters.NODE_H)
    gap = d.max(axis=2)
    np.fill_diagonal(gap, np.inf)
    closest = float(gap.min())
    factor = min(most, 1.0 / closest) if closest < 1.0 else 1.0
    return {n: (float(x * factor), float(y * factor)) for n, (x, y) in zip(names, xy)}


def fruchterman_reingold(n: int, edges: np.ndarray, seed: int = 7, iterations: int = 60) -> np.ndarray:
    """Positions (n × 2, in about the unit square) by Fruchterman-Reingold, with repulsion exact
    between nodes of the same cell of a grid and from the other cells' centres of mass:
    about n·√n work per iteration instead of n²."""
    rng = np.random.default_rng(seed)
    pos = rng.random((n, 2))
    k2 = 1.0 / n                      # k² where k is the ideal edge length in the unit square
    side = max(2, int(round(math.sqrt(math.sqrt(n)) * 2)))
    cells = side * side
    temperature = 0.1
    cool = temperature / (iterations + 1)
    a, b = (edges[:, 0], edges[:, 1]) if len(edges) else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    for _ in range(iterations):
        cell = _cells(pos, side)
        mass = np.bincount(cell, minlength=cells).astype(np.float64)
        occupied = np.flatnonzero(mass)
        centre = np.stack([np.bincount(cell, weights=pos[:, i], minlength=cells)[occupied] for i in (0, 1)],
                          axis=1) / mass[occupied, None]
        slot = np.full(cells, -1, dtype=np.int64)
        slot[occupied] = np.arange(len(occupied))
        disp = _far(pos, centre, mass[occupied], slot[cell], k2) + _near(pos, cell, mass, k2)
        if len(a):
            delta = pos[a] - pos[b]
            pull = delta * (np.sqrt((delta * delta).sum(axis=1)) / math.sqrt(k2))[:, None]
            for i in (0, 1):
                disp[:, i] -= np.bincount(a, weights=pull[:, i], minlength=n)
                disp[:, i] += np.bincount(b, weights=pull[:, i], minlength=n)
        disp -= (pos - pos.mean(axis=0)) * 2.0    # gravity keeps loose parts near the rest
        length = np.sqrt((disp * disp).sum(axis=1))
        length[length == 0] = 1.0
        pos += disp * (np.minimum(length, temperature) / length)[:, None]
        temperature -= cool
    return pos


def _cells(pos: np.ndarray, side: int) -> np.ndarray:
    """Each node's cell in a grid whose rows and columns hold about as many nodes each."""
    cuts = np.linspace(0, 1, side + 1)[1:-1]
    bx = np.searchsorted(np.quantile(pos[:, 0], cuts), pos[:, 0])
    by = np.searchsorted(np.quantile(pos[:, 1], cuts), pos[:, 1])
    return bx * side + by


def _far(pos: np.ndarray, centre: np.ndarray, mass: np.ndarray, own: np.ndarray, k2: float,
         block: int = 2048) -> np.ndarray:
    """Repulsion from every other cell's centre of mass: the sum over cells of
    m·k²·(p − c)/|p − c|², as p·Σw − w·c with matrix products doing the sums."""
    out = np.empty_like(pos)
    c2 = (centre * centre).sum(axis=1)
    ct = np.ascontiguousarray(centre.T)
    weight = mass * k2
    for start in range(0, len(pos), block):
        p = pos[start:start + block]
        d2 = p @ ct
        d2 *= -2.0
        d2 += (p * p).sum(axis=1)[:, None]
        d2 += c2
        w = np.divide(weight, np.maximum(d2, 1e-9, out=d2), out=d2)
        w[np.arange(len(p)), own[start:start + block]] = 0.0
        out[start:start + block] = p * w.sum(axis=1)[:, None] - w @ centre
    return out


def _near(pos: np.ndarray, cell: np.ndarray, mass: np.ndarray, k2: float) -> np.ndarray:
    """Exact repulsion between the nodes that share a cell."""
    n = len(pos)
    order = np.argsort(cell, kind="stable")
    counts = mass.astype(np.int64)
    starts = np.cumsum(counts) - counts
    per = counts[cell[order]]                          # partners of each node, itself included
    i = np.repeat(np.arange(n), per)
    j = np.repeat(starts[cell[order]], per) + (np.arange(len(i)) - np.repeat(np.cumsum(per) - per, per))
    keep = i != j
    u, v = order[i[keep]], order[j[keep]]
    delta = pos[u] - pos[v]
    w = k2 / np.maximum((delta * delta).sum(axis=1), 1e-9)
    out = np.empty_like(pos)
    for axis in (0, 1):
        out[:, axis] = np.bincount(u, weights=delta[:, axis] * w, minlength=n)
    return out


# --- radial -------------------------------------------------------------------

def radial_layout(g: Laid, center: str) -> Positions:
    """``center`` at (0, 0) and rings by hop distance over any edge (radius about 2 per hop,
    more when a ring is crowded); each node near the angle of the node it was reached from;
    nodes not reachable on an outer ring."""
    if center not in g.graph:
        raise KeyError(center)
    graph = g.graph
    parent: dict[str, str] = {}
    rings: list[list[str]] = [[center]]
    seen = {center}
    while rings[-1]:
        ring = []
        for u in rings[-1]:
            for v in sorted((set(graph.succ[u]) | set(graph.pred[u])) - seen):
                seen.add(v)
                parent[v] = u
                ring.append(v)
        rings.append(ring)
    rings.pop()
    size = dict.fromkeys(seen, 1)
    for ring in reversed(rings[1:]):
        for v in ring:
            size[parent[v]] += size[v]
    # Each node gets a wedge in proportion to what was reached through it; it sits in the middle.
    start, span = {center: 0.0}, {center: 2 * math.pi}
    for ring in rings[1:]:
        cursor: dict[str, float] = {}
        for v in ring:
            p = parent[v]
            span[v] = span[p] * size[v] / (size[p] - 1)
            start[v] = cursor.get(p, start[p])
            cursor[p] = start[v] + span[v]
    pos: Positions = {center: (0.0, 0.0)}
    radius = 0.0
    for ring in rings[1:]:
        radius = max(radius + RING_GAP, len(ring) * MIN_ARC / (2 * math.pi))
        targets = np.array([start[v] + span[v] / 2 for v in ring])
        _place_ring(pos, ring, _spread(targets, MIN_ARC / radius), radius)
    rest = sorted(set(graph) - seen)
    if rest:
        radius = max(radius + RING_GAP, len(rest) * MIN_ARC / (2 * math.pi))
        _place_ring(pos, rest, np.arange(len(rest)) * (2 * math.pi / len(rest)), radius)
    return pos


def _spread(targets: np.ndarray, gap: float) -> np.ndarray:
    """Angles as near the targets as they can be with at least ``gap`` between neighbours."""
    order = np.argsort(targets, kind="stable")
    t = targets[order]
    steps = np.arange(len(t)) * gap
    placed = steps + np.maximum.accumulate(t - steps)
    placed -= (placed - t).mean() / 2
    if len(t) > 1 and placed[-1] - placed[0] > 2 * math.pi - gap:
        placed = t[0] + np.arange(len(t)) * (2 * math.pi / len(t))
    out = np.empty_like(placed)
    out[order] = placed
    return out


def _place_ring(pos: Positions, names: list[str], angles: np.ndarray, radius: float) -> None:
    for name, angle in zip(names, angles):
        pos[name] = (radius * math.cos(angle), radius * math.sin(angle))


LAYOUTS = {"layered": layered_layout, "spring": spring_layout}
