"""PyYAML's pure-Python reader, scanner and parser, adjusted to YAML 1.2 as the reference validator reads it."""

from __future__ import annotations

import yaml

__all__ = ["DialectLoader"]

_BREAKS = "\r\n\x85\u2028\u2029"
_BREAKS_OR_END = _BREAKS + "\0"


class DialectLoader(yaml.SafeLoader):
    """PyYAML's pure-Python reader, scanner and parser, adjusted to YAML 1.2 as the reference reads it."""

    def forward(self, length: int = 1) -> None:
        # YAML 1.2 positions: only LF and a lone CR end a line. NEL, LS and PS
        # still break scalars but do not reset the column, which decides
        # indentation (YAML 1.1 readers reset it).
        if self.pointer + length + 1 >= len(self.buffer):
            self.update(length + 1)
        for _ in range(length):
            ch = self.buffer[self.pointer]
            self.pointer += 1
            self.index += 1
            if ch == "\n" or (ch == "\r" and self.buffer[self.pointer] != "\n"):
                self.line += 1
                self.column = 0
            elif ch != "\ufeff":
                self.column += 1

    def scan_to_next_token(self) -> None:
        # Skip spaces, comments and line breaks as the reference's reader does:
        # once a line break is followed by an empty line, it also skips the tabs
        # and spaces that follow (so a tab can indent a line after a blank line).
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " ":
                self.forward()
            if self.peek() == "#":
                while self.peek() not in _BREAKS_OR_END:
                    self.forward()
                while self.scan_line_break():
                    pass
                if not self.flow_level:
                    self.allow_simple_key = True
                continue
            if not self.scan_line_break():
                return
            if not self.flow_level:
                self.allow_simple_key = True
            if self.peek() == "\n":
                while True:
                    ch = self.peek()
                    if ch in _BREAKS:
                        self.scan_line_break()
                    elif ch in " \t":
                        self.forward()
                    else:
                        break

    def scan_block_scalar(self, style):
        # YAML 1.2: the content of a top-level block scalar may start in column 0;
        # it then runs to a '---' or '...' line or the end. (Only its extent
        # matters: a top-level scalar is never a valid frontmatter mapping.)
        if self.indent >= 0:
            return super().scan_block_scalar(style)
        saved = (self.pointer, self.index, self.line, self.column)
        start_mark = self.get_mark()
        self.forward()
        _, increment = self.scan_block_scalar_indicators(start_mark)
        self.scan_block_scalar_ignored_line(start_mark)
        if increment is None:
            _, max_indent, end_mark = self.scan_block_scalar_indentation()
            if max_indent == 0:
                chunks = []
                first = True
                while self.column == 0 and self.peek() != "\0":
                    if not first and self._at_document_marker():
                        break
                    first = False
                    length = 0
                    while self.peek(length) not in _BREAKS_OR_END:
                        length += 1
                    chunks.append(self.prefix(length))
                    self.forward(length)
                    chunks.append(self.scan_line_break())
                    _, end_mark = self.scan_block_scalar_breaks(0)
                return yaml.ScalarToken("".join(chunks), False, start_mark, end_mark, style)
        self.pointer, self.index, self.line, self.column = saved
        return super().scan_block_scalar(style)

    def _at_document_marker(self) -> bool:
        return self.column == 0 and self.prefix(3) in ("---", "...") and self.peek(3) in _BREAKS_OR_END + " \t"

    def parse_block_mapping_key(self):
        # YAML 1.2: a ':' with no key before it is a mapping entry with an empty key.
        if not self.check_token(yaml.KeyToken, yaml.BlockEndToken) and self.check_token(yaml.ValueToken):
            self.state = self.parse_block_mapping_value
            return self.process_empty_scalar(self.peek_token().start_mark)
        return super().parse_block_mapping_key()

    def parse_document_end(self):
        # YAML 1.2: after '...' any content starts another (implicit) document.
        event = super().parse_document_end()
        if self.state == self.parse_document_start:
            self.state = self.parse_implicit_document_start
        return event
