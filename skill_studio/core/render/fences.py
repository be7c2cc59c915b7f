"""Fenced code blocks for the preview, found by SuperFences wherever CommonMark nests them."""

from __future__ import annotations

from pymdownx.superfences import SuperFencesBlockPreprocessor, SuperFencesCodeExtension

from skill_studio.core.render.code import code_block_html
from skill_studio.core.render.limits import MAX_HIGHLIGHT_TOTAL
from skill_studio.core.render.sanitize import block_marker

__all__ = ["CodeFences"]


class CodeFences:
    """The fenced code blocks of one conversion: found by SuperFences in list items (at any
    indent), block quotes and at the top level, with backticks or tildes, and highlighted by
    :func:`code_block_html`. Each block becomes a marker the sanitiser replaces with
    :attr:`blocks` ``[N]``; once :data:`MAX_HIGHLIGHT_TOTAL` characters are highlighted, the
    rest of the blocks are plain."""

    def __init__(self) -> None:
        self.dark = False
        self.blocks: list[str] = []
        self._highlight_left = MAX_HIGHLIGHT_TOTAL

    def extension(self) -> SuperFencesCodeExtension:
        """The extension that sends every fence, whatever its language, here."""
        fence = {"name": "*", "class": "", "format": self._format, "validator": _accept}
        # Relaxed headers: an info string SuperFences cannot parse still opens a fence (as in
        # CommonMark), its first word naming the language.
        return _Fences(custom_fences=[fence], relaxed_headers=True)

    def start(self, dark: bool) -> None:
        """Begin a conversion in the light or dark palette."""
        self.dark = dark
        self.blocks = []
        self._highlight_left = MAX_HIGHLIGHT_TOTAL

    def take(self) -> list[str]:
        """The blocks of the conversion that has just finished (and forget them)."""
        blocks, self.blocks = self.blocks, []
        return blocks

    def _format(self, source: str, language: str | None, class_name, options, md, **kwargs) -> str:
        code = source + "\n"   # as the fence held it: its last line ends before the closing fence
        self._highlight_left -= len(code)
        self.blocks.append(code_block_html(code, language or None, self.dark, self._highlight_left >= 0))
        return f'<div class="code-block">{block_marker(len(self.blocks) - 1)}</div>'


def _accept(language, inputs, options, attrs, md) -> bool:
    # Options and attributes after the language ({#id .class key=value}) are ignored: no markup
    # is built from them.
    return True


class _Fences(SuperFencesCodeExtension):
    """SuperFences, with its fence finder replaced by one that puts the blocks back in linear time."""

    def patch_fenced_rule(self) -> None:
        super().patch_fenced_rule()
        fenced = _LinearBlockPreprocessor(self.md)
        fenced.config = self.getConfigs()
        fenced.extension = self
        self.md.preprocessors.register(fenced, "fenced_code_block", 25)


class _LinearBlockPreprocessor(SuperFencesBlockPreprocessor):
    #: (placeholder line, first line, line after the last) of each block found, in order.
    stack: list[tuple[str, int, int]]

    def reassemble(self, lines: list[str]) -> list[str]:
        # SuperFences splices each block in with a copy of all lines: quadratic in a body with
        # thousands of fences. The blocks are found in order and do not overlap: one pass.
        if not self.stack:
            return lines
        out: list[str] = []
        pos = 0
        for fenced, start, end in self.stack:
            out.extend(lines[pos:start])
            out.append(fenced)
            pos = end
        out.extend(lines[pos:])
        self.stack = []
        return out
