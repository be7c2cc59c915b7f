"""The dependency graph: problems in small known graphs, load order, transitive queries,
neighbourhoods and filters, the three layouts, and the exports read back."""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest
from conftest import make

from skill_studio.core.graph.clusters import split
from skill_studio.core.graph.dependencies import (
    EDGE_CONFLICTS,
    EDGE_DEPENDS,
    EDGE_PARENT,
    CycleError,
    Node,
    SkillGraph,
    to_dot,
    to_json,
    write_graphml,
)
from skill_studio.core.graph.layout import layered_layout, radial_layout, spring_layout
from skill_studio.core.model import Lifecycle, Origin


def row(name, depends=(), conflicts=(), parent=None, lifecycle="released", origin="human"):
    return (name, f"About {name}.", lifecycle, origin, 3, 0.5, 0.9, 0.7, 4, list(depends), list(conflicts), parent)


def graph(*rows):
    return SkillGraph.from_rows(rows)


def kinds(g):
    return [(p.kind, p.severity, p.skills) for p in g.problems()]


def random_dag(n=200, edges=600, seed=1):
    rng = random.Random(seed)
    names = [f"s{i:03d}" for i in range(n)]
    order = names[:]
    rng.shuffle(order)
    deps = {name: set() for name in names}
    for _ in range(edges):
        later = rng.randrange(1, n)
        deps[order[later]].add(order[rng.randrange(later)])
    return SkillGraph.from_rows([row(name, sorted(deps[name])) for name in names])


# --- building -----------------------------------------------------------------

def test_from_store_reads_every_skill_and_its_references(store):
    store.add(make("app", meta={"depends-on": "lib ghost", "conflicts-with": "other", "parent": "base"}))
    for name in ("lib", "other", "base"):
        store.add(make(name))
    store.add(make("draft", origin=Origin.LLM))
    rows = store.graph_rows()
    assert [r[0] for r in rows] == ["app", "base", "draft", "lib", "other"]
    assert rows[0][9:] == (["lib", "ghost"], ["other"], "base") and rows[1][9:] == ([], [], None)
    g = SkillGraph.from_store(store)
    assert len(g) == 6 and "ghost" in g and "nobody" not in g
    assert g.node("ghost").missing and not g.node("app").missing
    assert g.node("draft").lifecycle == Lifecycle.CANDIDATE and g.node("draft").origin == Origin.LLM
    assert g.node("app").trust_tier == 3 and g.node("app").description.startswith("Does a thing")
    assert [n.name for n in g.nodes()] == ["app", "base", "draft", "ghost", "lib", "other"]
    assert g.edges() == [("app", "base", EDGE_PARENT), ("app", "ghost", EDGE_DEPENDS),
                         ("app", "lib", EDGE_DEPENDS), ("app", "other", EDGE_CONFLICTS)]
    assert g.graph.edges["app", "lib", EDGE_DEPENDS]["kind"] == EDGE_DEPENDS
    with pytest.raises(KeyError):
        g.node("nobody")


def test_node_defaults_are_a_ghost():
    assert Node("x").missing and not Node("x", lifecycle=Lifecycle.RELEASED).missing


# --- problems -----------------------------------------------------------------

def test_every_cycle_is_listed_once_in_cycle_order():
    g = graph(row("a", ["b"]), row("b", ["c"]), row("c", ["a", "d"]), row("d", ["c"]), row("e"))
    problems = g.problems()
    assert kinds(g) == [("cycle", "error", ("c", "d")), ("cycle", "error", ("a", "b", "c"))]
    assert problems[1].message == "Dependency cycle: a → b → c → a"


def test_self_dependency_is_an_error_but_not_a_cycle():
    g = graph(row("a", ["a", "b"]), row("b"))
    assert kinds(g) == [("self-dependency", "error", ("a",))]
    assert "a" in g.problems()[0].message


def test_missing_and_inactive_dependencies_are_warnings():
    g = graph(row("a", ["gone", "old", "shelved", "fine"]), row("old", lifecycle="deprecated"),
              row("shelved", lifecycle="archived"), row("fine", lifecycle="degraded"))
    assert kinds(g) == [("missing", "warning", ("a", "gone")),
                        ("inactive-dependency", "warning", ("a", "old")),
                        ("inactive-dependency", "warning", ("a", "shelved"))]
    messages = [p.message for p in g.problems()]
    assert messages == ['a depends on missing skill "gone"', 'a depends on deprecated skill "old"',
                        'a depends on archived skill "shelved"']


def test_conflicts_count_only_between_exposed_skills_once_per_pair():
    g = graph(row("a", conflicts=["b", "c", "d", "ghost"]), row("b", conflicts=["a"]),
              row("c", conflicts=["a"], lifecycle="candidate"), row("d", lifecycle="deprecated"),
              row("e", conflicts=["f"], lifecycle="verified"), row("f", lifecycle="degraded"))
    assert kinds(g) == [("conflict", "warning", ("a", "b")), ("conflict", "warning", ("e", "f"))]
    assert g.problems()[0].message == "a and b conflict and are both exposed"


def test_errors_come_before_warnings():
    g = graph(row("a", ["gone"], conflicts=["b"]), row("b", ["c"]), row("c", ["b"]))
    assert [p.severity for p in g.problems()] == ["error", "warning", "warning"]


def test_a_clean_graph_has_no_problems():
    assert random_dag().problems() == []


# --- dependencies and load order ----------------------------------------------

def test_load_order_respects_every_edge_of_a_random_dag():
    g = random_dag()
    order = g.load_order()
    assert sorted(order) == sorted(n.name for n in g.nodes())
    place = {name: i for i, name in enumerate(order)}
    for u, v, _kind in g.edges():
        assert place[v] < place[u]
    assert order == g.load_order()


def test_load_order_of_some_skills_includes_their_prerequisites_only():
    g = graph(row("app", ["lib", "gone"]), row("lib", ["core"]), row("core"), row("other", ["core"]))
    assert g.load_order(["app"]) == ["core", "gone", "lib", "app"]
    assert g.load_order(["other", "lib"]) == ["core", "lib", "other"]
    with pytest.raises(KeyError):
        g.load_order(["nobody"])


def test_load_order_names_the_cycle():
    g = graph(row("a", ["b"]), row("b", ["c"]), row("c", ["a"]), row("x"), row("y", ["y"]))
    with pytest.raises(CycleError) as e:
        g.load_order(["a"])
    assert e.value.cycle == ["a", "b", "c"] and str(e.value) == "Dependency cycle: a → b → c → a"
    assert isinstance(e.value, ValueError)
    with pytest.raises(CycleError, match="y → y"):
        g.load_order(["y"])
    assert g.load_order(["x"]) == ["x"]


def test_dependencies_and_dependents_are_transitive():
    g = graph(row("app", ["lib", "ui"]), row("ui", ["lib"]), row("lib", ["core", "gone"]), row("core"),
              row("tool", ["core"]))
    assert g.dependencies("app") == ["core", "gone", "lib", "ui"]
    assert g.dependencies("core") == []
    assert g.dependents("core") == ["app", "lib", "tool", "ui"]
    assert g.dependents("gone") == ["app", "lib", "ui"] and g.dependents("app") == []
    with pytest.raises(KeyError):
        g.dependencies("nobody")


def test_dependencies_work_through_a_cycle():
    g = graph(row("app", ["a"]), row("a", ["b"]), row("b", ["a", "base"]), row("base"))
    assert g.dependencies("app") == ["base", "a", "b"]
    assert g.dependencies("a") == ["base", "b"]
    assert g.dependents("a") == ["app", "b"]


# --- structure ----------------------------------------------------------------

def test_children_neighbourhood_subgraph():
    g = graph(row("root"), row("kid", parent="root"), row("kid2", parent="root"), row("grand", ["x"], parent="kid"),
              row("x", conflicts=["far"]), row("far"))
    assert g.children() == {"kid": ["grand"], "root": ["kid", "kid2"]}
    assert g.neighbourhood("grand", 0) == {"grand"}
    assert g.neighbourhood("grand", 1) == {"grand", "kid", "x"}
    assert g.neighbourhood("grand", 2) == {"grand", "kid", "x", "root", "far"}
    sub = g.subgraph(["grand", "kid", "x"])
    assert len(sub) == 3 and sub.node("x") is g.node("x")
    assert sub.edges() == [("grand", "kid", EDGE_PARENT), ("grand", "x", EDGE_DEPENDS)]
    with pytest.raises(KeyError):
        g.neighbourhood("nobody", 1)


def test_filtered_keeps_the_ghosts_kept_skills_point_at():
    g = graph(row("a", ["gone"], origin="llm", lifecycle="candidate"), row("b", ["lost"]),
              row("c", lifecycle="archived"))
    f = g.filtered(lifecycles={Lifecycle.RELEASED})
    assert [n.name for n in f.nodes()] == ["b", "lost"]
    assert [n.name for n in g.filtered(origins={"llm"}).nodes()] == ["a", "gone"]
    assert [n.name for n in g.filtered(lifecycles={"released"}, origins={"llm"}).nodes()] == []
    assert len(g.filtered()) == len(g)


def test_search_puts_the_exact_match_first():
    g = graph(row("pdf-extract"), row("pdf"), row("make-pdf"), row("other"))
    assert g.search("PDF") == ["pdf", "pdf-extract", "make-pdf"]
    assert g.search("  ") == [] and g.search("zzz") == []


# --- layouts ------------------------------------------------------------------

def test_layered_puts_every_dependency_above_its_dependent():
    g = random_dag(120, 300)
    pos = layered_layout(g)
    assert set(pos) == {n.name for n in g.nodes()}
    for u, v, _kind in g.edges():
        assert pos[v][1] < pos[u][1]
    assert pos == layered_layout(random_dag(120, 300))
    assert len(set(pos.values())) == len(pos)                       # no two nodes on one spot
    for group in split(g.graph)[0]:   # within a cluster: y = its top + layer × 1.5
        top = min(pos[name][1] for name in group)
        assert all(abs(round((pos[name][1] - top) / 1.5) * 1.5 - (pos[name][1] - top)) < 1e-9 for name in group)


def test_layered_cycle_members_share_a_layer_and_loose_skills_sit_below():
    g = graph(row("a", ["b"]), row("b", ["a", "base"]), row("base"), row("top", ["a"]),
              *[row(f"loose{i}") for i in range(30)])
    pos = layered_layout(g)
    assert pos["a"][1] == pos["b"][1] and pos["base"][1] < pos["a"][1] < pos["top"][1]
    loose = [pos[f"loose{i}"] for i in range(30)]
    assert min(y for _, y in loose) > pos["top"][1]
    assert len({y for _, y in loose}) > 1                       # a grid, not one wide row
    assert layered_layout(SkillGraph()) == {}


@pytest.mark.parametrize("n", [40, 600])
def test_spring_places_every_node_and_is_deterministic(n):
    g = random_dag(n, n * 2, seed=3)
    pos = spring_layout(g)
    assert set(pos) == {x.name for x in g.nodes()}
    assert pos == spring_layout(random_dag(n, n * 2, seed=3))
    assert all(isinstance(c, float) for p in pos.values() for c in p)
    assert len({(round(x, 3), round(y, 3)) for x, y in pos.values()}) == len(pos)


def test_radial_rings_by_distance_with_unreachable_outside():
    g = graph(row("c", ["a", "b"]), row("a", ["a2"]), row("b"), row("a2"), row("alone"))
    pos = radial_layout(g, "c")
    assert set(pos) == {"c", "a", "b", "a2", "alone"} and pos["c"] == (0.0, 0.0)
    r = {name: (x * x + y * y) ** 0.5 for name, (x, y) in pos.items()}
    assert r["a"] == pytest.approx(2.0) and r["b"] == pytest.approx(2.0) and r["a2"] == pytest.approx(4.0)
    assert r["alone"] > r["a2"]
    assert pos == radial_layout(g, "c")
    with pytest.raises(KeyError):
        radial_layout(g, "nobody")


# --- exports ------------------------------------------------------------------

def sample():
    return graph(row("app", ["lib", "gone"], conflicts=["rival"], parent="base"), row("lib"), row("base"),
                 row('we"ird\\name', ["app"]), row("rival"))


def test_graphml_reads_back_with_the_same_nodes_and_edges(tmp_path):
    g = sample()
    path = tmp_path / "g.graphml"
    write_graphml(g, path)
    back = nx.read_graphml(path)
    assert set(back.nodes) == {n.name for n in g.nodes()}
    assert sorted((u, v, d["kind"]) for u, v, d in back.edges(data=True)) == g.edges()
    assert back.nodes["app"]["lifecycle"] == "released" and back.nodes["gone"]["missing"] is True
    assert "lifecycle" not in back.nodes["gone"]


def test_graphml_holds_names_and_texts_with_control_characters(tmp_path):
    g = SkillGraph.from_rows([("bell\x07name", "Rings \x01 twice.\nThen stops.", "released", "human", 3, 0.5, 0.9,
                               0.7, 4, ["dep\x0bname"], [], None)])
    path = tmp_path / "g.graphml"
    write_graphml(g, path)
    back = nx.read_graphml(path)   # well-formed XML
    assert set(back.nodes) == {"bell\ufffdname", "dep\ufffdname"}
    assert back.nodes["bell\ufffdname"]["description"] == "Rings \ufffd twice.\nThen stops."
    assert back.has_edge("bell\ufffdname", "dep\ufffdname")


def test_json_round_trips():
    g = sample()
    data = json.loads(json.dumps(to_json(g, layered_layout(g))))
    assert [n["name"] for n in data["nodes"]] == [n.name for n in g.nodes()]
    assert {"x", "y"} <= set(data["nodes"][0]) and data["nodes"][2]["missing"] is True
    assert [(e["source"], e["target"], e["kind"]) for e in data["edges"]] == g.edges()
    assert data["problems"][0] == {"kind": "missing", "severity": "warning", "skills": ["app", "gone"],
                                   "message": 'app depends on missing skill "gone"'}
    assert "x" not in to_json(g)["nodes"][0]


def test_dot_quotes_every_node():
    text = to_dot(sample())
    assert text.startswith("digraph") and text.rstrip().endswith("}")
    for name in ("app", "lib", "base", "gone", "rival"):
        assert f'"{name}"' in text
    assert '"we\\"ird\\\\name" -> "app";' in text
    assert '"app" -> "rival" [color="red", style="dashed"]' in text
    assert '"app" -> "base" [style="dotted"]' in text
    assert '"gone" [style="dashed", color="grey"' in text
