"""The dependency graph (SPEC §7): ``depends_on``, ``conflicts_with`` and ``parent_skill_id`` as a
networkx graph, its problems (cycles, self-dependencies, missing and inactive dependencies,
exposed conflicts), transitive dependencies and dependents, load order, and exports (JSON,
Graphviz DOT, GraphML). The layouts are in :mod:`skill_studio.core.graph.layout`.

A name that some skill refers to but that is not in the store is a *ghost* node: it is drawn
and reported, and has no fields of its own.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import networkx as nx

from skill_studio.core.model import EXPOSED_STATES, LIFECYCLE_TERMS, SHELVED_STATES, Lifecycle, Origin

EDGE_DEPENDS, EDGE_CONFLICTS, EDGE_PARENT = "depends", "conflicts", "parent"
EDGE_KINDS = (EDGE_DEPENDS, EDGE_CONFLICTS, EDGE_PARENT)


@dataclass(frozen=True)
class GraphTerms:
    """What people read about a kind of relation, or a mark the graph puts on a problem."""

    label: str
    meaning: str


#: Each kind of relation in plain words (legends, tooltips).
EDGE_TERMS: dict[str, GraphTerms] = {
    EDGE_DEPENDS: GraphTerms("Depends on", "the arrow points at the skill it needs"),
    EDGE_CONFLICTS: GraphTerms("Conflicts with", "not to be used together"),
    EDGE_PARENT: GraphTerms("Extends", "a variant of its parent skill"),
}
#: The marks of the problems the graph shows on skills and relations.
MARK_TERMS: dict[str, GraphTerms] = {
    "cycle": GraphTerms("Dependency cycle", "skills that need each other in a circle: no load order"),
    "missing": GraphTerms("Missing skill", "needed by a skill but not in the library"),
}
#: At most this many dependency cycles are listed, so a tangled library stays quick to check.
MAX_CYCLES = 1000
_INACTIVE = SHELVED_STATES
_PROBLEM_ORDER = {"cycle": 0, "self-dependency": 1, "missing": 2, "inactive-dependency": 3, "conflict": 4}


@dataclass(frozen=True)
class Node:
    """One skill of the graph, or a ghost (``lifecycle`` None) for a name not in the store."""

    name: str
    description: str = ""
    lifecycle: Lifecycle | None = None
    origin: Origin | None = None
    trust_tier: int = 0
    utility: float = 0.0
    freshness: float = 0.0
    success_rate: float = 0.0
    uses: int = 0

    @property
    def missing(self) -> bool:
        return self.lifecycle is None


@dataclass(frozen=True)
class Problem:
    kind: str                 # cycle, self-dependency, missing, inactive-dependency, conflict
    severity: str             # error or warning
    skills: tuple[str, ...]   # the skills involved; a cycle's in cycle order
    message: str


class CycleError(ValueError):
    """No load order exists: the skills named depend on each other in a circle."""

    def __init__(self, cycle: list[str]):
        self.cycle = list(cycle)
        super().__init__("Dependency cycle: " + " → ".join(self.cycle + self.cycle[:1]))


def _node_from_row(row: tuple) -> tuple[Node, list[str], list[str], str | None]:
    (name, description, lifecycle, origin, tier, utility, freshness, success, uses,
     depends, conflicts, parent) = row
    node = Node(name, description or "", Lifecycle(lifecycle), Origin(origin), int(tier), float(utility),
                float(freshness), float(success), int(uses or 0))
    return node, list(depends or ()), list(conflicts or ()), parent


class SkillGraph:
    """Skills as nodes (keyed by name, attribute ``node``) and their references as edges
    ``u -> v`` keyed by kind: depends (a skill to its dependency), conflicts (to the skill it
    names in conflicts_with) and parent (to its parent_skill_id)."""

    def __init__(self, graph: nx.MultiDiGraph[str] | None = None):
        self.graph: nx.MultiDiGraph[str] = graph if graph is not None else nx.MultiDiGraph()

    @classmethod
    def from_store(cls, store) -> SkillGraph:
        return cls.from_rows(store.graph_rows())

    @classmethod
    def from_rows(cls, rows: Iterable[tuple]) -> SkillGraph:
        """A graph from rows as ``Store.graph_rows`` gives them (lifecycle and origin as values or enums)."""
        parsed = sorted((_node_from_row(r) for r in rows), key=lambda p: p[0].name)
        g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
        g.add_nodes_from((p[0].name, {"node": p[0]}) for p in parsed)
        edges: list[tuple[str, str, str]] = []
        for node, depends, conflicts, parent in parsed:
            edges += [(node.name, d, EDGE_DEPENDS) for d in depends]
            edges += [(node.name, c, EDGE_CONFLICTS) for c in conflicts]
            if parent:
                edges.append((node.name, parent, EDGE_PARENT))
        for ghost in sorted({v for _, v, _ in edges if v not in g}):
            g.add_node(ghost, node=Node(ghost))
        # (u, v, key, data): what a multigraph takes, though types-networkx lists only (u, v) and (u, v, data)
        g.add_edges_from((u, v, kind, {"kind": kind})  # type: ignore[misc]  # types-networkx stub too narrow
                         for u, v, kind in sorted(set(edges)))
        return cls(g)

    # --- reading --------------------------------------------------------------

    def nodes(self) -> list[Node]:
        return [self.graph.nodes[n]["node"] for n in sorted(self.graph)]

    def node(self, name: str) -> Node:
        if name not in self.graph:
            raise KeyError(name)
        return self.graph.nodes[name]["node"]

    def edges(self) -> list[tuple[str, str, str]]:
        return sorted(self.graph.edges(keys=True))

    def __contains__(self, name: object) -> bool:
        return name in self.graph

    def __len__(self) -> int:
        return len(self.graph)

    @cached_property
    def _depends(self) -> nx.DiGraph:
        d: nx.DiGraph[str] = nx.DiGraph()
        d.add_nodes_from(sorted(self.graph))
        d.add_edges_from(sorted((u, v) for u, v, k in self.graph.edges(keys=True) if k == EDGE_DEPENDS))
        return d

    def depends_graph(self) -> nx.DiGraph:
        """The depends edges alone as a plain DiGraph over every node (self-loops kept). Do not modify."""
        return self._depends

    # --- problems -------------------------------------------------------------

    def problems(self) -> list[Problem]:
        """Errors (cycles, self-dependencies) first, then warnings (missing and inactive
        dependencies, conflicting pairs that are both exposed), each in a stable order."""
        out: list[Problem] = []
        d = self._depends
        for cycle in self._cycles():
            out.append(Problem("cycle", "error", tuple(cycle),
                               "Dependency cycle: " + " → ".join(cycle + cycle[:1])))
        for u, v in d.edges:
            target = self.node(v)
            if u == v:
                out.append(Problem("self-dependency", "error", (u,), f"{u} depends on itself"))
            elif target.missing:
                out.append(Problem("missing", "warning", (u, v), f'{u} depends on missing skill "{v}"'))
            elif target.lifecycle in _INACTIVE:
                out.append(Problem("inactive-dependency", "warning", (u, v),
                                   f'{u} depends on {target.lifecycle.value} skill "{v}"'))
        pairs = {tuple(sorted((u, v))) for u, v, k in self.graph.edges(keys=True)
                 if k == EDGE_CONFLICTS and u != v and self._exposed(u) and self._exposed(v)}
        out += [Problem("conflict", "warning", (a, b), f"{a} and {b} conflict and are both exposed")
                for a, b in pairs]
        return sorted(out, key=lambda p: (p.severity != "error", _PROBLEM_ORDER[p.kind], len(p.skills), p.skills))

    def _exposed(self, name: str) -> bool:
        return self.graph.nodes[name]["node"].lifecycle in EXPOSED_STATES

    def _cycles(self) -> list[list[str]]:
        """Each elementary cycle of the depends edges once (self-loops aside), starting at its
        smallest name; at most MAX_CYCLES of them."""
        d = self._depends
        tangled = [c for c in nx.strongly_connected_components(d) if len(c) > 1]
        if not tangled:
            return []
        core: nx.DiGraph[str] = nx.DiGraph()
        members = sorted(set().union(*tangled))
        core.add_nodes_from(members)
        core.add_edges_from(sorted((u, v) for u, v in d.subgraph(members).edges if u != v))
        cycles = []
        for cycle in itertools.islice(nx.simple_cycles(core), MAX_CYCLES):
            i = cycle.index(min(cycle))
            cycles.append(cycle[i:] + cycle[:i])
        return sorted(cycles, key=lambda c: (len(c), c))

    # --- dependencies ---------------------------------------------------------

    def dependencies(self, name: str) -> list[str]:
        """Every prerequisite of ``name``, direct or not, in load order (ghosts included, name
        itself left out). Skills in a cycle are placed together, in name order."""
        self.node(name)
        below = nx.descendants(self._depends, name)
        return [n for n in _prerequisites_first(self._depends.subgraph(below | {name})) if n != name]

    def dependents(self, name: str) -> list[str]:
        """Every skill that needs ``name`` directly or indirectly, in name order."""
        self.node(name)
        return sorted(nx.ancestors(self._depends, name))

    def load_order(self, names: Iterable[str] | None = None) -> list[str]:
        """The given skills and all they depend on, prerequisites first (all skills when None);
        ties broken by name. Raises CycleError naming a cycle, KeyError for an unknown name."""
        d = self._depends
        if names is None:
            wanted = set(d)
        else:
            wanted = set()
            for n in names:
                self.node(n)
                if n not in wanted:
                    wanted |= nx.descendants(d, n) | {n}
        sub = d.subgraph(wanted)
        try:
            return list(nx.lexicographical_topological_sort(sub.reverse(copy=False)))
        except nx.NetworkXUnfeasible:
            raise CycleError(_a_cycle(sub)) from None

    # --- structure ------------------------------------------------------------

    def children(self) -> dict[str, list[str]]:
        """The parent tree: each parent with its children, sorted."""
        tree: dict[str, list[str]] = {}
        for u, v, k in sorted(self.graph.edges(keys=True), key=lambda e: (e[1], e[0])):
            if k == EDGE_PARENT and u != v:
                tree.setdefault(v, []).append(u)
        return tree

    def neighbourhood(self, name: str, depth: int) -> set[str]:
        """``name`` and every node within ``depth`` hops of it, over any edge in either direction."""
        self.node(name)
        seen, frontier = {name}, [name]
        for _ in range(max(0, depth)):
            step: set[str] = set()
            for n in frontier:
                step.update(self.graph.succ[n])
                step.update(self.graph.pred[n])
            frontier = list(step - seen)
            if not frontier:
                break
            seen.update(frontier)
        return seen

    def subgraph(self, names: Iterable[str]) -> SkillGraph:
        """The named nodes and the edges between them (the same Node objects)."""
        return SkillGraph(self.graph.subgraph(list(names)).copy())

    def filtered(self, lifecycles: Iterable[Any] | None = None, origins: Iterable[Any] | None = None) -> SkillGraph:
        """The skills whose lifecycle and origin are among those given (None: any), with the
        ghosts that a kept skill points at."""
        states = {Lifecycle(x) for x in lifecycles} if lifecycles is not None else None
        kinds = {Origin(x) for x in origins} if origins is not None else None

        def keep(node: Node) -> bool:
            return not node.missing and (states is None or node.lifecycle in states) \
                and (kinds is None or node.origin in kinds)

        kept = {n for n in self.graph if keep(self.graph.nodes[n]["node"])}
        ghosts = {v for u in kept for v in self.graph.succ[u] if self.graph.nodes[v]["node"].missing}
        return self.subgraph(kept | ghosts)

    def search(self, text: str) -> list[str]:
        """Names containing ``text`` (any case): the exact match first, then prefixes, then the rest."""
        needle = text.strip().casefold()
        if not needle:
            return []
        hits = [n for n in self.graph if needle in n.casefold()]
        return sorted(hits, key=lambda n: (n.casefold() != needle, not n.casefold().startswith(needle), n))


def _prerequisites_first(d: nx.DiGraph) -> list[str]:
    """The nodes of a depends graph with every prerequisite before what needs it, ties by name;
    the members of a cycle come together, in name order."""
    cond = nx.condensation(d)
    members = {c: sorted(cond.nodes[c]["members"]) for c in cond}
    order = nx.lexicographical_topological_sort(cond.reverse(copy=False), key=lambda c: members[c][0])
    return [n for c in order for n in members[c]]


def _a_cycle(d: nx.DiGraph) -> list[str]:
    """One cycle of a graph that has one, starting at its smallest name."""
    for u in sorted(d):
        if d.has_edge(u, u):
            return [u]
    start = min(min(c) for c in nx.strongly_connected_components(d) if len(c) > 1)
    cycle = [u for u, _ in nx.find_cycle(d, start)]
    i = cycle.index(min(cycle))
    return cycle[i:] + cycle[:i]


# --- export -------------------------------------------------------------------

def _value(x: Any) -> Any:
    return getattr(x, "value", x)


def to_json(g: SkillGraph, positions: dict[str, tuple[float, float]] | None = None) -> dict:
    """Nodes, edges and problems as plain data (positions added to the nodes when given)."""
    nodes = []
    for n in g.nodes():
        item = {"name": n.name, "lifecycle": _value(n.lifecycle), "origin": _value(n.origin),
                "trust_tier": n.trust_tier, "missing": n.missing, "description": n.description}
        if positions and n.name in positions:
            item["x"], item["y"] = (float(c) for c in positions[n.name])
        nodes.append(item)
    return {"nodes": nodes,
            "edges": [{"source": u, "target": v, "kind": k} for u, v, k in g.edges()],
            "problems": [{"kind": p.kind, "severity": p.severity, "skills": list(p.skills),
                          "message": p.message} for p in g.problems()]}


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_DOT_EDGE = {EDGE_DEPENDS: "", EDGE_CONFLICTS: ' [color="red", style="dashed"]',
             EDGE_PARENT: ' [style="dotted"]'}
#: Node fill in DOT by the state's colour role (the states agents rely on stay plain white).
_DOT_FILL = {"attention": "#fff4d6", "warning": "#ffe2cc", "danger": "#e6e6e6", "muted": "#d0d0d0"}


def to_dot(g: SkillGraph) -> str:
    """Graphviz DOT text: prerequisites drawn above what needs them; depends edges solid,
    conflicts red and dashed, parents dotted, ghosts dashed and grey."""
    lines = ["digraph skills {", '  rankdir="BT";', '  node [shape="box", style="rounded"];']
    for n in g.nodes():
        fill = _DOT_FILL.get(LIFECYCLE_TERMS[n.lifecycle].colour_role) if n.lifecycle is not None else None
        if n.missing:
            attrs = ' [style="dashed", color="grey", fontcolor="grey"]'
        elif fill:
            attrs = f' [style="rounded,filled", fillcolor="{fill}"]'
        else:
            attrs = ""
        lines.append(f"  {_dot_id(n.name)}{attrs};")
    for u, v, k in g.edges():
        lines.append(f"  {_dot_id(u)} -> {_dot_id(v)}{_DOT_EDGE[k]};")
    lines.append("}")
    return "\n".join(lines) + "\n"


#: Characters XML 1.0 cannot hold at all, even escaped (a skill's text may contain them).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def graphml_graph(g: SkillGraph) -> nx.MultiDiGraph:
    """A copy with only string, number and boolean attributes (what GraphML can hold); characters
    XML cannot hold become U+FFFD."""
    out: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    for n in g.nodes():
        attrs = {"description": _xml(n.description), "missing": n.missing, "trust_tier": n.trust_tier,
                 "utility": n.utility, "freshness": n.freshness, "success_rate": n.success_rate,
                 "uses": n.uses}
        if n.lifecycle is not None:   # (not n.missing)
            assert n.origin is not None   # a skill's node has both; a ghost has neither
            attrs["lifecycle"], attrs["origin"] = n.lifecycle.value, n.origin.value
        out.add_node(_xml(n.name), **attrs)
    for u, v, k in g.edges():
        out.add_edge(_xml(u), _xml(v), key=k, kind=k)
    return out


def write_graphml(g: SkillGraph, path) -> None:
    """GraphML to a path or a binary file."""
    nx.write_graphml(graphml_graph(g), path)

