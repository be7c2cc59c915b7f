"""Test runs of a skill's scripts: a temporary copy of the skill folder as the working directory,
sandboxed where bubblewrap can be used (core.runtime.sandbox), within limits (core.runtime.limits), and
the files the script wrote collected as outputs. The stored skill, and the folder it came from, are
never where a script runs. When the studio runs as root, the run starts as nobody.

``plan`` makes the copy and the command; ``run`` runs it (on the caller's thread: the window calls
it from a worker thread), streaming the output, with a timeout and a cancel.
"""

from __future__ import annotations

import codecs
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from skill_studio.core.format.names import skill_name_problem
from skill_studio.core.format.skill_paths import safe_relative_path
from skill_studio.core.library.folder_write import skill_files_with_md
from skill_studio.core.model import Skill, TrustTier
from skill_studio.core.runtime import copies, limits, processes, sandbox
from skill_studio.core.runtime import outputs as found_files
from skill_studio.core.runtime.limits import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, Limits
from skill_studio.core.runtime.outputs import RunOutput, SavedOutputs

__all__ = ["DEFAULT_TIMEOUT_S", "MAX_TIMEOUT_S", "Limits", "RunError", "RunOutput", "RunPlan", "RunResult",
           "SavedOutputs", "plan", "run"]
_ENTRY_NAMES = ("run.sh", "main.py")
_MAX_KEPT_CHARS = 2_000_000      # what is kept of stdout and of stderr for the result
_SHELLS = ("sh", "bash", "dash")
#: What a run without the sandbox is told about temporary files.
NOT_SANDBOXED_TMP = ("its TMPDIR, TMP and TEMP name a folder beside its copy, limited and removed with it, "
                     "but the machine's own /tmp and /dev/shm are not limited and not cleaned up after it")


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
    limits: Limits = field(default_factory=Limits)
    as_nobody: bool = False         # the run starts as nobody (the studio runs as root)
    token: str = field(default_factory=lambda: secrets.token_hex(16))   # marks the run's processes

    def cleanup(self) -> None:
        copies.remove(self.root)


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
    limit: str = ""                # in plain words, the limit that stopped it or that it ran into

    @property
    def summary(self) -> str:
        if self.timed_out or self.cancelled:
            how = "stopped: out of time" if self.timed_out else "cancelled"
        elif self.limit.startswith(("stopped", "killed")):
            how = self.limit
        else:
            how = f"exit code {self.exit_code}"
        box = "sandboxed" if self.sandboxed else f"not sandboxed ({self.sandbox_note})"
        ran_into = f"; {self.limit}" if self.limit and how != self.limit else ""
        return f"{how} after {self.seconds:.1f} s, {box}, {len(self.outputs)} output file(s){ran_into}"


def plan(skill: Skill, script: str | None = None, args: list[str] | None = None, *,
         use_sandbox: bool = True, limits: Limits | None = None) -> RunPlan:
    """Copy the skill into a new temporary folder and plan running ``script`` (the first of
    ``scripts(skill)`` when None) there, within ``limits`` (the defaults when None). Raises RunError
    when there is nothing to run, or a file of the skill has a path that would land outside the copy.
    Copies that earlier runs left behind (their process is gone) are removed first."""
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
    copies.clean_stale()
    nobody = sandbox.drops_to_nobody()
    root = copies.make()
    try:
        if nobody and not copies.reachable_by_others(root):
            raise RunError(f"runs start as nobody when the studio runs as root, and nobody cannot reach {root.parent}: "
                           "set TMPDIR to a folder every user can pass through, such as /tmp")
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
        cwd.mkdir(exist_ok=True)
        home, tmp = root / copies.HOME, root / copies.TMP
        home.mkdir()
        tmp.mkdir()
        script = safe_relative_path(script)
        command = _command(cwd, script, by_path[script].data, list(args or []))
        p = RunPlan(skill.name, script, command, cwd, {}, False, "", root,
                    {f.path: found_files.digest_bytes(f.data) for f in skill_files_with_md(skill)},
                    limits or Limits(), nobody)
        # Temporary files go beside the copy: measured with it (run.disk_mib), removed with it.
        p.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
                 "TMPDIR": str(tmp), "TMP": str(tmp), "TEMP": str(tmp), "SKILL_DIR": str(cwd), "SKILL_NAME": skill.name,
                 "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",   # output as it is written
                 processes.TOKEN_VARIABLE: p.token}
        if nobody:   # the copy is nobody's; the folder holding it (and its owner note) stays root's
            os.chmod(root, 0o711)
            copies.give_to(sandbox.NOBODY, [cwd, home, tmp])
        tool, note = sandbox.available()
        if use_sandbox and tool:
            p.argv = sandbox.command(tool, command, [cwd, home, tmp], cwd, space_mib=p.limits.disk_mib,
                                     processes=p.limits.processes)
            p.sandboxed = True
        else:
            p.sandbox_note = ("sandbox turned off" if not use_sandbox else note) + \
                ("; it runs as nobody" if nobody else "; it runs as your own user, with all it may do") + \
                f"; {NOT_SANDBOXED_TMP}"
        return p
    except BaseException:
        copies.remove(root)
        raise


def _command(cwd: Path, script: str, data: bytes, args: list[str]) -> list[str]:
    path = str(cwd / script)
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace")
    interpreter = _shebang(first)
    if script.endswith(".py") or interpreter in ("python", "python3"):
        return [sandbox.python(), path, *args]
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


def outputs(p: RunPlan) -> list[RunOutput]:
    """The files of the copy that the run added or changed (links are not followed)."""
    return found_files.find(p.cwd, p.before)


def save_outputs(p: RunPlan, dest: str | os.PathLike, found: list[RunOutput] | None = None) -> SavedOutputs:
    """Copy the run's outputs (``found``, else looked for again) into ``dest``, keeping their
    folders: the files written, and each one skipped (its name cannot be written safely) with why."""
    return found_files.save(p.cwd, dest, outputs(p) if found is None else found)


def _ran_into(p: RunPlan, found: list[RunOutput]) -> str:
    """The files (of the copy, its TMPDIR and HOME) exactly as big as the file-size limit, in words."""
    cut = found_files.at_size(p.limits.file_mib * limits.MIB, found,
                              {"TMPDIR": p.root / copies.TMP, "HOME": p.root / copies.HOME})
    return limits.cut_files(p.limits, cut)


def run(p: RunPlan, *, timeout: float = DEFAULT_TIMEOUT_S, on_output: Callable[[str, str], None] | None = None,
        cancelled: Callable[[], bool] = lambda: False) -> RunResult:
    """Run a planned script to the end (or the timeout, or until ``cancelled()``, or until it writes
    more than its limit into its copy), passing each piece of stdout and stderr to
    ``on_output(stream, text)`` as it comes. Whatever happens, the script and everything it started
    are stopped before this returns. Raises RunError for a timeout that is not a number of seconds
    above 0 and at most MAX_TIMEOUT_S."""
    try:
        timeout = limits.check_timeout(timeout)
    except limits.LimitError as e:
        raise RunError(str(e)) from None
    start = time.monotonic()
    kept: dict[str, list[str]] = {"stdout": [], "stderr": []}
    proc: subprocess.Popen[bytes] | None = None
    pumps: list[threading.Thread] = []
    timed_out = was_cancelled = disk_full = False
    disk = p.limits.disk_mib * limits.MIB
    uids = {os.geteuid()} | ({sandbox.NOBODY} if p.as_nobody else set())
    # Without the sandbox the process cap counts all the user's processes: it allows that many more.
    cap = None if p.sandboxed else p.limits.processes + limits.tasks_of(sandbox.NOBODY if p.as_nobody
                                                                         else os.getuid())
    started = processes.now()
    try:
        # Ctrl+C or SIGTERM while the script starts would leave it running unseen: held until it has.
        with _interrupts_held() as unblock_in_child:
            def in_child() -> None:
                if unblock_in_child is not None:
                    unblock_in_child()
                limits.set_in_child(p.limits, cap)
                if p.as_nobody:
                    sandbox.become_nobody()

            proc = subprocess.Popen(p.argv, cwd=p.cwd, env=p.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True, preexec_fn=in_child)
            marks = processes.marks(proc.pid, started, p.token, p.root,
                                    [proc.stdout.fileno(), proc.stderr.fileno()], uids)   # type: ignore[union-attr]
            pumps = [threading.Thread(target=_pump, args=(getattr(proc, name), name, kept[name], on_output),
                                      daemon=True) for name in ("stdout", "stderr")]
            for t in pumps:
                t.start()
        next_look = start
        while proc.poll() is None:
            now = time.monotonic()
            if now - start > timeout:
                timed_out = True
            elif cancelled():
                was_cancelled = True
            elif now >= next_look:   # (a few times a second: a big copy takes a while to measure)
                next_look = now + 0.25
                disk_full = copies.used_bytes(p.root, disk) > disk
            if timed_out or was_cancelled or disk_full:
                break
            time.sleep(0.02)
    finally:
        if proc is not None:   # (None: it did not start, and what stopped it is on its way up)
            processes.stop_group(proc.pid)   # the script if it still runs, and what it started
            code = proc.wait()
            processes.sweep(marks)           # and what left its group
            # Each reader closes its pipe when it ends; one still reading after this is held open by
            # a process the sweep could not find: the run does not wait for it.
            for t in pumps:
                t.join(timeout=2)
    stopped = timed_out or was_cancelled or disk_full
    stderr = "".join(kept["stderr"])
    limit = limits.what_stopped(p.limits, code, p.sandboxed, stderr, killed_by_us=stopped, disk_full=disk_full)
    found = outputs(p)
    limit = "; ".join(said for said in (limit, _ran_into(p, found)) if said)
    return RunResult(None if stopped else code, timed_out, was_cancelled, p.sandboxed, p.sandbox_note,
                     time.monotonic() - start, found, "".join(kept["stdout"]), stderr, limit)


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
    """End a run's process group (what left it is found by processes.sweep)."""
    processes.stop_group(pid)
