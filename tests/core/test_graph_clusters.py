"""Clusters of the dependency graph: skills without relations apart, connected groups packed in
rows biggest first, without overlapping, in both layouts."""

from __future__ import annotations

import random

import pytest

from skill_studio.core.graph.clusters import NODE_H, NODE_W, pack, split
from skill_studio.core.graph.dependencies import SkillGraph
from skill_studio.core.graph.layout import layered_layout, spring_layout


def row(name, depends=(), conflicts=(), parent=None):
    return (name, f"About {name}.", "released", "human", 3, 0.5, 0.9, 0.7, 4, list(depends), list(conflicts), parent)


def library(seed=5, loose=150, clusters=12):
    """Many skills without relations, and clusters of 2 to 15 skills joined by every kind of
    relation (one with a cycle, one with a missing dependency)."""
    rng = random.Random(seed)
    rows = [row(f"alone-{i:03d}") for i in range(loose)]
    for c in range(clusters):
        names = [f"c{c:02d}-{i:02d}" for i in range(rng.randint(2, 15))]
        for i, name in enumerate(names):
            if i == 0:
                rows.append(row(name, ["ghost-skill"] if c == 3 else [], [], None))
                continue
            other = names[rng.randrange(i)]
            kind = rng.choice(["depends", "depends", "conflicts", "parent"])
            rows.append(row(name, [other] if kind == "depends" else [], [other] if kind == "conflicts" else [],
                            other if kind == "parent" else None))
        if c == 0:   # a cycle
            rows = [r if r[0] != names[0] else row(names[0], [names[-1]]) for r in rows]
            rows = [r if r[0] != names[-1] else row(names[-1], [names[0]]) for r in rows]
    rows.append(row("self-only", ["self-only"]))
    return SkillGraph.from_rows(rows)


def test_split_sets_apart_the_skills_without_relations_and_sorts_groups_biggest_first():
    g = library()
    groups, loose = split(g.graph)
    assert loose == sorted(f"alone-{i:03d}" for i in range(150))
    assert ["self-only"] in groups                       # a relation to itself is still one
    assert sorted([n for grp in groups for n in grp] + loose) == sorted(g.graph)
    sizes = [len(grp) for grp in groups]
    assert sizes == sorted(sizes, reverse=True) and all(grp == sorted(grp) for grp in groups)
    for grp in groups:   # a group is joined inside and has no edge out
        members = set(grp)
        assert all((u in members) == (v in members) for u, v in g.graph.edges())
    assert split(SkillGraph().graph) == ([], [])


@pytest.mark.parametrize("seed", range(6))
def test_pack_places_boxes_in_rows_without_overlap(seed):
    rng = random.Random(seed)
    sizes = [(rng.uniform(1, 12), rng.uniform(1, 8)) for _ in range(rng.randint(1, 40))]
    corners, width, height = pack(sizes)
    boxes = [(x, y, x + w, y + h) for (x, y), (w, h) in zip(corners, sizes)]
    for i, a in enumerate(boxes):
        assert a[2] <= width + 1e-9 and a[3] <= height + 1e-9
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    assert width >= max(w for w, _ in sizes)
    assert 0.3 < width / height < 4 or len(sizes) < 4     # about as wide as the screen, not a strip


@pytest.mark.parametrize("layout", [layered_layout, spring_layout])
def test_layouts_keep_clusters_apart_and_the_unrelated_below(layout):
    g = library()
    pos = layout(g)
    assert set(pos) == set(g.graph) and pos == layout(library())
    groups, loose = split(g.graph)

    def room(names):   # the room the cluster's nodes take
        xs, ys = [pos[n][0] for n in names], [pos[n][1] for n in names]
        return min(xs) - NODE_W / 2, min(ys) - NODE_H / 2, max(xs) + NODE_W / 2, max(ys) + NODE_H / 2

    rooms = [room(grp) for grp in groups]
    for i, a in enumerate(rooms):
        for b in rooms[i + 1:]:
            assert a[2] <= b[0] + 1e-9 or b[2] <= a[0] + 1e-9 or a[3] <= b[1] + 1e-9 or b[3] <= a[1] + 1e-9
    assert rooms[0][:2] == pytest.approx((min(r[0] for r in rooms), min(r[1] for r in rooms)))   # biggest first
    below = max(r[3] for r in rooms)
    assert min(pos[n][1] for n in loose) > below                                     # the unrelated apart
    assert len({pos[n][1] for n in loose}) > 1 and len(set(map(tuple, pos.values()))) == len(pos)
    width = max(r[2] for r in rooms) - min(r[0] for r in rooms)
    height = below - min(r[1] for r in rooms)
    assert 0.3 < width / height < 4


def test_a_library_without_relations_is_one_grid():
    g = SkillGraph.from_rows([row(f"s{i}") for i in range(50)])
    for layout in (layered_layout, spring_layout):
        pos = layout(g)
        assert len(set(pos.values())) == 50 and len({y for _, y in pos.values()}) > 3
