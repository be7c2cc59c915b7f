"""What a user may name as a source of skills, and what it means.

- ``owner/repo``, ``owner/repo/path/inside`` and either with ``#ref``: a GitHub repository;
- ``https://github.com/owner/repo/tree/REF/path`` (and GitLab's ``/-/tree/``): the repository,
  the ref and the path inside it, as a browser shows them;
- any other git URL (``https://…``, ``ssh://…``, ``git://…``, ``file://…``, ``user@host:path``);
- a path on this machine: a git repository there (bare or a working copy: its commits, never its
  uncommitted files) or a plain folder of skills.

A path that exists on this machine wins over the GitHub shorthand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

GITHUB, GIT, LOCAL = "github", "git", "local"

_SHORTHAND = re.compile(r"^(?P<owner>[A-Za-z0-9][A-Za-z0-9_.-]*)/(?P<repo>[A-Za-z0-9_.-]+?)(?:\.git)?"
                        r"(?P<path>(?:/[^#]+)?)(?:#(?P<ref>.+))?$")
_URL = re.compile(r"^(?:https?|ssh|git|file|git\+ssh)://", re.IGNORECASE)
_SCP = re.compile(r"^[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:(?!//)")
_BROWSE = re.compile(r"^(?P<base>https?://[^/]+/[^/]+/[^/#]+?)(?:\.git)?/(?:-/)?(?:tree|blob)/(?P<ref>[^/#]+)"
                     r"(?P<path>(?:/[^#]*)?)$", re.IGNORECASE)


class SourceError(ValueError):
    """A source that cannot be understood or reached, said in words a user can act on."""


@dataclass(frozen=True)
class SourceSpec:
    kind: str            # GITHUB, GIT or LOCAL
    source: str          # as recorded and shown: owner/repo, the URL, or the absolute folder
    url: str             # what git fetches (the folder itself for LOCAL)
    ref: str | None      # a branch, tag or commit; None: the default branch
    path: str            # the folder inside the source the skills are looked for in ("" for all)

    @property
    def is_git(self) -> bool:
        return self.kind != LOCAL

    def describe(self) -> str:
        where = self.source + (f"/{self.path}" if self.path and self.kind == GITHUB else "")
        return where + (f"#{self.ref}" if self.ref else "")


def inner_path(text: str) -> str:
    """``text`` as a path inside a source (posix, no leading or trailing slash); SourceError when
    it would leave the source (``..``, absolute)."""
    text = text.strip().strip("/")
    if not text or text == ".":
        return ""
    parts = PurePosixPath(text).parts
    if any(p in ("..", "") for p in parts) or text.startswith("/") or "\\" in text or "\0" in text:
        raise SourceError(f"{text}: a path inside the source may not leave it")
    return "/".join(p for p in parts if p != ".")


def _is_repository(folder: Path) -> bool:
    return (folder / ".git").exists() or ((folder / "HEAD").is_file() and (folder / "objects").is_dir())


def parse_source(text: str, ref: str | None = None, path: str | None = None) -> SourceSpec:
    """The source ``text`` names; ``ref`` and ``path`` (options given beside it) win over a ref or
    path written in it. Raises SourceError for what is none of the forms above."""
    raw = text.strip()
    if not raw:
        raise SourceError("name a source: owner/repo, a git URL or a folder")
    if "\0" in raw or "\n" in raw:
        raise SourceError("a source may not hold control characters")
    inner = inner_path(path) if path is not None else None
    local = Path(raw).expanduser()
    if raw.startswith((".", "/", "~")) or local.exists():
        if not local.exists():
            raise SourceError(f"{raw}: no such folder")
        if not local.is_dir():
            raise SourceError(f"{raw}: not a folder (an archive is imported with 'skill-studio import')")
        folder = local.resolve()
        if _is_repository(folder):
            return SourceSpec(GIT, str(folder), str(folder), ref, inner or "")
        if ref:
            raise SourceError(f"{raw}: a plain folder has no refs (--ref is for git repositories)")
        return SourceSpec(LOCAL, str(folder), str(folder), None, inner or "")
    browse = _BROWSE.match(raw)
    if browse:
        base = browse["base"]
        kind = GITHUB if base.lower().startswith(("https://github.com/", "http://github.com/")) else GIT
        source = base.split("://", 1)[1].split("/", 1)[1] if kind == GITHUB else base + ".git"
        return SourceSpec(kind, source, base + ".git", ref or browse["ref"],
                          inner if inner is not None else inner_path(browse["path"]))
    if _URL.match(raw) or _SCP.match(raw):
        body, _, hash_ref = raw.partition("#")
        match = re.match(r"^https?://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?$", body, re.IGNORECASE)
        if match:
            return SourceSpec(GITHUB, f"{match[1]}/{match[2]}", f"https://github.com/{match[1]}/{match[2]}.git",
                              ref or hash_ref or None, inner or "")
        return SourceSpec(GIT, body, body, ref or hash_ref or None, inner or "")
    short = _SHORTHAND.match(raw)
    if short and ".." not in short["owner"] + short["repo"]:
        owner, repo = short["owner"], short["repo"]
        return SourceSpec(GITHUB, f"{owner}/{repo}", f"https://github.com/{owner}/{repo}.git",
                          ref or short["ref"] or None, inner if inner is not None else inner_path(short["path"]))
    raise SourceError(f"{raw}: not a source: give owner/repo (GitHub), a git URL, or a folder on this machine")


__all__ = ["GIT", "GITHUB", "LOCAL", "SourceError", "SourceSpec", "inner_path", "parse_source"]
