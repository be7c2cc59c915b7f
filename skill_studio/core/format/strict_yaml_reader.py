"""PyYAML's pure-Python reader, scanner and parser, adjusted to read, and to word its errors, as the
reference validator's parser does (YAML 1.2, StrictYAML's refusals and messages)."""

from __future__ import annotations

import re

import yaml

__all__ = ["DialectLoader", "Refusal", "flow_refusal", "reference_text"]

_BREAKS = "\r\n\x85\u2028\u2029"
_BREAKS_OR_END = _BREAKS + "\0"
_BREAK = re.compile("[\r\n\x85\u2028\u2029\0]")
_LAST_BREAK = re.compile("[\r\n\x85\u2028\u2029\0][^\r\n\x85\u2028\u2029\0]*\\Z")
_HALF = 37  # the first distance from the position at which the quoted line is cut
_LABEL = "<unicode string>"  # how the reference names the frontmatter it parses


def _mark_text(mark) -> str:
    """A position as the reference's parser prints it: where, then the line with a caret."""
    where = f'  in "{_LABEL}", line {mark.line + 1}, column {mark.column + 1}'
    buffer, pointer = getattr(mark, "buffer", None), getattr(mark, "pointer", 0)
    if buffer is None:
        return where
    # At most 75 characters around the position: the line, cut ' ... ' where it runs on for
    # _HALF characters or more on either side.
    head, tail = "", ""
    lo = max(0, pointer - _HALF)
    last_break = _LAST_BREAK.search(buffer, lo, pointer)
    if last_break is not None:
        start = last_break.start() + 1
    elif pointer >= _HALF:
        head, start = " ... ", pointer - _HALF + 5
    else:
        start = 0
    after = buffer[pointer:pointer + _HALF]
    first_break = _BREAK.search(after)
    if first_break is not None:
        end = pointer + first_break.start()
    elif len(after) == _HALF:
        tail, end = " ... ", pointer + _HALF - 5
    else:
        end = pointer + len(after)
    caret = " " * (4 + pointer - start + len(head)) + f"^ (line: {mark.line + 1})"
    return f"{where}:\n    {head}{buffer[start:end]}{tail}\n{caret}"


def reference_text(context: str | None, context_mark, problem: str | None, problem_mark,
                   note: str | None = None) -> str:
    """A parse error's text exactly as the reference validator's parser (StrictYAML) words it."""
    lines: list[str] = []
    if context is not None:
        lines.append(context)
    if context_mark is not None and (problem is None or problem_mark is None
                                     or (context_mark.line, context_mark.column)
                                     != (problem_mark.line, problem_mark.column)):
        lines.append(_mark_text(context_mark))
    if problem is not None:
        lines.append(problem)
    if problem_mark is not None:
        lines.append(_mark_text(problem_mark))
    if note:
        import textwrap  # (only the rare refusal with a note needs it)

        lines.append(textwrap.dedent(note))
    return "\n".join(lines)


class Refusal(yaml.MarkedYAMLError):
    """Markup the strict dialect refuses while reading (a tag, an anchor, a flow collection)."""

    def __init__(self, context: str, context_mark, problem: str, problem_mark, explanation: str):
        super().__init__(context, context_mark, problem, problem_mark)
        self.explanation = explanation  # the studio's own words, with the way out


def flow_refusal(sequence: bool, start_mark, end_mark) -> Refusal:
    """The refusal of a flow collection (a list when ``sequence``) whose '[' or '{' spans the marks."""
    kind = "list [...]" if sequence else "mapping {...}"
    return Refusal("While scanning", start_mark,
                   "Found ugly disallowed JSONesque flow mapping "
                   "(surround with ' and ' to make text appear literally)", end_mark,
                   f"a flow-style {kind} is not allowed (write it in block style, "
                   "or quote the value to keep it as text)")


class _Comment(yaml.Token):
    """A comment or a run of blank lines, as the reference's scanner keeps them."""

    id = "<comment>"


_TRAILED = (yaml.ScalarToken, yaml.ValueToken, yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken)


class DialectLoader(yaml.SafeLoader):
    """PyYAML's pure-Python reader, scanner and parser, adjusted to YAML 1.2 as the reference reads it."""

    # The reference's scanner keeps comments and runs of blank lines as tokens of
    # their own, which the parser never sees, and reads at least two tokens ahead:
    # which of two mistakes it reports first depends on it, so the token queue
    # here is kept exactly as there.

    def scan_to_next_token(self) -> None:
        pass  # done by fetch_more_tokens, as the reference's scanner does it

    def fetch_more_tokens(self) -> None:
        comment_mark = self._skip_to_next_token()
        if comment_mark is not None:
            self.tokens.append(_Comment(comment_mark, self.get_mark()))
            return
        super().fetch_more_tokens()

    def _skip_to_next_token(self):
        """Skip spaces, comments and line breaks; a comment or a run of blank lines ends
        the skip (it is a token there), and its start is returned.

        Once a line break is followed by an empty line, the tabs and spaces that follow
        are skipped too (so a tab can indent a line after a blank line).
        """
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " ":
                self.forward()
            if self.peek() == "#":
                start = self.get_mark()
                while self.peek() not in _BREAKS_OR_END:
                    self.forward()
                while self.scan_line_break():
                    pass
                if not self.flow_level:
                    self.allow_simple_key = True
                return start
            if not self.scan_line_break():
                return None
            if not self.flow_level:
                self.allow_simple_key = True
            if self.peek() == "\n":
                start = self.get_mark()
                while True:
                    ch = self.peek()
                    if ch in _BREAKS:
                        self.scan_line_break()
                    elif ch in " \t":
                        self.forward()
                    else:
                        return start

    def _gather_comments(self) -> None:
        if not self.tokens:
            return
        if isinstance(self.tokens[0], _Comment):
            self.tokens.pop(0)
            self.tokens_taken += 1
        while self.need_more_tokens():
            self.fetch_more_tokens()
            if not self.tokens:
                return
            if isinstance(self.tokens[0], _Comment):
                self.tokens.pop(0)
                self.tokens_taken += 1
        if not self.done and len(self.tokens) < 2:
            self.fetch_more_tokens()

    def peek_token(self):
        while self.need_more_tokens():
            self.fetch_more_tokens()
        self._gather_comments()
        return self.tokens[0] if self.tokens else None

    def get_token(self):
        while self.need_more_tokens():
            self.fetch_more_tokens()
        self._gather_comments()
        if not self.tokens:
            return None
        first = self.tokens[0]
        if len(self.tokens) > 1 and isinstance(self.tokens[1], _Comment) and (
                isinstance(first, yaml.ScalarToken)
                or (isinstance(first, _TRAILED) and first.end_mark.line == self.tokens[1].start_mark.line)):
            # A comment after a value: the reference attaches it, reading on.
            if isinstance(first, yaml.ValueToken):
                first.commented = True
            while len(self.tokens) > 1 and isinstance(self.tokens[1], _Comment):
                self.tokens.pop(1)
                self.tokens_taken += 1
                self.fetch_more_tokens()
        self.tokens_taken += 1
        return self.tokens.pop(0)

    def check_token(self, *choices) -> bool:
        # As the reference's scanner: a tag, an anchor or a flow collection is refused
        # when the parser asks for that kind of token.
        while self.need_more_tokens():
            self.fetch_more_tokens()
        self._gather_comments()
        if not self.tokens:
            return False
        if not choices:
            return True
        token = self.tokens[0]
        if not isinstance(token, choices):
            return False
        if isinstance(token, yaml.TagToken):
            raise Refusal("While scanning", token.end_mark,
                          "Found disallowed tag tokens (do not specify types in markup)", token.start_mark,
                          "tags are not allowed (do not give types in the "
                          "markup; quote the value to keep it as text)")
        if isinstance(token, (yaml.FlowMappingStartToken, yaml.FlowSequenceStartToken)):
            raise flow_refusal(isinstance(token, yaml.FlowSequenceStartToken), token.start_mark, token.end_mark)
        if isinstance(token, yaml.AnchorToken):
            raise Refusal("While scanning", token.start_mark,
                          "Found confusing disallowed anchor token "
                          "(surround with ' and ' to make text appear literally)", token.end_mark,
                          "anchors and aliases are not allowed "
                          "(quote the value to keep it as text)")
        return True

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

    def parse_block_mapping_value(self):
        # As the reference: an empty value is placed at the end of the token after the
        # ':', unless a comment follows the ':' on its line and a key comes next.
        if not self.check_token(yaml.ValueToken):
            return super().parse_block_mapping_value()
        token = self.get_token()
        if not self.check_token(yaml.KeyToken, yaml.ValueToken, yaml.BlockEndToken):
            self.states.append(self.parse_block_mapping_key)
            return self.parse_block_node_or_indentless_sequence()
        self.state = self.parse_block_mapping_key
        if not (getattr(token, "commented", False) and self.check_token(yaml.KeyToken)):
            token = self.peek_token()
        return self.process_empty_scalar(token.end_mark)

    def parse_document_end(self):
        # YAML 1.2: after '...' any content starts another (implicit) document.
        event = super().parse_document_end()
        if self.state == self.parse_document_start:
            self.state = self.parse_implicit_document_start
        return event
