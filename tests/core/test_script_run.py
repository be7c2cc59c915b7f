"""Test runs of a skill's scripts: output and exit code, timeout and cancel (the whole process group
stopped), outputs, the trust question, and the sandbox: no network, and the stored skill and its
source folder never changed."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin, SkillFile
from skill_studio.core.runtime import copies, sandbox, script_run

needs_bwrap = pytest.mark.skipif(script_run.bwrap() is None, reason="bubblewrap is not installed here")


@pytest.fixture
def open_tmp():
    """A folder the run can write to from outside its copy also when it runs as nobody (the
    studio runs as root): for the pid files the tests read."""
    folder = Path(tempfile.mkdtemp(prefix="skill-studio-test-", dir="/tmp"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _skill(files: dict[str, bytes], name: str = "tryout", origin: Origin = Origin.HUMAN):
    text = f"---\nname: {name}\ndescription: Tries scripts. Use when testing.\n---\n# {name}\n"
    return build_skill(text.encode(), name, [SkillFile(p, d, 0o755 if p.endswith(".sh") else 0o644)
                                             for p, d in files.items()], origin=origin, source=f"{name}/SKILL.md")


def _run(skill, script=None, args=None, **kwargs):
    plan = script_run.plan(skill, script, args)
    try:
        return plan, script_run.run(plan, **kwargs)
    finally:
        plan.cleanup()


def test_the_scripts_a_skill_offers(tmp_path):
    skill = _skill({"scripts/b.py": b"", "main.py": b"", "run.sh": b"", "references/x.md": b"", "scripts/a.sh": b""})
    assert script_run.scripts(skill) == ["run.sh", "main.py", "scripts/a.sh", "scripts/b.py"]
    with pytest.raises(script_run.RunError, match="no file 'nope.sh'"):
        script_run.plan(skill, "nope.sh")
    with pytest.raises(script_run.RunError, match="no script to run"):
        script_run.plan(_skill({"references/x.md": b"x"}))
    with pytest.raises(script_run.RunError, match="not a script"):
        script_run.plan(_skill({"scripts/data.bin": b"\x00\x01"}), "scripts/data.bin")


def test_output_is_streamed_and_the_exit_code_kept():
    # The script goes on only once the first line has reached the receiver (which answers with a
    # file in the script's folder), or after a minute if it never does: streamed, not held to the end.
    skill = _skill({"scripts/talk.py": b"import os, sys, time\nprint('one', flush=True)\n"
                                       b"for _ in range(6000):\n    if os.path.exists('seen'): break\n"
                                       b"    time.sleep(0.01)\n"
                                       b"print('two', sys.argv[1:], flush=True)\nprint('bad', file=sys.stderr)\n"
                                       b"sys.exit(3)\n"})
    pieces = []
    plan = script_run.plan(skill, "scripts/talk.py", ["a b", "c"])

    def receive(stream, text):
        pieces.append((stream, text))
        if "one" in text:
            (plan.cwd / "seen").touch()

    try:
        result = script_run.run(plan, on_output=receive)
    finally:
        plan.cleanup()
    assert result.exit_code == 3 and not result.timed_out and not result.cancelled
    assert result.stdout == "one\ntwo ['a b', 'c']\n" and result.stderr == "bad\n"
    assert pieces[0][0] == "stdout" and pieces[0][1].startswith("one")   # streamed as it came, not at the end
    assert "two" not in pieces[0][1]
    assert "exit code 3" in result.summary
    assert not plan.root.exists()   # cleaned up


def test_a_shell_script_runs_in_the_copy_of_the_skill():
    skill = _skill({"run.sh": b"#!/bin/sh\npwd\nls\necho \"$SKILL_NAME\"\n"})
    plan, result = _run(skill)
    lines = result.stdout.split("\n")
    cwd, listing, name = lines[0], lines[1:-2], lines[-2]
    assert cwd == str(plan.cwd) and "SKILL.md" in listing and name == "tryout"
    assert result.exit_code == 0


def test_a_timeout_stops_the_script_and_what_it_started(open_tmp):
    marker = open_tmp / "child.pid"
    skill = _skill({"run.sh": f"#!/bin/sh\nsleep 300 &\necho $! > {marker}.tmp\nmv {marker}.tmp {marker}\n"
                              f"sleep 300\n".encode()})
    # The script must have started its child before the time runs out, or there is nothing to check:
    # on a busy machine that may take longer than a second, so the run is tried with more time then.
    for timeout in (1.0, 5.0, 30.0):
        plan = script_run.plan(skill, use_sandbox=False)   # the child's pid is read from outside
        try:
            result = script_run.run(plan, timeout=timeout)
        finally:
            plan.cleanup()
        # Only the timeout can have ended it: the script sleeps far longer than the test may run.
        assert result.timed_out and not result.cancelled and result.exit_code is None
        assert "out of time" in result.summary
        if marker.exists():
            break
    _assert_gone(int(marker.read_text()))


def test_a_run_can_be_cancelled(open_tmp):
    marker = open_tmp / "child.pid"
    skill = _skill({"run.sh": f"#!/bin/sh\nsleep 300 &\necho $! > {marker}\necho started\nsleep 300\n".encode()})
    seen = []
    # Cancelled once the script has shown it is running (not after a fixed time, which a busy
    # machine may need just to start it).
    plan = script_run.plan(skill)
    try:
        result = script_run.run(plan, on_output=lambda stream, text: seen.append(text),
                                cancelled=lambda: "started" in "".join(seen))
    finally:
        plan.cleanup()
    # The script sleeps far longer than the test may run: only the cancel can have ended it.
    assert result.cancelled and not result.timed_out and result.exit_code is None
    assert result.stdout == "started\n" and "cancelled" in result.summary
    if not plan.sandboxed:   # (a sandboxed script cannot write the marker out here)
        _assert_gone(int(marker.read_text()))   # what the script started is stopped too


def test_the_files_a_script_writes_are_its_outputs(tmp_path):
    skill = _skill({"scripts/make.py": b"import os\nos.makedirs('out', exist_ok=True)\n"
                                       b"open('out/report.txt', 'w').write('done')\n"
                                       b"open('notes.md', 'a').write('more')\n",
                    "notes.md": b"notes\n", "keep.md": b"same\n"})
    plan = script_run.plan(skill, "scripts/make.py")
    try:
        result = script_run.run(plan)
        assert [(o.path, o.new) for o in result.outputs] == [("notes.md", False), ("out/report.txt", True)]
        assert result.outputs[1].size == 4
        saved = script_run.save_outputs(plan, tmp_path / "saved")
        assert not saved.skipped
        assert sorted(p.relative_to(tmp_path / "saved").as_posix() for p in saved.written) == ["notes.md",
                                                                                           "out/report.txt"]
        assert (tmp_path / "saved" / "out" / "report.txt").read_text() == "done"
    finally:
        plan.cleanup()


def test_a_script_cannot_change_the_stored_skill(seeded_store, tmp_path):
    """It writes over its SKILL.md and its scripts, relative to where it runs: only the copy changes."""
    skill = _skill({"scripts/vandal.sh": b"#!/bin/sh\necho gone > SKILL.md\necho gone > scripts/vandal.sh\n"
                                         b"rm -f references/r.md\n", "references/r.md": b"ref\n"}, name="victim")
    seeded_store.add(skill)
    stored = seeded_store.get("victim")
    plan, result = _run(stored, "scripts/vandal.sh")
    assert result.exit_code == 0 and {o.path for o in result.outputs} == {"SKILL.md", "scripts/vandal.sh"}
    again = seeded_store.get("victim")
    assert again.skill_md == stored.skill_md and again.files == stored.files and again.version == stored.version


@needs_bwrap
def test_in_the_sandbox_only_the_copy_can_be_written(tmp_path):
    """The system and this Python are there but read-only; the library, the home folder and /etc's
    secrets are not there at all; the script is nobody, with no capabilities, and cannot remount."""
    library = Path(tempfile.mkdtemp(prefix="skill-studio-library-", dir="/var/tmp"))
    try:
        (library / "SKILL.md").write_text("original\n")
        python_file = Path(sys.prefix) / "skill-studio-sandbox-test"
        # This Python is in the sandbox unless its user (nobody, when the tests run as root) could not
        # reach it outside either (a checkout in a 0700 folder); then the run uses the system's.
        python_there = not sandbox.drops_to_nobody() or copies.reachable_by_others(Path(sys.prefix))
        script = (f"#!/bin/sh\n"
                  f"test -d {shlex.quote(sys.prefix)} && echo python-there\n"
                  f"echo gone > {shlex.quote(str(python_file))} || echo python-refused\n"
                  f"echo gone > /usr/skill-studio-sandbox-test || echo usr-refused\n"
                  f"echo gone > {shlex.quote(str(library / 'SKILL.md'))} || echo library-refused\n"
                  f"echo gone > {shlex.quote(str(Path.home() / 'skill-studio-sandbox-test'))} || echo home-refused\n"
                  f"cat /etc/shadow > /dev/null || echo shadow-hidden\n"
                  f"mount -o remount,rw,bind / 2>/dev/null || echo remount-refused\n"
                  f"id -u\ngrep CapEff /proc/self/status\necho copy > written-here.txt\n").encode()
        plan, result = _run(_skill({"run.sh": script}))
        assert plan.sandboxed
        said = result.stdout.split("\n")
        for refused in ("python-refused", "usr-refused", "library-refused", "home-refused", "shadow-hidden",
                        "remount-refused"):
            assert refused in said, (refused, result.stdout, result.stderr)
        assert ("python-there" in said) == python_there, (python_there, result.stdout)
        # /usr (and this Python, where it is there): there, not writable.
        assert result.stderr.count("Read-only file system") >= 1 + python_there, result.stderr
        assert "65534" in said and "CapEff:\t0000000000000000" in said
        assert [o.path for o in result.outputs] == ["written-here.txt"]
        assert (library / "SKILL.md").read_text() == "original\n"
        assert not python_file.exists() and not (Path.home() / "skill-studio-sandbox-test").exists()
    finally:
        shutil.rmtree(library, ignore_errors=True)


@needs_bwrap
def test_in_the_sandbox_there_is_no_network():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        code = (f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
                f"    print('connected')\nexcept OSError as e:\n    print('refused', e)\n").encode()
        _, sandboxed = _run(_skill({"main.py": code}))
        assert sandboxed.stdout.startswith("refused")
        plan = script_run.plan(_skill({"main.py": code}), use_sandbox=False)   # the same script outside connects
        try:
            assert script_run.run(plan).stdout == "connected\n"
        finally:
            plan.cleanup()
    finally:
        listener.close()


def test_the_trust_question():
    assert script_run.trust_question(_skill({"run.sh": b""})) is None   # human: tier 3
    question = script_run.trust_question(_skill({"run.sh": b""}, origin=Origin.LLM))
    assert "trust tier 1" in question and "Untrusted" in question


# --- the command ----------------------------------------------------------------------

def _cli(db: Path, *args: str, stdin=subprocess.DEVNULL):
    return subprocess.run([sys.executable, "-m", "skill_studio", "--store", str(db), *args], capture_output=True,
                          text=True, timeout=120, stdin=stdin)


def test_the_run_command(tmp_path):
    from skill_studio.core.store import Store

    db = tmp_path / "store.db"
    with Store(db) as store:
        store.add(_skill({"scripts/echo.py": b"import sys\nprint(*sys.argv[1:])\nopen('out.txt', 'w').write('x')\n"
                                             b"sys.exit(int(sys.argv[1]))\n"}))
        store.add(_skill({"run.sh": b"#!/bin/sh\necho ran\n"}, name="from-llm", origin=Origin.LLM))
    done = _cli(db, "run", "tryout", "scripts/echo.py", "--outputs", str(tmp_path / "out"), "--", "4", "--flag")
    assert done.returncode == 4 and done.stdout == "4 --flag\n"
    assert "exit code 4" in done.stderr and "output (new) out.txt" in done.stderr
    assert (tmp_path / "out" / "out.txt").read_text() == "x"
    refused = _cli(db, "run", "from-llm")
    assert refused.returncode == 1 and "trust tier 1" in refused.stderr and "--yes" in refused.stderr
    assert "ran" not in refused.stdout
    assert _cli(db, "run", "from-llm", "--yes").stdout == "ran\n"
    assert _cli(db, "run", "tryout", "nope.sh").stderr.startswith("skill-studio: \"tryout\" has no file 'nope.sh'")
    with Store(db) as store:
        store.add(_skill({"run.sh": b"#!/bin/sh\nsleep 300\n"}, name="sleeper"))
    slow = _cli(db, "run", "sleeper", "--timeout", "0.5")
    assert slow.returncode == 124 and "out of time" in slow.stderr


# --- what a hostile skill or a careless caller may bring -------------------------------------

@pytest.mark.parametrize("bad_path", ["../../escaped", "/tmp/absolute-escape", "scripts/../../../up.sh",
                                      "scripts/a\\b.sh"])
def test_a_file_path_that_leaves_the_copy_is_refused(tmp_path, bad_path):
    skill = _skill({"run.sh": b"#!/bin/sh\necho hi\n"})
    skill.files.append(SkillFile(bad_path, b"x", 0o644))
    before = set(Path(tempfile.gettempdir()).iterdir())
    with pytest.raises(script_run.RunError, match="not copied, not run"):
        script_run.plan(skill)
    assert set(Path(tempfile.gettempdir()).iterdir()) == before   # the temporary copy is gone too
    assert not Path("/tmp/absolute-escape").exists()


def test_a_folder_name_that_is_a_path_is_not_used(tmp_path):
    skill = _skill({"run.sh": b"#!/bin/sh\npwd\n"})
    skill.folder_name = str(tmp_path / "elsewhere")
    plan, result = _run(skill)
    assert plan.cwd.parent == plan.root and plan.cwd.name == "skill"
    assert not (tmp_path / "elsewhere").exists()


def test_utf8_split_between_two_writes_stays_whole():
    skill = _skill({"main.py": b"import sys, time\nsys.stdout.buffer.write(b'caf\\xc3'); sys.stdout.flush()\n"
                               b"time.sleep(0.2)\nsys.stdout.buffer.write(b'\\xa9 \\xe2\\x82'); sys.stdout.flush()\n"
                               b"time.sleep(0.2)\nsys.stdout.buffer.write(b'\\xac\\n')\n"})
    pieces = []
    _, result = _run(skill, on_output=lambda s, t: pieces.append(t))
    assert result.stdout == "café €\n" and "".join(pieces) == "café €\n"


def test_a_failing_receiver_does_not_stall_the_run():
    skill = _skill({"main.py": b"for i in range(20000):\n    print('line', i)\n"})

    def broken(stream, text):
        raise BrokenPipeError("the terminal went away")

    _, result = _run(skill, on_output=broken, timeout=60)
    assert result.exit_code == 0 and not result.timed_out and result.stdout.endswith("line 19999\n")


def test_children_left_running_are_stopped_when_the_script_ends(open_tmp):
    marker = open_tmp / "child.pid"
    skill = _skill({"run.sh": f"#!/bin/sh\nsleep 300 &\necho $! > {marker}\necho done\n".encode()})
    plan = script_run.plan(skill, use_sandbox=False)
    try:
        # The child keeps the output pipes open for 300 s: the run ends with the script all the same
        # (a run that waited for the child would be stopped by the test timeout).
        result = script_run.run(plan)
    finally:
        plan.cleanup()
    assert result.exit_code == 0 and result.stdout == "done\n" and not result.timed_out
    _assert_gone(int(marker.read_text()))


def _assert_gone(pid: int) -> None:
    """The process ended (a zombie waiting for a parent that is gone counts as ended)."""
    state = "?"
    deadline = time.monotonic() + 15   # generous: the kernel may be slow to tear it down on a busy machine
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state in ("Z", "X"):
            return
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    info = Path(f"/proc/{pid}/stat").read_text() + Path(f"/proc/{pid}/cmdline").read_text()
    pytest.fail(f"process {pid} is still running (state {state}): {info}")


@pytest.mark.parametrize("line, program", [("#!/bin/sh", "sh"), ("#!/usr/bin/env bash", "bash"),
                                           ("#!/usr/bin/env -S python3 -u", "python3"), ("#!/bin/zsh", "zsh"),
                                           ("#!/usr/bin/fish", "fish"), ("echo hi", None)])
def test_the_program_a_shebang_names(line, program):
    assert script_run._shebang(line) == program


def test_the_run_command_interrupted_stops_the_script_and_removes_its_copy(tmp_path, open_tmp):
    from skill_studio.core.store import Store

    db, marker, temp = tmp_path / "store.db", open_tmp / "script.pid", open_tmp / "temp"
    temp.mkdir()
    with Store(db) as store:
        store.add(_skill({"run.sh": f"#!/bin/sh\necho $$ > {marker}\necho started\nsleep 300\n".encode()},
                         name="stubborn"))
    proc = subprocess.Popen([sys.executable, "-m", "skill_studio", "--store", str(db), "run", "stubborn",
                             "--no-sandbox"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(temp)})
    try:
        assert proc.stdout.readline() == "started\n"
        assert list(temp.iterdir())   # the copy is there while it runs
        proc.terminate()
        proc.wait(20)
    finally:
        if proc.poll() is None:
            proc.kill()
    _assert_gone(int(marker.read_text()))
    assert not list(temp.iterdir())


def test_a_daemon_that_leaves_the_run_does_not_hold_it_and_is_stopped(open_tmp):
    """A script may start something that leaves its process group (setsid) and keeps the output
    pipes open; the run still ends when the script does, and what left is stopped with it."""
    pid_file = open_tmp / "daemon.pid"
    skill = _skill({"run.sh": f"#!/bin/sh\nsetsid sh -c 'echo $$ > {pid_file}.tmp; mv {pid_file}.tmp {pid_file}; "
                              f"exec sleep 300' &\nwhile [ ! -s {pid_file} ]; do sleep 0.01; done\n"
                              "echo done\n".encode()})
    plan = script_run.plan(skill, "run.sh", use_sandbox=False)   # (a sandbox ends it with the run)
    try:
        result = script_run.run(plan)
    finally:
        plan.cleanup()
    try:
        assert result.exit_code == 0 and result.stdout == "done\n" and not result.cancelled
        _assert_gone(int(pid_file.read_text()))
    finally:
        try:
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
        except (OSError, ValueError):
            pass
