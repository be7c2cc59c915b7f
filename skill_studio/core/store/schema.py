"""The store's SQLite schema and its migrations, versioned with PRAGMA user_version."""

from __future__ import annotations

import sqlite3
from typing import Callable

# The first 17 columns of procedural_memory are exactly those of SPEC §1.
_V1 = """
CREATE TABLE procedural_memory (
    name            TEXT PRIMARY KEY,
    description     TEXT NOT NULL,
    content         TEXT NOT NULL,
    steps           JSON NOT NULL DEFAULT '[]',
    trigger_pattern TEXT,
    origin          TEXT NOT NULL CHECK (origin IN ('human', 'llm', 'builtin')),
    lifecycle       TEXT NOT NULL CHECK (lifecycle IN
                      ('candidate', 'verified', 'released', 'degraded', 'deprecated', 'archived')),
    trust_tier      INTEGER NOT NULL CHECK (trust_tier BETWEEN 1 AND 4),
    version         INTEGER NOT NULL CHECK (version >= 1),
    success_rate    REAL NOT NULL DEFAULT 0.5,
    utility_score   REAL NOT NULL DEFAULT 0.25,
    freshness       REAL NOT NULL DEFAULT 1.0,
    last_used_at    TEXT,
    depends_on      JSON NOT NULL DEFAULT '[]',
    conflicts_with  JSON NOT NULL DEFAULT '[]',
    parent_skill_id TEXT,
    tags            JSON NOT NULL DEFAULT '[]',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    use_count       INTEGER NOT NULL DEFAULT 0,
    success_count   INTEGER NOT NULL DEFAULT 0,
    failure_count   INTEGER NOT NULL DEFAULT 0,
    success_decayed REAL NOT NULL DEFAULT 0,
    failure_decayed REAL NOT NULL DEFAULT 0,
    lifecycle_reason TEXT,
    pinned          INTEGER NOT NULL DEFAULT 0,
    license         TEXT,
    compatibility   TEXT,
    allowed_tools   TEXT,
    metadata        TEXT NOT NULL DEFAULT '{}',
    extra           TEXT NOT NULL DEFAULT '{}',
    folder_name     TEXT,
    md_filename     TEXT NOT NULL DEFAULT 'SKILL.md',
    source_path     TEXT,
    content_hash    TEXT NOT NULL,
    head            TEXT NOT NULL          -- SKILL.md text before the body: skill_md = head || content
);
CREATE INDEX pm_lifecycle_name ON procedural_memory (lifecycle, name COLLATE NOCASE);
CREATE INDEX pm_origin_name ON procedural_memory (origin, name COLLATE NOCASE);
CREATE INDEX pm_name_nocase ON procedural_memory (name COLLATE NOCASE);
CREATE INDEX pm_updated ON procedural_memory (updated_at);
CREATE INDEX pm_utility ON procedural_memory (utility_score);
CREATE INDEX pm_trust ON procedural_memory (trust_tier);

CREATE TABLE skill_tags (
    skill TEXT NOT NULL REFERENCES procedural_memory (name) ON DELETE CASCADE ON UPDATE CASCADE,
    tag   TEXT NOT NULL,
    PRIMARY KEY (tag, skill)
) WITHOUT ROWID;
CREATE INDEX skill_tags_skill ON skill_tags (skill);

-- File contents are stored once, by hash, and shared by the current files and every version.
CREATE TABLE blobs (
    hash TEXT PRIMARY KEY,
    data BLOB NOT NULL
) WITHOUT ROWID;

CREATE TABLE skill_files (
    skill TEXT NOT NULL REFERENCES procedural_memory (name) ON DELETE CASCADE ON UPDATE CASCADE,
    path  TEXT NOT NULL,
    mode  INTEGER NOT NULL,
    size  INTEGER NOT NULL,
    blob  TEXT NOT NULL REFERENCES blobs (hash),
    PRIMARY KEY (skill, path)
) WITHOUT ROWID;

-- Every saved change. The newest version's text is the live row's (head || content);
-- it is copied here (skill_md) when a newer version replaces it or the skill is deleted.
CREATE TABLE skill_versions (
    skill      TEXT NOT NULL,
    version    INTEGER NOT NULL,
    skill_md   TEXT,
    content_hash TEXT NOT NULL,
    author     TEXT NOT NULL,
    note       TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    PRIMARY KEY (skill, version)
);

CREATE TABLE version_files (
    skill   TEXT NOT NULL,
    version INTEGER NOT NULL,
    path    TEXT NOT NULL,
    mode    INTEGER NOT NULL,
    size    INTEGER NOT NULL,
    blob    TEXT NOT NULL REFERENCES blobs (hash),
    PRIMARY KEY (skill, version, path),
    FOREIGN KEY (skill, version) REFERENCES skill_versions (skill, version)
        ON DELETE CASCADE ON UPDATE CASCADE
) WITHOUT ROWID;

CREATE TABLE audit_log (
    id      INTEGER PRIMARY KEY,
    at      TEXT NOT NULL,
    actor   TEXT NOT NULL,
    skill   TEXT NOT NULL,
    action  TEXT NOT NULL,
    from_value TEXT,
    to_value   TEXT,
    reason  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_skill ON audit_log (skill, id);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL     -- JSON text (TEXT affinity keeps "3" a string)
);

CREATE TABLE drafts (
    skill        TEXT PRIMARY KEY,      -- the skill's name, or a key such as 'new:<uuid>'
    skill_md     TEXT NOT NULL,
    base_version INTEGER,
    updated_at   TEXT NOT NULL
);

CREATE VIRTUAL TABLE skills_fts USING fts5 (
    name, description, content, tags, trigger_pattern,
    content = 'procedural_memory', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER pm_fts_insert AFTER INSERT ON procedural_memory BEGIN
    INSERT INTO skills_fts (rowid, name, description, content, tags, trigger_pattern)
    VALUES (new.rowid, new.name, new.description, new.content, new.tags, new.trigger_pattern);
END;
CREATE TRIGGER pm_fts_delete AFTER DELETE ON procedural_memory BEGIN
    INSERT INTO skills_fts (skills_fts, rowid, name, description, content, tags, trigger_pattern)
    VALUES ('delete', old.rowid, old.name, old.description, old.content, old.tags, old.trigger_pattern);
END;
CREATE TRIGGER pm_fts_update AFTER UPDATE OF name, description, content, tags, trigger_pattern
ON procedural_memory BEGIN
    INSERT INTO skills_fts (skills_fts, rowid, name, description, content, tags, trigger_pattern)
    VALUES ('delete', old.rowid, old.name, old.description, old.content, old.tags, old.trigger_pattern);
    INSERT INTO skills_fts (rowid, name, description, content, tags, trigger_pattern)
    VALUES (new.rowid, new.name, new.description, new.content, new.tags, new.trigger_pattern);
END;
"""

Migration = Callable[[sqlite3.Connection], None]


def _script(sql: str) -> Migration:
    def run(conn: sqlite3.Connection) -> None:
        for statement in _statements(sql):
            conn.execute(statement)
    return run


def _statements(sql: str) -> list[str]:
    """Split a script into statements (executescript would commit our transaction)."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


#: MIGRATIONS[i] takes a store from user_version i to i + 1.
MIGRATIONS: list[Migration] = [_script(_V1)]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema up to date, each step in its own transaction; returns the version.

    Raises RuntimeError for a store written by a newer Skill Studio.
    """
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    if current > SCHEMA_VERSION:
        raise RuntimeError(
            f"this store has schema version {current}, newer than this Skill Studio "
            f"understands ({SCHEMA_VERSION}); open it with a newer version")
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
