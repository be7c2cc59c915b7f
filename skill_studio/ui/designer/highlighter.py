"""Syntax highlighting for SKILL.md (YAML frontmatter, Markdown, fenced code) and for other text files."""

from __future__ import annotations

import re
from functools import cache, lru_cache

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Keyword, Name, Number, Operator, String
from pygments.util import ClassNotFound
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from skill_studio.ui.theme import SYNTAX_COLOURS

# Block states. Bits 0-1 hold the kind; the rest depends on it:
#   FRONT: bit 2 = inside a YAML block scalar, bits 3.. = indentation of the key that opened it
#   FENCE: bit 2 = tilde fence, bits 3-10 = fence length, bits 11.. = language id
BODY, FRONT, FENCE = 0, 1, 2
_SCALAR = 4

_BOLD = {"heading", "key", "strong", "lang"}
_ITALIC = {"comment", "emphasis", "quote"}


def make_formats(dark: bool) -> dict[str, QTextCharFormat]:
    """One QTextCharFormat per role ("keyword", "string", "heading", ...) for the given background."""
    formats: dict[str, QTextCharFormat] = {}
    for role, colour in SYNTAX_COLOURS[dark].items():
        if role == "code_back":
            continue
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(colour))
        if role in _BOLD:
            fmt.setFontWeight(QFont.Bold)
        if role in _ITALIC:
            fmt.setFontItalic(True)
        formats[role] = fmt
    formats["code"].setBackground(QColor(SYNTAX_COLOURS[dark]["code_back"]))
    formats["link"].setFontUnderline(True)
    for role, (bold, italic) in {"strong": (True, False), "emphasis": (False, True)}.items():
        fmt = QTextCharFormat()
        fmt.setFontWeight(QFont.Bold if bold else QFont.Normal)
        fmt.setFontItalic(italic)
        formats[role] = fmt
    return formats


_TOKEN_ROLES = ((Comment, "comment"), (String, "string"), (Number, "number"), (Keyword, "keyword"),
                (Operator.Word, "keyword"), (Operator, "operator"), (Name.Function, "function"),
                (Name.Class, "function"), (Name.Decorator, "function"), (Name.Builtin, "builtin"),
                (Name.Variable, "variable"), (Name.Tag, "key"), (Name.Attribute, "variable"))


@cache
def token_role(ttype) -> str | None:
    """The format role for a pygments token type, or None for default text."""
    for parent, role in _TOKEN_ROLES:
        if ttype in parent:
            return role
    return None


@lru_cache(maxsize=64)
def lexer_for_language(language: str) -> Lexer | None:
    """The pygments lexer for a fence language ("python", "sh", ...), None when unknown."""
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class _LineHighlighter(QSyntaxHighlighter):
    """Shared helpers: role formats, UTF-16-safe setFormat, and one-line pygments lexing."""

    def __init__(self, document: QTextDocument | None = None, dark: bool = False):
        super().__init__(document)
        self._dark = dark
        self._formats = make_formats(dark)
        self._units: list[int] | None = None

    def set_dark(self, dark: bool) -> None:
        """Switch colours for a dark (or light) background and re-highlight the document."""
        if dark == self._dark:
            return
        self._dark = dark
        self._formats = make_formats(dark)
        self.rehighlight()

    def is_dark(self) -> bool:
        return self._dark

    def _begin(self, text: str) -> None:
        # Qt counts UTF-16 units, Python counts code points: they differ only past U+FFFF.
        if _ASTRAL.search(text) is None:
            self._units = None
            return
        units, acc = [], 0
        for ch in text:
            units.append(acc)
            acc += 2 if ord(ch) > 0xFFFF else 1
        units.append(acc)
        self._units = units

    def _paint(self, start: int, end: int, role: str) -> None:
        if end <= start:
            return
        if self._units is not None:
            start, end = self._units[start], self._units[end]
        self.setFormat(start, end - start, self._formats[role])

    def _lex(self, lexer: Lexer, text: str, offset: int = 0) -> None:
        limit = len(text)
        for index, ttype, value in lexer.get_tokens_unprocessed(text + "\n"):
            if index >= limit:
                break
            role = token_role(ttype)
            if role is not None:
                self._paint(offset + index, offset + min(index + len(value), limit), role)


# --- SKILL.md -----------------------------------------------------------------------------------

_FRONT_DELIM = re.compile(r"---[ \t]*")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
_QUOTE = re.compile(r" {0,3}>")
_LIST = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)")
_INLINE = [
    (re.compile(r"</?[A-Za-z][^<>]*>|<!--.*?(?:-->|$)"), "html"),
    (re.compile(r"(?<![*\w])\*(?=[^\s*])(?:[^*]*?[^\s*])?\*(?!\*)"), "emphasis"),
    (re.compile(r"(?<![_\w])_(?=[^\s_])(?:[^_]*?[^\s_])?_(?![_\w])"), "emphasis"),
    (re.compile(r"(\*\*|__)(?=\S)(?:.*?\S)?\1"), "strong"),
]
_LINK = re.compile(r"!?\[([^\]\n]*)\](\([^)\s]*(?:\s+\"[^\"]*\")?\))")
_AUTOLINK = re.compile(r"<(?:https?|mailto):[^>\s]+>|\bhttps?://[^\s<>()\[\]]+[^\s<>()\[\].,;:!?'\"]")
_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")

_YAML_KEY = re.compile(r"([^\s#:'\"-][^:#]*?|\"[^\"]*\"|'[^']*')[ \t]*(:)(?=[ \t]|$)")
_YAML_DASH = re.compile(r"[ \t]*(-)(?=[ \t]|$)[ \t]*")
_YAML_SCALAR_HEAD = re.compile(r"[|>][-+0-9]*[ \t]*(?:#.*)?$")
_YAML_CONST = re.compile(r"(?:[-+]?(?:\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|\.inf)|0x[0-9a-fA-F]+|"
                         r"true|false|True|False|TRUE|FALSE|yes|no|on|off|null|Null|NULL|~)[ \t]*(?=#|$)")
_YAML_COMMENT = re.compile(r"(?:^|[ \t])(#.*)$")

_languages: dict[str, int] = {"": 0}
_language_names: list[str] = [""]


def _language_id(name: str) -> int:
    ident = _languages.get(name)
    if ident is None:
        ident = _languages[name] = len(_language_names)
        _language_names.append(name)
    return ident


def fence_language(info: str) -> str:
    """The language named by a fence's info string: "```python title=x" → "python"."""
    word = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    return word.strip("{}.").split(",")[0].lower()


class SkillHighlighter(_LineHighlighter):
    """Highlights a SKILL.md one block at a time; block states carry frontmatter and fence context."""

    def highlightBlock(self, text: str) -> None:
        self._begin(text)
        first = not self.currentBlock().previous().isValid()
        if first and _FRONT_DELIM.fullmatch(text):  # frontmatter only when it opens the file
            self._paint(0, len(text), "punct")
            self.setCurrentBlockState(FRONT)
            return
        state = BODY if first else max(self.previousBlockState(), BODY)
        kind = state & 3
        if kind == FRONT:
            self.setCurrentBlockState(self._frontmatter_line(text, state))
        elif kind == FENCE:
            self.setCurrentBlockState(self._fence_line(text, state))
        else:
            self.setCurrentBlockState(self._body_line(text))

    # -- frontmatter (YAML) --

    def _frontmatter_line(self, text: str, state: int) -> int:
        indent = len(text) - len(text.lstrip(" "))
        if state & _SCALAR:
            if not text.strip() or indent > state >> 3:
                self._paint(0, len(text), "string")
                return state
        if _FRONT_DELIM.fullmatch(text):
            self._paint(0, len(text), "punct")
            return BODY
        pos = indent
        dash = _YAML_DASH.match(text)
        while dash:
            self._paint(dash.start(1), dash.end(1), "punct")
            pos = dash.end()
            dash = _YAML_DASH.match(text, pos) if pos < len(text) else None
        key = _YAML_KEY.match(text, pos)
        if key:
            self._paint(key.start(1), key.end(1), "key")
            self._paint(key.start(2), key.end(2), "punct")
            pos = key.end()
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        rest = text[pos:]
        if rest[:1] in ("'", '"'):
            close = text.find(rest[0], pos + 1)
            end = len(text) if close < 0 else close + 1
            self._paint(pos, end, "string")
            pos = end
        elif _YAML_SCALAR_HEAD.match(rest):
            head = len(rest.split("#")[0].rstrip())
            self._paint(pos, pos + head, "marker")
            comment = _YAML_COMMENT.search(text, pos)
            if comment:
                self._paint(comment.start(1), len(text), "comment")
            return FRONT | _SCALAR | (min(indent, 0xFFFF) << 3)
        elif _YAML_CONST.match(rest):
            self._paint(pos, pos + len(rest.split("#")[0].rstrip()), "number")
        elif rest[:1] in ("[", "{"):
            for i in range(pos, len(text)):
                if text[i] in "[]{},":
                    self._paint(i, i + 1, "punct")
        comment = _YAML_COMMENT.search(text, pos) if "#" in text[pos:] else None
        if comment:
            self._paint(comment.start(1), len(text), "comment")
        return FRONT

    # -- fenced code --

    def _fence_line(self, text: str, state: int) -> int:
        close = _FENCE_CLOSE.fullmatch(text)
        if close:
            fence = close.group(1)
            same_char = (fence[0] == "~") == bool(state & 4)
            if same_char and len(fence) >= (state >> 3) & 0xFF:
                self._paint(0, len(text), "fence")
                return BODY
        lexer = lexer_for_language(_language_names[state >> 11]) if state >> 11 else None
        if lexer is None:
            self._paint(0, len(text), "code")
        else:
            self._lex(lexer, text)
        return state

    def _open_fence(self, text: str) -> int | None:
        m = _FENCE_OPEN.fullmatch(text)
        if m is None:
            return None
        fence, info = m.group(1), m.group(2)
        if fence[0] == "`" and "`" in info:
            return None
        self._paint(0, m.end(1), "fence")
        self._paint(m.start(2), len(text), "lang")
        tilde = 4 if fence[0] == "~" else 0
        return FENCE | tilde | (min(len(fence), 0xFF) << 3) | (_language_id(fence_language(info)) << 11)

    # -- Markdown body --

    def _body_line(self, text: str) -> int:
        if "`" in text or "~" in text:
            fence = self._open_fence(text)
            if fence is not None:
                return fence
        if not text.strip():
            return BODY
        if _HEADING.match(text):
            self._paint(0, len(text), "heading")
            self._inline_code(text)
            return BODY
        if _RULE.fullmatch(text):
            self._paint(0, len(text), "punct")
            return BODY
        quote = _QUOTE.match(text)
        if quote:
            self._paint(0, len(text), "quote")
            self._paint(quote.end() - 1, quote.end(), "marker")
        else:
            marker = _LIST.match(text)
            if marker:
                self._paint(marker.start(), marker.end(), "marker")
        self._inline(text)
        return BODY

    def _inline(self, text: str) -> None:
        for pattern, role in _INLINE:
            for m in pattern.finditer(text):
                self._paint(m.start(), m.end(), role)
        if "://" in text or "mailto:" in text:
            for m in _AUTOLINK.finditer(text):
                self._paint(m.start(), m.end(), "link")
        if "[" in text:  # after autolinks: the target of [text](url) is drawn as a url, not a link
            for m in _LINK.finditer(text):
                self._paint(m.start(), m.start(2), "link")
                self._paint(m.start(2), m.end(2), "url")
        self._inline_code(text)

    def _inline_code(self, text: str) -> None:
        if "`" in text:
            for m in _CODE_SPAN.finditer(text):
                self._paint(m.start(), m.end(), "code")


# --- other files --------------------------------------------------------------------------------

class FileHighlighter(_LineHighlighter):
    """Highlights any text file line by line with the pygments lexer its name calls for (or none)."""

    def __init__(self, document: QTextDocument | None = None, file_name: str = "", dark: bool = False):
        self._lexer = self.lexer_for_file(file_name)
        super().__init__(document, dark)

    @staticmethod
    def lexer_for_file(file_name: str) -> Lexer | None:
        """The pygments lexer for a file name, or None when pygments knows none."""
        try:
            return get_lexer_for_filename(file_name, stripnl=False, ensurenl=False)
        except ClassNotFound:
            return None

    @property
    def lexer(self) -> Lexer | None:
        return self._lexer

    def highlightBlock(self, text: str) -> None:
        if self._lexer is not None and text:
            self._begin(text)
            self._lex(self._lexer, text)
