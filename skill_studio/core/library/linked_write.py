"""Writing a stored skill back into its folder of a linked folder (core.library.linked), atomically."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from skill_studio.core.library.archive import skill_file_mode
from skill_studio.core.library.atomic import remove_staging, stage_beside, swap_in
from skill_studio.core.library.folder_write import skill_files_with_md
from skill_studio.core.library.folders import read_folder


def write_folder(skill, path: Path) -> None:
    """Write a stored skill into its folder on disk: a copy of the folder with the skill's files
    written and its removed files deleted, swapped in for the old one (what the import leaves
    out, such as links, stays)."""
    path = Path(path)
    stage = stage_beside(path)
    try:
        staged = stage / "skill"
        shutil.copytree(path, staged, symlinks=True)
        before = read_folder(path)
        wanted = {f.path: f for f in skill_files_with_md(skill)}
        md_name = before[0].name
        for f in before[2]:
            if f.path not in wanted:
                (staged / f.path).unlink()
        if md_name not in wanted and "SKILL.md" in wanted:   # written under the name found on disk
            wanted[md_name] = wanted.pop("SKILL.md")
        for rel, f in wanted.items():
            out = staged / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            if out.is_symlink():
                out.unlink()
            with open(out, "wb") as fh:
                fh.write(f.data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(out, skill_file_mode(f.mode))
        swap_in(staged, path)
    finally:
        remove_staging(stage)
