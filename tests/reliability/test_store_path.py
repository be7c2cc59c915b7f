"""A store is a regular file, or a path where one can be made: a device, a fifo, a socket or a folder
is refused with a plain message before SQLite opens it, and nothing is created beside it."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path

import pytest

from skill_studio.cli import main
from skill_studio.core.store import Store, UnusableStore

posix = pytest.mark.skipif(os.name != "posix", reason="devices, fifos and sockets")
DEVICES = [d for d in ("/dev/null", "/dev/zero", "/dev/urandom") if os.path.exists(d)]
BESIDE = ("-journal", "-wal", "-shm")


def refused(path, kind_words: str) -> str:
    with pytest.raises(UnusableStore) as e:
        Store(path)
    assert e.value.kind == "not-a-file"
    message = str(e.value)
    assert message.startswith(f"{path}: ") and kind_words in message
    return message


@posix
@pytest.mark.parametrize("device", DEVICES)
def test_a_device_is_refused_and_nothing_is_written_beside_it(device):
    before = {s for s in BESIDE if os.path.lexists(device + s)}
    message = refused(device, "is a device, not a skill store; give the path of a .db file")
    assert "rollback" not in message
    assert {s for s in BESIDE if os.path.lexists(device + s)} == before


@posix
def test_a_fifo_is_refused_without_being_opened(tmp_path):
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    refused(fifo, "is a fifo (named pipe), not a skill store")   # opening it would block: the test would hang
    assert sorted(os.listdir(tmp_path)) == ["pipe.db"]


@posix
def test_a_socket_is_refused():
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:   # short: socket paths are limited in length
        path = Path(folder) / "s.db"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.bind(str(path))
            refused(path, "is a socket, not a skill store")
        assert os.listdir(folder) == ["s.db"]


def test_a_folder_is_refused(tmp_path):
    folder = tmp_path / "skills"
    folder.mkdir()
    refused(folder, "is a folder, not a skill store; give the path of a .db file")
    assert os.listdir(folder) == [] and sorted(os.listdir(tmp_path)) == ["skills"]


@pytest.mark.parametrize("above", ["file", pytest.param("device", marks=posix)])
def test_a_path_through_something_that_is_not_a_folder_is_refused(tmp_path, above):
    if above == "device":
        if not DEVICES:
            pytest.skip("no device")
        base, words = Path(DEVICES[0]), "is a device, not a folder"
    else:
        base, words = tmp_path / "notes.txt", "is a file, not a folder"
        base.write_text("x")
    message = refused(base / "more" / "s.db", words)
    assert str(base) in message and "give the path of a .db file in a folder" in message
    if above == "file":
        assert sorted(os.listdir(tmp_path)) == ["notes.txt"]


def test_a_new_store_in_folders_still_to_be_made_and_an_existing_one_open(tmp_path):
    db = tmp_path / "a" / "b" / "s.db"
    Store(db).close()
    assert db.is_file()
    Store(db).close()


@posix
@pytest.mark.skipif(not DEVICES, reason="no device")
def test_the_command_line_says_so_in_one_line(capsys):
    before = {s for s in BESIDE if os.path.lexists(DEVICES[0] + s)}
    code = main(["--store", DEVICES[0], "list"])
    err = capsys.readouterr().err
    assert code != 0
    assert err.strip() == (f"skill-studio: {DEVICES[0]}: is a device, not a skill store; "
                           "give the path of a .db file")
    assert {s for s in BESIDE if os.path.lexists(DEVICES[0] + s)} == before
