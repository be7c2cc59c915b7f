"""Studio lints W001-W015: body length, references to missing files, descriptions, library names,
and the tool files beside SKILL.md (tools.yaml, sources.yaml)."""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from urllib.parse import unquote

from skill_studio.core.format.diagnostics import Diagnostic, Parsed, count_lines, info, warn
from skill_studio.core.format.fields import field_location, studio_fields
from skill_studio.core.format.names import skeleton
from skill_studio.core.format.tool_files import TOOL_FILES, check_tool_file

__all__ = ["MAX_BODY_LINES", "lint_body", "lint_data", "lint_tool_files"]

MAX_BODY_LINES = 500

_FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
# Inline links are found by one pass over '[', '](' and line ends (a pattern for the whole link
# backtracks to quadratic time on runs of brackets): see _link_targets.
_LINK_EVENT = re.compile(r"\]\(|\[|\n")
_SPACES = re.compile(r"\s{0,64}")
_TARGET_STOP = re.compile(r"[)\s]")
_ANGLE_STOP = re.compile(r"[>\n]")
_AFTER_TARGET = re.compile(r"""(?:\s{1,64}(?:"[^"\n]{0,512}"|'[^'\n]{0,512}'|\([^)\n]{0,512}\)))?\s{0,64}\)""")
_MAX_TARGET = 2048
_REF_DEF = re.compile(r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)", re.MULTILINE)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_SCRIPTS = re.compile(r"scripts/[^\s`'\"()\[\]<>{}*,;|]*")
# A scheme starts where a run of scheme characters starts (else every letter of a long word would
# be tried as a start, in quadratic time).
_URL = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://\S+")
_TOKEN_WINDOW = 256
_WHEN = re.compile(
    r"\b(use|uses|used|using|usage|when|whenever|if|for|trigger|triggers|triggered|invoke|invoked|"
    r"before|after|during|while|whether|need|needs|needed|ask|asks|asked|want|wants|request|"
    r"requests|requested|mention|mentions|mentioned|working|handling|dealing)\b")


def _prose_mask(body: str) -> str:
    """The body with fenced code blocks and inline code spans blanked (offsets kept)."""
    out = []
    fence: str | None = None
    for line in body.splitlines(keepends=True):
        m = _FENCE_RE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
            out.append(" " * len(line.rstrip("\r\n")) + line[len(line.rstrip("\r\n")):])
            continue
        if fence is not None:
            if m and m.group(1).startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            out.append(" " * len(line.rstrip("\r\n")) + line[len(line.rstrip("\r\n")):])
            continue
        out.append(_CODE_SPAN.sub(lambda c: " " * len(c.group(0)), line))
    return "".join(out)


class _NextStop:
    """The first position at or after ``pos`` of a character ``pattern`` matches (the text's length
    when none), for positions asked in increasing order: each character is looked at once."""

    def __init__(self, text: str, pattern: re.Pattern[str]):
        self.text, self.pattern, self.found = text, pattern, -1

    def __call__(self, pos: int) -> int:
        if pos > self.found:
            m = self.pattern.search(self.text, pos)
            self.found = m.start() if m else len(self.text)
        return self.found


def _link_targets(prose: str) -> Iterable[tuple[int, int]]:
    """Start and end of the target of each inline link ``[text](target "title")`` of the text, in
    linear time: a ``](`` after a ``[`` on the same line, a target of at most _MAX_TARGET characters
    (``<...>`` or without blanks and ``)``), an optional title, then ``)``."""
    run_end, angle_end = _NextStop(prose, _TARGET_STOP), _NextStop(prose, _ANGLE_STOP)
    closes: dict[int, bool] = {}
    opened = False
    for m in _LINK_EVENT.finditer(prose):
        token = m.group()
        if token != "](":
            opened = token == "["
            continue
        if not opened:
            continue
        opened = False
        spaces = _SPACES.match(prose, m.end())
        assert spaces is not None   # \s{0,64} matches the empty string too
        start = spaces.end()
        if prose.startswith("<", start):
            end = angle_end(start + 1)
            if end >= len(prose) or prose[end] != ">" or end - start > _MAX_TARGET:
                continue
            end += 1
        else:
            end = run_end(start)
            if end == start or end - start > _MAX_TARGET:
                continue
        if end not in closes:
            closes[end] = _AFTER_TARGET.match(prose, end) is not None
        if closes[end]:
            yield start, end


def _normalise_target(target: str) -> str | None:
    """A link target as a path inside the skill, or None when it is not one to check."""
    target = target.strip()
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1].strip()
    if not target or target.startswith(("#", "/", "~", "\\")) or _SCHEME.match(target):
        return None
    target = target.split("#", 1)[0].split("?", 1)[0]
    if not target:
        return None
    target = unquote(target).replace("\\", "/")
    if any(c in target for c in "{}<>$*"):
        return None
    norm = posixpath.normpath(target)
    if norm in (".", "") or norm == ".." or norm.startswith("../"):
        return None
    return norm


def _file_index(files: Collection[str]) -> tuple[set[str], set[str]]:
    paths = set()
    dirs = set()
    for f in files:
        p = posixpath.normpath(str(f).replace("\\", "/")).lstrip("/")
        if p.startswith("./"):
            p = p[2:]
        paths.add(p)
        parts = p.split("/")
        for i in range(1, len(parts)):
            dirs.add("/".join(parts[:i]))
    return paths, dirs


def _scripts_mentions(body: str) -> Iterable[tuple[int, str]]:
    cleaned = _URL.sub(lambda m: " " * len(m.group(0)), body)
    for m in _SCRIPTS.finditer(cleaned):
        start = m.start()
        before = cleaned[start - 1] if start else ""
        if before and (before.isalnum() or before in "_.-"):
            continue
        if before == "/":
            # Only paths rooted at the skill: './scripts/x', '{baseDir}/scripts/x', '$DIR/scripts/x'
            # (the word before is looked for in a window, so that many mentions stay linear).
            token = re.split(r"[\s`'\"(=]", cleaned[max(0, start - 1 - _TOKEN_WINDOW):start - 1])[-1]
            if token not in (".",) and not re.search(r"[}$]", token) and not token.endswith("}"):
                continue
        path = m.group(0).rstrip(".,:;/!?")
        yield start, path


def lint_body(body: str, body_line: int, files: Collection[str] | None) -> list[Diagnostic]:
    """W001 and W002 for a body that starts on SKILL.md line ``body_line``; W002 needs ``files``."""
    out: list[Diagnostic] = []
    n_lines = count_lines(body) + (1 if body and not body.endswith(("\n", "\r")) else 0)
    if n_lines > MAX_BODY_LINES:
        out.append(warn("W001", f"the body is {n_lines} lines, over the {MAX_BODY_LINES} that agents "
                                "load comfortably", body_line,
                        "move detail into referenced files (one level deep)"))
    if files is None:
        return out
    paths, dirs = _file_index(files)
    found: dict[str, int] = {}
    prose = _prose_mask(body)
    spans = [*_link_targets(prose), *((m.start(1), m.end(1)) for m in _REF_DEF.finditer(prose))]
    for start, end in spans:
        target = _normalise_target(body[start:end])
        if target is not None:
            found.setdefault(target, start)
    for pos, path in _scripts_mentions(body):
        norm = posixpath.normpath(path)
        found.setdefault(norm, pos)
    for target, pos in sorted(found.items(), key=lambda kv: kv[1]):
        if target in paths or target in dirs:
            continue
        line = body_line + count_lines(body[:pos])
        out.append(warn("W002", f"'{target}' is referenced in the body but the skill has no such file",
                        line, "add the file, or fix the path (relative to the skill folder)"))
    return out


def _fold(name: str) -> str:
    """The name with case, '_' and blanks, and letters of other scripts that look Latin, folded."""
    return re.sub(r"[\s_]+", "-", skeleton(name.strip()))


def lint_data(parsed: Parsed, folder_name: str | None,
              library_names: Collection[str] | None) -> list[Diagnostic]:
    """W003 for the description; W004-W007 when ``library_names`` is given."""
    out: list[Diagnostic] = []
    data = parsed.data or {}
    lines = parsed.key_lines
    desc = data.get("description")
    if isinstance(desc, str) and desc.strip():
        letters = [c for c in desc if c.isalpha()]
        ascii_share = sum(c.isascii() for c in letters) / len(letters) if letters else 0
        if ascii_share >= 0.5 and not _WHEN.search(desc.casefold()):
            out.append(info("W003", "the description says what the skill does but not when to use it",
                            lines.get("description"),
                            "add a sentence such as 'Use when ...' so agents know when to load it"))
    if library_names is None:
        return out
    value = data.get("name")
    own = unicodedata.normalize("NFKC", value.strip()) if isinstance(value, str) and value.strip() \
        else folder_name
    library = [n for n in library_names if isinstance(n, str)]
    names = set(library)
    itself = {own, folder_name} - {None}
    if own:
        key = _fold(own)
        similar = sorted({n for n in library if n not in itself and _fold(n) == key})
        if similar:
            out.append(warn("W004", f"'{own}' nearly duplicates {', '.join(repr(s) for s in similar)} in "
                                    "the library (same name once case, '_' and look-alike letters are "
                                    "folded)",
                            lines.get("name"), "rename one of them, or merge the skills"))
    folded: dict[str, str] = {}
    for n in library:
        folded.setdefault(_fold(n), n)
    fields = studio_fields(data)
    checks = (("depends_on", "W005", "depends on", warn),
              ("conflicts_with", "W006", "conflicts with", info),
              ("parent_skill_id", "W007", "names as its parent", warn))
    for field_name, code, verb, make in checks:
        value = fields.get(field_name)
        targets = value if isinstance(value, list) else ([value] if value else [])
        loc = field_location(data, field_name)
        line = None
        if loc is not None:
            line = lines.get(loc[1]) if loc[0] is None else (parsed.meta_lines.get(loc[1])
                                                              or lines.get("metadata"))
        for target in targets:
            if target in names or target in itself:
                continue
            near = folded.get(_fold(target))
            out.append(make(code, f"the skill {verb} '{target}', which is not in the library", line,
                            f"did you mean '{near}'?" if near else None))
    return out


def lint_tool_files(contents: Mapping[str, bytes | str]) -> list[Diagnostic]:
    """W008-W015 for the tool files among ``contents`` (paths in the skill folder to their bytes):
    each message starts with the file and line, as in 'tools.yaml:12: ...'."""
    out: list[Diagnostic] = []
    for path in TOOL_FILES:
        if path in contents:
            out.extend(p.as_diagnostic() for p in check_tool_file(path, contents[path]))
    return out
