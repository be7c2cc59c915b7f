"""The files a run writes, by name: a control or invisible character in a name is shown written out
(in the summary, in the list of outputs, in a message), never as the character itself, so a name
cannot fake a line; saving the outputs skips each file whose name cannot be written safely, names
it and why, copies all the others, and the run command then exits non-zero."""

from __future__ import annotations

import subprocess
import sys
import unicodedata

import pytest

from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin, SkillFile
from skill_studio.core.runtime import script_run

# name the script writes -> how it is shown, and whether saving refuses it (why)
NAMES = {
    "bad\n  output (new) FAKE.txt (1 bytes)": ("bad\\x0a  output (new) FAKE.txt (1 bytes)", "a control character"),
    "a\x1b[2Jb": ("a\\x1b[2Jb", "a control character"),
    "x\rover": ("x\\x0dover", "a control character"),
    "tab\there": ("tab\\x09here", "a control character"),
    "sub/ring\x07.txt": ("sub/ring\\x07.txt", "a control character"),
    "c1\x9bname": ("c1\\x9bname", "a control character"),
    "back\\slash": ("back\\slash", "backslashes"),
    "turn\u202egnp.exe": ("turn\\u202egnp.exe", "an invisible character"),   # (it reads turnexe.png)
    "zero\u200bwidth": ("zero\\u200bwidth", "an invisible character"),
    "raw\udcffbyte": ("raw\\udcffbyte", "not valid UTF-8"),   # (the byte 0xff, as Python reads it)
}
SCRIPT = ("import os, sys\nos.makedirs('sub', exist_ok=True)\nopen('good.txt', 'w').write('good')\n"
          f"for name in {sorted(NAMES)!r}:\n    open(name, 'w').write('x')\nsys.exit(int(sys.argv[1]))\n")


def _skill(name: str = "namer"):
    text = f"---\nname: {name}\ndescription: Writes odd names. Use when testing.\n---\n# {name}\n"
    return build_skill(text.encode(), name, [SkillFile("main.py", SCRIPT.encode(), 0o644)], origin=Origin.HUMAN,
                       source=f"{name}/SKILL.md")


def _hidden(text: str) -> list[str]:
    return [c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") and c != "\n"]


def test_output_names_are_shown_written_out_and_unsafe_ones_are_skipped_when_saved(tmp_path):
    plan = script_run.plan(_skill(), args=["0"])
    try:
        result = script_run.run(plan)
        assert result.exit_code == 0
        shown = {o.path: o.shown for o in result.outputs}
        assert shown == {"good.txt": "good.txt", **{name: how for name, (how, _) in NAMES.items()}}
        assert not _hidden("".join(shown.values()) + result.summary) and "\n" not in "".join(shown.values())
        saved = script_run.save_outputs(plan, tmp_path / "saved", result.outputs)
    finally:
        plan.cleanup()
    refused = dict(NAMES.values())
    assert sorted(how for how, _ in saved.skipped) == sorted(refused)
    for how, why in saved.skipped:
        assert refused[how] in why
    for line in saved.problems():
        assert line.startswith('"') and "was not copied: it " in line and not _hidden(line) and "\n" not in line
    # everything else is copied, also beside the refused names
    copied = sorted(p.relative_to(tmp_path / "saved").as_posix() for p in saved.written)
    assert copied == ["good.txt"]
    assert (tmp_path / "saved" / "good.txt").read_text() == "good"


def test_a_file_that_cannot_be_written_where_it_goes_is_skipped_and_the_rest_copied(tmp_path):
    skill = _skill()
    skill.files[0] = SkillFile("main.py", b"import os\nos.makedirs('out')\nopen('out/a.txt', 'w').write('a')\n"
                                          b"open('b.txt', 'w').write('b')\n", 0o644)
    dest = tmp_path / "saved"
    dest.mkdir()
    (dest / "out").write_text("a file where the folder would go")
    plan = script_run.plan(skill)
    try:
        saved = script_run.save_outputs(plan, dest, script_run.run(plan).outputs)
    finally:
        plan.cleanup()
    assert [p.name for p in saved.written] == ["b.txt"] and (dest / "b.txt").read_text() == "b"
    assert len(saved.skipped) == 1 and saved.skipped[0][0] == "out/a.txt"
    assert saved.problems()[0].startswith('"out/a.txt" was not copied: it could not be written to ')


def _cli(db, *args):
    return subprocess.run([sys.executable, "-m", "skill_studio", "--store", str(db), "run", *args],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("script_code", [0, 3])
def test_the_run_command_cannot_be_fooled_by_names_and_saves_what_it_can(tmp_path, script_code):
    from skill_studio.core.store import Store

    db = tmp_path / "store.db"
    with Store(db) as store:
        store.add(_skill())
    done = _cli(db, "namer", "--outputs", str(tmp_path / "out"), "--", str(script_code))
    lines = done.stderr.splitlines()
    # one line per output, none faked by a name; each refused name named, with why
    assert sum(line.startswith("  output (new) ") for line in lines) == len(NAMES) + 1
    assert "  output (new) bad\\x0a  output (new) FAKE.txt (1 bytes) (1 bytes)" in lines
    assert '  "a\\x1b[2Jb" was not copied: it has a control character in its name' in lines
    assert not _hidden(done.stderr) and "\x1b" not in done.stderr
    assert f"  1 output file(s) copied to {tmp_path / 'out'}, 10 not copied (named above)" in lines
    assert (tmp_path / "out" / "good.txt").read_text() == "good"
    # something not copied makes a run that ended well fail; the script's own failure is kept
    assert done.returncode == (1 if script_code == 0 else script_code)
    if script_code == 0:
        assert lines[-1] == ("skill-studio: the script ended well, but 10 of its output file(s) could not be "
                             "copied: exit code 1")
    clean = tmp_path / "clean.db"
    with Store(clean) as store:
        store.add(build_skill(b"---\nname: plain\ndescription: Writes. Use when testing.\n---\n# plain\n", "plain",
                              [SkillFile("run.sh", b"#!/bin/sh\necho x > fine.txt\n", 0o755)],
                              origin=Origin.HUMAN, source="plain/SKILL.md"))
    fine = _cli(clean, "plain", "--outputs", str(tmp_path / "fine"))
    assert fine.returncode == 0 and "1 output file(s) copied to" in fine.stderr and "not copied" not in fine.stderr
