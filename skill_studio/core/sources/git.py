"""The machine's git, run so that nothing a repository holds runs here.

Repositories are fetched into bare caches the studio makes (``<store>-sources/``), shallow, with
no tags and no submodules; their files are read as blobs (``ls-tree``, ``cat-file``), never
checked out. So a source's hooks, its ``.gitattributes`` filters and its config never reach this
machine: fetching copies objects only. The user's own git config still applies (credential
helpers, SSH keys, proxies), except hooks: none run for these commands. Each command runs with
the variables that would point git at another repository removed from its environment.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from skill_studio.core.format.names import printable

#: Settings every command runs with, whatever the user's config says.
SAFE_CONFIG = ("core.hooksPath=/dev/null", "core.fsmonitor=false", "protocol.ext.allow=never",
               "fetch.recurseSubmodules=false", "submodule.recurse=false", "gc.auto=0")
_REDIRECTS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
              "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_CONFIG")
FETCH_TIMEOUT = 600.0     # seconds a fetch may take before it is stopped
READ_TIMEOUT = 120.0
MAX_FETCH_BYTES = 4 * 1024 ** 3   # what one fetch may bring into a cache before it is stopped


class GitError(Exception):
    """git is missing, or a git command failed (the message ends with git's own words)."""


@dataclass(frozen=True)
class Entry:
    """A file of a commit's tree."""

    path: str     # inside the repository, with /
    mode: int     # 0o100644, 0o100755, 0o120000 (a link) or 0o160000 (a submodule)
    sha: str
    size: int     # bytes (0 for a submodule)

    @property
    def is_file(self) -> bool:
        return self.mode in (0o100644, 0o100755, 0o100664)

    @property
    def executable(self) -> bool:
        return self.mode == 0o100755


def git_program() -> str:
    found = shutil.which("git")
    if found is None:
        raise GitError("git is not installed: install git (the studio fetches repositories with it, so your "
                       "credentials and SSH keys work) and try again")
    return found


def _env(interactive: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REDIRECTS}
    env["LC_ALL"] = "C"
    if not interactive:
        env["GIT_TERMINAL_PROMPT"] = "0"     # a window has no terminal to ask in
        env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def _command(args: list[str], git_dir: Path | None) -> list[str]:
    cmd = [git_program()]
    for setting in SAFE_CONFIG:
        cmd += ["-c", setting]
    if git_dir is not None:
        cmd += ["--git-dir", str(git_dir)]
    return cmd + args


def _failed(args: list[str], stderr: bytes) -> GitError:
    words = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    said = "; ".join(w.removeprefix("fatal: ").removeprefix("error: ") for w in words[-2:]) or "failed"
    return GitError(f"git {args[0]}: {said}")


def run_git(args: list[str], *, git_dir: Path | None = None, data: bytes | None = None, interactive: bool = False,
            timeout: float = READ_TIMEOUT) -> bytes:
    """git's output for ``args`` (in the bare repository ``git_dir`` when given); GitError, with
    git's last words, when it fails or takes longer than ``timeout`` seconds."""
    try:
        done = subprocess.run(_command(args, git_dir), input=data, capture_output=True, env=_env(interactive),
                              timeout=timeout, cwd=str(git_dir) if git_dir is not None else None,
                              stdin=None if data is not None else subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took longer than {timeout:.0f} s and was stopped") from None
    except OSError as e:
        raise GitError(f"git could not be run: {e.strerror or e}") from None
    if done.returncode != 0:
        raise _failed(args, done.stderr)
    return done.stdout


def _size(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def _amount(n: int) -> str:
    return f"{n / 2**30:.0f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def fetch_bounded(args: list[str], git_dir: Path, *, interactive: bool, limit: int = MAX_FETCH_BYTES,
                  timeout: float = FETCH_TIMEOUT) -> None:
    """Run a fetch into ``git_dir``, stopped (GitError) once what it brought passes ``limit`` bytes
    or it takes longer than ``timeout``: a repository cannot fill the disk."""
    import tempfile
    import time

    start = _size(git_dir)
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(_command(args, git_dir), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=err, env=_env(interactive), cwd=str(git_dir))
        except OSError as e:
            raise GitError(f"git could not be run: {e.strerror or e}") from None
        deadline = time.monotonic() + timeout
        code = None
        while code is None:
            try:
                code = proc.wait(timeout=0.25)
            except subprocess.TimeoutExpired:
                pass
            grown = _size(git_dir) - start
            if grown > limit or (code is None and time.monotonic() > deadline):
                if code is None:
                    proc.kill()
                    proc.wait()
                import shutil

                shutil.rmtree(git_dir, ignore_errors=True)   # only a cache: the next fetch starts afresh
                if grown > limit:
                    raise GitError(f"git fetch: the repository brought more than {_amount(limit)} and was "
                                   "stopped; name a smaller repository or a path inside it")
                raise GitError(f"git fetch took longer than {timeout:.0f} s and was stopped")
        if code != 0:
            err.seek(0)
            raise _failed(args, err.read())


_BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|^[-/.]|[/.]$|\.lock$|/\.")


def ref_name_ok(ref: str) -> bool:
    """Whether ``ref`` can be a branch, tag or commit name (git's own rules, roughly: no blanks,
    none of ~^:?*[\\, no "..", not starting with "-")."""
    return bool(ref) and len(ref) <= 255 and not _BAD_REF.search(ref)


class RepoCache:
    """Bare repositories fetched from sources, one per URL, under ``root``."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def dir_for(self, url: str) -> Path:
        return self.root / (hashlib.sha256(url.encode("utf-8")).hexdigest()[:20] + ".git")

    def fetch(self, url: str, ref: str | None, *, interactive: bool = False) -> tuple[Path, str]:
        """Fetch ``ref`` (the default branch when None) of ``url``, its newest commit only: the
        bare repository and the commit's id."""
        if url.startswith("-"):
            raise GitError(f"{url}: not a repository URL")
        if ref is not None and not ref_name_ok(ref):
            raise GitError(f"{printable(ref)}: not a branch, tag or commit name")
        git_dir = self.dir_for(url)
        if not (git_dir / "HEAD").is_file():
            self.root.mkdir(parents=True, exist_ok=True)
            run_git(["init", "--bare", "--quiet", str(git_dir)])
        # Straight into a ref of its own (not FETCH_HEAD, which another fetch of this cache, from
        # the window or the command line, may be writing at the same time).
        key = hashlib.sha256((ref or "HEAD").encode("utf-8")).hexdigest()[:16]
        target = f"refs/studio/{key}"
        fetch_bounded(["fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head",
                       "--depth=1", "--", url, f"+{ref or 'HEAD'}:{target}"], git_dir, interactive=interactive)
        commit = run_git(["rev-parse", "--verify", "--end-of-options", f"{target}^{{commit}}"],
                         git_dir=git_dir).decode().strip()
        return git_dir, commit


def tree(git_dir: Path, commit: str, under: str = "") -> tuple[list[Entry], list[str]]:
    """The files of ``commit`` under the folder ``under`` ("" for all), and a line for each path
    that cannot be used here (not UTF-8)."""
    args = ["ls-tree", "-r", "-z", "-l", "--full-tree", commit]
    if under:
        args += ["--", under]
    out = run_git(args, git_dir=git_dir)
    entries: list[Entry] = []
    problems: list[str] = []
    for record in out.split(b"\0"):
        if not record:
            continue
        head, _, raw_path = record.partition(b"\t")
        fields = head.split()
        if len(fields) != 4:
            continue
        try:
            path = raw_path.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"{printable(raw_path.decode('utf-8', 'replace'))}: left out (its name is not UTF-8)")
            continue
        mode, size = int(fields[0], 8), fields[3]
        entries.append(Entry(path, mode, fields[2].decode(), int(size) if size.isdigit() else 0))
    return entries, problems


def blobs(git_dir: Path, shas: list[str]) -> dict[str, bytes]:
    """The bytes of each blob named (one ``cat-file --batch`` for all)."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    out = run_git(["cat-file", "--batch"], git_dir=git_dir, data=("\n".join(wanted) + "\n").encode())
    found: dict[str, bytes] = {}
    at = 0
    for sha in wanted:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        if len(header) != 3 or header[1] != b"blob":
            raise GitError(f"git cat-file: {sha} is not a file of this commit")
        size = int(header[2])
        found[sha] = out[end + 1:end + 1 + size]
        at = end + 1 + size + 1
    return found


__all__ = ["Entry", "GitError", "MAX_FETCH_BYTES", "RepoCache", "SAFE_CONFIG", "blobs", "fetch_bounded", "git_program",
           "run_git", "tree"]
