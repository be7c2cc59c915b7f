"""Installing skills for agents by name (core.library.agent_folders) rather than by folder: the
folders of the agents asked for, each once (several agents share ``.agents/skills``), and which
agents' folders hold each skill now."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from skill_studio.core.library import install
from skill_studio.core.library.agent_folders import AgentFolder, find_agent, folder_for, folders
from skill_studio.core.library.install_manifest import read_manifest


def targets(agent_keys: Iterable[str], project: Path | None) -> dict[Path, list[str]]:
    """The folders to install into for these agents (in ``project``, or their global folders), each
    with the agents that read it. ValueError for an agent the studio does not know."""
    out: dict[Path, list[str]] = {}
    for key in agent_keys:
        agent = find_agent(key)
        out.setdefault(folder_for(agent, project), []).append(agent.key)
    return out


@dataclass(frozen=True)
class Held:
    """A skill in an agent's folder."""

    folder: AgentFolder
    by_studio: bool        # the studio installed it (its manifest lists it); else it was put there otherwise


def holders(store, project: Path | None = None) -> dict[str, list[Held]]:
    """For each skill name found in an agent's folder (global, and the project's when given), the
    folders holding it."""
    out: dict[str, list[Held]] = {}
    for place in folders(project):
        if not place.path.is_dir():
            continue
        try:
            listed = set(read_manifest(place.path)["skills"])
        except (install.InstallError, OSError, ValueError):
            listed = set()
        try:
            names = sorted(p.name for p in place.path.iterdir() if (p / "SKILL.md").exists())
        except OSError:
            continue
        for name in names:
            out.setdefault(name, []).append(Held(place, name in listed))
    return out


__all__ = ["Held", "holders", "targets"]
