"""Reading and writing skill packages, including a corpus of hostile archives."""

from __future__ import annotations

import gzip
import io
import os
import stat
import struct
import tempfile
import unicodedata
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skill_studio.core.library.archive import (
    ARCHIVE_MAGICS,
    NESTED_ARCHIVE_SUFFIXES,
    ArchivedSkill,
    ArchiveError,
    ArchiveLimits,
    read_skill_archive,
    safe_relative_path,
)
from skill_studio.core.library.archive_write import write_skill_archive
from skill_studio.core.model import SkillFile

SKILL_MD = b"---\nname: my-skill\ndescription: Does a thing.\n---\n\n# My skill\n\nRun the script.\n"
BINARY = bytes(range(256)) * 37 + b"\x00\xff" * 11


# --------------------------------------------------------------------------- helpers


def sample_files() -> list[SkillFile]:
    return [
        SkillFile("SKILL.md", SKILL_MD, 0o644),
        SkillFile("scripts/run.sh", b"#!/bin/sh\necho hello\n", 0o755),
        SkillFile("assets/logo.bin", BINARY, 0o644),
        SkillFile("references/guide.md", "Ünïcode guide\n".encode(), 0o600),
        SkillFile("empty.txt", b"", 0o644),
    ]


def file_info(name: str, mode: int = 0o644, *, kind: int = stat.S_IFREG, system: int = 3,
              compress: int = zipfile.ZIP_DEFLATED) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.create_system = system
    info.compress_type = compress
    info.external_attr = (kind | mode) << 16
    return info


def make_zip(path: Path, entries) -> Path:
    """Write ``entries`` ((name or ZipInfo, data) pairs) as a zip at ``path``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are written on purpose
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    return path


def zip_bytes(entries) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return buf.getvalue()


# Field offsets in the local file header and in the central directory entry.
_LOCAL = (b"PK\x03\x04", {"flags": (6, "<H"), "crc": (14, "<I"), "file_size": (22, "<I")}, 26, 30)
_CENTRAL = (b"PK\x01\x02", {"flags": (8, "<H"), "crc": (16, "<I"), "file_size": (24, "<I")}, 28, 46)


def patch_member(path: Path, name: str, **fields: int) -> None:
    """Overwrite header fields of member ``name`` in both its local and central headers."""
    raw = bytearray(path.read_bytes())
    encoded = name.encode()
    hits = 0
    for signature, offsets, len_at, name_at in (_LOCAL, _CENTRAL):
        start = 0
        while (i := raw.find(signature, start)) >= 0:
            start = i + 4
            (length,) = struct.unpack_from("<H", raw, i + len_at)
            if bytes(raw[i + name_at:i + name_at + length]) != encoded:
                continue
            for field, value in fields.items():
                offset, fmt = offsets[field]
                struct.pack_into(fmt, raw, i + offset, value)
            hits += 1
    assert hits == 2, f"expected one local and one central header for {name!r}, found {hits}"
    path.write_bytes(bytes(raw))


def rename_member(path: Path, old: bytes, new: bytes) -> None:
    """Replace a member name of the same length in every header (to plant bytes zipfile won't write)."""
    assert len(old) == len(new)
    raw = path.read_bytes()
    assert raw.count(old) == 2
    path.write_bytes(raw.replace(old, new))


def refused(path: Path, limits: ArchiveLimits | None = None) -> str:
    with pytest.raises(ArchiveError) as info:
        if limits is None:
            read_skill_archive(path)
        else:
            read_skill_archive(path, limits)
    message = str(info.value)
    assert message.startswith(f"{path.name}: "), message
    return message


def base(name: str = "my-skill"):
    return [(f"{name}/SKILL.md", SKILL_MD)]


# --------------------------------------------------------------------------- safe_relative_path


@pytest.mark.parametrize(
    "name, expected",
    [
        ("SKILL.md", "SKILL.md"),
        ("a/b/c.txt", "a/b/c.txt"),
        ("./a//b/", "a/b"),
        ("a/./b", "a/b"),
        ("...", "..."),
        ("a..b/c..", "a..b/c.."),
        ("dir/", "dir"),
        ("naïve/日本.md", "naïve/日本.md"),
    ],
)
def test_safe_relative_path_normalises(name, expected):
    assert safe_relative_path(name) == expected


@pytest.mark.parametrize(
    "name, reason",
    [
        ("", "empty"),
        (".", "empty"),
        ("./", "empty"),
        ("/etc/passwd", "absolute"),
        ("//server/share", "absolute"),
        ("../x", "escapes"),
        ("a/../../x", "escapes"),
        ("a/../b", "escapes"),
        ("a/..", "escapes"),
        ("C:\\x", "drive letter"),
        ("c:/x", "drive letter"),
        ("C:x", "drive letter"),
        ("a\\b", "backslashes"),
        ("..\\x", "backslashes"),
        ("a\x00b", "NUL"),
        ("a\nb", "control character"),
    ],
)
def test_safe_relative_path_refuses(name, reason):
    with pytest.raises(ValueError, match=reason):
        safe_relative_path(name)


# --------------------------------------------------------------------------- writing and round trip


def test_round_trip_keeps_bytes_and_modes(tmp_path):
    dest = write_skill_archive(tmp_path / "my-skill.skill", "my-skill", sample_files())
    assert dest == tmp_path / "my-skill.skill"
    skill = read_skill_archive(dest)
    assert isinstance(skill, ArchivedSkill)
    assert skill.folder_name == "my-skill"
    assert skill.ignored == []
    assert skill.files == sorted((SkillFile(f.path, f.data, 0o755 if f.mode & 0o111 else 0o644)
                                  for f in sample_files()), key=lambda f: f.path)
    by_path = {f.path: f for f in skill.files}
    assert by_path["scripts/run.sh"].mode == 0o755
    assert by_path["scripts/run.sh"].executable
    assert by_path["assets/logo.bin"].data == BINARY
    assert not by_path["assets/logo.bin"].executable


def test_written_layout(tmp_path):
    dest = write_skill_archive(tmp_path / "out.zip", "my-skill", sample_files())
    with zipfile.ZipFile(dest) as zf:
        infos = zf.infolist()
    names = [i.filename for i in infos]
    assert names == sorted(names)
    assert all(n.startswith("my-skill/") for n in names)
    for info in infos:
        assert info.compress_type == zipfile.ZIP_DEFLATED
        assert info.create_system == 3
        assert info.date_time == (1980, 1, 1, 0, 0, 0)
        assert stat.S_ISREG(info.external_attr >> 16)
    assert {i.filename: (i.external_attr >> 16) & 0o7777 for i in infos}["my-skill/scripts/run.sh"] == 0o755


def test_write_is_deterministic(tmp_path):
    files = sample_files()
    a = write_skill_archive(tmp_path / "a.skill", "my-skill", files)
    b = write_skill_archive(tmp_path / "b.skill", "my-skill", list(reversed(files)))
    assert a.read_bytes() == b.read_bytes()
    again = write_skill_archive(tmp_path / "a.skill", "my-skill", (f for f in files))
    assert again.read_bytes() == b.read_bytes()


def test_write_leaves_out_build_litter_and_root_evals(tmp_path):
    files = sample_files() + [
        SkillFile("__pycache__/mod.cpython-311.pyc", b"x"),
        SkillFile("scripts/__pycache__/helper.cpython-311.pyc", b"x"),
        SkillFile("scripts/stale.pyc", b"x"),
        SkillFile("node_modules/left-pad/index.js", b"x"),
        SkillFile("web/node_modules/a.js", b"x"),
        SkillFile(".DS_Store", b"x"),
        SkillFile("assets/.DS_Store", b"x"),
        SkillFile("evals/evals.json", b"{}"),
        SkillFile("evals/files/input.txt", b"x"),
        SkillFile("references/evals/notes.md", b"kept: not the root evals/"),
    ]
    dest = write_skill_archive(tmp_path / "s.skill", "my-skill", files)
    paths = [f.path for f in read_skill_archive(dest).files]
    assert paths == sorted([f.path for f in sample_files()] + ["references/evals/notes.md"])


def test_write_strips_setuid_setgid_sticky(tmp_path):
    files = [SkillFile("SKILL.md", SKILL_MD), SkillFile("bin/tool", b"#!/bin/sh\n", 0o7755)]
    dest = write_skill_archive(tmp_path / "s.skill", "s", files)
    with zipfile.ZipFile(dest) as zf:
        assert (zf.getinfo("s/bin/tool").external_attr >> 16) & 0o7777 == 0o755
    assert {f.path: f.mode for f in read_skill_archive(dest).files}["bin/tool"] == 0o755


@pytest.mark.parametrize("bad", ["../evil", "a/../../evil", "/etc/passwd", "C:\\evil", "a\\b", "a\x00b"])
def test_write_refuses_unsafe_paths_and_leaves_nothing(tmp_path, bad):
    files = sample_files() + [SkillFile(bad, b"x")]
    with pytest.raises(ArchiveError) as info:
        write_skill_archive(tmp_path / "out.skill", "my-skill", files)
    assert str(info.value).startswith(f"out.skill: member {bad!r} ")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("folder", ["", "..", "a/b", "/abs", "C:\\x", "a\\b"])
def test_write_refuses_bad_folder_name(tmp_path, folder):
    with pytest.raises(ArchiveError, match="^out.skill: folder name"):
        write_skill_archive(tmp_path / "out.skill", folder, sample_files())
    assert list(tmp_path.iterdir()) == []


def test_write_refuses_duplicates_conflicts_and_missing_skill_md(tmp_path):
    dest = tmp_path / "out.skill"
    with pytest.raises(ArchiveError, match="more than once"):
        write_skill_archive(dest, "s", sample_files() + [SkillFile("./scripts//run.sh", b"x")])
    with pytest.raises(ArchiveError, match="more than once"):
        write_skill_archive(dest, "s", sample_files() + [SkillFile("Scripts/Run.sh", b"x")])
    with pytest.raises(ArchiveError, match="both a file and a folder"):
        write_skill_archive(dest, "s", sample_files() + [SkillFile("scripts", b"x")])
    with pytest.raises(ArchiveError, match="SKILL.md not found"):
        write_skill_archive(dest, "s", [SkillFile("notes.md", b"x")])
    assert list(tmp_path.iterdir()) == []


def test_write_failure_leaves_nothing_behind(tmp_path, monkeypatch):
    dest = tmp_path / "out.skill"
    dest.write_bytes(b"previous export")

    def broken_fsync(fd):
        raise OSError("disk on fire")

    monkeypatch.setattr("skill_studio.core.library.archive_write.os.fsync", broken_fsync)
    with pytest.raises(OSError, match="disk on fire"):
        write_skill_archive(dest, "my-skill", sample_files())
    assert list(tmp_path.iterdir()) == [dest]
    assert dest.read_bytes() == b"previous export"


def test_write_failure_mid_stream_leaves_nothing_behind(tmp_path):
    files = sample_files() + [SkillFile("zz.txt", "not bytes")]  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        write_skill_archive(tmp_path / "out.skill", "my-skill", files)
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- accepted layouts


def test_wrapper_folder_layout(tmp_path):
    path = make_zip(tmp_path / "repo-main.zip", [
        ("repo-main/README.md", b"repo readme"),
        ("repo-main/my-skill/SKILL.md", SKILL_MD),
        ("repo-main/my-skill/scripts/run.sh", b"echo"),
    ])
    skill = read_skill_archive(path)
    assert skill.folder_name == "my-skill"
    assert [f.path for f in skill.files] == ["SKILL.md", "scripts/run.sh"]
    assert any(i.startswith("repo-main/README.md") and "outside" in i for i in skill.ignored)


def test_root_level_skill_md_uses_archive_stem(tmp_path):
    path = make_zip(tmp_path / "pdf-tools.skill", [("SKILL.md", SKILL_MD), ("scripts/x.py", b"print()")])
    skill = read_skill_archive(path)
    assert skill.folder_name == "pdf-tools"
    assert [f.path for f in skill.files] == ["SKILL.md", "scripts/x.py"]


def test_lowercase_skill_md_accepted(tmp_path):
    path = make_zip(tmp_path / "s.zip", [("tool/skill.md", SKILL_MD)])
    skill = read_skill_archive(path)
    assert skill.folder_name == "tool"
    assert [f.path for f in skill.files] == ["skill.md"]


def test_nested_skill_md_inside_the_skill_is_just_a_file(tmp_path):
    path = make_zip(tmp_path / "s.zip", base() + [("my-skill/templates/child/SKILL.md", b"template")])
    skill = read_skill_archive(path)
    assert skill.folder_name == "my-skill"
    assert [f.path for f in skill.files] == ["SKILL.md", "templates/child/SKILL.md"]


def test_macos_litter_and_directory_entries_ignored(tmp_path):
    path = make_zip(tmp_path / "s.zip", [
        ("my-skill/", b""),
        ("my-skill/scripts/", b""),
        ("my-skill/SKILL.md", SKILL_MD),
        ("my-skill/scripts/run.sh", b"echo"),
        ("my-skill/.DS_Store", b"\x00\x00\x00\x01Bud1"),
        ("__MACOSX/", b""),
        ("__MACOSX/my-skill/._SKILL.md", b"\x00\x05\x16\x07"),
        ("__MACOSX/my-skill/._evil.zip", b"PK\x03\x04"),
    ])
    skill = read_skill_archive(path)
    assert [f.path for f in skill.files] == ["SKILL.md", "scripts/run.sh"]
    ignored = "\n".join(skill.ignored)
    for name in ("my-skill/", "my-skill/scripts/", "my-skill/.DS_Store", "__MACOSX/my-skill/._SKILL.md"):
        assert name in ignored
    assert len(skill.ignored) == 6


def test_mode_bits_from_unix_and_other_systems(tmp_path):
    path = make_zip(tmp_path / "s.zip", base() + [
        (file_info("my-skill/setuid", 0o4755), b"x"),
        (file_info("my-skill/sticky", 0o1777), b"x"),
        (file_info("my-skill/private", 0o600), b"x"),
        (file_info("my-skill/windows.exe", 0o755, system=0), b"x"),
    ])
    modes = {f.path: f.mode for f in read_skill_archive(path).files}
    assert modes["setuid"] == 0o755  # stripped, not refused
    assert modes["sticky"] == 0o755  # executable; no sticky bit, no write for others
    assert modes["private"] == 0o644  # a skill's files are 0o644 or 0o755, nothing else
    assert modes["windows.exe"] == 0o644
    assert modes["SKILL.md"] == 0o644  # zipfile.writestr's default for a bare name is 0o600


def test_small_highly_compressible_files_are_fine(tmp_path):
    path = make_zip(tmp_path / "s.zip", base() + [("my-skill/blank.txt", b"\x00" * (512 * 1024))])
    assert read_skill_archive(path).files[-1].data == b"\x00" * (512 * 1024)


def test_missing_file_raises_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_skill_archive(tmp_path / "nope.skill")


def test_archive_error_is_value_error_and_pickles():
    import pickle

    err = ArchiveError(Path("/x/bad.skill"), "escapes the skill folder", "../evil")
    assert isinstance(err, ValueError)
    assert str(err) == "bad.skill: member '../evil' escapes the skill folder"
    clone = pickle.loads(pickle.dumps(err))
    assert str(clone) == str(err) and clone.member == "../evil" and clone.archive == "bad.skill"


# --------------------------------------------------------------------------- hostile corpus


def _zip_slip(p):
    make_zip(p, base() + [("../x", b"x")])


def _zip_slip_inner(p):
    make_zip(p, base() + [("a/../../x", b"x")])


def _absolute(p):
    make_zip(p, base() + [("/etc/passwd", b"root:x:0:0")])


def _drive(p):
    make_zip(p, base() + [("C:\\x", b"x")])


def _drive_slash(p):
    make_zip(p, base() + [("C:/x", b"x")])


def _backslash(p):
    make_zip(p, base() + [("my-skill\\..\\..\\x", b"x")])


def _link(target):
    def build(p):
        make_zip(p, base() + [(file_info("my-skill/link", 0o777, kind=stat.S_IFLNK), target)])
    return build


def _fifo(p):
    make_zip(p, base() + [(file_info("my-skill/pipe", 0o644, kind=stat.S_IFIFO), b"")])


def _device(p):
    make_zip(p, base() + [(file_info("my-skill/dev", 0o644, kind=stat.S_IFCHR), b"")])


def _nested_zip(p):
    make_zip(p, base() + [("my-skill/assets/inner.zip", zip_bytes([("a", b"b")]))])


def _nested_tgz_name(p):
    make_zip(p, base() + [("my-skill/data.TAR.GZ", b"plain text")])


def _zip_magic(p):
    make_zip(p, base() + [("my-skill/notes.txt", zip_bytes([("evil/SKILL.md", b"x")]))])


def _gzip_magic(p):
    make_zip(p, base() + [("my-skill/data.bin", gzip.compress(b"hello" * 100))])


def _too_many_files(p):
    make_zip(p, base() + [(f"my-skill/f{i}.txt", b"x") for i in range(5)])


def _total_size(p):
    make_zip(p, base() + [("my-skill/a.bin", os.urandom(600)), ("my-skill/b.bin", os.urandom(600))])


def _member_size(p):
    make_zip(p, base() + [("my-skill/big.bin", os.urandom(2000))])


def _bomb(p):
    make_zip(p, base() + [("my-skill/zeros.bin", bytes(20 * 1024 * 1024))])


def _bomb_lying(p):
    _bomb(p)
    patch_member(p, "my-skill/zeros.bin", file_size=1000)


RANDOM_10K = os.urandom(10 * 1024)


def _lies_small(p):
    make_zip(p, base() + [("my-skill/data.bin", RANDOM_10K)])
    patch_member(p, "my-skill/data.bin", file_size=100)


def _lies_big(p):
    make_zip(p, base() + [("my-skill/data.bin", RANDOM_10K)])
    patch_member(p, "my-skill/data.bin", file_size=20000)


def _duplicate(p):
    make_zip(p, base() + [("my-skill/a.txt", b"1"), ("my-skill/a.txt", b"2")])


def _duplicate_normalised(p):
    make_zip(p, base() + [("my-skill/a.txt", b"1"), ("my-skill/./a.txt", b"2")])


def _duplicate_case(p):
    make_zip(p, base() + [("my-skill/Notes.md", b"1"), ("my-skill/notes.md", b"2")])


def _file_and_folder(p):
    make_zip(p, base() + [("my-skill/docs", b"1"), ("my-skill/docs/a.md", b"2")])


def _two_skills(p):
    make_zip(p, base("one") + base("two"))


def _two_skills_mixed_depth(p):
    make_zip(p, base("one") + [("wrap/two/SKILL.md", SKILL_MD)])


def _no_skill_md(p):
    make_zip(p, [("my-skill/README.md", b"hi"), ("my-skill/a/b/c/SKILL.md", SKILL_MD)])


def _empty_zip(p):
    make_zip(p, [])


def _not_a_zip(p):
    p.write_bytes(b"---\nname: not-a-zip\n---\n")


def _truncated(p):
    make_zip(p, base() + [("my-skill/data.bin", os.urandom(4000))])
    p.write_bytes(p.read_bytes()[:2500])


def _damaged_data(p):
    make_zip(p, base() + [("my-skill/data.txt", b"hello world " * 500)])
    raw = bytearray(p.read_bytes())
    start = raw.index(b"my-skill/data.txt") + len("my-skill/data.txt")
    for i in range(start + 5, start + 40):
        raw[i] ^= 0xA5
    p.write_bytes(bytes(raw))


def _encrypted(p):
    make_zip(p, base() + [("my-skill/secret.txt", b"secret")])
    patch_member(p, "my-skill/secret.txt", flags=0x1)


def _nul_name(p):
    make_zip(p, base() + [("my-skill/aXb.txt", b"x")])
    rename_member(p, b"my-skill/aXb.txt", b"my-skill/a\x00b.txt")


def _too_deep(p):
    make_zip(p, base() + [("my-skill/a/b/c/d.txt", b"x")])


def _bzip2(p):
    make_zip(p, base() + [(file_info("my-skill/x.txt", compress=zipfile.ZIP_BZIP2), b"x" * 100)])


HOSTILE = [
    # id, builder, member named in the message (None: none applies), words in the reason, limits
    ("zip-slip", _zip_slip, "../x", "escapes the skill folder", None),
    ("zip-slip-inner", _zip_slip_inner, "a/../../x", "escapes the skill folder", None),
    ("absolute", _absolute, "/etc/passwd", "absolute path", None),
    ("drive-backslash", _drive, "C:\\x", "drive letter", None),
    ("drive-slash", _drive_slash, "C:/x", "drive letter", None),
    ("backslash", _backslash, "my-skill\\..\\..\\x", "backslashes", None),
    ("link-outside", _link(b"../../etc/passwd"), "my-skill/link", "points outside the skill folder", None),
    ("link-absolute", _link(b"/etc/passwd"), "my-skill/link", "points outside the skill folder", None),
    ("link-inside", _link(b"SKILL.md"), "my-skill/link", "links are not allowed", None),
    ("fifo", _fifo, "my-skill/pipe", "special file", None),
    ("device", _device, "my-skill/dev", "special file", None),
    ("nested-zip", _nested_zip, "my-skill/assets/inner.zip", "'.zip' file", None),
    ("nested-tgz-name", _nested_tgz_name, "my-skill/data.TAR.GZ", "'.tar.gz' file", None),
    ("zip-magic", _zip_magic, "my-skill/notes.txt", "holds a zip archive", None),
    ("gzip-magic", _gzip_magic, "my-skill/data.bin", "holds gzip data", None),
    ("too-many-files", _too_many_files, None, "more than 3 files", ArchiveLimits(max_files=3)),
    ("total-size", _total_size, "my-skill/b.bin", "in total", ArchiveLimits(max_total_bytes=1000)),
    ("member-size", _member_size, "my-skill/big.bin", "per file", ArchiveLimits(max_member_bytes=1000)),
    ("bomb", _bomb, "my-skill/zeros.bin", "over the limit of 200", None),
    ("bomb-lying-size", _bomb_lying, "my-skill/zeros.bin", "expands more than 200 times", None),
    ("lies-small-over-limit", _lies_small, "my-skill/data.bin", "holds more than 1000 bytes",
     ArchiveLimits(max_member_bytes=1000)),
    ("lies-small", _lies_small, "my-skill/data.bin", "declares 100 bytes but holds 10240", None),
    ("lies-big", _lies_big, "my-skill/data.bin", "declares 20000 bytes but holds 10240", None),
    ("duplicate", _duplicate, "my-skill/a.txt", "more than once", None),
    ("duplicate-normalised", _duplicate_normalised, "my-skill/./a.txt", "more than once", None),
    ("duplicate-case", _duplicate_case, "my-skill/notes.md", "differ only in case", None),
    ("file-and-folder", _file_and_folder, "my-skill/docs", "both a file and a folder", None),
    ("two-skills", _two_skills, None, "more than one skill folder", None),
    ("two-skills-mixed-depth", _two_skills_mixed_depth, None, "more than one skill folder", None),
    ("no-skill-md", _no_skill_md, None, "SKILL.md not found", None),
    ("empty-zip", _empty_zip, None, "SKILL.md not found", None),
    ("not-a-zip", _not_a_zip, None, "is not a zip archive", None),
    ("truncated", _truncated, None, "is not a zip archive or is damaged", None),
    ("damaged-data", _damaged_data, "my-skill/data.txt", "is damaged", None),
    ("encrypted", _encrypted, "my-skill/secret.txt", "is encrypted", None),
    ("nul-in-name", _nul_name, "my-skill/a\x00b.txt", "NUL", None),
    ("too-deep", _too_deep, "my-skill/a/b/c/d.txt", "deeper than 3", ArchiveLimits(max_depth=3)),
    ("bzip2", _bzip2, "my-skill/x.txt", "compression method 12", None),
]


@pytest.mark.parametrize(
    "build, member, reason, limits",
    [case[1:] for case in HOSTILE],
    ids=[case[0] for case in HOSTILE],
)
def test_hostile_archive_refused(tmp_path, build, member, reason, limits):
    path = tmp_path / "bad.skill"
    build(path)
    message = refused(path, limits)
    assert reason in message
    if member is not None:
        assert message.startswith(f"bad.skill: member {member!r} "), message
    else:
        assert "member" not in message


def test_zip_slip_message_format(tmp_path):
    path = make_zip(tmp_path / "bad.skill", base() + [("../evil", b"x")])
    assert refused(path) == "bad.skill: member '../evil' escapes the skill folder"


def test_lying_size_is_counted_on_real_bytes_not_headers(tmp_path, monkeypatch):
    """The reader must stop on real bytes, even if every declared size is within the limits."""
    import skill_studio.core.library.archive as archive

    path = tmp_path / "bad.skill"
    make_zip(path, base() + [("my-skill/zeros.bin", bytes(3 * 1024 * 1024))])
    patch_member(path, "my-skill/zeros.bin", file_size=10)
    reads = []
    real_open = archive._open_unbounded

    def spy(zf, info):
        handle = real_open(zf, info)
        real_read = handle.read

        def read(n=-1):
            data = real_read(n)
            reads.append(len(data))
            return data

        handle.read = read
        return handle

    monkeypatch.setattr(archive, "_open_unbounded", spy)
    message = refused(path, ArchiveLimits(max_member_bytes=256 * 1024))
    assert "my-skill/zeros.bin" in message and "holds more than" in message
    # stopped soon after the limit, not after inflating all 3 MiB
    assert sum(reads) < 256 * 1024 + 2 * 64 * 1024


# --------------------------------------------------------------------------- property: round trip


_EXCLUDED_NAMES = {"__pycache__", "node_modules", ".DS_Store", "__MACOSX", "evals"}

component = st.text(
    alphabet=st.sampled_from("abcXYZ019-_. éßÅ日"), min_size=1, max_size=10
).filter(
    lambda s: s not in (".", "..")
    and s not in _EXCLUDED_NAMES
    and not s.endswith(".pyc")
    and not s.lower().endswith(NESTED_ARCHIVE_SUFFIXES)
    and unicodedata.normalize("NFC", s) == s
)
rel_path = st.lists(component, min_size=1, max_size=4).map("/".join)
safe_data = st.binary(max_size=3000).filter(lambda b: not any(b.startswith(m) for m, _ in ARCHIVE_MAGICS))
file_entry = st.tuples(rel_path, safe_data, st.integers(min_value=0, max_value=0o7777))


@st.composite
def skill_files(draw):
    chosen: dict[str, SkillFile] = {"skill.md": SkillFile("SKILL.md", draw(safe_data), draw(st.integers(0, 0o777)))}
    folders: set[str] = set()
    for path, data, mode in draw(st.lists(file_entry, max_size=25)):
        key = path.casefold()
        parts = key.split("/")
        parents = {"/".join(parts[:i]) for i in range(1, len(parts))}
        if key in chosen or key in folders or parents & chosen.keys():
            continue
        chosen[key] = SkillFile(path, data, mode)
        folders |= parents
    return list(chosen.values())


@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(folder=component, files=skill_files())
def test_round_trip_property(folder, files):
    with tempfile.TemporaryDirectory() as tmp:
        dest = write_skill_archive(Path(tmp) / "out.skill", folder, files)
        first = dest.read_bytes()
        skill = read_skill_archive(dest)
        assert skill.folder_name == folder
        assert skill.ignored == []
        expected = sorted((SkillFile(f.path, f.data, 0o755 if f.mode & 0o111 else 0o644) for f in files),
                          key=lambda f: f.path)
        assert skill.files == expected
        again = write_skill_archive(Path(tmp) / "again.skill", folder, skill.files)
        assert again.read_bytes() == first


def test_endless_directory_entries_refused(tmp_path):
    path = make_zip(tmp_path / "bad.skill", base() + [(f"my-skill/d{i}/", b"") for i in range(200)])
    assert "entries, over the limit of 10 files" in refused(path, ArchiveLimits(max_files=10))


def test_members_outside_the_skill_folder_are_not_read(tmp_path):
    path = make_zip(tmp_path / "repo.zip", [
        ("repo/my-skill/SKILL.md", SKILL_MD),
        ("repo/docs/link", b"x"),
        (file_info("repo/tools/link", 0o777, kind=stat.S_IFLNK), b"../../../etc"),
        ("repo/dist/release.zip", zip_bytes([("a", b"b")])),
    ])
    skill = read_skill_archive(path)
    assert [f.path for f in skill.files] == ["SKILL.md"]
    assert sum("outside the skill folder" in i for i in skill.ignored) == 3
