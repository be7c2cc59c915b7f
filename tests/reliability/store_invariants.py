"""What must hold of a skill store after anything (a kill, a race): every skill whole or absent."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from skill_studio.core.model import SkillFile
from skill_studio.core.store.rows import content_hash

ROOT = Path(__file__).resolve().parents[2]


def store_problems(path: Path) -> list[str]:
    """Every way the store at ``path`` is not whole; an empty list when it is.

    Checked: SQLite's integrity and foreign keys, the full-text index; for each skill, its card,
    its live version row, its files and blobs, and a content hash that matches what is stored;
    no version row without its skill (unless the audit log says it was deleted or renamed), and
    every older version frozen with its text.
    """
    conn = sqlite3.connect(path)
    try:
        return _problems(conn)
    finally:
        conn.close()


def _problems(conn: sqlite3.Connection) -> list[str]:
    out: list[str] = []
    integrity = [r[0] for r in conn.execute("PRAGMA integrity_check")]
    if integrity != ["ok"]:
        return [f"integrity_check: {integrity[:5]}"]
    out += [f"foreign key: {r}" for r in conn.execute("PRAGMA foreign_key_check")]
    try:
        conn.execute("INSERT INTO skills_fts (skills_fts) VALUES ('integrity-check')")
    except sqlite3.DatabaseError as e:
        out.append(f"full-text index: {e}")
    cards = {r[0]: r[1:] for r in conn.execute("SELECT name, version, content_hash FROM skill_cards")}
    live = conn.execute("SELECT name, version, content_hash, head || content FROM procedural_memory").fetchall()
    if set(cards) != {r[0] for r in live}:
        out.append(f"cards and skills differ: {sorted(set(cards) ^ {r[0] for r in live})[:5]}")
    for name, version, stored_hash, text in live:
        if cards.get(name) != (version, stored_hash):
            out.append(f"{name}: card {cards.get(name)} != row {(version, stored_hash)}")
        files = [SkillFile(p, bytes(d), m) for p, m, d in conn.execute(
            "SELECT f.path, f.mode, b.data FROM skill_files f JOIN blobs b ON b.hash = f.blob WHERE f.skill = ?",
            (name,))]
        if len(files) != conn.execute("SELECT count(*) FROM skill_files WHERE skill = ?", (name,)).fetchone()[0]:
            out.append(f"{name}: a file without its blob")
        if content_hash(text, files) != stored_hash:
            out.append(f"{name}: stored text and files do not match its content hash")
        row = conn.execute("SELECT content_hash, skill_md FROM skill_versions WHERE skill = ? AND version = ?",
                           (name, version)).fetchone()
        if row is None or row[0] != stored_hash or row[1] is not None:
            out.append(f"{name}: version {version} row missing or not the live one: {row and row[0]}")
        newest = conn.execute("SELECT max(version) FROM skill_versions WHERE skill = ?", (name,)).fetchone()[0]
        if newest != version:
            out.append(f"{name}: newest version row {newest}, live version {version}")
        kept = {r for r in conn.execute("SELECT path, mode, blob FROM version_files WHERE skill = ? AND version = ?",
                                        (name, version))}
        now = {r for r in conn.execute("SELECT path, mode, blob FROM skill_files WHERE skill = ?", (name,))}
        if kept != now:
            out.append(f"{name}: version {version} files differ from the live files")
    unfrozen = conn.execute(
        "SELECT v.skill, v.version FROM skill_versions v LEFT JOIN procedural_memory p "
        "ON p.name = v.skill AND p.version = v.version WHERE v.skill_md IS NULL AND p.name IS NULL").fetchall()
    out += [f"{s}: version {v} has no text and is not the live version" for s, v in unfrozen]
    orphans = conn.execute(
        "SELECT DISTINCT v.skill FROM skill_versions v WHERE v.skill NOT IN (SELECT name FROM procedural_memory) "
        "AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.skill = v.skill AND a.action = 'delete') "
        "AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.action = 'rename' AND a.from_value = v.skill)").fetchall()
    out += [f"{r[0]}: version rows without the skill" for r in orphans]
    return out


def count(path: Path, sql: str = "SELECT count(*) FROM procedural_memory") -> int:
    """One number read from the store by a reader of its own (0 while the store is being created)."""
    try:
        conn = sqlite3.connect(path, timeout=5)
        try:
            return conn.execute(sql).fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def kill_when(cmd: list[str], ready: Callable[[], bool], *, timeout: float = 60,
              env: dict | None = None) -> bool:
    """Start ``cmd`` and SIGKILL it as soon as ``ready()`` holds. Returns True when it was killed
    in time, False when it finished first (``ready`` never held while it ran)."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})
    deadline = time.monotonic() + timeout
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if ready():
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                return True
            time.sleep(0.005)
        if proc.poll() is None:
            raise AssertionError(f"{cmd} ran for {timeout} s without reaching the point to kill it")
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        assert proc.returncode == 0, err
        return False
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()


def python(*code_and_args: str) -> list[str]:
    """A command running Python code with this interpreter."""
    return [sys.executable, "-c", *code_and_args]


def studio(*args: str) -> list[str]:
    """The skill-studio command line, as a command."""
    return [sys.executable, "-m", "skill_studio", *args]
