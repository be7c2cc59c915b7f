"""Reading a file whose path someone gave: its kind and size are checked before a byte is read,
and no more than the limit is ever read, whatever the file says its size is.

A device (``/dev/zero``), a fifo, a socket or a folder is refused without reading or waiting;
a file over the limit is refused by its size (a sparse file of 1 GiB is not read through); and
a file that grows while it is read stops at the limit.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

from skill_studio.core.format.names import printable

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CHUNK = 1 << 20


class ReadRefused(ValueError):
    """A file that was not read: the message names it and says why."""

    def __init__(self, message: str, path: str, size: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.size = size      # the size that was over the limit, when that was the reason


def _mib(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit:,} bytes"


def _a(what: str) -> str:
    return f"{'an' if what[:1].lower() in 'aeiou' else 'a'} {what}"


def too_big(shown: str, size: int, limit: int, what: str = "file") -> ReadRefused:
    return ReadRefused(f"{shown}: is {size:,} bytes, over the limit of {_mib(limit)} for {_a(what)}", shown, size)


def read_bounded(path: str | os.PathLike, limit: int, *, what: str = "file", follow_links: bool = True,
                 shown: str | os.PathLike | None = None) -> tuple[bytes, int]:
    """The bytes and permission bits of the regular file at ``path``, of at most ``limit``
    bytes; raises ReadRefused (naming ``shown``, else the path) for anything else.

    ``what`` names the kind of file in the message ("SKILL.md", "bindings file"). With
    ``follow_links`` false a link is refused rather than followed.
    """
    text = printable(str(shown if shown is not None else path))
    flags = os.O_RDONLY | _O_NONBLOCK | getattr(os, "O_BINARY", 0) | (0 if follow_links else _O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise ReadRefused(f"{text}: is a folder, not a file", text) from None
    except OSError as e:
        if not follow_links and e.errno == errno.ELOOP and os.path.islink(path):
            raise ReadRefused(f"{text}: is a link; give {_a(what)} itself, not a link to one", text) from None
        raise ReadRefused(f"{text}: cannot be read ({e.strerror or e})", text) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise ReadRefused(f"{text}: is a folder, not a file", text)
        if not stat.S_ISREG(st.st_mode):
            raise ReadRefused(f"{text}: is not a regular file (a fifo, socket or device); "
                              f"give the path of {_a(what)}", text)
        if st.st_size > limit:
            raise too_big(text, st.st_size, limit, what)
        # One read of the size the file has (and a byte more, to see a file that grew) is most
        # often all: a regular file gives less than asked only at its end.
        want = min(st.st_size + 1, limit + 1)
        data = os.read(fd, want)
        if len(data) < want:
            return data, stat.S_IMODE(st.st_mode) & 0o777
        chunks, size = [data], len(data)
        if size > limit:
            raise too_big(text, size, limit, what)
        while chunk := os.read(fd, min(_CHUNK, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise too_big(text, size, limit, what)
        return b"".join(chunks), stat.S_IMODE(st.st_mode) & 0o777
    except OSError as e:
        raise ReadRefused(f"{text}: cannot be read ({e.strerror or e})", text) from None
    finally:
        os.close(fd)


def read_stream_bounded(stream: BinaryIO, limit: int, *, shown: str = "standard input",
                        what: str = "file") -> bytes:
    """At most ``limit`` bytes of an open stream (standard input); refuses more."""
    chunks, size = [], 0
    while chunk := stream.read(min(_CHUNK, limit + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise ReadRefused(f"{shown}: more than {_mib(limit)}, over the limit for {_a(what)}", shown)
    return b"".join(chunks)


def read_text_bounded(path: str | os.PathLike, limit: int, *, what: str = "file") -> str:
    """``read_bounded``'s bytes as UTF-8 text; a file that is not UTF-8 is refused by name."""
    data, _mode = read_bounded(path, limit, what=what)
    return decode_utf8(data, printable(str(path)))


def decode_utf8(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise ReadRefused(f"{shown}: line {line}: not UTF-8 text (byte 0x{data[e.start]:02x})", shown) from None


__all__ = ["ReadRefused", "decode_utf8", "read_bounded", "read_stream_bounded", "read_text_bounded", "too_big"]
