"""A skill folder's SKILL.md is read in one call when it is a plain file within the size limit;
anything else goes to the library's reader, and every kind of folder gets the diagnostics it
got from that reader alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import skill_studio.core.format.validate as validate
from skill_studio.core.format.skillmd import MAX_SKILL_MD_BYTES

SKILL = "---\nname: {name}\ndescription: Does x. Use when y.\n---\n# Body\n"


def _folder(root: Path, kind: str) -> Path:
    folder = root / kind
    folder.mkdir()
    md = folder / "SKILL.md"
    text = SKILL.format(name=kind)
    if kind == "plain":
        md.write_text(text, encoding="utf-8")
    elif kind == "empty":
        md.write_bytes(b"")
    elif kind == "crlf-bom":
        md.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    elif kind == "not-utf8":
        md.write_bytes(b"---\nname: not-utf8\ndescription: \xff\n---\n")
    elif kind == "lowercase":
        (folder / "skill.md").write_text(text, encoding="utf-8")
    elif kind == "link-inside":
        (folder / "real.md").write_text(text, encoding="utf-8")
        md.symlink_to("real.md")
    elif kind == "link-outside":
        (root / "elsewhere.md").write_text(text, encoding="utf-8")
        md.symlink_to(root / "elsewhere.md")
    elif kind == "dangling":
        md.symlink_to("nowhere.md")
    elif kind == "a-folder":
        md.mkdir()
    elif kind == "fifo":
        os.mkfifo(md)
    elif kind == "over-limit":
        with open(md, "wb") as f:
            f.truncate(MAX_SKILL_MD_BYTES + 1)
    elif kind == "at-limit":
        md.write_bytes(text.encode() + b"x" * (MAX_SKILL_MD_BYTES - len(text.encode())))
    # "missing": no SKILL.md at all
    return folder


KINDS = ["plain", "empty", "crlf-bom", "not-utf8", "lowercase", "link-inside", "link-outside", "dangling",
         "a-folder", "fifo", "over-limit", "at-limit", "missing"]
QUICK = {"plain", "empty", "crlf-bom", "not-utf8", "at-limit"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs fifos and links")
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_skill_md_gets_what_the_library_reader_gives(kind, tmp_path, monkeypatch):
    folder = _folder(tmp_path, kind)
    assert (validate._plain_skill_md(folder) is not None) == (kind in QUICK)
    quick = {profile: validate.validate_dir(folder, profile, lints=lints)
             for profile in ("strict", "lenient") for lints in (False, True)}
    monkeypatch.setattr(validate, "_plain_skill_md", lambda _folder: None)
    for profile in ("strict", "lenient"):
        for lints in (False, True):
            assert validate.validate_dir(folder, profile, lints=lints) == quick[profile], (profile, lints)


def test_the_quick_read_gives_the_file_s_bytes(tmp_path):
    folder = _folder(tmp_path, "crlf-bom")
    assert validate._plain_skill_md(folder) == (folder / "SKILL.md").read_bytes()
    assert validate._plain_skill_md(str(folder)) == (folder / "SKILL.md").read_bytes()


def test_a_folder_given_as_text_or_as_a_path_reads_the_same(tmp_path, monkeypatch):
    folder = _folder(tmp_path, "plain")
    assert validate.validate_dir(str(folder), "lenient") == validate.validate_dir(folder, "lenient")
    monkeypatch.chdir(folder)
    assert validate.validate_dir(".", "strict") == validate.validate_dir(folder, "strict") == []
