"""Reading a request off its socket for the local API: one deadline for the whole head and another
for the body (a client that sends slowly cannot hold a connection), and the framing headers checked
so that no part of a body is ever read as a request of its own."""

from __future__ import annotations

import io
import re
import socket
import time
from email.message import Message
from typing import Any

#: Longest request line, and longest head (request line and headers together), in bytes.
MAX_LINE_BYTES = 8 * 1024
MAX_HEAD_BYTES = 64 * 1024
READ_BUFFER_BYTES = 8 * 1024
_LENGTH = re.compile(r"[0-9]{1,18}")


class HeadTooLarge(Exception):
    """The request line and headers go on past ``MAX_HEAD_BYTES``."""


class DeadlineReader(io.RawIOBase):
    """A socket's bytes, each read waiting at most until a deadline set by :meth:`start` (not a
    timeout per read, which a client sending one byte at a time would renew forever)."""

    def __init__(self, sock: socket.socket, write_timeout: float):
        super().__init__()
        self.sock, self.write_timeout = sock, write_timeout
        self.deadline = time.monotonic()
        self.received = 0              # bytes read since start()
        self.budget: int | None = None

    def start(self, seconds: float, budget: int | None = None) -> None:
        """Begin a part of a request that must arrive within ``seconds`` (and, with a budget,
        within that many bytes)."""
        self.deadline, self.received, self.budget = time.monotonic() + seconds, 0, budget

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out")
        if self.budget is not None and self.received >= self.budget:
            raise HeadTooLarge()
        self.sock.settimeout(left)
        try:
            n = self.sock.recv_into(buffer)
        finally:
            self.sock.settimeout(self.write_timeout)   # what answers are written with
        self.received += n
        return n


class HeadCounter:
    """The buffered reader while a request's head is read: counts the bytes its lines take and
    raises HeadTooLarge past ``limit``, however the bytes arrived (the socket budget alone lets a
    head through when one read brings it whole)."""

    def __init__(self, inner: io.BufferedReader, limit: int):
        self.inner, self.limit, self.used = inner, limit, 0

    def readline(self, size: int = -1) -> bytes:
        line = self.inner.readline(size)
        self.used += len(line)
        if self.used > self.limit:
            raise HeadTooLarge()
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def reader_for(sock: socket.socket, write_timeout: float) -> tuple[DeadlineReader, io.BufferedReader]:
    raw = DeadlineReader(sock, write_timeout)
    return raw, io.BufferedReader(raw, READ_BUFFER_BYTES)


def framing_problem(headers: Message) -> str | None:
    """Why the headers do not say plainly where the request's body ends, or None.

    Refused: any Transfer-Encoding (bodies are sent whole, with a Content-Length), more than one
    Content-Length, one that is not a plain number of bytes, and a header line that is malformed
    or folded onto the next (a header after it would be lost, and its body read as a request)."""
    if headers.defects or headers.get_payload():
        return "a header line is malformed (each is 'Name: value' on a line of its own)"
    if any("\n" in str(v) or "\r" in str(v) for v in headers.values()):
        return "a header is folded over two lines; send each header on one line"
    if headers.get_all("Transfer-Encoding"):
        return "Transfer-Encoding is not supported; send the body whole, with one Content-Length"
    lengths = headers.get_all("Content-Length") or []
    if len(lengths) > 1:
        return f"the request has {len(lengths)} Content-Length headers; send exactly one"
    if lengths and not _LENGTH.fullmatch(lengths[0].strip(" \t")):
        return f"Content-Length {lengths[0].strip()!r} is not a number of bytes"
    return None


def content_length(headers: Message) -> int:
    """The body's length in bytes (0 when there is none), from headers :func:`framing_problem` accepted."""
    value = (headers.get("Content-Length") or "0").strip(" \t")
    return int(value) if _LENGTH.fullmatch(value) else 0
