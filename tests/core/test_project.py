"""The project's own declarations: every package is in the wheel, the layers point down, no import circles."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_declared_for_the_wheel():
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "skill_studio").rglob("__init__.py")}
    assert found <= declared, f"not in pyproject.toml [tool.setuptools] packages: {sorted(found - declared)}"


def _imports(path: Path, module: str, is_package: bool) -> set[str]:
    """Every module ``module`` imports, wherever the import is written (a function, TYPE_CHECKING)."""
    base = module.split(".") if is_package else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parent = base[: len(base) - node.level + 1]
                target = ".".join(parent + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def _module_graph() -> nx.DiGraph:
    modules: dict[str, tuple[Path, bool]] = {}
    for path in (ROOT / "skill_studio").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    graph = nx.DiGraph()
    for module, (_path, is_package) in modules.items():
        graph.add_node(module, module_file=not is_package)
    for module, (path, is_package) in modules.items():
        for target in _imports(path, module, is_package):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != module and not module.startswith(target + "."):
                graph.add_edge(module, target)
    return graph


#: What the store builds on: the domain types, the SKILL.md format it reads derived columns from, the
#: binding type and the scores' time stamps. Never the operations, the library or the features above.
STORE_MAY_USE = ("skill_studio.core.store", "skill_studio.core.model", "skill_studio.core.format",
                 "skill_studio.core.bus.model", "skill_studio.core.health.scores")

#: A rescue reads a damaged store's rows and writes what it finds as skill folders.
STORE_EXCEPTIONS = {("skill_studio.core.store.rescue", "skill_studio.core.library.folders"),
                     ("skill_studio.core.store.rescue", "skill_studio.core.library.folder_write")}


def test_no_module_imports_one_that_imports_it_back():
    circles = [sorted(c) for c in nx.strongly_connected_components(_module_graph()) if len(c) > 1]
    assert not circles, f"import circles: {circles}"


def test_the_layers_point_down():
    graph = _module_graph()
    for module, target in graph.edges:
        if module.startswith("skill_studio.core"):
            assert not target.startswith(("skill_studio.ui", "skill_studio.cli", "skill_studio.api")), (module, target)
        if module.startswith("skill_studio.core.store") and graph.nodes[target].get("module_file") \
                and (module, target) not in STORE_EXCEPTIONS:
            assert target.startswith(STORE_MAY_USE), (module, target)
    for path in (ROOT / "skill_studio" / "core").rglob("*.py"):
        assert not {m.split(".")[0] for m in _imports(path, "", False)} & {"PySide6", "shiboken6"}, path
