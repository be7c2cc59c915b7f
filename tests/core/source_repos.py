"""Git repositories of skills made for the tests: a working copy to change and commit in, and a
bare repository beside it that the studio fetches from (by path or by file:// URL)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_ENV = {"GIT_AUTHOR_NAME": "Upstream", "GIT_AUTHOR_EMAIL": "up@example.org", "GIT_COMMITTER_NAME": "Upstream",
        "GIT_COMMITTER_EMAIL": "up@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, **_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def skill_md(name: str, description: str = "", body: str = "Follow the steps.\n") -> str:
    description = description or f"Does {name.replace('-', ' ')} work. Use when a task needs {name}."
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body}"


class Upstream:
    """A repository: ``work`` (a working copy) pushing to ``bare``."""

    def __init__(self, root: Path, files: dict[str, str | bytes]):
        self.work, self.bare = root / "upstream-work", root / "upstream.git"
        self.work.mkdir(parents=True)
        git("init", "-q", "-b", "main", cwd=self.work)
        self.write(files)
        self.commit("first")
        git("init", "-q", "--bare", "-b", "main", str(self.bare), cwd=root)
        git("remote", "add", "origin", str(self.bare), cwd=self.work)
        git("push", "-q", "origin", "main", cwd=self.work)

    @property
    def url(self) -> str:
        return self.bare.as_uri()

    def write(self, files: dict[str, str | bytes]) -> None:
        for rel, content in files.items():
            path = self.work / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")

    def commit(self, message: str) -> str:
        git("add", "-A", cwd=self.work)
        git("commit", "-q", "--allow-empty", "-m", message, cwd=self.work)
        return self.head()

    def push(self, files: dict[str, str | bytes] | None = None, message: str = "change", *, force: bool = False,
             remove: list[str] = ()) -> str:
        if files:
            self.write(files)
        for rel in remove:
            git("rm", "-r", "-q", rel, cwd=self.work)
        commit = self.commit(message)
        # (the bare repository's own hooks and config are the studio's concern, not this push's)
        git("push", "-q", "--receive-pack=git -c core.hooksPath=/dev/null receive-pack",
            *(["--force"] if force else []), "origin", "main", cwd=self.work)
        return commit

    def head(self) -> str:
        return git("rev-parse", "HEAD", cwd=self.work).strip()


def crafted_commit(bare: Path, tree_entries: list[tuple[str, str, bytes]], message: str = "crafted") -> str:
    """Point ``main`` of the bare repository at a commit whose root tree holds exactly
    ``tree_entries`` (as :func:`tree_of` takes them), as git itself would refuse to make them (a
    name twice, a file and a folder of one name)."""
    env = {**os.environ, **_ENV}
    commit = subprocess.run(["git", "--git-dir", str(bare), "commit-tree", tree_of(bare, tree_entries), "-m",
                             message], env=env, check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "--git-dir", str(bare), "update-ref", "refs/heads/main", commit], check=True)
    return commit


def tree_of(bare: Path, entries: list[tuple[str, str, bytes]]) -> str:
    """A tree id made of ``entries``: (mode, name, content), mode "40000" taking the content as a
    tree id in hex (for nested folders), written as given (git's own checks skipped)."""
    raw = b""
    for mode, name, content in entries:
        sha = content.decode() if mode == "40000" else subprocess.run(
            ["git", "--git-dir", str(bare), "hash-object", "-w", "--stdin"], input=content, check=True,
            capture_output=True).stdout.decode().strip()
        raw += mode.encode() + b" " + name.encode("utf-8", "surrogateescape") + b"\0" + bytes.fromhex(sha)
    return subprocess.run(["git", "--git-dir", str(bare), "hash-object", "-t", "tree", "-w", "--literally",
                           "--stdin"], input=raw, check=True, capture_output=True).stdout.decode().strip()
