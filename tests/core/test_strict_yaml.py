"""The strict YAML reader's fast path (C parser) must read exactly as its exact path does."""

from __future__ import annotations

import pytest
from conftest import REAL_WORLD, SAMPLES, skill_folders
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_validate import _line

from skill_studio.core.format.strict_yaml import DialectError, Where, _compose_strict, _to_data


def _read(text: str, fast: bool):
    try:
        root = _compose_strict(text, Where(), fast=fast)
    except DialectError as e:
        return ("error", str(e))
    if root is None or root.kind == "scalar":
        return ("text",)
    try:
        return ("data", repr(_to_data(root, top=True)))
    except Exception as e:  # noqa: BLE001 - the exact path's own checks run later; compare the data only
        return ("data-error", type(e).__name__)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_line, max_size=8))
def test_fast_and_exact_paths_agree_on_generated_frontmatter(lines):
    text = "\n".join(lines) + "\n"
    assert _read(text, True) == _read(text, False)


def _frontmatters():
    out = []
    for folder in skill_folders(REAL_WORLD) + skill_folders(SAMPLES):
        md = folder / "SKILL.md" if (folder / "SKILL.md").exists() else folder / "skill.md"
        try:
            text = md.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        parts = text.split("\n---", 1)
        if text.startswith("---") and len(parts) == 2:
            out.append(pytest.param(parts[0][3:], id=str(folder.name)))
    return out


@pytest.mark.parametrize("text", _frontmatters())
def test_fast_and_exact_paths_agree_on_real_frontmatter(text):
    assert _read(text, True) == _read(text, False)
