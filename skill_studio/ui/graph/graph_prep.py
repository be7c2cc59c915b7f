"""What the Graph tab shows, worked out off the GUI thread: the scope a person chose (everything, or
the skills a few hops around some), and the graph loaded, filtered and laid out for it."""

from __future__ import annotations

from dataclasses import dataclass, field

from skill_studio.core.graph import clusters
from skill_studio.core.graph import dependencies as core_graph
from skill_studio.core.graph import layout as graph_layout
from skill_studio.core.model import Lifecycle, Origin

#: From this many skills on, the skills without relations are hidden until asked for.
BIG_LIBRARY = 150


@dataclass(frozen=True)
class Scope:
    """What the view shows: everything, or the skills within ``depth`` hops of ``focus``."""

    focus: tuple[str, ...] = ()
    depth: int = 2
    layout: str = "layered"
    lifecycles: frozenset = frozenset(Lifecycle)
    origins: frozenset = frozenset(Origin)
    #: Show the skills without relations (whole library only); None: only on a small library.
    show_isolated: bool | None = None


@dataclass
class Prepared:
    full: core_graph.SkillGraph
    view: core_graph.SkillGraph
    positions: dict
    problems: list
    scope: Scope
    key: tuple = field(default=())
    #: The skills without relations (whole library only), and whether ``view`` leaves them out.
    isolated: list = field(default_factory=list)
    isolated_hidden: bool = False


def prepare(store, scope: Scope, cache: dict, *, progress=None, cancelled=None) -> Prepared:
    """Load the graph, apply the scope and lay it out (reusing ``cache``d positions of the same
    graph). Runs on a worker thread: touches no widget."""
    def step(stage: str, done: int) -> None:
        if cancelled and cancelled():
            raise InterruptedError("graph loading cancelled")
        if progress:
            progress(stage, done, 3)

    step("Loading the skills and their relations", 0)
    full = core_graph.SkillGraph.from_store(store)
    step("Checking for cycles and missing skills", 1)
    problems = full.problems()
    view = full.filtered(scope.lifecycles, scope.origins)
    focus = [n for n in scope.focus if n in full]
    if focus:
        names = set()
        for name in focus:
            names |= full.neighbourhood(name, scope.depth)
        view = view.subgraph(n for n in names if n in view or n in focus)
    loose: list[str] = []
    hide = False
    if not focus:
        loose = clusters.isolated(view.graph)
        show = scope.show_isolated
        if show is None:   # by default: hidden on a big library, unless nothing else would be left
            show = len(full) <= BIG_LIBRARY or len(loose) == len(view)
        hide = not show and bool(loose)
        if hide:
            view = view.subgraph(set(view.graph) - set(loose))
    step("Laying out the graph", 2)
    radial_center = next((n for n in focus if n in view), None)   # a filter may hide the focused skill
    layout = scope.layout if (scope.layout != "radial" or radial_center) else "layered"
    key = (layout, radial_center if layout == "radial" else None, tuple(n.name for n in view.nodes()),
           tuple(view.edges()))
    positions = cache.get(key)
    if positions is None:
        if layout == "radial":
            positions = graph_layout.radial_layout(view, radial_center)
        else:
            positions = graph_layout.LAYOUTS[layout](view)
    return Prepared(full, view, positions, problems, scope, key, loose, hide)
