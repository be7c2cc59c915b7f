"""The ``<available_skills>`` prompt block (SKILL-FORMAT.md, byte-identical to the reference's
``to-prompt``) and where a stored skill's SKILL.md is for an agent.

On request the gated block also tells agents how to run each skill's scripts from a workspace
mount of installed skills (``bash .skills/<name>/scripts/run.sh``): a line after the description
of each skill that has scripts, so an agent whose workspace holds the skills in ``.skills/``
runs them from there."""

from __future__ import annotations

import html
import posixpath
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from skill_studio.core.model import Skill

#: What of a description the block carries: the format's own limit. A longer one (a lenient
#: import keeps it) is cut there, so one skill cannot fill every agent's prompt.
MAX_BLOCK_DESCRIPTION = 1024
#: How the run hint starts each kind of script, by the end of its name ("" for none).
RUNNERS = {".sh": "bash", ".bash": "bash", "": "bash", ".py": "python3"}
#: The most scripts one hint names.
MAX_HINTED_SCRIPTS = 5


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


def run_hint_problem(mount: str) -> str | None:
    """Why ``mount`` cannot be the folder a run hint names, or None: it is where the workspace
    holds the installed skills, as a relative path inside the workspace (``.skills``)."""
    path = mount.strip().replace("\\", "/")
    if not path or path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return f"{mount!r} is not a folder inside the workspace; give it relative to the workspace, e.g. .skills"
    if ".." in path.split("/") or "\0" in path:
        return f"{mount!r} leaves the workspace (..); give the folder inside it, e.g. .skills"
    return None


def run_hint(skill: Skill, mount: str) -> str | None:
    """The line telling agents how to run ``skill``'s scripts from the workspace folder ``mount``
    (``Run its scripts from the workspace: bash .skills/<name>/scripts/run.sh``), or None when it
    has none the hint knows how to start (RUNNERS). Raises ValueError for a mount that is not a
    folder inside the workspace (:func:`run_hint_problem`)."""
    from skill_studio.core.runtime.script_run import scripts

    problem = run_hint_problem(mount)
    if problem is not None:
        raise ValueError(f"--run-hint: {problem}")
    base = posixpath.normpath(mount.strip().replace("\\", "/"))
    commands = []
    for path in scripts(skill):
        runner = RUNNERS.get(posixpath.splitext(path)[1].lower())
        if runner is not None:
            commands.append(f"{runner} {shlex.quote(posixpath.join(base, skill.name, path))}")
    if not commands:
        return None
    more = len(commands) - MAX_HINTED_SCRIPTS
    shown = "; ".join(commands[:MAX_HINTED_SCRIPTS]) + (f" (and {more} more)" if more > 0 else "")
    return f"Run its scripts from the workspace: {shown}"


def with_run_hint(description: str, hint: str | None) -> str:
    """A block description with the run hint, if any, on a line of its own after it."""
    return f"{description}\n{hint}" if hint else description


def prompt_for(store, names: Sequence[str], warnings: dict[str, str | None] | None = None,
               run_hint_mount: str | None = None) -> PromptBlock:
    """The block for the named skills that have a SKILL.md on disk, in the order given, each
    description followed by its warning in ``warnings`` and, with ``run_hint_mount``, by the
    :func:`run_hint` for that workspace folder; with the names left out because they have none,
    and those whose description was cut. Raises ValueError for a mount outside the workspace."""
    entries, left_out, cut = [], [], []
    warnings = warnings or {}
    if run_hint_mount is not None and run_hint_problem(run_hint_mount):
        raise ValueError(f"--run-hint: {run_hint_problem(run_hint_mount)}")
    for name in names:
        s = store.get(name, with_files=run_hint_mount is not None)
        entry = block_entry(s, warnings.get(s.name), run_hint_mount)
        if entry is None:
            left_out.append(s.name)
            continue
        if len(s.description) > MAX_BLOCK_DESCRIPTION:
            cut.append(s.name)
        entries.append(entry)
    return PromptBlock(available_skills_block(entries), left_out, cut)


def block_entry(s: Skill, warning: str | None = None,
                run_hint_mount: str | None = None) -> tuple[str, str, str] | None:
    """(name, description as the block carries it, SKILL.md location) of a stored skill, or None
    when it has no SKILL.md on disk: the description cut to MAX_BLOCK_DESCRIPTION, followed by
    the gate's ``warning`` and, with ``run_hint_mount``, how to run its scripts from there."""
    location = skill_md_location(s)
    if location is None:
        return None
    description = with_warning(s.description, warning)
    if run_hint_mount is not None:
        description = with_run_hint(description, run_hint(s, run_hint_mount))
    return s.name, description, location


def gated_prompt(store, names: Sequence[str] | None = None, run_hint_mount: str | None = None) -> PromptBlock:
    """:func:`prompt_for` the skills the gate lets agents see (of all, or of ``names``), each
    with the warning it passes with (SPEC §8) and, with ``run_hint_mount``, how to run its
    scripts from that workspace folder."""
    from skill_studio.core.agents import matching

    passed = [e for e in matching.gate(store, list(names) if names is not None else None) if e.passed]
    return prompt_for(store, [e.name for e in passed], {e.name: e.warning for e in passed}, run_hint_mount)
