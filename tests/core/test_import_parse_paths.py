"""The import's parse side gives exactly what it gave before it was made faster: the report, the
stored skills and the diagnostics of a varied corpus are the recorded ones, the lines a body is
split into (as they are asked for) are those of a plain line-by-line split, and the steps found
are the same either way."""

from __future__ import annotations

import json
import random
import re
import sys

import pytest

from skill_studio.core.format import steps
from skill_studio.core.format.steps import find_step_list, steps_from_text
from tests.core.import_corpus import EXPECTED, record


def _reference_split(text: str) -> tuple[list[str], list[int]]:
    """Lines and offsets read one line at a time (the plain way the faster split must equal)."""
    lines: list[str] = []
    offsets: list[int] = []
    pos = 0
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end + 1
        offsets.append(pos)
        lines.append(text[pos:end].rstrip("\n").rstrip("\r"))
        pos = end
    offsets.append(len(text))
    return lines, offsets


class _EagerLines(list):
    """The whole text split up front by ``_reference_split``, with the lazy lines' interface."""

    def __init__(self, text: str):
        lines, self._offsets = _reference_split(text)
        super().__init__(lines)

    def offset(self, j: int) -> int:
        return self._offsets[j]


_PIECES = ["\n", "\n", "\n", "\r\n", "\r", "\r\r\n", "\n\n", " ", "  ", "    ", "\t", "1. ", "2) ", "10. ",
           "- ", "* ", "+ ", "## Steps", "# Procedure", "Steps", "===", "---", "***", "```", "~~~", "```sh",
           "> ", "text", "more words", "é", "数据", "١. ", "²", "  3. ", "   - ", "0.", "x"]


def _random_text(rng: random.Random, long: bool = False) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(2000, 4000) if long else rng.randint(0, 40)))


def test_import_gives_the_recorded_report_skills_and_diagnostics(tmp_path):
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(record(tmp_path), ensure_ascii=False, sort_keys=True))
    assert got.keys() == expected.keys()
    for label in expected:
        for run, (g, e) in enumerate(zip(got[label]["reports"], expected[label]["reports"], strict=True)):
            assert g["summary"] == e["summary"], (label, run)
            for ge, ee in zip(g["entries"], e["entries"], strict=True):
                assert ge == ee, (label, run, ee["source"])
        if isinstance(expected[label]["stored"], list):
            for gs, es in zip(got[label]["stored"], expected[label]["stored"], strict=True):
                assert gs == es, (label, es["name"])
        assert got[label]["stored"] == expected[label]["stored"], label


def test_lines_split_as_asked_for_equal_a_line_by_line_split():
    rng = random.Random(3)
    texts = [_random_text(rng, long=i % 200 == 0) for i in range(20_000)]   # long: split in pieces
    texts += ["", "\n", "\r", "a", "a\n", "a\r\n", "\n\n", "x" * 5000 + "\n" + "y" * 3000]
    for text in texts:
        lines, offsets = _reference_split(text)
        lazy = steps._Lines(text)
        assert len(lazy) == len(lines), repr(text)
        if rng.random() < 0.5:   # asked for out of order: an offset first
            j = rng.randint(0, len(lines))
            assert lazy.offset(j) == offsets[j], (repr(text), j)
        assert [lazy[i] for i in range(len(lines))] == lines, repr(text)
        at = range(len(lines) + 1) if len(lines) < 100 else rng.sample(range(len(lines) + 1), 50)
        assert [lazy.offset(i) for i in at] == [offsets[i] for i in at], repr(text)
        with pytest.raises(IndexError):
            lazy[len(lines)]


def test_steps_found_on_lines_split_as_asked_for_equal_those_found_on_a_whole_split(monkeypatch):
    rng = random.Random(9)
    bodies = [_random_text(rng, long=i % 40 == 0) for i in range(4_000)]
    lazy = [(find_step_list(b), steps_from_text(b)) for b in bodies]
    monkeypatch.setattr(steps, "_Lines", _EagerLines)
    eager = [(find_step_list(b), steps_from_text(b)) for b in bodies]
    assert sum(1 for found, _ in eager if found is not None) > 100   # the corpus has lists to find
    for body, a, b in zip(bodies, lazy, eager, strict=True):
        assert a == b, repr(body)


def test_a_list_marker_starts_with_exactly_what_the_number_pattern_takes_for_a_digit():
    # The marker test looks at the first character before trying the pattern: a decimal digit
    # (Unicode category Nd) is what the pattern's \d matches, in every plane.
    every = "".join(map(chr, range(sys.maxunicode + 1))).replace("\n", "")
    assert set(re.findall(r"\d", every)) == {c for c in every if c.isdecimal()}
