"""The ``<available_skills>`` prompt block (SKILL-FORMAT.md, byte-identical to the reference's
``to-prompt``) and where a stored skill's SKILL.md is for an agent."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from skill_studio.core.model import Skill


def available_skills_block(entries: Sequence[tuple[str, str, str]]) -> str:
    """The ``<available_skills>`` block for (name, description, SKILL.md location) entries."""
    if not entries:
        return "<available_skills>\n</available_skills>"
    lines = ["<available_skills>"]
    for name, description, location in entries:
        lines += ["<skill>", "<name>", html.escape(name), "</name>", "<description>",
                  html.escape(description), "</description>", "<location>", location,
                  "</location>", "</skill>"]
    lines.append("</available_skills>")
    return "\n".join(lines)


def skill_md_location(s: Skill) -> str | None:
    """The absolute path of the skill's SKILL.md on disk, or None when it has none."""
    if s.source_path and "!" not in s.source_path and Path(s.source_path).is_file():
        return str(Path(s.source_path).resolve())
    return None


def with_warning(description: str, warning: str | None) -> str:
    """A description as the gated block shows it: the gate's warning, if any, after it."""
    return f"{description} (Warning: {warning})" if warning else description


def prompt_for(store, names: Sequence[str], warnings: dict[str, str | None] | None = None) -> tuple[str, list[str]]:
    """(the block for the named skills that have a SKILL.md on disk, in the order given, each
    description followed by its warning in ``warnings``; the names left out because they have none)."""
    entries, left_out = [], []
    warnings = warnings or {}
    for name in names:
        s = store.get(name, with_files=False)
        location = skill_md_location(s)
        if location is None:
            left_out.append(s.name)
        else:
            entries.append((s.name, with_warning(s.description, warnings.get(s.name)), location))
    return available_skills_block(entries), left_out


def gated_prompt(store, names: Sequence[str] | None = None) -> tuple[str, list[str]]:
    """:func:`prompt_for` the skills the gate lets agents see (of all, or of ``names``), each
    with the warning it passes with (SPEC §8)."""
    from skill_studio.core.agents import matching

    passed = [e for e in matching.gate(store, list(names) if names is not None else None) if e.passed]
    return prompt_for(store, [e.name for e in passed], {e.name: e.warning for e in passed})
