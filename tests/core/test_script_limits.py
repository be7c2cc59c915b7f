"""What a script run may use: memory, file size, CPU time, processes and disk space are capped (with
and without the sandbox) and the limit that stopped a run is named; the run's user is never root
outside; a timeout or cancel stops also what left the run's session; copies left by a killed run
go at the next run; a timeout must be a sane number; and output's control characters are shown,
never acted on."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin, SkillFile
from skill_studio.core.runtime import copies, limits, script_run
from skill_studio.core.runtime.limits import Limits
from skill_studio.core.runtime.visible import VisibleStream, visible

HAS_BWRAP = script_run.bwrap() is not None
BOTH = [pytest.param(True, id="sandboxed", marks=pytest.mark.skipif(not HAS_BWRAP, reason="no bubblewrap here")),
        pytest.param(False, id="not-sandboxed")]
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the studio runs as root only here")


def _skill(files: dict[str, bytes], name: str = "limited"):
    text = f"---\nname: {name}\ndescription: Tries limits. Use when testing.\n---\n# {name}\n"
    return build_skill(text.encode(), name, [SkillFile(p, d, 0o755) for p, d in files.items()], origin=Origin.HUMAN,
                       source=f"{name}/SKILL.md")


def _run(files, sandboxed, lim: Limits | None = None, **kwargs):
    plan = script_run.plan(_skill(files), limits=lim, use_sandbox=sandboxed)
    try:
        result = script_run.run(plan, **kwargs)
    finally:
        plan.cleanup()
    assert result.sandboxed == sandboxed
    return result


@pytest.fixture
def open_tmp():
    """A folder the run can write to also as nobody (when the studio runs as root)."""
    folder = Path(tempfile.mkdtemp(prefix="skill-studio-test-", dir="/tmp"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


# --- limits -------------------------------------------------------------------------------

@pytest.mark.parametrize("sandboxed", BOTH)
def test_too_much_memory_is_refused_and_named(sandboxed):
    result = _run({"main.py": b"block = bytearray(200 * 1024 * 1024)\nprint('got it')\n"}, sandboxed,
                  Limits(memory_mib=64))
    assert "got it" not in result.stdout and result.exit_code != 0
    assert "ran out of memory: more than 64 MiB (setting run.memory_mib)" in result.summary


@pytest.mark.parametrize("sandboxed", BOTH)
def test_a_file_over_the_limit_is_refused_and_named(sandboxed):
    # Python ignores SIGXFSZ and gets an error; a program that does not is stopped by the signal.
    py = _run({"main.py": b"open('big', 'wb').write(b'x' * (3 * 1024 * 1024))\n"}, sandboxed, Limits(file_mib=1))
    assert "File too large" in py.stderr and "could not write a file over 1 MiB" in py.summary
    sh = _run({"run.sh": b"#!/bin/sh\nexec head -c 3000000 /dev/zero > big\n"}, sandboxed, Limits(file_mib=1))
    assert sh.summary.startswith("stopped: wrote a file over 1 MiB (setting run.file_mib)")
    assert sh.outputs[0].size <= 1024 * 1024


@pytest.mark.parametrize("sandboxed", BOTH)
def test_cpu_time_over_the_limit_stops_the_run(sandboxed):
    result = _run({"main.py": b"while True:\n    pass\n"}, sandboxed, Limits(cpu_seconds=1), timeout=60)
    assert not result.timed_out and result.summary.startswith("stopped: over 1 s of CPU time")


@pytest.mark.parametrize("sandboxed", BOTH)
def test_a_fork_bomb_is_held_by_the_process_cap(sandboxed):
    """Children are started until the cap refuses one (each waits for the run to end)."""
    script = (b"import os, sys, time\nfor i in range(200):\n    try:\n        pid = os.fork()\n"
              b"    except OSError as e:\n        print('refused after', i, flush=True)\n        raise\n"
              b"    if pid == 0:\n        time.sleep(300)\n        os._exit(0)\n")
    result = _run({"main.py": script}, sandboxed, Limits(processes=10))
    refused_after = int(result.stdout.split()[-1])
    # (without the sandbox the cap counts all of the run's user's processes: a few more may be
    # allowed, or fewer, while other runs come and go; without a cap all 200 would start)
    assert 0 <= refused_after < 100 and "BlockingIOError" in result.stderr
    assert "could not start more processes (limit 10, setting run.processes)" in result.summary


@pytest.mark.parametrize("sandboxed", BOTH)
def test_writing_more_than_the_space_of_the_copy_stops_the_run(sandboxed):
    script = (b"import time\nfor i in range(6):\n    open(f'part{i}', 'wb').write(b'x' * 900_000)\n"
              b"print('written', flush=True)\ntime.sleep(300)\n")
    result = _run({"main.py": script}, sandboxed, Limits(disk_mib=2))
    assert result.exit_code is None and not result.timed_out
    assert result.summary.startswith("stopped: wrote more than 2 MiB into its copy (setting run.disk_mib)")


@pytest.mark.skipif(not HAS_BWRAP, reason="no bubblewrap here")
@pytest.mark.parametrize("where", ["/tmp", "/dev/shm", "/dev"])
def test_the_sandbox_s_own_tmp_and_shm_are_small(where):
    result = _run({"run.sh": f"#!/bin/sh\nhead -c 3000000 /dev/zero > {where}/big || echo refused\n".encode()},
                  True, Limits(disk_mib=1))
    assert "refused" in result.stdout, result.stderr
    if where != "/dev":   # (/dev itself is read-only)
        assert "ran out of space in /tmp, /dev/shm or its copy (1 MiB each, setting run.disk_mib)" in result.summary


@pytest.mark.parametrize("sandboxed", [True, False])
def test_running_out_of_space_is_named_as_far_as_it_can_be_known(sandboxed):
    said = limits.what_stopped(Limits(disk_mib=3), 1, sandboxed, "cp: error writing 'x': No space left on device\n",
                               killed_by_us=False, disk_full=False)
    if sandboxed:   # (its /tmp and /dev/shm are gone: which one filled up cannot be looked at)
        assert said.startswith("ran out of space in /tmp, /dev/shm or its copy (3 MiB each, setting run.disk_mib)")
    else:           # (the machine's own /tmp is not held to the limit)
        assert said.startswith("ran out of space: a disk of this machine is full")
        assert "only its copy and its TMPDIR are held to 3 MiB, setting run.disk_mib" in said


@pytest.mark.parametrize("sandboxed", BOTH)
def test_temporary_files_land_beside_the_copy_held_to_its_space_and_go_with_it(sandboxed):
    script = (b'#!/bin/sh\necho "$TMP $TEMP"\nf=$(mktemp)\necho "$f"\n'
              b'head -c 3000000 /dev/zero > "$f"\nsleep 300\n')
    plan = script_run.plan(_skill({"run.sh": script}), limits=Limits(disk_mib=1), use_sandbox=sandboxed)
    try:
        result = script_run.run(plan)
    finally:
        plan.cleanup()
    tmp, temp, made = result.stdout.split()
    assert tmp == temp == plan.env["TMPDIR"] and Path(made).parent == plan.root / copies.TMP
    assert result.exit_code is None and not result.timed_out
    assert result.summary.startswith("stopped: wrote more than 1 MiB into its copy (setting run.disk_mib)")
    assert not plan.root.exists()
    if not sandboxed:   # what is not held to a limit is said
        assert "the machine's own /tmp and /dev/shm are not limited and not cleaned up" in result.summary


@pytest.mark.parametrize("sandboxed", BOTH)
def test_a_file_cut_at_the_file_size_limit_without_a_word_is_named(sandboxed):
    """A program in a pipeline killed by the limit leaves no error and no exit code; its file is
    exactly the limit's size (in the copy or in its TMPDIR); a file below it is not named."""
    script = (b"#!/bin/bash\ndd if=/dev/zero of=big.bin bs=64k count=40 2>&1 | tail -1\n"
              b'dd if=/dev/zero of="$TMPDIR/t.bin" bs=1M count=3 2>/dev/null | cat\n'
              b"head -c 1048575 /dev/zero > small.bin\n"
              b"head -c 5000000 /dev/zero | cat > \"$(printf 'odd\\nname')\"\necho done\n")
    result = _run({"run.sh": script}, sandboxed, Limits(file_mib=1))
    assert result.exit_code == 0 and result.summary.startswith("exit code 0")
    assert ("3 files reached the 1 MiB file-size limit and may have been cut: big.bin, odd\\x0aname, "
            "TMPDIR/t.bin (setting run.file_mib)") in result.summary
    assert "small.bin" not in result.limit
    fine = _run({"run.sh": b"#!/bin/sh\nhead -c 1048575 /dev/zero > below\n"}, sandboxed, Limits(file_mib=1))
    assert fine.limit == "" and fine.summary.startswith("exit code 0")


def test_limits_come_from_the_store_s_settings_and_bad_ones_are_named():
    settings = {"run.memory_mib": 128, "run.processes": 32}
    got = limits.from_settings(lambda key, default: settings.get(key, default))
    assert got == Limits(memory_mib=128, processes=32)
    for bad in ("lots", -1, 0, 10**9, 1.5, True, "512"):
        with pytest.raises(limits.LimitError, match=r"the setting run\.memory_mib .* must be a whole number"):
            limits.from_settings(lambda key, default, bad=bad: bad if key == "run.memory_mib" else default)
    # a setting put back to its default (null) gives the default
    assert limits.from_settings(lambda key, default: None if key == "run.memory_mib" else default) == Limits()


# --- the run's user -----------------------------------------------------------------------

@as_root
@pytest.mark.parametrize("sandboxed", BOTH)
def test_as_root_a_root_only_file_cannot_be_read(sandboxed):
    fd, secret = tempfile.mkstemp(prefix="skill-studio-secret-", dir="/usr/local")
    try:
        os.write(fd, b"the secret\n")
        os.close(fd)
        os.chmod(secret, 0o600)
        result = _run({"run.sh": f"#!/bin/sh\nid -u\ncat {secret} || echo refused\n".encode()}, sandboxed)
        assert "the secret" not in result.stdout and "refused" in result.stdout
        assert result.stdout.split()[0] == "65534"
        if not sandboxed:
            assert "runs as nobody" in result.summary
    finally:
        os.unlink(secret)


@pytest.mark.skipif(os.geteuid() == 0, reason="as root the run is nobody")
def test_without_the_sandbox_the_summary_says_whose_run_it_is():
    assert "runs as your own user" in _run({"run.sh": b"#!/bin/sh\ntrue\n"}, False).summary


# --- what a run leaves -------------------------------------------------------------------------

_LEAVERS = ("#!/bin/sh\nsleep 1000 &\necho $! > {d}/child\n"
            "setsid sh -c 'echo $$ > {d}/own-session; exec sleep 1000' &\n"
            "env -i setsid sh -c 'cd /; echo $$ > {d}/no-env; exec sleep 1000' &\n"
            "while [ ! -s {d}/own-session ] || [ ! -s {d}/no-env ]; do sleep 0.01; done\n"
            "echo started\nsleep 1000\n")


@pytest.mark.parametrize("how", ["timeout", "cancel"])
def test_what_a_stopped_run_started_is_stopped_too(open_tmp, how):
    seen: list[str] = []
    kwargs = {"timeout": 2.0} if how == "timeout" else {"cancelled": lambda: "started" in "".join(seen)}
    try:
        result = _run({"run.sh": _LEAVERS.format(d=open_tmp).encode()}, False,
                      on_output=lambda s, t: seen.append(t), **kwargs)
        assert result.timed_out if how == "timeout" else result.cancelled
        if how == "timeout" and "started" not in "".join(seen):
            pytest.skip("the machine was too slow to start the script's children in 2 s")
        for name in ("child", "own-session", "no-env"):
            _assert_gone(int((open_tmp / name).read_text()))
    finally:
        for pid_file in open_tmp.iterdir():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except (OSError, ValueError):
                pass


def _assert_gone(pid: int) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.02)
    pytest.fail(f"process {pid} still runs")


def test_a_copy_whose_process_is_gone_is_removed_at_the_next_run_and_a_live_one_stays():
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stale = copies.make()
    (stale / copies.OWNER).write_text(f"{gone.pid} 1 {copies._boot()}\n")
    reused_pid = copies.make()   # the pid lives on, but is another process now (other start time)
    (reused_pid / copies.OWNER).write_text(f"{os.getpid()} 1 {copies._boot()}\n")
    unknown = Path(tempfile.mkdtemp(prefix=copies.PREFIX))   # no note: not known to be stale
    live = script_run.plan(_skill({"run.sh": b"#!/bin/sh\ntrue\n"}))
    try:
        assert not stale.exists() and not reused_pid.exists()
        other = script_run.plan(_skill({"run.sh": b"#!/bin/sh\ntrue\n"}, name="other"))
        other.cleanup()
        assert live.root.exists() and unknown.exists()
    finally:
        live.cleanup()
        shutil.rmtree(unknown, ignore_errors=True)


def test_the_copy_of_a_killed_run_command_goes_at_the_next_run(tmp_path, open_tmp):
    from skill_studio.core.store import Store

    db, temp = tmp_path / "store.db", open_tmp / "temp"
    temp.mkdir()
    with Store(db) as store:
        store.add(_skill({"run.sh": f"#!/bin/sh\necho $$ > {open_tmp}/script.pid\necho started\nsleep 300\n".encode()},
                         name="killed"))
        store.add(_skill({"run.sh": b"#!/bin/sh\necho quick\n"}, name="quick"))
    env = {**os.environ, "TMPDIR": str(temp)}
    command = [sys.executable, "-m", "skill_studio", "--store", str(db), "run"]
    proc = subprocess.Popen([*command, "killed", "--no-sandbox"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout.readline() == "started\n"
        proc.kill()
        proc.wait(20)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
        if (open_tmp / "script.pid").exists():   # (its process group: the script and its sleep)
            os.killpg(int((open_tmp / "script.pid").read_text()), signal.SIGKILL)
    left = [p.name for p in temp.iterdir()]
    assert len(left) == 1 and left[0].startswith("skill-studio-run-")
    done = subprocess.run([*command, "quick"], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout == "quick\n" and not list(temp.iterdir())


# --- the timeout -------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, 0.0, 1e9, "soon"])
def test_a_timeout_that_is_not_a_sane_number_is_refused_before_anything_runs(bad, open_tmp):
    plan = script_run.plan(_skill({"run.sh": f"#!/bin/sh\ntouch {open_tmp}/ran\n".encode()}))
    try:
        with pytest.raises(script_run.RunError, match="the timeout must be"):
            script_run.run(plan, timeout=bad)
    finally:
        plan.cleanup()
    assert not (open_tmp / "ran").exists()


@pytest.mark.parametrize("bad", ["nan", "inf", "-5", "0", "1e12"])
def test_the_run_command_refuses_such_a_timeout(tmp_path, bad):
    done = subprocess.run([sys.executable, "-m", "skill_studio", "--store", str(tmp_path / "s.db"), "run", "x",
                           "--timeout", bad], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "the timeout must be more than 0 and at most 21600 seconds" in done.stderr


# --- what a script prints ------------------------------------------------------------------------

_NASTY = ("\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b]0;owned\x07", "\x1b[2J", "\x1b[10;10H", "\x9b31m", "\x1bP+q\x1b\\",
          "\x07", "\x08", "\x00", "\x7f", "\u202e", "a\rb")


@pytest.mark.parametrize("nasty", _NASTY)
def test_control_characters_are_shown_not_acted_on(nasty):
    shown = visible(f"before {nasty} after\n\tend\r\n")
    assert shown.endswith("\n\tend\n") and shown.startswith("before ")
    assert not any(ord(c) < 32 and c not in "\n\t" or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in shown)


def test_control_characters_are_shown_the_way_people_read_them():
    assert visible("\x1b[31mred\x1b[0m") == "^[[31mred^[[0m"
    assert visible("\x9b2J\x00\x7f") == "<U+009B>2J^@^?"
    stream = VisibleStream()   # a CR LF split between two pieces is still one line end
    assert stream.feed("one\r") + stream.feed("\ntwo\r") + stream.end() == "one\ntwo^M"


def test_the_run_command_prints_output_s_control_characters_visibly(tmp_path):
    from skill_studio.core.store import Store

    db = tmp_path / "store.db"
    script = ("import sys\nsys.stdout.write('\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b]0;title\\x07\\x1b[2Jok\\n')\n"
              "sys.stderr.write('\\x9b1m\\x1b[Hwarn\\n')\nopen('\\x1b[31mname', 'w').write('x')\n")
    with Store(db) as store:
        store.add(_skill({"main.py": script.encode()}, name="noisy"))
    done = subprocess.run([sys.executable, "-m", "skill_studio", "--store", str(db), "run", "noisy"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout == "^[]52;c;cm0gLXJmIH4=^G^[]0;title^G^[[2Jok\n"
    assert "<U+009B>1m^[[Hwarn" in done.stderr and "output (new) \\x1b[31mname" in done.stderr
    assert "\x1b" not in done.stdout + done.stderr and "\x9b" not in done.stderr


def test_run_limits_are_shown_and_set_from_the_command_line(tmp_path, capsys):
    from skill_studio.cli import main
    from skill_studio.core.store import Store

    db = str(tmp_path / "s.db")
    assert main(["--store", db, "run-limits"]) == 0
    assert "run.memory_mib    512 MiB" in capsys.readouterr().out
    assert main(["--store", db, "run-limits", "memory_mib", "1024"]) == 0
    assert capsys.readouterr().out == "run.memory_mib: 1024 MiB\n"
    for bad in (["processes", "3"], ["memory_mib", "lots"], ["disk", "5"], ["cpu_seconds"]):
        assert main(["--store", db, "run-limits", *bad]) == 2
        assert capsys.readouterr().err.startswith("skill-studio: ")
    with Store(db) as store:
        assert limits.from_settings(store.setting).memory_mib == 1024
    assert main(["--store", db, "run-limits", "run.memory_mib", "default"]) == 0
    assert main(["--store", db, "run-limits", "--json"]) == 0
    rows = capsys.readouterr().out
    assert '"value": 512' in rows and "(default" not in rows
