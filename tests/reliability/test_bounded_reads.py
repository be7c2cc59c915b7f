"""Files whose path a user gives are checked before they are read: a device, a fifo or a folder
is refused without reading (or waiting), a file over the limit by its size (a sparse file is
not read through), and what is read never passes the limit. The store is left as it was."""

from __future__ import annotations

import io
import os

import pytest
from conftest import make

from skill_studio.cli import main
from skill_studio.core.bus import yaml_io
from skill_studio.core.format.skillmd import MAX_SKILL_MD_BYTES
from skill_studio.core.library import bounded_read
from skill_studio.core.library.bounded_read import ReadRefused, read_bounded, read_stream_bounded
from skill_studio.core.store import Store

GOOD_MD = "---\nname: lint\ndescription: Lints Python files. Use when asked to lint.\n---\n# Lint\n\nRun it.\n"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add(make("lint"))
    return str(path)


def _sparse(path, size):
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def _fifo(path):
    os.mkfifo(path)
    return path


def _hostile(tmp_path, kind):
    """A path of each kind that must not be read."""
    if kind == "device":
        return "/dev/zero"
    if kind == "fifo":
        return str(_fifo(tmp_path / "pipe.md"))
    if kind == "folder":
        (tmp_path / "dir.md").mkdir()
        return str(tmp_path / "dir.md")
    if kind == "sparse":
        return str(_sparse(tmp_path / "huge.md", 1 << 30))
    raise AssertionError(kind)


KINDS = ["device", "fifo", "folder", "sparse"]
REASONS = {"device": "not a regular file", "fifo": "not a regular file", "folder": "is a folder",
           "sparse": "over the limit"}


@pytest.mark.parametrize("kind", KINDS)
def test_read_bounded_refuses_before_reading(tmp_path, kind, monkeypatch):
    reads = []
    real_read = os.read
    monkeypatch.setattr(bounded_read.os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    path = _hostile(tmp_path, kind)
    with pytest.raises(ReadRefused) as e:
        read_bounded(path, 1 << 20)
    assert REASONS[kind] in str(e.value) and path in str(e.value)
    assert reads == []   # not one byte was read


def test_read_bounded_stops_at_the_limit_whatever_the_size_said(tmp_path, monkeypatch):
    path = tmp_path / "grows.md"
    path.write_bytes(b"x" * 100)
    real_fstat = os.fstat

    class _Small:      # a file that claims to be small (it grew after the size was taken)
        def __init__(self, st):
            self.st = st

        def __getattr__(self, name):
            return 10 if name == "st_size" else getattr(self.st, name)

    monkeypatch.setattr(bounded_read.os, "fstat", lambda fd: _Small(real_fstat(fd)))
    with pytest.raises(ReadRefused, match="over the limit"):
        read_bounded(path, 50)
    assert read_bounded(path, 100)[0] == b"x" * 100


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 << 20])
def test_a_regular_file_is_read_whole_in_one_read(tmp_path, monkeypatch, size):
    reads = []
    real_read = os.read
    monkeypatch.setattr(bounded_read.os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    data = bytes(i % 251 for i in range(size))
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    path.chmod(0o640)
    assert read_bounded(path, 8 << 20) == (data, 0o640)
    assert reads == [size + 1]
    if size:
        reads.clear()
        assert read_bounded(path, size)[0] == data    # exactly at the limit
        with pytest.raises(ReadRefused, match="over the limit"):
            read_bounded(path, size - 1)


def test_a_stream_is_read_no_further_than_its_limit():
    stream = io.BytesIO(b"y" * 10_000)
    with pytest.raises(ReadRefused, match="standard input"):
        read_stream_bounded(stream, 1000)
    assert stream.tell() <= 1001
    assert read_stream_bounded(io.BytesIO(b"ok"), 1000) == b"ok"


@pytest.mark.parametrize("kind", KINDS)
def test_save_from_a_path_that_is_not_a_small_file(db, tmp_path, capsys, kind):
    path = _hostile(tmp_path, kind)
    code = main(["--store", db, "save", "lint", path])
    err = capsys.readouterr().err
    assert code == 1 and REASONS[kind] in err and "nothing was saved" in err
    with Store(db) as store:
        assert store.get("lint").version == 1


def test_save_names_the_size_limit_of_a_skill_md(db, tmp_path, capsys):
    path = tmp_path / "big.md"
    path.write_bytes(GOOD_MD.encode() + b"x" * MAX_SKILL_MD_BYTES)
    assert main(["--store", db, "save", "lint", str(path)]) == 1
    assert f"{MAX_SKILL_MD_BYTES // 2**20} MiB for a SKILL.md" in capsys.readouterr().err
    path.write_text(GOOD_MD)
    assert main(["--store", db, "save", "lint", str(path)]) == 0


@pytest.mark.parametrize("kind", KINDS)
def test_bindings_import_from_a_path_that_is_not_a_small_file(db, tmp_path, capsys, kind):
    path = _hostile(tmp_path, kind)
    code = main(["--store", db, "bindings", "import", path])
    err = capsys.readouterr().err
    assert code == 1 and REASONS[kind] in err and "nothing was imported" in err
    with Store(db) as store:
        assert store.bindings() == []


def test_bindings_import_from_standard_input_is_bounded(db, capsys, monkeypatch):
    monkeypatch.setattr(yaml_io, "MAX_FILE_BYTES", 1000)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"# " + b"z" * 5000 + b"\n")))
    assert main(["--store", db, "bindings", "import", "-"]) == 1
    assert "standard input: more than 1,000 bytes" in capsys.readouterr().err


def test_bindings_import_that_is_not_utf8_names_its_line(db, tmp_path, capsys):
    path = tmp_path / "b.yaml"
    path.write_bytes(b"- skill: lint\n  event_type: \xff\n")
    assert main(["--store", db, "bindings", "import", str(path)]) == 1
    assert "line 2: not UTF-8" in capsys.readouterr().err


def _alias_bomb(levels: int) -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    return "\n".join(lines) + f"\nbindings:\n- skill: lint\n  event_type: e\n  params: {{arguments: *a{levels - 1}}}\n"


@pytest.mark.parametrize("levels", [6, 9])
def test_bindings_import_refuses_an_alias_bomb_by_its_line(db, tmp_path, capsys, levels):
    path = tmp_path / "bomb.yaml"
    path.write_text(_alias_bomb(levels))
    assert main(["--store", db, "bindings", "import", str(path)]) == 1
    err = capsys.readouterr().err
    assert "aliases expand to more than" in err and "line " in err
    with Store(db) as store:
        assert store.bindings() == []


def test_a_bindings_file_with_aliases_that_stay_small_still_imports(db, tmp_path, capsys):
    path = tmp_path / "ok.yaml"
    path.write_text("- skill: lint\n  event_type: saved\n  conditions: &c [{field: path, value: /x/}]\n"
                    "- skill: lint\n  event_type: opened\n  conditions: *c\n")
    assert main(["--store", db, "bindings", "import", str(path)]) == 0
    with Store(db) as store:
        assert [b.event_type for b in store.bindings()] == ["saved", "opened"]
