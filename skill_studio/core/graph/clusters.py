"""Clusters of the dependency graph: the skills with no relation of any kind, set apart, and the
connected groups (any edge, either direction), each laid out on its own and packed side by side
in rows, biggest first, so that a few dozen related skills are not drowned by hundreds of
unrelated ones.

Sizes are in the layout's units (see :mod:`skill_studio.core.graph.layout`).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

Positions = dict[str, tuple[float, float]]

NODE_W = 1.4          # room a node takes across (its box and the gap to the next)
NODE_H = 0.9          # room a node takes down
CLUSTER_GAP = 0.8     # between two clusters, beyond a node's own room
#: Width over height of the packed picture, in layout units: about 16:10 on screen, where a unit
#: across is drawn 1.7 times as long as a unit down.
ASPECT = 0.95


def split(graph: nx.MultiDiGraph) -> tuple[list[list[str]], list[str]]:
    """The connected groups of skills over every edge, either direction (each sorted by name;
    the biggest first, ties by their first name), and the skills with no relation at all
    (sorted; a skill whose only relation is to itself is a group of one)."""
    names = sorted(graph)
    if not names:
        return [], []
    index = {n: i for i, n in enumerate(names)}
    ends = np.array([(index[u], index[v]) for u, v in graph.edges()], dtype=np.int64).reshape(-1, 2)
    label = _labels(len(names), ends[:, 0], ends[:, 1])
    linked = np.zeros(len(names), dtype=bool)
    linked[ends.ravel()] = True
    loose = [names[i] for i in np.flatnonzero(~linked)]
    keep = np.flatnonzero(linked)
    order = keep[np.lexsort((keep, label[keep]))]          # by group, then by name
    cuts = np.flatnonzero(np.diff(label[order])) + 1
    groups = [[names[i] for i in part] for part in np.split(order, cuts)] if len(order) else []
    return sorted(groups, key=lambda c: (-len(c), c[0])), loose


def _labels(n: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Each node's group as the smallest index in it: roots hooked onto smaller roots across the
    edges, then paths shortened, until every edge joins two nodes of one label."""
    label = np.arange(n)
    while True:
        lu, lv = label[u], label[v]
        differ = lu != lv
        if not differ.any():
            return label
        lu, lv = lu[differ], lv[differ]
        np.minimum.at(label, np.maximum(lu, lv), np.minimum(lu, lv))
        while True:
            jumped = label[label]
            if (jumped == label).all():
                break
            label = jumped


def isolated(graph: nx.MultiDiGraph) -> list[str]:
    """The skills with no relation at all (no edge in or out; a self-dependency counts as one)."""
    return split(graph)[1]


def _box(pos: Positions, names: list[str]) -> tuple[float, float, float, float]:
    xs = [pos[n][0] for n in names]
    ys = [pos[n][1] for n in names]
    return min(xs), min(ys), max(xs) - min(xs) + NODE_W, max(ys) - min(ys) + NODE_H


Corner = tuple[float, float]


def pack(sizes: list[tuple[float, float]], width: float | None = None) -> tuple[list[Corner], float, float]:
    """Top-left corners for boxes of ``sizes`` placed in rows, in the order given, left to right;
    a row ends before it grows wider than ``width`` (by default the width that makes the whole
    about ASPECT wide for its height, and never narrower than the widest box). Returns the
    corners, the width and the height of the whole."""
    if not sizes:
        return [], 0.0, 0.0
    area = sum((w + CLUSTER_GAP) * (h + CLUSTER_GAP) for w, h in sizes)
    widest = max(w for w, _ in sizes)
    if width is None:
        width = math.sqrt(area * ASPECT)
    width = max(width, widest)
    corners = []
    x = y = row_h = used = 0.0
    for w, h in sizes:
        if x > 0 and x + w > width:
            y += row_h + CLUSTER_GAP
            x = row_h = 0.0
        corners.append((x, y))
        used = max(used, x + w)
        x += w + CLUSTER_GAP
        row_h = max(row_h, h)
    return corners, used, y + row_h


def arrange(parts: list[tuple[list[str], Positions]], loose: list[str], grid_row: float) -> Positions:
    """One picture of laid-out clusters and loose skills: each cluster (its names and their
    positions, in any frame) moved into its place in rows, biggest first as given; the loose
    skills in a grid below them, as wide as the clusters (or about square when alone)."""
    boxes = [_box(pos, names) for names, pos in parts]
    corners, width, height = pack([(w, h) for _, _, w, h in boxes])
    out: Positions = {}
    for (names, pos), (left, top, _, _), (cx, cy) in zip(parts, boxes, corners):
        dx, dy = cx - left + NODE_W / 2, cy - top + NODE_H / 2
        for n in names:
            x, y = pos[n]
            out[n] = (x + dx, y + dy)
    if loose:
        top = height + CLUSTER_GAP + NODE_H / 2 if parts else 0.0
        square = math.sqrt(len(loose) * NODE_W * grid_row * ASPECT) / NODE_W
        cols = max(1, min(len(loose), int(max(width / NODE_W, math.ceil(square)))))
        row, col = np.divmod(np.arange(len(loose)), cols)
        out.update(zip(loose, zip((col * NODE_W + NODE_W / 2).tolist(), (top + row * grid_row).tolist())))
    return out
