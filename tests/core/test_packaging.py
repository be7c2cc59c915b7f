"""Packaging: the wheel holds every resource and, installed in a fresh virtual environment, runs
--version and --selftest; the desktop file and metainfo carry the one version. Slow (a minute or
two: a wheel is built and installed with its dependencies), so marked: -m "not packaging" skips."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from skill_studio import __version__

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "packaging" / "linux"
#: The versions the tests run with, for the environments this test makes.
CONSTRAINTS = ROOT / "constraints.txt"

pytestmark = pytest.mark.packaging


def test_the_metainfo_and_desktop_file_carry_the_version_and_the_icon():
    text = (LINUX / "org.skillstudio.SkillStudio.metainfo.xml").read_text()
    assert re.search(r'<release version="([^"]+)"', text).group(1) == __version__   # the newest release first
    desktop = (LINUX / "org.skillstudio.SkillStudio.desktop").read_text()
    assert "Exec=skill-studio" in desktop and "Icon=org.skillstudio.SkillStudio" in desktop
    icons = ROOT / "resources" / "icons" / "app"
    assert (icons / "skill-studio.svg").is_file() and (icons / "skill-studio-256.png").is_file()


@pytest.mark.parametrize("tool, args, file", [
    ("desktop-file-validate", [], "org.skillstudio.SkillStudio.desktop"),
    ("appstreamcli", ["validate", "--no-net"], "org.skillstudio.SkillStudio.metainfo.xml"),
])
def test_the_linux_files_validate(tool, args, file):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed here")
    done = subprocess.run([tool, *args, str(LINUX / file)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_wheel_installs_in_a_fresh_environment_and_passes_its_selftest(tmp_path):
    pytest.importorskip("build", reason="the build package makes the wheel")
    if shutil.which("pyinstaller") is None and not (Path(sys.executable).parent / "pyinstaller").exists():
        pytest.skip("PyInstaller is absent: the packaging tools are not installed here")
    dist = tmp_path / "dist"
    # Without --wheel, build makes the sdist and then the wheel from it: the sdist must hold it all.
    # The build's own environment takes the fixed versions too (setuptools), as the install does
    # (named by URL: pip splits the variable at spaces, and the checkout's path may hold some).
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
                           capture_output=True, text=True, env={**os.environ, "PIP_CONSTRAINT": CONSTRAINTS.as_uri()})
    assert built.returncode == 0, built.stderr[-2000:]
    assert len(list(dist.glob("skill_studio-*.tar.gz"))) == 1
    wheel = next(dist.glob("skill_studio-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    for needed in ("skill_studio/resources/icons/app/skill-studio.svg", "skill_studio/resources/icons/link.svg",
                   "skill_studio/resources/samples/release-notes/SKILL.md", "skill_studio/ui/agents/query_panel.py"):
        assert needed in names, needed
    assert any(n.startswith("skill_studio/resources/templates/") for n in names)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-c", str(CONSTRAINTS), str(wheel)],
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr[-2000:]
    app = env_dir / "bin" / "skill-studio"
    version = subprocess.run([str(app), "--version"], capture_output=True, text=True)
    assert version.stdout.strip() == f"skill-studio {__version__}"
    selftest = subprocess.run([str(app), "--selftest"], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                              env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"})
    assert selftest.returncode == 0 and "self-test passed" in selftest.stdout, selftest.stdout + selftest.stderr


def test_a_failing_part_fails_the_selftest():
    script = ("import sys; from skill_studio.core.agents import matching\n"
              "def broken(*a, **k): raise RuntimeError('matching is broken')\n"
              "matching.match = broken\n"
              "from skill_studio import selftest; sys.exit(selftest.run())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={"PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen", "HOME": str(ROOT)})
    assert done.returncode == 1
    assert "FAIL matching: RuntimeError: matching is broken" in done.stdout and "ok   graph" in done.stdout
