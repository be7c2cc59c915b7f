"""The local API's head limit holds however the head arrives: counted on the lines read, not on the
socket's reads (a head that came in one read used to pass whole)."""

from __future__ import annotations

import io

import pytest

from skill_studio.api.http_io import MAX_HEAD_BYTES, HeadCounter, HeadTooLarge


def _reader(data: bytes) -> io.BufferedReader:
    return io.BufferedReader(io.BytesIO(data), 256 * 1024)   # everything buffered by the first read


def test_a_head_over_the_limit_is_refused_when_it_arrived_in_one_read():
    head = b"GET / HTTP/1.1\r\n" + (b"X-Big: " + b"a" * 8000 + b"\r\n") * 10 + b"\r\n"
    counter = HeadCounter(_reader(head + b"next request"), MAX_HEAD_BYTES)
    with pytest.raises(HeadTooLarge):
        while counter.readline(65537) not in (b"\r\n", b""):
            pass


def test_a_head_within_the_limit_reads_as_it_is():
    head = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    counter = HeadCounter(_reader(head + b"body"), MAX_HEAD_BYTES)
    lines = [counter.readline(), counter.readline(), counter.readline()]
    assert b"".join(lines) == head and counter.read(4) == b"body"
