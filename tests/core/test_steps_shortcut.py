"""Reading steps skips the block checks for lines of plain text (steps._plain): on lines and texts
of every shape the steps read are exactly those read with every check made."""

from __future__ import annotations

import random

import pytest

from skill_studio.core.format import steps

_PIECES = ["", " ", "\t", "   ", "    ", "#", "##", " # ", "#x", "1.", "1)", "12.", "0.", "١.", "٣)", "1234567890.",
           "-", "+", "*", "_", "=", "==", "---", "- - -", "***", "___", "```", "~~~", "````", "``` x`y", ">",
           " >", "text", "Steps", "## Steps", "### Procedure", "How to use", "Word", "é", "数据", "|", "<div>", "\\",
           "[link]", "!", "`code`", "x" * 10, "\r", "  2. ", " a", "\u00a0", "\u2003x"]


def _line(rng: random.Random) -> str:
    return "".join(rng.choice(_PIECES) + rng.choice(["", " ", "  ", "\t"]) for _ in range(rng.randint(0, 4)))


def _text(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(0, 40)):
        kind = rng.random()
        if kind < 0.1:
            lines.append(rng.choice(["## Steps", "# Workflow", "Steps", "=====", "## Other", "Instructions\n---"]))
        elif kind < 0.35:
            gap = rng.choice([" ", "  ", "\t", "     ", ""])
            marker = rng.choice(["1.", "2.", "3)", "-", "*", "+", "10."])
            lines.append(" " * rng.randint(0, 5) + marker + gap + _line(rng))
        elif kind < 0.45:
            lines.append(rng.choice(["```", "~~~", "```python", "````", "  ```"]))
        else:
            lines.append(_line(rng))
    return rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n"])


def test_a_plain_line_is_one_no_block_check_would_take_for_a_block():
    rng = random.Random(3)
    lines = [_line(rng) for _ in range(20_000)] + [p + q for p in _PIECES for q in _PIECES]
    plain = 0
    for line in lines:
        if steps._plain(line):
            plain += 1
            assert steps._marker(line) is None and steps._fence(line) is None, repr(line)
            assert not steps._ATX.match(line) and not steps._THEMATIC.match(line), repr(line)
            assert not steps._SETEXT.match(line) and not line.lstrip(" ").startswith(">"), repr(line)
            assert steps._expand(line) == line or steps._plain(steps._expand(line)), repr(line)
    assert 0.2 * len(lines) < plain < 0.95 * len(lines)   # the corpus holds both kinds


@pytest.mark.parametrize("seed", range(4))
def test_steps_read_with_and_without_the_shortcut_are_the_same(seed, monkeypatch):
    rng = random.Random(seed)
    texts = [_text(rng) for _ in range(1500)]
    fast = [(steps.find_step_list(t), steps.steps_from_text(t), steps.without_step_list(t)) for t in texts]
    monkeypatch.setattr(steps, "_plain", lambda line: False)
    slow = [(steps.find_step_list(t), steps.steps_from_text(t), steps.without_step_list(t)) for t in texts]
    assert fast == slow
    assert sum(1 for f in fast if f[0] is not None) > 100   # lists were found, not only missed
