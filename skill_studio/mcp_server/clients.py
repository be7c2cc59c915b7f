"""How the common agent clients are told to start the studio's MCP server: the configuration
snippet of each, with this installation's command and the store's path filled in. (Plain text
only: nothing of the protocol is loaded here, so the window shows it at no cost.)"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

NAME = "skill-studio"


def server_command(store_path: str | os.PathLike) -> tuple[str, list[str]]:
    """(program, arguments) that start the server on ``store_path`` with this installation."""
    beside = Path(sys.executable).parent / ("skill-studio.exe" if os.name == "nt" else "skill-studio")
    head: list[str]
    if beside.exists():
        program, head = str(beside), []
    elif getattr(sys, "frozen", False):   # a bundle: the program itself
        program, head = sys.executable, []
    else:
        found = shutil.which("skill-studio")
        program, head = (found, []) if found else (sys.executable, ["-m", "skill_studio"])
    return program, [*head, "mcp", "--store", str(store_path)]


@dataclass(frozen=True)
class ClientSnippet:
    client: str
    where: str      # where the snippet goes
    text: str


def _toml_string(value: str) -> str:
    return json.dumps(value)   # a TOML basic string reads JSON's escapes


def snippets(store_path: str | os.PathLike) -> list[ClientSnippet]:
    program, args = server_command(store_path)
    stdio = {"command": program, "args": args}
    desktop = json.dumps({"mcpServers": {NAME: stdio}}, indent=2)
    code = shlex.join(["claude", "mcp", "add", NAME, "--", program, *args])
    codex = (f"[mcp_servers.{NAME}]\ncommand = {_toml_string(program)}\n"
             f"args = [{', '.join(_toml_string(a) for a in args)}]\n")
    vscode = json.dumps({"servers": {NAME: {"type": "stdio", **stdio}}}, indent=2)
    return [
        ClientSnippet("Claude Desktop", "claude_desktop_config.json (Settings ▸ Developer ▸ Edit Config)", desktop),
        ClientSnippet("Claude Code", "run in a terminal (add --scope project to share it through .mcp.json)", code),
        ClientSnippet("Cursor", "~/.cursor/mcp.json, or .cursor/mcp.json in a project", desktop),
        ClientSnippet("Codex", "~/.codex/config.toml", codex),
        ClientSnippet("VS Code", ".vscode/mcp.json in the workspace", vscode),
    ]


__all__ = ["ClientSnippet", "server_command", "snippets"]
