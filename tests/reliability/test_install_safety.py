"""Installs and exports touch only what the studio made: what sits beside a skill's folder is
never removed unless the studio staged it (its name pattern and its marker); installs into one
folder from several processes at once are all recorded; a file where a folder must be is a
clear error that changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import SAMPLES, make

from skill_studio.cli import main
from skill_studio.core.library import atomic, install, install_files, install_manifest
from skill_studio.core.library.folder_write import export_archive, export_folder
from skill_studio.core.library.folders import FolderError
from skill_studio.core.store import Store

ROOT = Path(__file__).resolve().parents[2]
AN_HOUR_AGO = time.time() - 3600


@pytest.fixture
def lib(tmp_path):
    with Store(tmp_path / "s.db") as s:
        for name in ("pdf-extract", "release-notes"):
            assert main(["--store", str(s.path), "import", str(SAMPLES / name)]) == 0
        yield s


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for a folder)."""
    return {str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes()) for p in sorted(folder.rglob("*"))}


def _theirs(where: Path, name: str, kind: str) -> Path:
    """Something of the user's beside a skill, old enough to pass for a leftover."""
    p = where / name
    if kind == "folder":
        p.mkdir()
        (p / "notes.md").write_text("the user's own\n")
    elif kind == "empty file":
        p.write_bytes(b"")
    else:
        p.write_text("the user's own\n")
    os.utime(p, (AN_HOUR_AGO, AN_HOUR_AGO))
    return p


FOREIGN = [
    (".{n}.mybackup.old", "folder"), (".{n}.notes.tmp", "folder"), (".{n}.abcd1234.tmp", "folder"),
    (".{n}.draft.tmp", "file"), (".{n}.skill-studio-0123456789ab.tmp", "folder"),   # our pattern, no marker
    (".{n}.skill-studio-0123456789ac.tmp", "empty file"), (".{n}.skill-studio-0123456789ab.old", "file"),
]


def _with_fake_marker(p: Path) -> None:
    """A folder of the studio's name pattern whose marker is not the studio's."""
    (p / atomic.MARKER).write_text("somebody else's file of that name\n")
    os.utime(p, (AN_HOUR_AGO, AN_HOUR_AGO))


@pytest.mark.parametrize("how", ["install", "export", "zip"])
def test_what_the_studio_did_not_stage_is_never_removed(lib, tmp_path, how):
    where = tmp_path / "out"
    where.mkdir()
    target = "pdf-extract.zip" if how == "zip" else "pdf-extract"
    theirs = [_theirs(where, pattern.format(n=target), kind) for pattern, kind in FOREIGN]
    fake = _theirs(where, f".{target}.skill-studio-ba9876543210.tmp", "folder")
    _with_fake_marker(fake)
    before = snapshot(where)
    skill = lib.get("pdf-extract")
    for _ in range(2):   # the first writes, the second replaces what it wrote
        if how == "install":
            install.install(lib, where, ["pdf-extract"], force=True)
            install.uninstall(where, ["pdf-extract"])
        elif how == "export":
            export_folder(skill, where)
        else:
            export_archive(skill, where)
    after = snapshot(where)
    for p in [*theirs, fake]:
        assert os.path.lexists(p), f"{p.name} was removed"
        kept = {k: v for k, v in after.items() if k == p.name or k.startswith(p.name + "/")}
        assert kept == {k: v for k, v in before.items() if k == p.name or k.startswith(p.name + "/")}, p.name


@pytest.mark.parametrize("how", ["export", "zip"])
def test_what_the_studio_staged_and_left_is_removed_once_abandoned(lib, tmp_path, how):
    where = tmp_path / "out"
    where.mkdir()
    target = where / ("pdf-extract.zip" if how == "zip" else "pdf-extract")
    left = atomic.make_staging(target)                 # what a process killed midway leaves
    (left / "skill").mkdir()
    (left / "skill" / "SKILL.md").write_text("half\n")
    os.chmod(left / "skill", 0o555)                    # a read-only copy being built
    parked = atomic.make_staging(target, "old")
    torn = atomic.make_staging(target)                 # killed while writing its marker
    (torn / atomic.MARKER).write_bytes(atomic.MARKER_TEXT[:7])
    empty = where / f".{target.name}.skill-studio-00000000aaaa.tmp"   # killed before its marker
    empty.mkdir()
    young = atomic.make_staging(target)                # another process at work right now
    for p in (left, parked, torn, empty):
        os.utime(p, (AN_HOUR_AGO, AN_HOUR_AGO))
    (export_archive if how == "zip" else export_folder)(lib.get("pdf-extract"), where)
    assert sorted(p.name for p in where.iterdir()) == sorted([target.name, young.name])


def test_a_staging_folder_is_known_by_name_and_marker_only():
    assert atomic.is_staging(".x.skill-studio-0123456789ab.tmp") and atomic.is_staging(".x.old.old")
    assert not atomic.owned_staging("/nonexistent/.x.skill-studio-0123456789ab.tmp")
    assert not atomic.OWNED_RE.match(".x.mybackup.old") and not atomic.OWNED_RE.match(".x.skill-studio-zz.tmp")


def test_a_long_skill_name_gets_a_staging_folder_that_fits(lib, tmp_path):
    long = "a" * 250
    skill = make(long, "A long one. Use when testing.")
    written = export_folder(skill, tmp_path / "out")
    assert written.name == long and [p.name for p in (tmp_path / "out").iterdir()] == [long]


# --- several installs into one folder at once ---------------------------------------------------

_INSTALLER = """
import sys
from skill_studio.cli import main
store, target, name, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
for _ in range(rounds):
    code = main(["--store", store, "install", "--to", target, name, "--force"])
    if code:
        sys.exit(code)
    code = main(["--store", store, "uninstall", target, name])
    if code:
        sys.exit(code)
sys.exit(main(["--store", store, "install", "--to", target, name]))
"""


def test_installs_from_several_processes_at_once_are_all_recorded(tmp_path):
    names = [f"skill-{i}" for i in range(4)]
    db = tmp_path / "s.db"
    with Store(db) as s:
        for n in names:
            s.add(make(n, f"Number {n}. Use when racing."))
    target = tmp_path / "agent" / "skills"
    procs = [subprocess.Popen([sys.executable, "-c", _INSTALLER, str(db), str(target), n, "3"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in names]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    recorded = json.loads((target / install.MANIFEST).read_text())["skills"]
    assert sorted(recorded) == names
    for n in names:
        assert main(["uninstall", str(target), n]) == 0
        assert not (target / n).exists()
    assert json.loads((target / install.MANIFEST).read_text())["skills"] == {}


def test_an_install_waits_for_the_one_holding_the_folder(lib, tmp_path, monkeypatch):
    """While another holds the folder's lock, an install does not read the manifest: what the
    other records meanwhile is still there after it."""
    fcntl = pytest.importorskip("fcntl")
    target = tmp_path / "skills"
    install.install(lib, target, ["pdf-extract"])
    waiting = threading.Event()
    real = install_manifest._acquire

    def announced(fd, path):
        waiting.set()
        real(fd, path)
    monkeypatch.setattr(install_manifest, "_acquire", announced)
    with open(target / install.LOCK, "a") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        worker = threading.Thread(target=install.install, args=(lib, target, ["release-notes"]))
        worker.start()
        assert waiting.wait(30)
        data = install.read_manifest(target)
        data["skills"]["other"] = dict(data["skills"]["pdf-extract"])
        install_manifest.write_manifest(target, data)
    worker.join(60)
    assert sorted(install.read_manifest(target)["skills"]) == ["other", "pdf-extract", "release-notes"]


# --- a file where a folder must be ---------------------------------------------------------------

@pytest.mark.parametrize("to", ["file.txt", "file.txt/sub", "file.txt/sub/deeper"])
def test_installing_or_exporting_onto_a_file_says_so_and_changes_nothing(lib, tmp_path, capsys, to):
    work = tmp_path / "work"
    work.mkdir()
    (work / "file.txt").write_text("mine\n")
    before = snapshot(work)
    dest = str(work / to)
    with pytest.raises(install.InstallError, match=r"file\.txt.* a file"):
        install.install(lib, dest, ["pdf-extract"])
    with pytest.raises(FolderError, match=r"file\.txt.* a file"):
        export_folder(lib.get("pdf-extract"), dest)
    with pytest.raises(FolderError, match=r"file\.txt.* a file"):
        export_archive(lib.get("pdf-extract"), dest)
    capsys.readouterr()
    for command in (["install", "--to", dest, "pdf-extract"], ["export", "pdf-extract", "--to", dest],
                    ["export", "pdf-extract", "--zip", "--to", dest]):
        assert main(["--store", str(lib.path), *command]) == 1
        err = capsys.readouterr().err
        assert "file.txt" in err and "a file" in err and "Errno" not in err, err
    assert snapshot(work) == before


@pytest.mark.parametrize("kind", ["file", "link to a file"])
def test_a_file_where_the_skill_folder_goes_is_left_alone(lib, tmp_path, kind):
    target = tmp_path / "skills"
    target.mkdir()
    (tmp_path / "elsewhere.txt").write_text("mine\n")
    place = target / "pdf-extract"
    if kind == "file":
        place.write_text("mine\n")
    else:
        place.symlink_to(tmp_path / "elsewhere.txt")
    report = install.install(lib, target, ["pdf-extract"])
    assert "not installed by Skill Studio" in report.skipped["pdf-extract"] and "move it away" in \
        report.skipped["pdf-extract"]
    with pytest.raises(FolderError, match="exists and is not a folder.*move it away"):
        export_folder(lib.get("pdf-extract"), target)
    assert (tmp_path / "elsewhere.txt").read_text() == "mine\n" and place.read_text() == "mine\n"


def test_a_folder_where_the_archive_goes_is_left_alone(lib, tmp_path):
    (tmp_path / "pdf-extract.zip").mkdir()
    (tmp_path / "pdf-extract.zip" / "keep.txt").write_text("mine\n")
    with pytest.raises(ValueError, match="is a folder; not replacing it"):
        export_archive(lib.get("pdf-extract"), tmp_path)
    assert (tmp_path / "pdf-extract.zip" / "keep.txt").read_text() == "mine\n"


def test_a_write_the_disk_refuses_is_said_in_words(lib, tmp_path, monkeypatch):
    def full(skill, dest):
        raise OSError(28, "No space left on device", str(Path(dest) / skill.name / "SKILL.md"))
    monkeypatch.setattr(install_files, "export_folder", full)
    report = install.install(lib, tmp_path / "skills", ["pdf-extract"])
    assert report.skipped["pdf-extract"].endswith("pdf-extract/SKILL.md: No space left on device")
    assert "Errno" not in report.skipped["pdf-extract"]


@pytest.mark.parametrize("kind", ["link-to-device", "sparse", "fifo", "folder", "link-to-file"])
def test_a_manifest_that_is_not_a_small_file_is_refused_without_reading_it(lib, tmp_path, capsys, kind):
    store, target = str(lib.path), tmp_path / "agent"
    assert main(["--store", store, "install", "pdf-extract", "--to", str(target)]) == 0
    manifest = target / install_manifest.MANIFEST
    good = manifest.read_bytes()
    manifest.unlink()
    if kind == "link-to-device":
        manifest.symlink_to("/dev/zero")
    elif kind == "sparse":
        with open(manifest, "wb") as f:
            f.truncate(1 << 30)
    elif kind == "fifo":
        os.mkfifo(manifest)
    elif kind == "folder":
        manifest.mkdir()
    else:
        (tmp_path / "elsewhere.json").write_bytes(good)
        manifest.symlink_to(tmp_path / "elsewhere.json")
    capsys.readouterr()
    for argv in (["installed", str(target)], ["install", "release-notes", "--to", str(target)]):
        assert main(["--store", store, *argv]) == 1
        err = capsys.readouterr().err
        assert str(manifest) in err and "move it away to install here" in err
    assert not (target / "release-notes").exists()
