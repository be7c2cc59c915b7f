"""The store a benchmark measures: a synthetic one that the benchmark builds and keeps (its own
file, in the temporary folder, built once), or a store a person gives with ``--db``, which is
measured as it is, on a copy, and never written (not built up, not migrated, not cleaned).

    with stores.measured(args.db, args.n, build, program="bench_gui") as measured:
        print(measured.summary)
        ... Store(measured.path) ...
"""

from __future__ import annotations

import contextlib
import sqlite3
import tempfile
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

#: What a synthetic store holds unless a benchmark is told otherwise.
DEFAULT_SKILLS = 100_000


def synthetic_path(n: int, kind: str = "bench") -> Path:
    """Where the synthetic store of ``n`` skills is kept between runs."""
    size = f"{n // 1000}k" if n % 1000 == 0 else str(n)
    return Path(tempfile.gettempdir()) / f"skill-studio-{kind}-{size}.db"


@dataclass
class Measured:
    path: Path      # the file to open: the synthetic store, or the copy of the one given
    skills: int
    summary: str    # one line that says which store this is
    given: bool


def count_skills(path: Path, program: str) -> int:
    """The skills in the store at ``path``, read without writing anything (not even a journal);
    a clear exit when it is not a skill store."""
    if not path.is_file():
        raise SystemExit(f"{program}: no store at {path} (leave out --db to measure the synthetic store "
                         "this benchmark builds)")
    try:
        conn = sqlite3.connect(f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT count(*) FROM procedural_memory").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error as e:
        raise SystemExit(f"{program}: {path} is not a Skill Studio store that can be read ({e})") from None


def copy(path: Path, dest: Path) -> None:
    """A consistent copy of the store at ``path`` (with what its write-ahead log holds), made with
    SQLite's backup from a read-only connection."""
    source = sqlite3.connect(f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro", uri=True)
    target = sqlite3.connect(dest)
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()


@contextlib.contextmanager
def measured(given: Path | None, n: int | None, build: Callable[[Path, int], None], *, program: str,
             kind: str = "bench") -> Iterator[Measured]:
    """The store to measure. ``given`` (from ``--db``): copied to a temporary folder, the copy
    measured and removed afterwards; ``n`` must then be None (the size is the store's own).
    Otherwise the synthetic store of ``n`` skills (DEFAULT_SKILLS when None): ``build(path, n)``
    adds the skills it lacks until it holds ``n`` (it is the benchmark's own file, so it may be written)."""
    if given is not None:
        if n is not None:
            raise SystemExit(f"{program}: --n sizes the synthetic store; a store given with --db is measured "
                             "as it is")
        skills = count_skills(given, program)
        with tempfile.TemporaryDirectory(prefix=f"{program}-") as tmp:
            copy_path = Path(tmp) / "store.db"
            copy(given, copy_path)
            yield Measured(copy_path, skills, f"store: {skills:,} skills, a copy of {given} (which is not written)",
                           True)
        return
    n = DEFAULT_SKILLS if n is None else n
    path = synthetic_path(n, kind)
    have = count_skills(path, program) if path.exists() else 0
    if have < n:
        print(f"building the synthetic {n:,}-skill store at {path} (once) ...", flush=True)
        build(path, n)
        have = count_skills(path, program)
    yield Measured(path, have, f"store: {have:,} synthetic skills at {path}", False)

