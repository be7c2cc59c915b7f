"""A script's output made safe to print on a terminal or show in a window: every control character
but newline and tab (the escape that starts a colour, a title change, a clipboard write, a cursor
move; a carriage return; the C1 controls; the marks that reverse text) shown as visible text
(``^[``, ``^M``, ``<U+009B>``), so nothing the script wrote is acted on."""

from __future__ import annotations

_TABLE: dict[int, str] = {c: "^" + chr(c + 64) for c in range(0x20) if chr(c) not in "\n\t"}
_TABLE[0x7F] = "^?"
_TABLE.update({c: f"<U+{c:04X}>" for c in (*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A),
                                           0x2028, 0x2029)})


def visible(text: str) -> str:
    """``text`` with each control character shown instead of acted on (a CR before a LF dropped)."""
    return text.replace("\r\n", "\n").translate(_TABLE)


class VisibleStream:
    """``visible`` over a text that comes in pieces: a CR that ends one piece and the LF that
    starts the next still make one line end."""

    def __init__(self) -> None:
        self._cr = False

    def feed(self, text: str) -> str:
        if self._cr:
            text = "\r" + text
        self._cr = text.endswith("\r")
        return visible(text[:-1] if self._cr else text)

    def end(self) -> str:
        """What is held back (a last CR)."""
        held, self._cr = self._cr, False
        return "^M" if held else ""
