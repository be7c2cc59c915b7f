"""Test runs of a skill's scripts: a temporary copy of the skill folder as the working directory,
sandboxed where bubblewrap can be used (core.runtime.sandbox), and the files the script wrote collected as
outputs. The stored skill, and the folder it came from, are never where a script runs.

``plan`` makes the copy and the command; ``run`` runs it (on the caller's thread: the window calls
it from a worker thread), streaming the output, with a timeout and a cancel.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from skill_studio.core.format.names import skill_name_problem
from skill_studio.core.format.skill_paths import safe_relative_path
from skill_studio.core.library.folders import skill_files_with_md
from skill_studio.core.model import Skill, TrustTier
from skill_studio.core.runtime import sandbox

DEFAULT_TIMEOUT_S = 60.0
_ENTRY_NAMES = ("run.sh", "main.py")
_MAX_KEPT_CHARS = 2_000_000      # what is kept of stdout and of stderr for the result
_SHELLS = ("sh", "bash", "dash")


class RunError(ValueError):
    """A run that cannot start: no such script, not a script, a file that cannot be copied."""


def is_script(path: str) -> bool:
    """Whether a file of a skill is one a run can start: run.sh, main.py, or one under scripts/."""
    return path in _ENTRY_NAMES or path.startswith("scripts/")


def scripts(skill: Skill) -> list[str]:
    """The scripts a skill can be tried with: run.sh, main.py, then everything under scripts/."""
    paths = {f.path for f in skill.files}
    return [p for p in _ENTRY_NAMES if p in paths] + sorted(p for p in paths if is_script(p) and p not in
                                                             _ENTRY_NAMES)


def trust_question(skill: Skill) -> str | None:
    """Why running this skill's scripts needs the user's yes (below trust tier 3), or None."""
    tier = TrustTier(skill.trust_tier)
    if tier >= TrustTier.TRUSTED:
        return None
    tool, why_not = sandbox.available()
    return (f'"{skill.name}" is at trust tier {int(tier)} ({tier.label}, {skill.origin.value}): nobody has vouched '
            "for its scripts, and a script can do anything your user account can"
            + ("" if tool else f" (and the run is not sandboxed: {why_not})"))


def bwrap() -> str | None:
    """The bubblewrap command, when runs can be sandboxed with it here."""
    return sandbox.available()[0]


@dataclass
class RunPlan:
    """Everything needed to start one run, and to read it afterwards."""

    skill: str
    script: str
    argv: list[str]                 # the command, sandbox included
    cwd: Path                       # the skill's temporary copy
    env: dict[str, str]
    sandboxed: bool
    sandbox_note: str               # why not, when not
    root: Path                      # the temporary folder holding the copy (removed by cleanup)
    before: dict[str, str] = field(default_factory=dict)   # path -> hash of the copy's files at the start

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class RunOutput:
    path: str
    size: int
    new: bool                      # written by the run (False: an existing file it changed)


@dataclass
class RunResult:
    exit_code: int | None          # None when it was stopped (timeout or cancel)
    timed_out: bool
    cancelled: bool
    sandboxed: bool
    sandbox_note: str
    seconds: float
    outputs: list[RunOutput]
    stdout: str = ""
    stderr: str = ""

    @property
    def summary(self) -> str:
        how = ("stopped: out of time" if self.timed_out else "cancelled" if self.cancelled
               else f"exit code {self.exit_code}")
        box = "sandboxed" if self.sandboxed else f"not sandboxed ({self.sandbox_note})"
        return f"{how} after {self.seconds:.1f} s, {box}, {len(self.outputs)} output file(s)"


def plan(skill: Skill, script: str | None = None, args: list[str] | None = None, *,
         use_sandbox: bool = True) -> RunPlan:
    """Copy the skill into a new temporary folder and plan running ``script`` (the first of
    ``scripts(skill)`` when None) there. Raises RunError when there is nothing to run, or a file
    of the skill has a path that would land outside the copy."""
    available = scripts(skill)
    if script is None:
        if not available:
            raise RunError(f'"{skill.name}" has no script to run (run.sh, main.py or scripts/...)')
        script = available[0]
    by_path = {f.path: f for f in skill.files}
    if script not in by_path:
        raise RunError(f'"{skill.name}" has no file {script!r}' + (f"; its scripts: {', '.join(available)}"
                                                                    if available else ""))
    folder = skill.folder_name or skill.name
    if not folder or skill_name_problem(folder):
        folder = "skill"
    root = Path(tempfile.mkdtemp(prefix="skill-studio-run-"))
    try:
        cwd = root / folder
        for f in skill_files_with_md(skill):
            try:
                rel = safe_relative_path(f.path)
            except ValueError as e:
                raise RunError(f"{skill.name}/{f.path}: {e}; not copied, not run") from None
            out = cwd / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            with open(out, "xb") as fh:   # never through a link, never over a file already there
                fh.write(f.data)
            os.chmod(out, (f.mode & 0o777) | 0o600)
        (root / "home").mkdir()
        (root / "tmp").mkdir()
        script = safe_relative_path(script)
        command = _command(cwd, script, by_path[script].data, list(args or []))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root / "home"), "LANG": "C.UTF-8",
               "TMPDIR": str(root / "tmp"), "SKILL_DIR": str(cwd), "SKILL_NAME": skill.name,
               "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"}   # output as it is written
        tool, note = sandbox.available()
        sandboxed = False
        if use_sandbox and tool:
            command = sandbox.command(tool, command, root, cwd)
            sandboxed = True
        elif not use_sandbox:
            note = "sandbox turned off"
        before = {f.path: _digest_bytes(f.data) for f in skill_files_with_md(skill)}
        return RunPlan(skill.name, script, command, cwd, env, sandboxed, note, root, before)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def _command(cwd: Path, script: str, data: bytes, args: list[str]) -> list[str]:
    path = str(cwd / script)
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace")
    interpreter = _shebang(first)
    if script.endswith(".py") or interpreter in ("python", "python3"):
        return [_python(), path, *args]
    if script.endswith(".sh") or interpreter in _SHELLS:
        shell = interpreter if interpreter in _SHELLS and shutil.which(interpreter) else \
            "bash" if shutil.which("bash") else "sh"
        return [shell, path, *args]
    if interpreter:
        os.chmod(path, os.stat(path).st_mode | 0o100)
        return [path, *args]
    raise RunError(f"{script}: not a script (no .sh or .py name, and no #! line)")


def _shebang(first_line: str) -> str | None:
    """The program a ``#!`` line names ('python3' of ``#!/usr/bin/env python3``), or None."""
    if not first_line.startswith("#!"):
        return None
    try:
        words = shlex.split(first_line[2:])
    except ValueError:
        words = first_line[2:].split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    return os.path.basename(words[0]) if words else None


def _python() -> str:
    """A Python for .py scripts: this one, unless it is a bundled app's executable."""
    if getattr(sys, "frozen", False):
        return shutil.which("python3") or "python3"
    return sys.executable


def _digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _digest_file(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()   # read in blocks: any size


def outputs(p: RunPlan) -> list[RunOutput]:
    """The files of the copy that the run added or changed (links are not followed)."""
    found = []
    for dirpath, _dirs, files in os.walk(p.cwd):
        for name in files:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            rel = path.relative_to(p.cwd).as_posix()
            size = path.stat().st_size
            if rel not in p.before or _digest_file(path) != p.before[rel]:
                found.append(RunOutput(rel, size, rel not in p.before))
    return sorted(found, key=lambda o: o.path)


def save_outputs(p: RunPlan, dest: str | os.PathLike, found: list[RunOutput] | None = None) -> list[Path]:
    """Copy the run's outputs (``found``, else looked for again) into ``dest``, keeping their
    folders; returns the files written."""
    written = []
    for o in outputs(p) if found is None else found:
        target = Path(dest) / safe_relative_path(o.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p.cwd / o.path, target, follow_symlinks=False)
        written.append(target)
    return written


def run(p: RunPlan, *, timeout: float = DEFAULT_TIMEOUT_S, on_output: Callable[[str, str], None] | None = None,
        cancelled: Callable[[], bool] = lambda: False) -> RunResult:
    """Run a planned script to the end (or the timeout, or until ``cancelled()``), passing each
    piece of stdout and stderr to ``on_output(stream, text)`` as it comes. Whatever happens, the
    script and everything it started are stopped before this returns."""
    start = time.monotonic()
    kept: dict[str, list[str]] = {"stdout": [], "stderr": []}
    proc: subprocess.Popen[bytes] | None = None
    pumps: list[threading.Thread] = []
    timed_out = was_cancelled = False
    try:
        # Ctrl+C or SIGTERM while the script starts would leave it running unseen: held until it has.
        with _interrupts_held() as unblock_in_child:
            proc = subprocess.Popen(p.argv, cwd=p.cwd, env=p.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True, preexec_fn=unblock_in_child)
            pumps = [threading.Thread(target=_pump, args=(getattr(proc, name), name, kept[name], on_output),
                                      daemon=True) for name in ("stdout", "stderr")]
            for t in pumps:
                t.start()
        while proc.poll() is None:
            if time.monotonic() - start > timeout:
                timed_out = True
            elif cancelled():
                was_cancelled = True
            if timed_out or was_cancelled:
                break
            time.sleep(0.02)
    finally:
        if proc is not None:   # (None: it did not start, and what stopped it is on its way up)
            stop(proc.pid)     # the script if it still runs, and whatever it left running
            code = proc.wait()
            # Each reader closes its pipe when it ends. One still reading after this is held
            # open by a process that left the group (a daemon that called setsid): closing the
            # pipe here would wait for that read, so the run does not wait for it.
            for t in pumps:
                t.join(timeout=2)
    return RunResult(None if timed_out or was_cancelled else code, timed_out, was_cancelled, p.sandboxed,
                     p.sandbox_note, time.monotonic() - start, outputs(p), "".join(kept["stdout"]),
                     "".join(kept["stderr"]))


@contextmanager
def _interrupts_held():
    """On the main thread, SIGINT and SIGTERM wait until the block ends (then act at once); gives
    what a child started in the block runs first, to take them as usual again."""
    if threading.current_thread() is not threading.main_thread():
        yield None
        return
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield lambda: signal.pthread_sigmask(signal.SIG_UNBLOCK, held)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _pump(stream, name: str, kept: list[str], on_output: Callable[[str, str], None] | None) -> None:
    """Read one pipe to its end: decoded as UTF-8 across reads, kept up to a limit, each piece
    passed on (a failing receiver does not stop the reading, or the script would block)."""
    try:
        _read_all(stream, name, kept, on_output)
    finally:
        stream.close()


def _read_all(stream, name: str, kept: list[str], on_output: Callable[[str, str], None] | None) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    size = 0
    while True:
        try:
            chunk = stream.read1(65536)
        except (OSError, ValueError):
            break
        text = decoder.decode(chunk, final=not chunk)
        if text:
            if size < _MAX_KEPT_CHARS:
                kept.append(text[:_MAX_KEPT_CHARS - size])
                size += len(kept[-1])
            if on_output is not None:
                try:
                    on_output(name, text)
                except Exception:   # noqa: BLE001 - e.g. a closed terminal: the pipe is still drained
                    on_output = None
        if not chunk:
            break


def stop(pid: int) -> None:
    """End a run and everything it started (its process group)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
