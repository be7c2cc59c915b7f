"""Reading skill packages (`.skill` / `.zip`) safely, refusing hostile archives."""

from __future__ import annotations

import copy
import dataclasses
import os
import posixpath
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from skill_studio.core.format.names import file_name_problem
from skill_studio.core.format.skill_paths import DRIVE_RE as _DRIVE_RE
from skill_studio.core.format.skill_paths import VCS_REASON, collision_key, safe_relative_path, vcs_part
from skill_studio.core.format.skillmd import MAX_SKILL_MD_BYTES
from skill_studio.core.model import SkillFile

__all__ = [
    "ArchiveError",
    "ArchiveLimits",
    "ArchivedSkill",
    "read_skill_archive",
    "safe_relative_path",
    "skill_file_mode",
]

#: Names SKILL.md may have inside an archive.
SKILL_MD_NAMES = ("SKILL.md", "skill.md")

#: Members at or below this uncompressed size are never refused for their compression ratio.
RATIO_FLOOR = 1024 * 1024

#: Extensions of members that are archives themselves.
NESTED_ARCHIVE_SUFFIXES = (
    ".zip", ".skill", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".jar", ".7z", ".rar",
)

#: Leading bytes of archive formats a skill must not carry inside it.
ARCHIVE_MAGICS = (
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "a zip archive"),
    (b"PK\x07\x08", "a zip archive"),
    (b"\x1f\x8b", "gzip data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\xfd7zXZ\x00", "xz data"),
)

#: Fixed timestamp written for every member, so the same skill gives the same bytes.
FIXED_DATE_TIME = (1980, 1, 1, 0, 0, 0)

_CHUNK = 64 * 1024
_MAGIC_LEN = max(len(magic) for magic, _ in ARCHIVE_MAGICS)
_UNIX_SYSTEMS = (3, 19)  # Unix, OS X (Darwin)
_ENCRYPTED_FLAGS = 0x01 | 0x40  # traditional and strong encryption
_SUPPORTED_COMPRESSION = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
EXPORT_EXCLUDED_DIRS = frozenset({"__pycache__", "node_modules"})

_Fail = Callable[..., "ArchiveError"]

#: The longest file or folder name (in bytes) file systems take, and the longest path a member may
#: have: written out, it goes under a folder of its own, and the whole must stay under the
#: 4,096 bytes a path may have.
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 3072


def skill_file_mode(mode: int) -> int:
    """The permission bits a file of a skill gets wherever it is stored or written: 0o755 when it
    is executable (by anyone), else 0o644. Setuid, setgid and sticky bits, write access for
    others and owner-only reading are never carried over from an archive, a folder or a store."""
    return 0o755 if mode & 0o111 else 0o644


class ArchiveError(ValueError):
    """A skill archive that cannot be read or written; the message names the archive and member."""

    def __init__(self, archive: str | os.PathLike[str], reason: str, member: str | None = None):
        self.archive = Path(archive).name
        self.member = member
        self.reason = reason
        where = f"{self.archive}: member {member!r} " if member is not None else f"{self.archive}: "
        super().__init__(where + reason)

    def __reduce__(self):
        return (type(self), (self.archive, self.reason, self.member))


@dataclass(frozen=True)
class ArchiveLimits:
    """Caps applied when reading an archive; sizes are uncompressed bytes."""

    max_files: int = 5000
    max_total_bytes: int = 200 * 1024 * 1024
    max_member_bytes: int = 50 * 1024 * 1024
    max_ratio: int = 200
    max_depth: int = 32


@dataclass(frozen=True)
class ArchivedSkill:
    """A skill read from an archive: its folder name, its files (SKILL.md included) and what was skipped."""

    folder_name: str
    files: list[SkillFile]
    ignored: list[str]


def _human(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    size = float(n)
    for unit in ("KiB", "MiB", "GiB"):
        size /= 1024
        if size < 1024 or unit == "GiB":
            break
    return f"{size:.1f} {unit}"


def _unix_mode(info: zipfile.ZipInfo) -> int:
    return (info.external_attr >> 16) & 0xFFFF


def _length_problem(name: str) -> str | None:
    size = len(name.encode("utf-8", "surrogateescape"))
    if size > MAX_NAME_BYTES:
        return (f"has a name of {size:,} bytes, longer than the {MAX_NAME_BYTES} a file system allows; "
                "shorten it and package the skill again")
    return None


def _nested_archive_kind(path: str) -> str | None:
    lower = path.lower()
    for suffix in NESTED_ARCHIVE_SUFFIXES:
        if lower.endswith(suffix):
            return f"a '{suffix}' file"
    return None


def _ignore_reason(path: str) -> str | None:
    parts = path.split("/")
    if parts[0] == "__MACOSX":
        return "macOS resource fork"
    if parts[-1] == ".DS_Store":
        return "macOS folder metadata"
    return None


@dataclass
class _Entry:
    info: zipfile.ZipInfo
    path: str  # normalised, relative to the archive root


def read_skill_archive(path: str | os.PathLike[str], limits: ArchiveLimits = ArchiveLimits()) -> ArchivedSkill:
    """Read a skill package and return an :class:`ArchivedSkill`.

    The skill is the folder holding SKILL.md (or skill.md): the archive root,
    one top-level folder, or one folder inside a single wrapper folder.  Its
    ``files`` are every file of that folder, SKILL.md included, with paths
    relative to it, sorted by path.  ``__MACOSX/``, ``.DS_Store``, directory
    entries and members outside the skill folder are listed in ``ignored``.

    Raises ArchiveError (a ValueError) for anything unsafe or broken: not a
    zip, damaged or encrypted members, unsupported compression, unsafe paths
    (absolute, drive letters, backslashes, ``..``, NUL), links, device or
    fifo members, nested archives, duplicate names, no or several skill
    folders, and anything over ``limits``, whose sizes are checked from the
    declared headers before reading and again on the real bytes while
    reading.  Raises OSError when the file itself cannot be opened.
    """
    path = Path(path)
    with _open_regular(path) as fh:
        try:
            zf = zipfile.ZipFile(fh)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, struct.error,
                EOFError, OSError, NotImplementedError, OverflowError) as exc:
            raise ArchiveError(path, f"is not a zip archive or is damaged ({exc})") from exc
        with zf:
            return _read(zf, path, limits)


def _open_regular(path: Path):
    """The archive opened for reading, refused (not waited on) when it is a fifo or a device."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ArchiveError(path, "is not a regular file (a fifo, socket or device)")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read(zf: zipfile.ZipFile, archive: Path, limits: ArchiveLimits) -> ArchivedSkill:
    def fail(reason: str, member: str | None = None) -> ArchiveError:
        return ArchiveError(archive, reason, member)

    infos = zf.infolist()
    # Backstop before any per-member work: directory entries and macOS
    # metadata are not counted as files, but there cannot be endless amounts.
    if len(infos) > 4 * limits.max_files + 100:
        raise fail(f"has {len(infos)} entries, over the limit of {limits.max_files} files")

    ignored: list[str] = []
    entries: list[_Entry] = []
    seen: dict[str, str] = {}
    for info in infos:
        raw = info.orig_filename
        try:
            norm = safe_relative_path(raw)
        except ValueError as exc:
            raise fail(str(exc), raw) from None
        if len(norm.split("/")) > limits.max_depth:
            raise fail(f"is nested deeper than {limits.max_depth} folders", raw)
        if vcs_part(norm):
            ignored.append(f"{raw} ({VCS_REASON})")
            continue
        for part in norm.split("/"):
            problem = file_name_problem(part) or _length_problem(part)
            if problem:
                raise fail(problem, raw)
        if len(norm.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
            raise fail(f"has a path of {len(norm.encode('utf-8', 'surrogateescape')):,} bytes, longer than the "
                       f"{MAX_PATH_BYTES:,} a skill's file may have to be written out; shorten its folders' "
                       "names and package it again", raw)
        mode = _unix_mode(info)
        if raw.endswith("/") or stat.S_ISDIR(mode):
            ignored.append(f"{raw} (directory entry)")
            continue
        reason = _ignore_reason(norm)
        if reason:
            ignored.append(f"{raw} ({reason})")
            continue
        key = collision_key(norm)
        if key in seen:
            if seen[key] == norm:
                raise fail("appears more than once in the archive", raw)
            raise fail(f"clashes with {seen[key]!r} (names differ only in case)", raw)
        seen[key] = norm
        entries.append(_Entry(info, norm))

    folders: set[str] = set()
    for entry in entries:
        parts = entry.path.split("/")
        folders.update(collision_key("/".join(parts[:i])) for i in range(1, len(parts)))
    for entry in entries:
        if collision_key(entry.path) in folders:
            raise fail("is both a file and a folder", entry.info.orig_filename)

    root, folder_name = _find_skill_root(entries, archive, fail)
    prefix = f"{root}/" if root else ""

    kept: list[tuple[_Entry, str, int]] = []
    declared_total = 0
    for entry in entries:
        info, raw = entry.info, entry.info.orig_filename
        if not entry.path.startswith(prefix):
            ignored.append(f"{raw} (outside the skill folder)")
            continue
        rel = entry.path[len(prefix):]
        if info.flag_bits & _ENCRYPTED_FLAGS:
            raise fail("is encrypted", raw)
        mode = _unix_mode(info)
        if mode:
            kind = stat.S_IFMT(mode)
            if kind == stat.S_IFLNK:
                raise fail(_describe_link(zf, info, rel), raw)
            if kind not in (0, stat.S_IFREG):
                raise fail("is a special file (device, fifo or socket)", raw)
        if info.compress_type not in _SUPPORTED_COMPRESSION:
            raise fail(f"uses compression method {info.compress_type}, which is not supported "
                       "(only stored and deflated)", raw)
        nested = _nested_archive_kind(rel)
        if nested:
            raise fail(f"is {nested}; archives inside a skill archive are not allowed", raw)
        if rel in SKILL_MD_NAMES and info.file_size > MAX_SKILL_MD_BYTES:
            raise fail(f"is {_human(info.file_size)}, over the limit of {_human(MAX_SKILL_MD_BYTES)} for "
                       "SKILL.md", raw)
        if info.file_size > limits.max_member_bytes:
            raise fail(f"is {_human(info.file_size)}, over the limit of "
                       f"{_human(limits.max_member_bytes)} per file", raw)
        if info.file_size > RATIO_FLOOR and info.file_size > limits.max_ratio * max(info.compress_size, 1):
            raise fail(f"expands {info.file_size // max(info.compress_size, 1)} times, over the "
                       f"limit of {limits.max_ratio} (a zip bomb?)", raw)
        declared_total += info.file_size
        if declared_total > limits.max_total_bytes:
            raise fail(f"brings the skill past the limit of {_human(limits.max_total_bytes)} in total", raw)
        if len(kept) >= limits.max_files:
            raise fail(f"holds more than {limits.max_files} files")
        file_mode = skill_file_mode(mode) if info.create_system in _UNIX_SYSTEMS and mode else 0o644
        kept.append((entry, rel, file_mode))

    kept.sort(key=lambda item: item[1])
    files: list[SkillFile] = []
    total = 0
    for entry, rel, file_mode in kept:
        member_limits = limits
        if rel in SKILL_MD_NAMES and limits.max_member_bytes > MAX_SKILL_MD_BYTES:
            member_limits = dataclasses.replace(limits, max_member_bytes=MAX_SKILL_MD_BYTES)
        data = _read_member(zf, entry.info, member_limits, total, fail)
        total += len(data)
        files.append(SkillFile(path=rel, data=data, mode=file_mode))
    return ArchivedSkill(folder_name=folder_name, files=files, ignored=ignored)


def _find_skill_root(entries: list[_Entry], archive: Path, fail: _Fail) -> tuple[str, str]:
    """Return (folder path inside the archive, folder name) of the one skill folder."""
    holders = {
        posixpath.dirname(e.path)
        for e in entries
        if posixpath.basename(e.path) in SKILL_MD_NAMES and e.path.count("/") <= 2
    }
    if "" in holders:
        return "", archive.stem
    top = {h for h in holders if "/" not in h}
    candidates = sorted(top | {h for h in holders if h.count("/") == 1 and h.split("/")[0] not in top})
    if not candidates:
        raise fail("SKILL.md not found: expected <name>/SKILL.md, wrapper/<name>/SKILL.md or SKILL.md at the root")
    if len(candidates) > 1:
        listed = ", ".join(f"'{c}/'" for c in candidates)
        raise fail(f"holds more than one skill folder ({listed}); package one skill per archive")
    root = candidates[0]
    return root, root.rsplit("/", 1)[-1]


def _open_unbounded(zf: zipfile.ZipFile, info: zipfile.ZipInfo):
    """Open a member so that its real bytes are returned even if its declared size lies."""
    unbounded = copy.copy(info)
    unbounded.file_size = 1 << 62
    return zf.open(unbounded)


def _describe_link(zf: zipfile.ZipFile, info: zipfile.ZipInfo, rel: str) -> str:
    target = None
    if not info.flag_bits & _ENCRYPTED_FLAGS and info.compress_type in _SUPPORTED_COMPRESSION:
        try:
            with _open_unbounded(zf, info) as fh:
                raw = fh.read(4097)
            if len(raw) <= 4096 and b"\x00" not in raw:
                target = raw.decode("utf-8")
        except (zipfile.BadZipFile, zlib.error, EOFError, UnicodeDecodeError, OSError):
            target = None
    if target is None:
        return "is a symbolic link; links are not allowed in a skill archive"
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(rel), target))
    if target.startswith("/") or _DRIVE_RE.match(target) or resolved == ".." or resolved.startswith("../"):
        return f"is a symbolic link to {target!r}, which points outside the skill folder"
    return (f"is a symbolic link to {target!r}; links are not allowed in a skill archive, "
            "even inside the skill folder")


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: ArchiveLimits,
                 total_before: int, fail: _Fail) -> bytes:
    """Read one member in chunks, counting real bytes against the limits as they arrive."""
    raw = info.orig_filename
    ratio_base = max(info.compress_size, 1)
    chunks: list[bytes] = []
    count = 0
    head = b""
    try:
        with _open_unbounded(zf, info) as fh:
            while True:
                chunk = fh.read(_CHUNK)
                if not chunk:
                    break
                count += len(chunk)
                if count > limits.max_member_bytes:
                    raise fail(f"holds more than {_human(limits.max_member_bytes)} (the limit per file), "
                               f"although it declares {_human(info.file_size)}", raw)
                if total_before + count > limits.max_total_bytes:
                    raise fail(f"brings the skill past the limit of {_human(limits.max_total_bytes)} "
                               "in total", raw)
                if count > RATIO_FLOOR and count > limits.max_ratio * ratio_base:
                    raise fail(f"expands more than {limits.max_ratio} times (a zip bomb?)", raw)
                if len(head) < _MAGIC_LEN:
                    head += chunk[: _MAGIC_LEN - len(head)]
                    _check_magic(head, raw, fail)
                chunks.append(chunk)
    except ArchiveError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError,
            ValueError, struct.error) as exc:
        raise fail(f"is damaged ({exc})", raw) from exc
    if count != info.file_size:
        raise fail(f"declares {info.file_size} bytes but holds {count}", raw)
    return b"".join(chunks)


def _check_magic(head: bytes, raw: str, fail: _Fail) -> None:
    for magic, kind in ARCHIVE_MAGICS:
        if head.startswith(magic):
            raise fail(f"holds {kind}; archives inside a skill archive are not allowed", raw)
