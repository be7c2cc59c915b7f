"""Rows written many to a statement (connection.insert_many) are the rows executemany writes."""

import random
import sqlite3

import pytest

from skill_studio.core.store.connection import VALUES_PER_STATEMENT, insert_many


def _values(rng: random.Random):
    kinds = [None, rng.randint(-2**62, 2**62), rng.random() * 1e6, "", "plain", "ünïcødé ✓ \U0001f600",
             "quote ' and \" and \\ and ?", "line\nbreak\r\n", "nul\0inside", b"", bytes(rng.randrange(256)
             for _ in range(rng.randint(1, 40))), 0, 1, -0.0, float("inf")]
    return rng.choice(kinds)


@pytest.mark.parametrize("width", [1, 2, 5, 7, 38])
@pytest.mark.parametrize("count", [0, 1, VALUES_PER_STATEMENT // 7 + 1, 1000])
def test_the_same_rows_in_the_same_order(width, count):
    rng = random.Random(width * 1000 + count)
    rows = [tuple(_values(rng) for _ in range(width)) for _ in range(count)]
    cols = ", ".join(f"c{i}" for i in range(width))
    conn = sqlite3.connect(":memory:")
    for table in ("a", "b"):
        conn.execute(f"CREATE TABLE {table} (n INTEGER PRIMARY KEY, {cols})")
    conn.executemany(f"INSERT INTO a ({cols}) VALUES ({', '.join('?' * width)})", rows)
    insert_many(conn, f"INSERT INTO b ({cols})", rows)
    a = conn.execute(f"SELECT n, {cols} FROM a ORDER BY n").fetchall()
    b = conn.execute(f"SELECT n, {cols} FROM b ORDER BY n").fetchall()
    assert len(a) == count
    assert [tuple(map(repr, r)) for r in b] == [tuple(map(repr, r)) for r in a]   # types too (1 vs 1.0)


def test_a_refused_row_refuses_its_statement_and_the_rest_are_untouched():
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
    conn.execute("BEGIN")
    with pytest.raises(sqlite3.IntegrityError):
        insert_many(conn, "INSERT INTO t (k)", [(str(i),) for i in range(2000)] + [("5",)])
    conn.execute("ROLLBACK")
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
