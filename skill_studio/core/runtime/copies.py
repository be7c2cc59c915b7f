"""The temporary folders that runs copy skills into (``skill-studio-run-*``): made with a note of
the process that owns them, measured while a run writes, removed afterwards, and removed at the
next run when the process that made one is gone (a studio killed mid-run leaves its copy behind)."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

PREFIX = "skill-studio-run-"
OWNER = ".owner"             # in the folder: "pid start-time boot-id" of the process that made it
HOME, TMP = ".home", ".tmp"  # beside the copy (a skill's folder name never starts with a dot)


def process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot), or None when there is no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _boot() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "-"


def _me() -> str:
    return f"{os.getpid()} {process_start(os.getpid())} {_boot()}"


def make() -> Path:
    """A new, empty run folder in the temporary folder, noted as this process's. It only takes its
    ``skill-studio-run-`` name once the note is in it, so a folder by that name always has one."""
    new = Path(tempfile.mkdtemp(prefix="skill-studio-new-"))
    try:
        (new / OWNER).write_text(_me() + "\n")
        root = new.with_name(PREFIX + new.name.removeprefix("skill-studio-new-"))
        new.rename(root)
    except BaseException:
        remove(new)
        raise
    return root


def is_stale(root: Path) -> bool:
    """Whether the process that made ``root`` is gone (a live run's folder never is stale; a folder
    with no readable note is not known to be, and is left)."""
    try:
        pid, start, boot = (root / OWNER).read_text().split()
        alive = process_start(int(pid))
    except (OSError, ValueError):
        return False
    return boot != _boot() or alive is None or alive != start


def clean_stale(base: str | os.PathLike | None = None) -> list[Path]:
    """Remove the run folders in ``base`` (the temporary folder) that this user made and whose
    process is gone; returns them."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(os.fspath(base or tempfile.gettempdir())))
    except OSError:
        return removed
    for entry in entries:
        try:
            if not str(entry.name).startswith(PREFIX) or not entry.is_dir(follow_symlinks=False) or \
                    entry.stat(follow_symlinks=False).st_uid != os.geteuid():
                continue
        except OSError:
            continue
        if is_stale(Path(entry.path)):
            remove(Path(entry.path))
            removed.append(Path(entry.path))
    return removed


def remove(root: Path) -> None:
    """Remove a run folder, also where the script took away its own permissions to parts of it."""
    shutil.rmtree(root, ignore_errors=True)
    if not os.path.lexists(root):
        return
    todo = [str(root)]
    while todo:   # each folder opened up before what is in it is looked at
        folder = todo.pop()
        try:
            os.chmod(folder, stat.S_IRWXU)
            with os.scandir(folder) as it:
                todo += [e.path for e in it if e.is_dir(follow_symlinks=False)]
        except OSError:
            pass
    shutil.rmtree(root, ignore_errors=True)


def give_to(uid: int, folders: list[Path]) -> None:
    """Make ``folders`` and all in them ``uid``'s (the run starts as that user), links not followed."""
    for folder in folders:
        os.chown(folder, uid, uid, follow_symlinks=False)
        for dirpath, dirs, files in os.walk(folder):
            for name in dirs + files:
                os.chown(os.path.join(dirpath, name), uid, uid, follow_symlinks=False)


def reachable_by_others(path: Path) -> bool:
    """Whether every folder above ``path`` lets other users pass through."""
    for folder in path.resolve().parents:
        try:
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def used_bytes(root: Path, enough: int) -> int:
    """The disk space taken by what is in ``root`` (counted until it is over ``enough``)."""
    total = 0
    todo = [str(root)]
    while todo and total <= enough:
        try:
            with os.scandir(todo.pop()) as it:
                for entry in it:
                    st = entry.stat(follow_symlinks=False)
                    total += st.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(entry.path)
        except OSError:
            continue
    return total
