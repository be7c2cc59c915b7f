"""The project's own declarations: every package of the source tree is in the wheel."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_declared_for_the_wheel():
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "skill_studio").rglob("__init__.py")}
    assert found <= declared, f"not in pyproject.toml [tool.setuptools] packages: {sorted(found - declared)}"
