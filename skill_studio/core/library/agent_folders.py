"""The skill folders of the agents people use, on this machine and in a project.

Each agent reads skills from a folder in the user's home (global) and one in a project; several
share the project folder ``.agents/skills``. An agent counts as present when its own settings
folder exists (``~/.claude``, ``~/.codex``…). The table follows the agents' documented places and
the variables that move them (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``, ``XDG_CONFIG_HOME``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SHARED = ".agents/skills"


@dataclass(frozen=True)
class Agent:
    key: str             # as the command line names it: claude-code, codex…
    name: str            # as people call it
    project: str         # its folder inside a project, relative
    global_dir: Path     # its folder in the user's home
    marks: tuple[Path, ...]   # any of these existing: the agent is on this machine


@dataclass(frozen=True)
class AgentFolder:
    agent: Agent
    scope: str           # "global" or "project"
    path: Path

    @property
    def present(self) -> bool:
        """Whether the agent is on this machine (its settings folder exists)."""
        return any(m.exists() for m in self.agent.marks)


def agents(env: Mapping[str, str] | None = None, home: Path | None = None) -> list[Agent]:
    """The agents the studio knows, in the order they are shown."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home()) if home is None else home
    config = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    claude = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    codex = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
    return [
        Agent("claude-code", "Claude Code", ".claude/skills", claude / "skills", (claude,)),
        Agent("codex", "Codex", SHARED, codex / "skills", (codex,)),
        Agent("cursor", "Cursor", SHARED, home / ".cursor" / "skills", (home / ".cursor",)),
        Agent("gemini-cli", "Gemini CLI", SHARED, home / ".gemini" / "skills", (home / ".gemini",)),
        Agent("github-copilot", "GitHub Copilot", SHARED, home / ".copilot" / "skills", (home / ".copilot",)),
        Agent("opencode", "OpenCode", SHARED, config / "opencode" / "skills", (config / "opencode",)),
        Agent("windsurf", "Windsurf", ".windsurf/skills", home / ".codeium" / "windsurf" / "skills",
              (home / ".codeium" / "windsurf",)),
        Agent("goose", "Goose", ".goose/skills", config / "goose" / "skills", (config / "goose",)),
        Agent("amp", "Amp", SHARED, config / "agents" / "skills", (config / "amp",)),
        Agent("agents", "Shared (.agents)", SHARED, home / ".agents" / "skills", (home / ".agents",)),
    ]


def find_agent(key: str, env: Mapping[str, str] | None = None) -> Agent:
    """The agent named ``key``; ValueError naming the known ones otherwise."""
    known = agents(env)
    for agent in known:
        if agent.key == key:
            return agent
    raise ValueError(f"no agent {key!r}: one of {', '.join(a.key for a in known)}")


def folders(project: Path | None = None, env: Mapping[str, str] | None = None) -> list[AgentFolder]:
    """Every agent's global folder and, with a project, its project folder."""
    out: list[AgentFolder] = []
    for agent in agents(env):
        out.append(AgentFolder(agent, "global", agent.global_dir))
        if project is not None:
            out.append(AgentFolder(agent, "project", Path(project) / agent.project))
    return out


def folder_for(agent: Agent, project: Path | None) -> Path:
    """Where ``agent`` reads skills: in ``project`` when given, else its global folder."""
    return Path(project) / agent.project if project is not None else agent.global_dir


__all__ = ["SHARED", "Agent", "AgentFolder", "agents", "find_agent", "folder_for", "folders"]
