"""The dependency graph commands of ``skill-studio``: the graph (a summary, its problems, or an
export), a skill's dependencies and dependents, and the load order."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx is imported only by the commands that need it
    from skill_studio.core.graph.dependencies import SkillGraph


def _graph(args: argparse.Namespace) -> tuple[SkillGraph, str]:
    from skill_studio.cli.common import open_store
    from skill_studio.core.graph.dependencies import SkillGraph

    with open_store(args) as store:
        return SkillGraph.from_store(store), str(store.path)


def _check(g: SkillGraph, name: str, where: str, *, ghosts: bool = False) -> None:
    """Unknown names (and, unless ``ghosts``, names only referred to) are a one-line error."""
    from skill_studio.cli.common import CliError

    if name not in g or (g.node(name).missing and not ghosts):
        raise CliError(f'no skill named "{name}" in {where}', 1)


def _label(g: SkillGraph, name: str) -> str:
    return f"{name} (missing)" if g.node(name).missing else name


def cmd_graph(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json
    from skill_studio.core.graph.dependencies import to_dot, to_json, write_graphml

    g, where = _graph(args)
    whole = g
    if args.name is not None:
        _check(g, args.name, where, ghosts=True)
        if args.depth < 0:
            raise CliError("--depth must be 0 or more")
        g = g.subgraph(g.neighbourhood(args.name, args.depth))
    if args.problems:
        # Every problem that touches the part shown, found in the whole graph (a cycle may leave it).
        problems = [p for p in whole.problems() if any(s in g for s in p.skills)]
        if args.json or args.format == "json":
            emit_json([{"kind": p.kind, "severity": p.severity, "skills": list(p.skills),
                         "message": p.message} for p in problems])
        else:
            for p in problems:
                print(f"{p.severity}: {p.message}")
            errors = sum(p.severity == "error" for p in problems)
            print(f"{errors} error(s), {len(problems) - errors} warning(s)" if problems else "no problems")
        return 1 if any(p.severity == "error" for p in problems) else 0
    fmt = "json" if args.json else args.format
    if fmt == "json":
        emit_json(to_json(g))
    elif fmt == "dot":
        sys.stdout.write(to_dot(g))
    elif fmt == "graphml":
        buffer = io.BytesIO()
        write_graphml(g, buffer)
        text = buffer.getvalue().decode("utf-8")
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        _summary(g, args.name, args.depth)
    return 0


def _summary(g: SkillGraph, name: str | None, depth: int) -> None:
    from skill_studio.core.graph.dependencies import EDGE_KINDS

    nodes = g.nodes()
    missing = sum(n.missing for n in nodes)
    edges = g.edges()
    by_kind = {kind: sum(k == kind for _, _, k in edges) for kind in EDGE_KINDS}
    problems = g.problems()
    errors = sum(p.severity == "error" for p in problems)
    title = f"{name} and its neighbours within {depth} hop(s)" if name is not None else "dependency graph"
    print(f"{title}: {len(nodes) - missing} skill(s)" + (f", {missing} missing" if missing else ""))
    print(f"{len(edges)} edge(s): " + ", ".join(f"{n} {kind}" for kind, n in by_kind.items()))
    print(f"{errors} error(s), {len(problems) - errors} warning(s)"
          + (" (skill-studio graph --problems lists them)" if problems else ""))
    if name is None:
        return
    out: dict[str, dict[str, list[str]]] = {}
    for u, v, kind in edges:
        out.setdefault(u, {}).setdefault(kind, []).append(v)
    for n in nodes:
        state = "missing" if n.missing else n.lifecycle.value
        links = "; ".join(f"{kind} {', '.join(targets)}" for kind, targets in out.get(n.name, {}).items())
        print(f"  {n.name:<32} {state:<10} {links}".rstrip())


def cmd_deps(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import emit_json

    g, where = _graph(args)
    _check(g, args.name, where)
    names = g.dependencies(args.name)
    if args.json:
        emit_json([{"name": n, "missing": g.node(n).missing} for n in names])
    else:
        for n in names:
            print(_label(g, n))
    return 0


def cmd_dependents(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import emit_json

    g, where = _graph(args)
    _check(g, args.name, where, ghosts=True)
    names = g.dependents(args.name)
    if args.json:
        emit_json(names)
    else:
        for n in names:
            print(n)
    return 0


def cmd_load_order(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, emit_json
    from skill_studio.core.graph.dependencies import CycleError

    g, where = _graph(args)
    for name in args.names:
        _check(g, name, where)
    try:
        order = g.load_order(args.names or None)
    except CycleError as e:
        raise CliError(f"no load order: {e}", 1) from None
    if args.json:
        emit_json([{"name": n, "missing": g.node(n).missing} for n in order])
    else:
        for n in order:
            print(_label(g, n))
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    gr = add("graph", "the dependency graph: a summary, its problems (--problems) or an export (--format)",
             cmd_graph)
    gr.add_argument("name", nargs="?", metavar="NAME", help="only this skill and its neighbours")
    gr.add_argument("--depth", type=int, default=2, help="hops around NAME (default 2)")
    gr.add_argument("--format", choices=("dot", "graphml", "json"), help="print the graph in this format")
    gr.add_argument("--problems", action="store_true",
                    help="list cycles, missing and inactive dependencies and conflicts (exit 1 on an error)")
    d = add("deps", "every skill a skill needs, directly or not, in load order", cmd_deps)
    d.add_argument("name")
    dn = add("dependents", "every skill that needs a skill, directly or not", cmd_dependents)
    dn.add_argument("name")
    lo = add("load-order", "the order to load skills in, prerequisites first (all skills when none named)",
             cmd_load_order)
    lo.add_argument("names", nargs="*", metavar="NAME")

