"""Names that are safe to keep: skill names and file names an import refuses, and look-alike skill names."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["LookAlikes", "file_name_problem", "mixed_scripts", "printable", "skeleton", "skill_name_problem"]

#: Longest skill name, in UTF-8 bytes, that can still be a folder name on common file systems.
MAX_NAME_BYTES = 255

# Device names Windows reserves in every folder, with or without an extension ("aux.txt").
_WINDOWS_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                               *(f"lpt{i}" for i in range(1, 10)), "conin$", "conout$"})

# Categories of characters a name must not hold: control, format (invisible joiners, bidi
# overrides), private use, surrogates, line and paragraph separators.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Zl", "Zp"})

# Letters of other scripts that look like Latin ones, and dashes that look like '-'. A name
# folded with this table and case-folded is its skeleton: two names with one skeleton read alike.
_LOOK_ALIKE = {
    # Cyrillic (and Armenian)
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "п": "n", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ӏ": "l", "һ": "h", "ɡ": "g", "ь": "b", "г": "r", "ո": "n", "ս": "u", "ց": "g",
    "А": "a", "В": "b", "Е": "e", "Ё": "e", "К": "k", "М": "m", "Н": "h", "О": "o", "Р": "p", "С": "c",
    "Т": "t", "У": "y", "Х": "x", "Ѕ": "s", "І": "i", "Ї": "i", "Ј": "j", "Ԛ": "q", "Ԝ": "w", "Ӏ": "l",
    "Һ": "h",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j", "ω": "w", "η": "n",
    "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o",
    "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x", "Ϲ": "c",
    # Latin letters that pass for others
    "ı": "i", "ɑ": "a", "ɩ": "i", "ʏ": "y", "ɪ": "i", "ᴏ": "o", "ꓲ": "l",
    # dashes
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u02d7": "-", "\u2043": "-", "\ufe63": "-",
}
_FOLD = str.maketrans(_LOOK_ALIKE)
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
                        "\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff]")


def printable(text: str) -> str:
    """``text`` with control, invisible and bidi characters (and undecodable bytes of a file name)
    written as escapes such as ``\\x1b`` or ``\\u202e``: a message then shows what a name holds,
    and cannot act on the terminal or turn the line around."""
    if text.isprintable():
        return text
    return "".join(_escape(c) if unicodedata.category(c) in _HIDDEN_CATEGORIES else c for c in text)


def _escape(c: str) -> str:
    o = ord(c)
    return f"\\x{o:02x}" if o <= 0xFF else f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}"


def _char_name(c: str) -> str:
    return f"U+{ord(c):04X} {unicodedata.name(c, '')}".rstrip()


def _hidden_character(text: str) -> str | None:
    if text.isprintable():  # no control, format, private-use or separator character but ' '
        return None
    for c in text:
        if unicodedata.category(c) in _HIDDEN_CATEGORIES:
            return c
    return None


def skill_name_problem(name: str) -> str | None:
    """Why a skill name cannot be kept (it would be a bad folder name or hides what it is), or None.

    Refused: path separators, '.' and '..', control, invisible and bidi characters, a name that
    Unicode normalisation (NFKC) changes (full-width letters, ligatures), a name Windows reserves
    for a device (CON, NUL, COM1, aux.txt...), one that ends with a dot, and one too long for a
    folder name.
    """
    for sep in ("/", "\\"):
        if sep in name:
            return f"holds a path separator ('{sep}')"
    if name in (".", ".."):
        return "is not a folder name"
    problem = _hidden_problem(name, "")
    if problem:
        return problem
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:
        return f"changes under Unicode normalisation (NFKC) to '{normal}'"
    problem = _windows_problem(name)
    if problem:
        return problem
    if name.endswith("."):
        return "ends with a dot, which Windows drops from a folder name"
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes, too long for a folder name"
    return None


def _windows_problem(part: str) -> str | None:
    if part.split(".", 1)[0].rstrip(" ").casefold() in _WINDOWS_RESERVED:
        return f"is a name Windows reserves for a device ('{part.split('.', 1)[0]}')"
    return None


def file_name_problem(part: str) -> str | None:
    """Why one component of a file path inside a skill cannot be kept, or None: control, invisible
    and bidi characters (which disguise a name, as U+202E does an extension), and names Windows
    reserves for a device."""
    return _hidden_problem(part, " in its name") or _windows_problem(part)


def _hidden_problem(text: str, where: str) -> str | None:
    """What hides in ``text``: a control, invisible or bidi character, or bytes that are not UTF-8."""
    hidden = _hidden_character(text)
    if hidden is None:
        return None
    if unicodedata.category(hidden) == "Cs":
        return "has a name that is not valid UTF-8" if where else "is not valid UTF-8"
    kind = "a control character" if unicodedata.category(hidden) == "Cc" else "an invisible character"
    return f"holds {kind}{where} ({_char_name(hidden)})"


def skeleton(name: str) -> str:
    """The name as it reads: look-alike letters of other scripts folded to Latin, invisible
    characters dropped, NFKC-normalised and case-folded."""
    if name.isascii():
        return name.casefold()
    folded = _INVISIBLE.sub("", unicodedata.normalize("NFKC", name)).translate(_FOLD)
    return unicodedata.normalize("NFKC", folded).casefold()


def _script(c: str) -> str | None:
    if not c.isalpha():
        return None
    return unicodedata.name(c, "UNKNOWN").split(" ", 1)[0]


def mixed_scripts(name: str) -> list[str]:
    """The scripts (LATIN, CYRILLIC, GREEK...) of a name's letters when Latin mixes with Cyrillic or
    Greek, which look alike; else an empty list."""
    if name.isascii():
        return []
    scripts = sorted({s for s in map(_script, name) if s})
    if "LATIN" in scripts and ({"CYRILLIC", "GREEK"} & set(scripts)):
        return scripts
    return []


class LookAlikes:
    """Skill names by skeleton, to find a new name that reads like a known, different one."""

    def __init__(self, names: Iterable[str] = ()):
        self._by_skeleton: dict[str, str] = {}
        for n in names:
            self.add(n)

    def add(self, name: str) -> None:
        self._by_skeleton.setdefault(skeleton(name), name)

    def near_collision(self, name: str) -> str | None:
        """A known name that reads like ``name`` but is another string (beyond case), or None."""
        other = self._by_skeleton.get(skeleton(name))
        if other is None or other == name or other.casefold() == name.casefold():
            return None
        return other

    @staticmethod
    def difference(name: str, other: str) -> str:
        """Where ``name`` differs from ``other``, e.g. "U+0430 CYRILLIC SMALL LETTER A where it has 'a'"."""
        if len(name) == len(other):
            for a, b in zip(name, other):
                if a != b and a.casefold() != b.casefold():
                    return f"{_char_name(a)} where it has '{b}'"
        odd = [c for c in name if not c.isascii()]
        return ", ".join(_char_name(c) for c in odd[:3]) or "other characters"
