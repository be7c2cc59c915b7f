"""Graph commands: graph (summary, --problems, each --format, a neighbourhood), deps, dependents,
load-order (and its cycle error), unknown names."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from conftest import make

from skill_studio.cli import main
from skill_studio.core.store import Store


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add(make("app", meta={"depends-on": "lib ghost", "conflicts-with": "rival"}))
        store.add(make("lib", meta={"depends-on": "core"}))
        store.add(make("core"))
        store.add(make("rival"))
        store.add(make("far", meta={"parent": "rival"}))
    return str(path)


@pytest.fixture
def cyclic(tmp_path):
    path = tmp_path / "c.db"
    with Store(path) as store:
        store.add(make("a", meta={"depends-on": "b"}))
        store.add(make("b", meta={"depends-on": "a"}))
        store.add(make("c"))
    return str(path)


def run(db, capsys, *argv):
    code = main(["--store", db, *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_graph_summary(db, capsys):
    code, out, _ = run(db, capsys, "graph")
    assert code == 0
    assert "5 skill(s), 1 missing" in out and "5 edge(s): 3 depends, 1 conflicts, 1 parent" in out
    assert "0 error(s), 2 warning(s)" in out


def test_graph_of_a_neighbourhood(db, capsys):
    code, out, _ = run(db, capsys, "graph", "lib", "--depth", "1")
    assert code == 0 and "lib and its neighbours within 1 hop(s): 3 skill(s)" in out
    assert "lib" in out and "depends core" in out and "far" not in out and "rival" not in out
    code, out, _ = run(db, capsys, "graph", "ghost", "--depth", "0", "--format", "json")
    assert code == 0 and [n["name"] for n in json.loads(out)["nodes"]] == ["ghost"]


def test_graph_problems_and_exit_codes(db, cyclic, capsys):
    code, out, _ = run(db, capsys, "graph", "--problems")
    assert code == 0
    assert 'warning: app depends on missing skill "ghost"' in out
    assert "warning: app and rival conflict and are both exposed" in out
    code, out, _ = run(cyclic, capsys, "graph", "--problems")
    assert code == 1 and "error: Dependency cycle: a → b → a" in out
    code, out, _ = run(cyclic, capsys, "graph", "c", "--problems")
    assert code == 0 and "no problems" in out
    code, out, _ = run(cyclic, capsys, "graph", "--problems", "--json")
    assert code == 1 and json.loads(out)[0]["skills"] == ["a", "b"]


def test_graph_formats(db, capsys):
    code, out, _ = run(db, capsys, "graph", "--format", "json")
    data = json.loads(out)
    assert code == 0 and len(data["nodes"]) == 6 and len(data["edges"]) == 5
    code, out, _ = run(db, capsys, "graph", "--format", "dot")
    assert code == 0 and out.startswith("digraph") and '"app" -> "lib";' in out
    code, out, _ = run(db, capsys, "graph", "--format", "graphml")
    back = nx.parse_graphml(out)
    assert code == 0 and set(back.nodes) == {"app", "lib", "core", "rival", "far", "ghost"}


def test_deps_dependents(db, capsys):
    code, out, _ = run(db, capsys, "deps", "app")
    assert code == 0 and out.splitlines() == ["core", "ghost (missing)", "lib"]
    code, out, _ = run(db, capsys, "deps", "app", "--json")
    assert json.loads(out)[1] == {"name": "ghost", "missing": True}
    code, out, _ = run(db, capsys, "dependents", "core")
    assert code == 0 and out.splitlines() == ["app", "lib"]
    code, out, _ = run(db, capsys, "dependents", "ghost", "--json")
    assert code == 0 and json.loads(out) == ["app"]


def test_load_order(db, cyclic, capsys):
    code, out, _ = run(db, capsys, "load-order")
    assert code == 0 and out.splitlines() == ["core", "far", "ghost (missing)", "lib", "app", "rival"]
    code, out, _ = run(db, capsys, "load-order", "lib")
    assert out.splitlines() == ["core", "lib"]
    code, out, err = run(cyclic, capsys, "load-order")
    assert code == 1 and out == ""
    assert err.strip() == "skill-studio: no load order: Dependency cycle: a → b → a"
    code, out, _ = run(cyclic, capsys, "load-order", "c", "--json")
    assert code == 0 and json.loads(out) == [{"name": "c", "missing": False}]


@pytest.mark.parametrize("argv", [["deps", "nope"], ["dependents", "nope"], ["load-order", "core", "nope"],
                                  ["graph", "nope"], ["deps", "ghost"]])
def test_unknown_names_are_one_line_errors(db, capsys, argv):
    code, out, err = run(db, capsys, *argv)
    name = argv[-1]
    assert code == 1 and out == "" and err.strip() == f'skill-studio: no skill named "{name}" in {db}'
