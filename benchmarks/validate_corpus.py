"""A seeded corpus of skill folders as public collections hold them, for the validation benchmark and tests.

``build_corpus(root, n)`` copies the real-world fixtures and the samples, then writes generated
skills until there are ``n`` folders. ``generated_skill(rng, i)`` gives one generated skill's
folder name and SKILL.md bytes. The mix follows what real collections contain: flow-style lists
in most frontmatters (``allowed-tools: [Bash, Read]``, ``tags: [a, b]``,
``requires: {mcp: [rube]}``), block lists, plain, single- and double-quoted scalars, ``|-`` and
``>`` descriptions, metadata maps, extra top-level keys, long descriptions, comments, anchors
and tags rarely, CRLF line ends sometimes, and a share of broken ones (an unquoted ': ', a
duplicate key, a tab indent, a missing field, an unclosed quote or frontmatter, a bad name).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

__all__ = ["REAL_FOLDERS", "build_corpus", "generated_skill", "generated_texts", "real_skill_folders"]

_REPO = Path(__file__).resolve().parent.parent
REAL_FOLDERS = (_REPO / "tests" / "fixtures" / "real_world", _REPO / "resources" / "samples")

_WORDS = ("review", "pull", "request", "test", "deploy", "docker", "sql", "migration", "pdf", "csv", "report",
          "search", "slack", "notion", "jira", "triage", "release", "notes", "commit", "message", "lint",
          "format", "python", "rust", "api", "schema", "cache", "incident", "runbook", "kubernetes", "helm",
          "terraform", "plan", "audit", "security", "log", "metrics", "dashboard", "invoice", "email")
_TOOLS = ("Bash", "Read", "Write", "Edit", "Grep", "Glob", "WebFetch", "WebSearch", "Task", "TodoWrite",
          "Bash(git:*)", "mcp__github__create_issue", "NotebookEdit")
_LICENSES = ("MIT", "Apache-2.0", "Proprietary. LICENSE.txt has complete terms", "BSD-3-Clause")
_SENTENCES = (
    "Reviews the change for style, naming and missing tests",
    "Explains each finding in plain words and proposes a fix",
    "Works on Markdown, YAML and JSON files of any size",
    "Keeps the original layout when tables matter",
    "Falls back to OCR for scanned pages",
    "Groups results by app and keeps the five most recent",
    "Writes a summary a reviewer can read in a minute",
    "Never changes files outside the working tree",
    "Über-schnelle Prüfung der Konfiguration, ohne Änderungen",
    "日本語のドキュメントも扱えます",
)


def real_skill_folders() -> list[Path]:
    """The skill folders of the real-world fixtures and the samples (a folder holding SKILL.md or skill.md)."""
    out: list[Path] = []
    for base in REAL_FOLDERS:
        for md in sorted(base.rglob("*")):
            if md.name in ("SKILL.md", "skill.md") and md.is_file() and ".git" not in md.parts:
                out.append(md.parent)
    return sorted(set(out))


def _name(rng: random.Random, i: int) -> str:
    return "-".join(rng.sample(_WORDS, rng.choice((1, 2, 2, 3)))) + f"-{i}"


def _description(rng: random.Random) -> list[str]:
    text = ". ".join(rng.sample(_SENTENCES, rng.randint(1, 4))) + ". Use when the user asks for it."
    if rng.random() < 0.08:
        text = " ".join([text] * rng.randint(3, 6))  # run-on prose, sometimes over the limit
    kind = rng.random()
    if kind < 0.55:
        return [f"description: {text}"]
    if kind < 0.75:
        escaped = text.replace('"', '\\"')
        return [f'description: "{escaped}: with a colon"']
    if kind < 0.82:
        return [f"description: '{text.replace(chr(39), chr(39) * 2)}'"]
    style = rng.choice(("|-", ">", "|", ">-"))
    words = text.split()
    lines = [" ".join(words[k:k + 9]) for k in range(0, len(words), 9)]
    return [f"description: {style}"] + [f"  {line}" for line in lines]


def _list(rng: random.Random, key: str, items: list[str], flow: bool, indent: str = "") -> list[str]:
    if flow:
        return [f"{indent}{key}: [{', '.join(items)}]"]
    return [f"{indent}{key}:"] + [f"{indent}  - {item}" for item in items]


def _frontmatter(rng: random.Random, name: str) -> list[str]:
    flow = rng.random() < 0.87   # most real frontmatters hold a flow-style list somewhere
    lines = [f"name: {name}"] + _description(rng)
    if rng.random() < 0.5:
        lines.append(f"license: {rng.choice(_LICENSES)}")
    if rng.random() < 0.15:
        lines.append("# what it may run")
    if rng.random() < 0.2:
        lines.append("compatibility: Requires git 2.30+ and Python 3.10 or later")
    tools = rng.sample(_TOOLS, rng.randint(1, 5))
    placed = False
    if rng.random() < 0.7:
        lines += _list(rng, "allowed-tools", tools, flow and rng.random() < 0.8)
        placed = flow
    elif rng.random() < 0.5:
        lines.append(f"allowed-tools: {' '.join(tools)}")
    if rng.random() < 0.45:
        tags = rng.sample(_WORDS, rng.randint(1, 4))
        lines += _list(rng, "tags", tags, flow and (not placed or rng.random() < 0.5))
        placed = placed or flow
    if rng.random() < 0.4:
        lines += ["metadata:", f"  author: {rng.choice(('acme', 'Jane Doe', 'ops-team'))}",
                  f"  version: \"{rng.randint(0, 3)}.{rng.randint(0, 9)}\""]
        if rng.random() < 0.3:
            lines += _list(rng, "keywords", rng.sample(_WORDS, 3), flow and rng.random() < 0.5, "  ")
    if rng.random() < 0.2:
        lines.append(f"version: {rng.randint(0, 3)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}")
    if rng.random() < 0.1:
        lines.append(rng.choice(("category: development", "author: Jane Doe", "user-invocable: true")))
    if flow and not placed:
        lines.append(rng.choice(("requires: {mcp: [rube]}", "tags: [search, mcp, productivity]",
                                 "allowed-tools: []", "platforms: [linux, macos]")))
    if rng.random() < 0.02:
        lines += ["license: &lic MIT", "metadata:", "  license: *lic"]
    if rng.random() < 0.01:
        lines.append("version: !!str 1.0")
    return lines


def _break(rng: random.Random, lines: list[str]) -> list[str]:
    """One of the mistakes real collections hold."""
    kind = rng.randrange(10)
    if kind == 0:
        return lines[:1] + ["description: Use this when: you need a review of the change"] + lines[2:]
    if kind == 1:
        return lines + ["license: MIT", "license: Apache-2.0"]
    if kind == 2:
        return lines + ["metadata:", "\tauthor: me"]
    if kind == 3:
        return [line for line in lines if not line.startswith("description")]
    if kind == 4:
        return lines + ["license: 'MIT"]
    if kind == 5:
        return [lines[0].replace("name: ", "name: Title Case ")] + lines[1:]
    if kind == 6:
        return lines + ["notes: |", "first line", "second line"]
    if kind == 7:
        return lines + ["  compatibility: linux"]
    if kind == 8:
        return lines + ["metadata:", "  a: x", "extra:", "    b: y"]
    return lines + ["allowed-tools: - Read"]


def generated_skill(rng: random.Random, i: int) -> tuple[str, bytes]:
    """A generated skill: its folder name and its SKILL.md bytes."""
    name = _name(rng, i)
    lines = _frontmatter(rng, name)
    if rng.random() < 0.06:
        lines = _break(rng, lines)
    body = [f"# {name.replace('-', ' ').title()}", "", "## Steps", ""]
    body += [f"{k + 1}. {rng.choice(_SENTENCES)}." for k in range(rng.choice((3, 8, 20, 60, 200)))]
    if rng.random() < 0.3:
        body += ["", "```bash", "git diff --stat", "```", "", "See [the guide](references/guide.md)."]
    closed = rng.random() > 0.005
    text = "\n".join(["---", *lines, *(["---"] if closed else []), "", *body])
    if rng.random() > 0.05:
        text += "\n"
    if rng.random() < 0.06:
        text = text.replace("\n", "\r\n")
    return name, text.encode("utf-8")


def generated_texts(n: int, seed: int = 1) -> list[tuple[str, bytes]]:
    """``n`` generated skills (folder name, SKILL.md bytes), the same for the same seed."""
    rng = random.Random(seed)
    return [generated_skill(rng, i) for i in range(n)]


def build_corpus(root: Path, n: int, seed: int = 1) -> list[Path]:
    """Write ``n`` skill folders under ``root`` (the real ones first, then generated ones); returns them."""
    root.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    for k, folder in enumerate(real_skill_folders()[:n]):
        target = root / f"real{k:03d}" / folder.name
        shutil.copytree(folder, target, symlinks=True)
        out.append(target)
    rng = random.Random(seed)
    for i in range(n - len(out)):
        name, data = generated_skill(rng, i)
        folder = root / "gen" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_bytes(data)
        if i % 5 == 0:
            (folder / "scripts").mkdir()
            (folder / "scripts" / "run.sh").write_text("#!/bin/sh\necho ok\n", encoding="utf-8")
        out.append(folder)
    return out
