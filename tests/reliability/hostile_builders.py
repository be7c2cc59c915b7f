"""Builders of hostile skill inputs (files, folders, links, archives), made on the fly in a test's folder."""

from __future__ import annotations

import io
import os
import sqlite3
import stat
import struct
import warnings
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

GOOD_MD = b"---\nname: hostile-skill\ndescription: Does a thing. Use when testing.\n---\nBody.\n"


@dataclass
class Built:
    """A hostile input: the path to import, the text the error must name (a path), the line it
    must name (None: none applies), and paths that must not exist afterwards."""

    target: Path
    named: str
    line: int | tuple[int, int] | None = None
    must_not_exist: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Case:
    id: str
    build: Callable[[Path], Built]
    words: tuple[str, ...]
    cli: bool = False       # also through `skill-studio import` in a subprocess
    validate: bool = False  # also through `skill-studio validate --profile lenient`
    gui: bool = False       # also through the window's import


# --- store ----------------------------------------------------------------------

def dump_store(path: Path) -> dict[str, list[str]]:
    """Every row of every table of the store (the full-text index's tables included), sorted."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: sorted(repr(row) for row in conn.execute(f'SELECT * FROM "{t}"')) for t in tables}
    finally:
        conn.close()


# --- SKILL.md files ------------------------------------------------------------------

def frontmatter(*lines: str, name: str = "hostile-skill") -> bytes:
    """A SKILL.md whose extra frontmatter lines start on line 4."""
    extra = "".join(line + "\n" for line in lines)
    return (f"---\nname: {name}\ndescription: Does a thing. Use when testing.\n{extra}---\nBody.\n").encode()


def skill_folder(root: Path, data: bytes | None = GOOD_MD, name: str = "hostile-skill") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    if data is not None:
        (folder / "SKILL.md").write_bytes(data)
    return folder


def md_case(data: bytes | Callable[[], bytes], line: int | tuple[int, int] | None) -> Callable[[Path], Built]:
    """A skill folder whose SKILL.md holds ``data``; the error names SKILL.md (and ``line``)."""
    def build(tmp: Path) -> Built:
        folder = skill_folder(tmp / "in", data() if callable(data) else data)
        return Built(folder, str(folder / "SKILL.md"), line)
    return build


def laughs(depth: int, width: int) -> bytes:
    lines = ["l0: &l0 lol"]
    for i in range(1, depth + 1):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return frontmatter(*lines)


def laughs_block(depth: int, width: int) -> bytes:
    lines = ["metadata:", "  l0: &l0 lol"]
    for i in range(1, depth + 1):
        lines.append(f"  l{i}: &l{i}")
        lines += [f"    - *l{i - 1}"] * width
    return frontmatter(*lines)


def merge_bomb(depth: int, width: int) -> bytes:
    lines = ["m0: &m0 {k: v}"]
    for i in range(1, depth + 1):
        lines.append(f"m{i}: &m{i}")
        lines.append("  <<: [" + ", ".join([f"*m{i - 1}"] * width) + "]")
        lines.append(f"  k{i}: v")
    return frontmatter(*lines)


def alias_depth_chain(n: int) -> bytes:
    lines = ["c0: &c0 x"] + [f"c{i}: &c{i} [*c{i - 1}]" for i in range(1, n + 1)]
    return frontmatter(*lines)


def deep_block_map(levels: int) -> bytes:
    return frontmatter("deep:", *(" " * (i + 1) + f"k{i}:" for i in range(levels)))


def deep_block_seq(levels: int) -> bytes:
    return frontmatter("deep:", *("  " * (i + 1) + "-" for i in range(levels)))


def many_keys(n: int, under: str | None = None) -> bytes:
    if under is None:
        return frontmatter(*(f"k{i}: v" for i in range(n)))
    return frontmatter(f"{under}:", *(f"  k{i}: v" for i in range(n)))


def sparse_skill_md(size: int) -> Callable[[Path], Built]:
    """A SKILL.md of ``size`` bytes, nearly all of it a hole the file system does not store."""
    def build(tmp: Path) -> Built:
        folder = skill_folder(tmp / "in")
        md = folder / "SKILL.md"
        with open(md, "r+b") as fh:
            fh.truncate(size)
        return Built(folder, str(md), None)
    return build


# --- folders and links -------------------------------------------------------------------

def link_in_skill(target: str | Callable[[Path], str], link: str = "secret") -> Callable[[Path], Built]:
    """A good skill folder holding a link ``link`` to ``target``; the error names the link."""
    def build(tmp: Path) -> Built:
        folder = skill_folder(tmp / "in")
        where = target(tmp) if callable(target) else target
        (folder / link).symlink_to(where)
        return Built(folder, str(folder / link), None)
    return build


def link_loop_in_skill(tmp: Path) -> Built:
    folder = skill_folder(tmp / "in")
    (folder / "a").symlink_to("b")
    (folder / "b").symlink_to("a")
    return Built(folder, str(folder / "a"), None)


def skill_md_link(target: str | Callable[[Path], str]) -> Callable[[Path], Built]:
    def build(tmp: Path) -> Built:
        folder = skill_folder(tmp / "in", None)
        (folder / "SKILL.md").symlink_to(target(tmp) if callable(target) else target)
        return Built(folder, str(folder / "SKILL.md"), None)
    return build


def folder_is_link_loop(tmp: Path) -> Built:
    (tmp / "in").mkdir()
    loop = tmp / "in" / "hostile-skill"
    other = tmp / "in" / "other"
    loop.symlink_to(other)
    other.symlink_to(loop)
    return Built(loop, str(loop), None)


def folder_links_to_itself(tmp: Path) -> Built:
    (tmp / "in").mkdir()
    me = tmp / "in" / "hostile-skill"
    me.symlink_to(me)
    return Built(me, str(me), None)


def tree_with_self_link(tmp: Path) -> Built:
    tree = tmp / "in" / "tree"
    tree.mkdir(parents=True)
    (tree / "again").symlink_to(".")
    (tree / "up").symlink_to("..")
    return Built(tree, str(tree), None)


def skill_md_is_folder(tmp: Path) -> Built:
    folder = skill_folder(tmp / "in", None)
    (folder / "SKILL.md").mkdir()
    return Built(folder, str(folder / "SKILL.md"), None)


def skill_md_is_fifo(tmp: Path) -> Built:
    folder = skill_folder(tmp / "in", None)
    os.mkfifo(folder / "SKILL.md")
    return Built(folder, str(folder / "SKILL.md"), None)


def odd_file_name(name: str | bytes) -> Callable[[Path], Built]:
    """A good skill folder holding a file with a hostile name."""
    def build(tmp: Path) -> Built:
        folder = skill_folder(tmp / "in")
        raw = os.fsencode(folder) + b"/" + (name if isinstance(name, bytes) else name.encode())
        with open(raw, "wb") as fh:
            fh.write(b"x")
        return Built(folder, str(folder), None)
    return build


def odd_folder_name(name: str) -> Callable[[Path], Built]:
    """A good skill (no name in its frontmatter) in a folder with a hostile name."""
    def build(tmp: Path) -> Built:
        folder = skill_folder(tmp / "in", b"---\ndescription: Does a thing. Use when testing.\n---\n", name)
        return Built(folder, str(folder / "SKILL.md"), 2)
    return build


def folder_not_utf8(tmp: Path) -> Built:
    """A good skill in a folder whose name is not valid UTF-8."""
    (tmp / "in").mkdir()
    raw = os.fsencode(tmp / "in") + b"/hostile\xffskill"
    os.mkdir(raw)
    with open(raw + b"/SKILL.md", "wb") as fh:
        fh.write(GOOD_MD)
    return Built(Path(os.fsdecode(raw)), os.fsdecode(raw), None)


def named(name_yaml: str) -> Callable[[Path], Built]:
    """A skill whose frontmatter name is ``name_yaml`` (YAML text); the error names line 2."""
    def build(tmp: Path) -> Built:
        data = f"---\nname: {name_yaml}\ndescription: Does a thing. Use when testing.\n---\nBody.\n"
        folder = skill_folder(tmp / "in", data.encode("utf-8"))
        return Built(folder, str(folder / "SKILL.md"), 2)
    return build


# --- archives ------------------------------------------------------------------------------

def make_zip(path: Path, members: list[tuple[str | zipfile.ZipInfo, bytes]], **kwargs) -> Path:
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, **kwargs) as zf:
        warnings.simplefilter("ignore", UserWarning)  # duplicate names are wanted here
        for name, data in members:
            zf.writestr(name, data)
    return path


def zip_bytes(members: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buf.getvalue()


def base(folder: str = "hostile-skill") -> list[tuple[str, bytes]]:
    return [(f"{folder}/SKILL.md", GOOD_MD)]


def link_member(name: str, target: bytes) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target


def patch_member(path: Path, name: str, *, flags: int | None = None, file_size: int | None = None) -> None:
    """Rewrite the flags or the declared size of one member, in its local and central headers."""
    raw = bytearray(path.read_bytes())
    encoded = name.encode("utf-8")
    for sig, flag_at, size_at, name_len_at, name_at in ((b"PK\x03\x04", 6, 22, 26, 30),
                                                        (b"PK\x01\x02", 8, 24, 28, 46)):
        pos = 0
        while (pos := raw.find(sig, pos)) >= 0:
            (length,) = struct.unpack_from("<H", raw, pos + name_len_at)
            if raw[pos + name_at: pos + name_at + length] == encoded:
                if flags is not None:
                    struct.pack_into("<H", raw, pos + flag_at, struct.unpack_from("<H", raw, pos + flag_at)[0] | flags)
                if file_size is not None:
                    struct.pack_into("<I", raw, pos + size_at, file_size)
            pos += 4
    path.write_bytes(bytes(raw))


def rename_member(path: Path, old: bytes, new: bytes) -> None:
    assert len(old) == len(new)
    path.write_bytes(path.read_bytes().replace(old, new))


def deflated_zeros(size: int) -> tuple[bytes, int]:
    """Raw deflate data of ``size`` zero bytes, and their CRC."""
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = bytes(1 << 20)
    out, crc, left = [], 0, size
    while left:
        piece = chunk[: min(left, len(chunk))]
        out.append(comp.compress(piece))
        crc = zlib.crc32(piece, crc)
        left -= len(piece)
    out.append(comp.flush())
    return b"".join(out), crc


def _deflate(data: bytes) -> bytes:
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    return comp.compress(data) + comp.flush()


def zip_with_zeros(path: Path, member: str, size: int, declared: int | None = None) -> Path:
    """A zip holding a good skill and ``member``: ``size`` zero bytes deflated, declaring
    ``declared`` bytes (the real size when None). Built from compressed chunks, never whole."""
    payload, crc = deflated_zeros(size)
    entries = [(n.encode(), _deflate(d), zlib.crc32(d), len(d)) for n, d in base()]
    entries.append((member.encode(), payload, crc, size if declared is None else declared))
    return write_raw_zip(path, entries)


def write_raw_zip(path: Path, entries: list[tuple[bytes, bytes, int, int]]) -> Path:
    """A zip of deflated members written by hand: (name, raw deflate data, CRC, declared size)."""
    out = bytearray()
    central = bytearray()
    for name, payload, crc, size in entries:
        offset = len(out)
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0x21, crc, len(payload), size,
                           len(name), 0) + name + payload
        central += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0x21, crc, len(payload),
                               size, len(name), 0, 0, 0, 0, 0, offset) + name
    out += central + struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central),
                                 len(out), 0)
    path.write_bytes(bytes(out))
    return path


def archive_case(make: Callable[[Path], object], member: str | None = None,
                 suffix: str = ".skill") -> Callable[[Path], Built]:
    """An archive built by ``make(path)``; the error names the archive (and ``member``)."""
    def build(tmp: Path) -> Built:
        (tmp / "in").mkdir()
        path = tmp / "in" / f"hostile-skill{suffix}"
        forbidden = make(path)
        return Built(path, str(path), None, list(forbidden) if isinstance(forbidden, list) else [])
    return build
