"""The store's SQLite connection: pragmas, migrations, transactions and the audit row."""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from skill_studio.core.health import scores
from skill_studio.core.store.errors import STORE_SUFFIXES, StoreBusy, StoreError, UnusableStore
from skill_studio.core.store.schema import Incompatible, check_compatible, migrate

_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_CORRUPT, _SQLITE_NOTADB = 5, 6, 11, 26


def _is_busy(e: sqlite3.Error) -> bool:
    return getattr(e, "sqlite_errorcode", 0) & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED) or "locked" in str(e)


def is_corruption(e: sqlite3.Error) -> bool:
    """Whether SQLite reports a damaged file (not a busy, full or read-only one)."""
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF == _SQLITE_CORRUPT
    return "malformed" in str(e)


def _kind_of(mode: int) -> str | None:
    """What a file that is not a regular one is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a fifo (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_store_path(path: Path) -> None:
    """Raise UnusableStore (kind ``"not-a-file"``) unless ``path`` can hold a skill store: a regular
    file, or nothing yet in a folder (or in folders still to be made). The path is only looked at
    (os.stat), never opened: a fifo does not block, and nothing is created beside a device."""
    try:
        kind = _kind_of(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        _check_folder_above(path)
        return
    except OSError as e:   # no permission to look, a loop of symbolic links, a name too long
        raise UnusableStore(path, "not-a-file", f"cannot be looked at: {e.strerror or e}") from None
    if kind is not None:
        raise UnusableStore(path, "not-a-file", f"is {kind}, not a skill store; give the path of a .db file")


def _check_folder_above(path: Path) -> None:
    """The nearest part of a store's path that exists must be a folder (the rest is made)."""
    for parent in path.absolute().parents:
        try:
            mode = os.stat(parent).st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as e:
            raise UnusableStore(path, "not-a-file", f"cannot look at its folder {parent}: {e.strerror or e}") from None
        kind = _kind_of(mode) or "a file"
        if kind != "a folder":
            raise UnusableStore(path, "not-a-file", f"{parent} is {kind}, not a folder; "
                                                    "give the path of a .db file in a folder")
        return


def create_private(path: Path) -> None:
    """Create the store's file readable and writable by its owner only, when it does not exist:
    SQLite gives its -wal and -shm files the store file's mode."""
    if os.name != "posix":
        return
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:   # there already, or not creatable: SQLite opens it or says why it cannot
        pass


def tighten(path: Path) -> None:
    """Take group and other users' access away from the store's files (the database, its -wal,
    -shm and journal) when the store is ours: its settings hold the local API's write token."""
    if os.name != "posix":
        return
    try:
        if os.stat(path).st_uid != os.getuid():   # another user's store: its modes are theirs to choose
            return
    except OSError:
        return
    for suffix in STORE_SUFFIXES:
        name = f"{path}{suffix}"
        try:
            st = os.stat(name)
            if st.st_uid == os.getuid() and st.st_mode & 0o077 and stat.S_ISREG(st.st_mode):
                os.chmod(name, stat.S_IMODE(st.st_mode) & 0o700)
        except OSError:   # absent, or not ours to change
            continue


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The rowid of the row the INSERT just run on ``cursor`` made (``lastrowid`` is None only
    before a statement has run, or after ``executemany``)."""
    rowid = cursor.lastrowid
    if rowid is None:
        raise StoreError("the store did not report the id of the row just written")
    return rowid


#: Bound values per statement when rows are inserted together: under SQLite's smallest limit
#: (999 before version 3.32), so every build takes it.
VALUES_PER_STATEMENT = 990


def insert_many(conn: sqlite3.Connection, head: str, rows: Sequence[Sequence[Any]]) -> None:
    """Run ``head`` (``INSERT ... INTO table (columns)``) for every row of ``rows`` (all of one
    width), many rows to a statement: each statement is one step of SQLite's, run without Python's
    lock, where ``executemany`` takes the lock back after every row and waits for it whenever
    another thread (an import's reading and parsing) holds it."""
    if not rows:
        return
    width = len(rows[0])
    per = max(1, VALUES_PER_STATEMENT // width)
    one = "(" + ", ".join("?" * width) + ")"
    full = f"{head} VALUES {', '.join([one] * per)}"
    for start in range(0, len(rows), per):
        chunk = rows[start:start + per]
        sql = full if len(chunk) == per else f"{head} VALUES {', '.join([one] * len(chunk))}"
        conn.execute(sql, [v for row in chunk for v in row])


class Connection:
    """One SQLite file, shared safely between threads; other processes may use it at once (WAL)."""

    def __init__(self, path: str | os.PathLike, *, actor: str | None = None, busy_timeout_ms: int = 10_000):
        self.path = Path(path)
        check_store_path(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        create_private(self.path)
        self.actor = actor or os.environ.get("USER") or "studio"
        self._closed = False
        self._lock = threading.RLock()
        self._writes = 0          # commits made through this connection
        self._hits_key: tuple[Any, ...] | None = None  # what the temporary search table holds (see Queries._hits)
        self._grid_key: tuple[Any, ...] | None = None  # the filter and store state Queries._grid last counted
        self._grid_value: Any = {}  # or the Future of a count running on the reader
        self._reader: Any = None    # (second connection, its thread) for counts made in parallel
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(self.path, timeout=busy_timeout_ms / 1000,
                                   isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            # Read before anything is written: another program's file or a newer store stays as it is.
            check_compatible(conn)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            migrate(conn)
        except Incompatible as e:
            if conn is not None:  # always set: only check_compatible and migrate raise Incompatible
                conn.close()
            raise UnusableStore(self.path, e.kind, str(e)) from None
        except sqlite3.DatabaseError as e:
            if conn is not None:
                conn.close()
            if isinstance(e, sqlite3.OperationalError) and _is_busy(e):
                raise StoreBusy.held(self.path, e) from None
            if is_corruption(e):
                raise UnusableStore(self.path, "damaged", f"the skill store is damaged ({e})") from None
            kind = "not-a-store" if "not a database" in str(e) else "unreadable"
            raise UnusableStore(self.path, kind, f"cannot open the skill store: {e}") from None
        conn.row_factory = sqlite3.Row
        self._conn: sqlite3.Connection = conn
        tighten(self.path)

    # --- plumbing -----------------------------------------------------------

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called: nothing can be read or written any more."""
        return self._closed

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._reader is not None:
                reader, pool = self._reader
                pool.shutdown(wait=True)
                reader.close()
                self._reader = None
            self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; everything in it is undone if anything fails."""
        with self._lock:
            if self._conn.in_transaction:  # nested: part of the outer transaction
                yield self._conn
                return
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as e:  # locked for too long, read-only, disk trouble
                if _is_busy(e):
                    raise StoreBusy.held(self.path, e) from None
                raise StoreError(f"{self.path}: cannot write to the skill store: {e}") from None
            try:
                yield self._conn
                self._conn.execute("COMMIT")
                self._writes += 1
            except BaseException as exc:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.DatabaseError) and is_corruption(exc):
                    raise self._damaged(exc) from None
                if isinstance(exc, sqlite3.OperationalError):
                    if _is_busy(exc):
                        raise StoreBusy.held(self.path, f"{exc}; nothing was changed") from None
                    raise StoreError(f"{self.path}: {exc}; nothing was changed") from None
                raise

    def _damaged(self, exc: sqlite3.DatabaseError) -> UnusableStore:
        return UnusableStore(self.path, "damaged", f"the skill store is damaged ({exc})")

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                return self._conn.execute(sql, tuple(params)).fetchall()
            except sqlite3.DatabaseError as e:
                if is_corruption(e):
                    raise self._damaged(e) from None
                raise

    def _rows_of(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        """Plain tuples, cheaper than rows with names when there are 100,000 of them."""
        with self._lock:
            cursor = self._conn.cursor()
            cursor.row_factory = None
            try:
                return cursor.execute(sql, tuple(params)).fetchall()
            except sqlite3.DatabaseError as e:
                if is_corruption(e):
                    raise self._damaged(e) from None
                raise

    def _column(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        """The first column of every row."""
        return [r[0] for r in self._rows_of(sql, params)]

    # --- reading ------------------------------------------------------------

    def _audit(self, name: str, action: str, from_value: str | None, to_value: str | None,
               reason: str, author: str | None, stamp: str | None) -> None:
        self._conn.execute(
            "INSERT INTO audit_log (at, actor, skill, action, from_value, to_value, reason) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (stamp or scores.format_time(scores.utcnow()), author or self.actor, name, action,
             from_value, to_value, reason or ""))
