"""The ``<available_skills>`` prompt block (SKILL-FORMAT.md, byte-identical to the reference's
``to-prompt``) and where a stored skill's SKILL.md is for an agent."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from skill_studio.core.model import Skill

#: What of a description the block carries: the format's own limit. A longer one (a lenient
#: import keeps it) is cut there, so one skill cannot fill every agent's prompt.
MAX_BLOCK_DESCRIPTION = 1024


class PromptBlock(NamedTuple):
    text: str
    left_out: list[str]     # no SKILL.md on disk
    cut: list[str]          # descriptions over MAX_BLOCK_DESCRIPTION, cut there

    def notes(self) -> list[str]:
        """What the user is told beside the copied block, one line each."""
        out = []
        if self.left_out:
            out.append(f"left out, no SKILL.md on disk: {_some(self.left_out)}")
        if self.cut:
            out.append(f"description cut to {MAX_BLOCK_DESCRIPTION:,} characters: {_some(self.cut)}")
        return out


def _some(names: list[str], shown: int = 5) -> str:
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


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


def block_description(description: str) -> str:
    """A description as the block carries it: whole up to MAX_BLOCK_DESCRIPTION characters,
    cut there (with "…") beyond."""
    if len(description) <= MAX_BLOCK_DESCRIPTION:
        return description
    return description[:MAX_BLOCK_DESCRIPTION - 1].rstrip() + "…"


def with_warning(description: str, warning: str | None) -> str:
    """A description as the gated block shows it (cut to MAX_BLOCK_DESCRIPTION), the gate's
    warning, if any, after it."""
    description = block_description(description)
    return f"{description} (Warning: {warning})" if warning else description


def prompt_for(store, names: Sequence[str], warnings: dict[str, str | None] | None = None) -> PromptBlock:
    """The block for the named skills that have a SKILL.md on disk, in the order given, each
    description followed by its warning in ``warnings``; with the names left out because they
    have none, and those whose description was cut."""
    entries, left_out, cut = [], [], []
    warnings = warnings or {}
    for name in names:
        s = store.get(name, with_files=False)
        location = skill_md_location(s)
        if location is None:
            left_out.append(s.name)
            continue
        if len(s.description) > MAX_BLOCK_DESCRIPTION:
            cut.append(s.name)
        entries.append((s.name, with_warning(s.description, warnings.get(s.name)), location))
    return PromptBlock(available_skills_block(entries), left_out, cut)


def gated_prompt(store, names: Sequence[str] | None = None) -> PromptBlock:
    """:func:`prompt_for` the skills the gate lets agents see (of all, or of ``names``), each
    with the warning it passes with (SPEC §8)."""
    from skill_studio.core.agents import matching

    passed = [e for e in matching.gate(store, list(names) if names is not None else None) if e.passed]
    return prompt_for(store, [e.name for e in passed], {e.name: e.warning for e in passed})
