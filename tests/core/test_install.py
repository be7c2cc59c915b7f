"""Installing skills into agent folders: read-only copies or links, the manifest, stale and
modified copies, updates, and never touching what the studio did not install."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from conftest import SAMPLES, make

from skill_studio.cli import main
from skill_studio.core.agents import matching
from skill_studio.core.library import install, install_files
from skill_studio.core.library.descriptor import build_descriptor

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lib(agents_library):
    """pdf-extract (tags pdf, documents …) and release-notes (release, writing …) pass the gate;
    python-test-writer is a candidate the gate keeps out."""
    return agents_library


def modes(folder):
    return {str(p.relative_to(folder)): stat.S_IMODE(p.stat().st_mode) for p in [folder, *folder.rglob("*")]}


def test_a_copy_of_the_gated_set_read_only_with_a_manifest(lib, tmp_path):
    target = tmp_path / "agent" / ".claude" / "skills"
    report = install.install(lib, target)
    assert report.installed == ["pdf-extract", "release-notes"] and not report.skipped
    assert sorted(p.name for p in target.iterdir()) == [install.MANIFEST, install.LOCK, "pdf-extract",
                                                         "release-notes"]
    assert (target / "pdf-extract" / "SKILL.md").read_bytes() == (SAMPLES / "pdf-extract" / "SKILL.md").read_bytes()
    for path, mode in modes(target / "release-notes").items():
        assert mode & 0o222 == 0, path                       # nothing writable
    manifest = json.loads((target / install.MANIFEST).read_text())
    entry = manifest["skills"]["pdf-extract"]
    assert entry["mode"] == "copy" and entry["version"] == 1 and "SKILL.md" in entry["files"]
    assert [(r.name, r.state) for r in install.status(lib, target)] == [("pdf-extract", "current"),
                                                                        ("release-notes", "current")]
    again = install.install(lib, target)
    assert again.installed == [] and again.unchanged == ["pdf-extract", "release-notes"]


def test_stale_and_modified_copies_are_reported_and_updated(lib, tmp_path):
    target = tmp_path / "skills"
    install.install(lib, target)
    skill = lib.get("pdf-extract")
    lib.update("pdf-extract", make("pdf-extract", "Extract text from PDF files. Use when reading PDFs."),
               skill.version)
    md = target / "release-notes" / "SKILL.md"
    os.chmod(md, 0o644)
    md.write_text("changed by an agent\n")
    states = {r.name: (r.state, r.detail) for r in install.status(lib, target)}
    assert states["pdf-extract"] == ("stale", "v1 installed, v2 in the store")
    assert states["release-notes"][0] == "modified"
    after = install.update(lib, target)               # the stale one; a copy changed by hand waits
    assert [(r.name, r.state) for r in after] == [("pdf-extract", "current"), ("release-notes", "modified")]
    assert md.read_text() == "changed by an agent\n"
    after = install.update(lib, target, force=True)
    assert [r.state for r in after] == ["current", "current"]
    assert "Use when reading PDFs." in (target / "pdf-extract" / "SKILL.md").read_text()
    assert md.read_bytes() == (SAMPLES / "release-notes" / "SKILL.md").read_bytes()
    assert not [p for p in target.iterdir() if p.name.endswith((".tmp", ".old"))]   # no leftovers


def test_what_the_studio_did_not_install_is_never_touched(lib, tmp_path):
    target = tmp_path / "skills"
    (target / "release-notes").mkdir(parents=True)
    (target / "release-notes" / "SKILL.md").write_text("the user's own\n")
    (target / "my-skill").mkdir()
    (target / "my-skill" / "SKILL.md").write_text("mine\n")
    report = install.install(lib, target)
    assert report.installed == ["pdf-extract"] and "not installed by Skill Studio" in report.skipped["release-notes"]
    assert (target / "release-notes" / "SKILL.md").read_text() == "the user's own\n"
    pruned = install.install(lib, target, ["release-notes"], prune=True)
    assert pruned.removed == ["pdf-extract"] and not (target / "pdf-extract").exists()
    assert install.uninstall(target, ["my-skill"]).skipped == {"my-skill": "not installed here by Skill Studio; "
                                                                           "left alone"}
    assert (target / "my-skill" / "SKILL.md").read_text() == "mine\n"


def test_links_on_request_with_the_warning(lib, tmp_path):
    from skill_studio.core.library.managed import managed_root

    target = tmp_path / "skills"
    lib.add(make("no-folder", "Exists only in the store. Use when testing."))
    report = install.install(lib, target, ["pdf-extract", "no-folder"], link=True)
    assert report.installed == ["pdf-extract", "no-folder"] and report.warnings == [install.LINK_WARNING]
    link = target / "pdf-extract"
    assert link.is_symlink() and link.resolve() == (managed_root(lib) / "pdf-extract").resolve()
    assert (link / "SKILL.md").read_bytes() == (SAMPLES / "pdf-extract" / "SKILL.md").read_bytes()
    assert [(r.name, r.mode, r.state) for r in install.status(lib, target)] == [("no-folder", "link", "current"),
                                                                                ("pdf-extract", "link", "current")]
    assert install.uninstall(target, ["pdf-extract"]).removed == ["pdf-extract"]
    assert not link.is_symlink() and (SAMPLES / "pdf-extract" / "SKILL.md").is_file()   # the library stays


def test_a_foreign_manifest_stops_the_install(lib, tmp_path):
    target = tmp_path / "skills"
    target.mkdir()
    (target / install.MANIFEST).write_text("[1, 2]")
    with pytest.raises(install.InstallError, match="not an install manifest"):
        install.install(lib, target)
    assert sorted(p.name for p in target.iterdir()) == [install.MANIFEST]


def test_a_skill_removed_from_the_store_is_reported(lib, tmp_path):
    target = tmp_path / "skills"
    install.install(lib, target)
    lib.delete("pdf-extract")
    assert {r.name: r.state for r in install.status(lib, target)}["pdf-extract"] == "removed from store"


def test_descriptor(lib, tmp_path):
    d = build_descriptor(lib, tmp_path / "skills")
    assert d["custom_skills_root"] == str((tmp_path / "skills").resolve()) and d["bundle_root"] is None
    default = d["agents_config"]["default"]
    assert default["enabled"] == matching.gated(lib) == ["pdf-extract", "release-notes"]
    assert default["disabled"] == [{"name": "python-test-writer", "reason": "lifecycle is candidate (not exposed)"}]


def test_the_commands(lib, tmp_path, capsys):
    store, target = str(lib.path), str(tmp_path / "skills")
    assert main(["--store", store, "install", "--to", target]) == 0
    assert "installed: pdf-extract, release-notes" in capsys.readouterr().out
    assert main(["--store", store, "installed", target, "--json"]) == 0
    assert [r["state"] for r in json.loads(capsys.readouterr().out)] == ["current", "current"]
    assert main(["--store", store, "install", "--to", target, "--link", "python-test-writer"]) == 0
    assert "saves that change the library reach agents at once" in capsys.readouterr().err
    assert main(["--store", store, "descriptor", "--root", target]) == 0
    assert json.loads(capsys.readouterr().out)["agents_config"]["default"]["enabled"] == ["pdf-extract",
                                                                                          "release-notes"]
    assert main(["--store", store, "uninstall", target, "nope"]) == 1


@pytest.mark.parametrize("entry", ["../../precious", "/abs/path", ".hidden", "a/b", install.MANIFEST])
def test_a_manifest_naming_anything_but_a_plain_folder_is_refused(lib, tmp_path, entry):
    target = tmp_path / "ws" / "skills"
    install.install(lib, target, ["pdf-extract"])
    precious = tmp_path / "precious"
    precious.mkdir()
    manifest = json.loads((target / install.MANIFEST).read_text())
    manifest["skills"][entry] = dict(manifest["skills"]["pdf-extract"])
    (target / install.MANIFEST).write_text(json.dumps(manifest))
    for call in (lambda: install.install(lib, target, [], prune=True), lambda: install.uninstall(target, [entry]),
                 lambda: install.status(lib, target)):
        with pytest.raises(install.InstallError, match="not a plain folder name|manifest's own name"):
            call()
    assert precious.is_dir() and (target / "pdf-extract" / "SKILL.md").is_file()


@pytest.mark.parametrize("entry", ['"oops"', '{"mode": "copy", "version": 1, "content_hash": "x", "files": [1]}',
                                   '{"mode": "zip", "version": 1, "content_hash": "x"}'])
def test_a_malformed_manifest_entry_is_a_clear_error(lib, tmp_path, entry):
    target = tmp_path / "skills"
    target.mkdir()
    (target / install.MANIFEST).write_text(f'{{"skills": {{"pdf-extract": {entry}}}}}')
    with pytest.raises(install.InstallError, match='the entry "pdf-extract"'):
        install.status(lib, target)


def test_copies_changed_by_hand_are_neither_replaced_nor_removed_without_force(lib, tmp_path):
    target = tmp_path / "skills"
    install.install(lib, target)
    notes = target / "pdf-extract" / "my-notes.md"
    os.chmod(notes.parent, 0o755)
    notes.write_text("mine\n")
    row = {r.name: r for r in install.status(lib, target)}["pdf-extract"]
    assert row.state == "modified" and "files added: my-notes.md" in row.detail
    s = lib.get("pdf-extract")
    lib.update("pdf-extract", make("pdf-extract", "Newer. Use when reading PDFs."), s.version)
    assert install.update(lib, target)[0].state == "modified" and notes.read_text() == "mine\n"
    assert "without force" in install.install(lib, target, [], prune=True).skipped["pdf-extract"]
    assert "without force" in install.uninstall(target, ["pdf-extract"]).skipped["pdf-extract"]
    assert notes.read_text() == "mine\n"
    assert install.uninstall(target, ["pdf-extract"], force=True).removed == ["pdf-extract"]


def test_a_folder_put_in_place_of_a_link_is_left_alone(lib, tmp_path):
    target = tmp_path / "skills"
    install.install(lib, target, ["pdf-extract"], link=True)
    (target / "pdf-extract").unlink()
    (target / "pdf-extract").mkdir()
    (target / "pdf-extract" / "SKILL.md").write_text("the user's own\n")
    assert install.status(lib, target)[0].state == "replaced"
    install.update(lib, target)
    assert (target / "pdf-extract" / "SKILL.md").read_text() == "the user's own\n"


def test_what_was_installed_before_a_failure_is_recorded(lib, tmp_path, monkeypatch):
    target = tmp_path / "skills"
    real = install_files.export_folder

    def failing(skill, dest):
        if skill.name == "release-notes":
            raise OSError("disk full")
        return real(skill, dest)
    monkeypatch.setattr(install_files, "export_folder", failing)
    report = install.install(lib, target)
    assert report.installed == ["pdf-extract"] and report.skipped == {"release-notes": "disk full"}
    assert list(install.read_manifest(target)["skills"]) == ["pdf-extract"]


def test_the_descriptor_describes_the_folder(lib, tmp_path):
    target = tmp_path / "skills"
    install.install(lib, target, ["pdf-extract"])
    d = build_descriptor(lib, target)["agents_config"]["default"]
    assert d["enabled"] == ["pdf-extract"]
    assert {"name": "release-notes", "reason": "not installed in this folder"} in d["disabled"]


_NORMAL_USER_CYCLE = """
import sys
from pathlib import Path
from skill_studio.core.library import install
from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin
from skill_studio.core.store import Store

def make(description):
    text = f"---\\nname: alpha\\ndescription: {description}\\n---\\n# Alpha\\n\\nBody.\\n"
    return build_skill(text.encode(), "alpha", [], origin=Origin.HUMAN, source="alpha/SKILL.md")

work = Path(sys.argv[1])
with Store(work / "s.db") as s:
    s.add(make("First. Use when testing."))
    target = work / "skills"
    install.install(s, target)
    s.update("alpha", make("Second. Use when testing."), 1)
    assert [r.state for r in install.update(s, target)] == ["current"], install.status(s, target)
    assert install.uninstall(target, ["alpha"]).removed == ["alpha"]
    assert not (target / "alpha").exists()
print("ok")
"""


def _importable_copy(script: str, into: Path) -> Path:
    """A copy, in ``into``, of skill_studio and of every installed package ``script`` imports: the
    checkout (and its virtual environment) may sit in a folder only its owner can enter."""
    import subprocess
    import sys

    # The script run once here (as this user, in a folder of its own) says what it imports.
    probe = ("import json, runpy, sys\n"
             "sys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"
             "print(json.dumps([getattr(m, '__file__', None) for m in list(sys.modules.values())]))")
    (into / "cycle.py").write_text(script)
    (into / "dry").mkdir()
    listed = subprocess.run([sys.executable, "-c", probe, str(into / "cycle.py"), str(into / "dry")],
                            capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    shutil.rmtree(into / "dry")
    roots = sorted({str(ROOT), *(p for p in sys.path if "-packages" in p)}, key=len, reverse=True)
    site = into / "site"
    for file in filter(None, json.loads(listed.stdout.splitlines()[-1])):
        entry = next((r for r in roots if file.startswith(r + os.sep)), None)
        if entry is None:
            continue   # the standard library, which comes with the interpreter
        top = Path(file).relative_to(entry).parts[0]
        source, dest = Path(entry) / top, site / top
        if dest.exists() or top == "__pycache__":
            continue
        if source.is_dir():
            shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__"))
            if (Path(entry) / f"{top}.libs").is_dir():   # a wheel's own shared libraries
                shutil.copytree(Path(entry) / f"{top}.libs", site / f"{top}.libs")
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest)
    for path in [into, *into.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return site


def test_read_only_copies_can_be_updated_and_removed_by_a_normal_user(tmp_path):
    """As root every file is writable: run the cycle as an unprivileged user where possible, from
    a world-readable copy of the code (the checkout may be in a folder closed to others)."""
    import subprocess
    import sys
    import tempfile

    if os.geteuid() != 0:
        work = tmp_path / "work"
        work.mkdir()
        (tmp_path / "cycle.py").write_text(_NORMAL_USER_CYCLE)
        done = subprocess.run([sys.executable, str(tmp_path / "cycle.py"), str(work)], capture_output=True,
                              text=True, cwd=work)
        assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
        return
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot try as a normal user")
    base = Path(tempfile.mkdtemp(prefix="skill-studio-install-", dir="/tmp"))   # pytest's are closed to others
    try:
        base.chmod(0o755)
        site = _importable_copy(_NORMAL_USER_CYCLE, base)
        work = base / "work"
        work.mkdir()
        work.chmod(0o777)
        as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        python = os.path.realpath(sys.executable)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work), "LANG": "C.UTF-8",
               "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}
        if subprocess.run([*as_nobody, python, "-c", "import json"], capture_output=True).returncode != 0:
            pytest.skip(f"the unprivileged user cannot run this Python ({python}): it lies in a folder closed "
                        "to other users")
        done = subprocess.run([*as_nobody, python, "-s", str(base / "cycle.py"), str(work)], capture_output=True,
                              text=True, cwd=work, env=env)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
