"""What each version of the store's SQLite schema adds, in order: the tables of version 1, then
each migration (core.store.schema brings a store up to the last one)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from skill_studio.core.model import Lifecycle, Origin

# The first 17 columns of procedural_memory are exactly those of SPEC §1.
_V1 = """
CREATE TABLE procedural_memory (
    name            TEXT PRIMARY KEY,
    description     TEXT NOT NULL,
    content         TEXT NOT NULL,
    steps           JSON NOT NULL DEFAULT '[]',
    trigger_pattern TEXT,
    origin          TEXT NOT NULL CHECK (origin IN ({ORIGINS})),
    lifecycle       TEXT NOT NULL CHECK (lifecycle IN
                      ({LIFECYCLES})),
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

-- The card of every skill: its small fields, kept in step by triggers. The body
-- (content) is the third column of procedural_memory, so every column after it
-- sits on overflow pages; lists, counts and sorting read this table instead.
CREATE TABLE skill_cards (
    name            TEXT PRIMARY KEY,
    description     TEXT NOT NULL,
    trigger_pattern TEXT,
    origin          TEXT NOT NULL,
    lifecycle       TEXT NOT NULL,
    trust_tier      INTEGER NOT NULL,
    version         INTEGER NOT NULL,
    success_rate    REAL NOT NULL,
    utility_score   REAL NOT NULL,
    freshness       REAL NOT NULL,
    last_used_at    TEXT,
    depends_on      JSON NOT NULL,
    conflicts_with  JSON NOT NULL,
    parent_skill_id TEXT,
    tags            JSON NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    use_count       INTEGER NOT NULL,
    pinned          INTEGER NOT NULL,
    lifecycle_reason TEXT,
    folder_name     TEXT,
    content_hash    TEXT NOT NULL
);
CREATE INDEX cards_lifecycle_name ON skill_cards (lifecycle, name COLLATE NOCASE, name);
CREATE INDEX cards_lifecycle_origin ON skill_cards (lifecycle, origin);
CREATE INDEX cards_origin_name ON skill_cards (origin, name COLLATE NOCASE, name);
CREATE INDEX cards_name ON skill_cards (name COLLATE NOCASE, name);
CREATE INDEX cards_utility ON skill_cards (utility_score);
CREATE INDEX cards_success ON skill_cards (success_rate);
CREATE INDEX cards_freshness ON skill_cards (freshness);
CREATE INDEX cards_updated ON skill_cards (updated_at);
CREATE INDEX cards_last_used ON skill_cards (last_used_at);
CREATE TRIGGER pm_cards_insert AFTER INSERT ON procedural_memory BEGIN
    INSERT INTO skill_cards (rowid, name, description, trigger_pattern, origin, lifecycle, trust_tier,
        version, success_rate, utility_score, freshness, last_used_at, depends_on, conflicts_with,
        parent_skill_id, tags, created_at, updated_at, use_count, pinned, lifecycle_reason,
        folder_name, content_hash)
    VALUES (new.rowid, new.name, new.description, new.trigger_pattern, new.origin, new.lifecycle,
        new.trust_tier, new.version, new.success_rate, new.utility_score, new.freshness,
        new.last_used_at, new.depends_on, new.conflicts_with, new.parent_skill_id, new.tags,
        new.created_at, new.updated_at, new.use_count, new.pinned, new.lifecycle_reason,
        new.folder_name, new.content_hash);
END;
CREATE TRIGGER pm_cards_update AFTER UPDATE ON procedural_memory BEGIN
    UPDATE skill_cards SET name = new.name, description = new.description,
        trigger_pattern = new.trigger_pattern, origin = new.origin, lifecycle = new.lifecycle,
        trust_tier = new.trust_tier, version = new.version, success_rate = new.success_rate,
        utility_score = new.utility_score, freshness = new.freshness,
        last_used_at = new.last_used_at, depends_on = new.depends_on,
        conflicts_with = new.conflicts_with, parent_skill_id = new.parent_skill_id,
        tags = new.tags, created_at = new.created_at, updated_at = new.updated_at,
        use_count = new.use_count, pinned = new.pinned, lifecycle_reason = new.lifecycle_reason,
        folder_name = new.folder_name, content_hash = new.content_hash
    WHERE rowid = old.rowid;
END;
CREATE TRIGGER pm_cards_delete AFTER DELETE ON procedural_memory BEGIN
    DELETE FROM skill_cards WHERE rowid = old.rowid;
END;

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
-- Name and description weigh most in the ranking, then tags and trigger pattern, then the body.
INSERT INTO skills_fts (skills_fts, rank) VALUES ('rank', 'bm25(10.0, 5.0, 1.0, 3.0, 3.0)');
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
_V1 = (_V1.replace("{ORIGINS}", ", ".join(f"'{o.value}'" for o in Origin))
       .replace("{LIFECYCLES}", ", ".join(f"'{s.value}'" for s in Lifecycle)))

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


#: Version 2: the counts and score averages of a filter read one small index, not the cards.
_V2 = """
CREATE INDEX IF NOT EXISTS cards_stats
    ON skill_cards (lifecycle, origin, success_rate, utility_score, freshness);
"""

#: Version 3: what health checks keep: each skill's vector (recomputed when its content changes),
#: every run with each skill's scores (for trends), and pairs a reviewer said are not duplicates.
_V3 = """
CREATE TABLE IF NOT EXISTS skill_vectors (
    skill        TEXT PRIMARY KEY REFERENCES procedural_memory (name) ON DELETE CASCADE ON UPDATE CASCADE,
    content_hash TEXT NOT NULL,     -- the skill's content hash when the vector was computed
    model        TEXT NOT NULL,     -- which embedder made it (vectors of other models are recomputed)
    dim          INTEGER NOT NULL,
    vector       BLOB NOT NULL      -- float32, little-endian, L2-normalised
);

CREATE TABLE IF NOT EXISTS health_runs (
    id       INTEGER PRIMARY KEY,
    at       TEXT NOT NULL,
    actor    TEXT NOT NULL,
    settings TEXT NOT NULL,         -- JSON: the thresholds and weights used
    summary  TEXT NOT NULL          -- JSON: counts by band and of planned actions
);

CREATE TABLE IF NOT EXISTS health_scores (
    run          INTEGER NOT NULL REFERENCES health_runs (id) ON DELETE CASCADE,
    skill        TEXT NOT NULL,
    utility      REAL NOT NULL,
    redundancy   REAL NOT NULL,
    freshness    REAL NOT NULL,
    failure_risk REAL NOT NULL,
    health       REAL NOT NULL,
    PRIMARY KEY (run, skill)
);
CREATE INDEX IF NOT EXISTS health_scores_skill ON health_scores (skill, run);

CREATE TABLE IF NOT EXISTS dismissed_pairs (
    a     TEXT NOT NULL,            -- the two names in sorted order
    b     TEXT NOT NULL,
    at    TEXT NOT NULL,
    actor TEXT NOT NULL,
    PRIMARY KEY (a, b)
);
"""

#: Version 4: bindings of skills to events (SPEC §9), and the log of dispatched events. A binding
#: belongs to its skill: deleted with it, renamed with it.
_V4 = """
CREATE TABLE IF NOT EXISTS bindings (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,   -- never reused: fire times are kept by id
    skill         TEXT NOT NULL REFERENCES procedural_memory (name) ON DELETE CASCADE ON UPDATE CASCADE,
    event_type    TEXT NOT NULL,
    action        TEXT NOT NULL,
    params        TEXT NOT NULL DEFAULT '{}',   -- JSON object: the action's parameters
    conditions    TEXT NOT NULL DEFAULT '[]',   -- JSON [[field, value], ...]; a value "/.../" is a regex
    priority      INTEGER NOT NULL DEFAULT 0,
    cooldown      REAL NOT NULL DEFAULT 0 CHECK (cooldown >= 0),
    enabled       INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS bindings_event ON bindings (event_type, priority DESC, id);
CREATE INDEX IF NOT EXISTS bindings_skill ON bindings (skill);

-- When the bindings of each event type last fired (a cooldown runs from there), one row per
-- type: the bindings an event fires are all of its type, so its transaction writes one small
-- row, not a row per binding. fires: n binding ids then n times (unix seconds, 0 = never),
-- little-endian uint32 (see store/event_log.py). Ids of deleted bindings are ignored.
CREATE TABLE IF NOT EXISTS binding_fires (
    event_type TEXT PRIMARY KEY,
    fires      BLOB NOT NULL
);

-- The bindings an event considered, in order (see store/event_log.py), shared by the events
-- dispatched against the same ones: [[binding, skill, action, fixed reason or null], ...].
CREATE TABLE IF NOT EXISTS bus_legends (
    id     INTEGER PRIMARY KEY,                     -- a hash of the legend's text
    legend TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS bus_events (
    id         INTEGER PRIMARY KEY,
    at         TEXT NOT NULL,
    event_type TEXT NOT NULL,
    payload    TEXT NOT NULL,                       -- JSON object
    fired      INTEGER NOT NULL,
    considered INTEGER NOT NULL,
    ok         INTEGER NOT NULL,
    legend     INTEGER NOT NULL,                    -- bus_legends.id
    codes      BLOB NOT NULL,   -- int16 per binding of the legend: -2 fired, -1 skipped for its fixed
                                -- reason, else an index into the reasons of outcomes (little-endian)
    ns         BLOB NOT NULL,   -- uint32 per binding that fired: how long it took, in ns (little-endian)
    outcomes   TEXT NOT NULL,   -- JSON {"reasons": [...], "results": [of those fired, in order]}
    depth      INTEGER NOT NULL DEFAULT 0,
    parent     INTEGER                              -- the event that emitted it (may be trimmed already)
);
"""

#: Version 5: each health run keeps every skill's use count, so a drop over runs can be told from
#: runs with no use in between (SPEC §5). Runs kept before have none (NULL: not known).
def _v5(conn: sqlite3.Connection) -> None:
    columns = {r[1] for r in conn.execute("PRAGMA table_info(health_scores)")}
    if "uses" not in columns:
        conn.execute("ALTER TABLE health_scores ADD COLUMN uses INTEGER")


#: Version 6: a bulk write (Store.add_many) indexes its rows for search with one statement after
#: inserting them, in the same transaction, instead of row by row from the insert trigger: several
#: times faster for a large import. While fts_deferred holds a row (only ever inside that
#: transaction) the trigger leaves the index alone.
_V6 = """
CREATE TABLE IF NOT EXISTS fts_deferred (
    id INTEGER PRIMARY KEY CHECK (id = 1)
);
DROP TRIGGER IF EXISTS pm_fts_insert;
CREATE TRIGGER pm_fts_insert AFTER INSERT ON procedural_memory
WHEN NOT EXISTS (SELECT 1 FROM fts_deferred) BEGIN
    INSERT INTO skills_fts (rowid, name, description, content, tags, trigger_pattern)
    VALUES (new.rowid, new.name, new.description, new.content, new.tags, new.trigger_pattern);
END;
"""

#: Version 7: a large import may store its rows first and index them for search after it reports
#: done (core.store.search_index). fts_pending holds the rows stored but not yet indexed; a row
#: still waiting was never indexed, so changing or deleting it leaves the index alone (and a
#: deleted one stops waiting). Every search indexes what waits before it reads the index.
_V7 = """
CREATE TABLE IF NOT EXISTS fts_pending (
    rowid INTEGER PRIMARY KEY
);
DROP TRIGGER IF EXISTS pm_fts_delete;
CREATE TRIGGER pm_fts_delete AFTER DELETE ON procedural_memory BEGIN
    INSERT INTO skills_fts (skills_fts, rowid, name, description, content, tags, trigger_pattern)
    SELECT 'delete', old.rowid, old.name, old.description, old.content, old.tags, old.trigger_pattern
    WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE rowid = old.rowid);
    DELETE FROM fts_pending WHERE rowid = old.rowid;
END;
DROP TRIGGER IF EXISTS pm_fts_update;
CREATE TRIGGER pm_fts_update AFTER UPDATE OF name, description, content, tags, trigger_pattern
ON procedural_memory WHEN NOT EXISTS (SELECT 1 FROM fts_pending WHERE rowid = old.rowid) BEGIN
    INSERT INTO skills_fts (skills_fts, rowid, name, description, content, tags, trigger_pattern)
    VALUES ('delete', old.rowid, old.name, old.description, old.content, old.tags, old.trigger_pattern);
    INSERT INTO skills_fts (rowid, name, description, content, tags, trigger_pattern)
    VALUES (new.rowid, new.name, new.description, new.content, new.tags, new.trigger_pattern);
END;
"""

#: Version 8: where skills added from a repository or another folder came from
#: (core.sources): the source, the commit and the path in it, the hash of what was taken, and
#: the store's content hash right after, so an update can tell an edit in the studio from one
#: upstream. A record follows its skill's renames and goes with it.
_V8 = """
CREATE TABLE IF NOT EXISTS skill_sources (
    skill        TEXT PRIMARY KEY REFERENCES procedural_memory (name) ON DELETE CASCADE ON UPDATE CASCADE,
    source       TEXT NOT NULL,
    source_type  TEXT NOT NULL,
    url          TEXT NOT NULL,
    ref          TEXT,
    commit_id    TEXT,
    path         TEXT NOT NULL,
    source_hash  TEXT NOT NULL,
    store_hash   TEXT NOT NULL,
    fetched_at   TEXT NOT NULL
);
"""

#: MIGRATIONS[i] takes a store from user_version i to i + 1.
MIGRATIONS: list[Migration] = [_script(_V1), _script(_V2), _script(_V3), _script(_V4), _v5, _script(_V6),
                               _script(_V7), _script(_V8)]
