"""The store's SQLite schema, versioned with PRAGMA user_version: which version a store is at,
whether this version of the studio can open it, and bringing it up to date (the versions
themselves are in core.store.schema_versions)."""

from __future__ import annotations

import sqlite3

from skill_studio.core.store.schema_versions import MIGRATIONS, Migration

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Incompatible", "Migration", "check_compatible", "migrate"]

SCHEMA_VERSION = len(MIGRATIONS)


class Incompatible(ValueError):
    """A file this Skill Studio must not touch; ``kind`` is "not-a-store" or "newer"."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def check_compatible(conn: sqlite3.Connection) -> int:
    """The store's schema version, read without writing anything.

    Raises Incompatible for another program's database or a store of a newer Skill Studio.
    """
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    if current == 0 and conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                                     "AND name NOT LIKE 'sqlite_%'").fetchone()[0]:
        raise Incompatible("not-a-store", "this SQLite file belongs to another program (it has tables but "
                                          "is not a skill store)")
    if current > SCHEMA_VERSION:
        raise Incompatible("newer", f"this store has schema version {current}, newer than this Skill Studio "
                                    f"understands ({SCHEMA_VERSION})")
    return current


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema up to date, each step in its own transaction; returns the version.

    Raises Incompatible (see check_compatible) for a file that must be left alone.
    """
    current = check_compatible(conn)
    while current < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            if current < SCHEMA_VERSION:
                MIGRATIONS[current](conn)
                current += 1
                conn.execute(f"PRAGMA user_version = {current}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return current
