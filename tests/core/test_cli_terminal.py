"""What the command line prints on a terminal shows control characters instead of sending them
(a skill's description may hold an escape that writes the clipboard or clears the screen);
output to a file or a pipe is left as it is, for the programs that read it."""

from __future__ import annotations

import io
import sys

import pytest

from skill_studio.cli import main

ESCAPES = "\\e]52;c;aGFja2Vk\\a\\e]0;title\\a\\e[2J\\x9b31m"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def db(tmp_path):
    folder = tmp_path / "lib" / "esc"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f'---\nname: esc\ndescription: "Does things. {ESCAPES} Use when asked."\n'
                                     "---\n# Esc\n\nBody \x1b[2J clears.\n", encoding="utf-8")
    path = str(tmp_path / "s.db")
    assert main(["--store", path, "import", str(folder)]) == 0
    return path


def _printed(monkeypatch, argv, terminal: bool) -> str:
    out = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert main(argv) == 0
    assert sys.stdout is out    # put back after the command
    return out.getvalue()


@pytest.mark.parametrize("command", [["list"], ["show", "esc"], ["prompt", "esc"], ["load", "esc"]])
def test_a_terminal_sees_control_characters_not_their_effect(db, monkeypatch, command):
    shown = _printed(monkeypatch, ["--store", db, *command], terminal=True)
    assert not any(c in shown for c in "\x1b\x07\x9b")
    assert ("Body ^[[2J clears." if command[0] == "load" else "^[]52;c;aGFja2Vk^G") in shown


def test_a_pipe_gets_the_text_as_it_is(db, monkeypatch):
    piped = _printed(monkeypatch, ["--store", db, "list"], terminal=False)
    assert "\x1b]52;c;aGFja2Vk\x07" in piped
