"""A small YAML file beside SKILL.md read safely, with the line of each of its values, and the
problems found in it (each with the file and line), for checks that report where things are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from skill_studio.core.format.diagnostics import Diagnostic, Severity
from skill_studio.core.format.yaml_guard import YamlBoundError, check_bounds, disallowed_character

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]  # the C class's pure-Python twin

__all__ = ["FileProblem", "LineReport", "YamlPath", "read_yaml"]

#: Where a value is: the keys and list indexes leading to it from the top.
YamlPath = tuple[Any, ...]


@dataclass(frozen=True)
class FileProblem:
    """One finding in a file beside SKILL.md: the file's path in the skill, its 1-based line (None
    for the whole file), a code as in ``validate``, the severity, the message and a fix hint."""

    file: str
    line: int | None
    code: str
    severity: Severity
    message: str
    hint: str | None = None

    @property
    def where(self) -> str:
        """'tools.yaml:12', or the file alone."""
        return self.file if self.line is None else f"{self.file}:{self.line}"

    def as_diagnostic(self) -> Diagnostic:
        """The problem as a diagnostic of the skill: the message names the file and line (the
        diagnostic's own line is SKILL.md's, so it is left empty)."""
        return Diagnostic(self.code, self.severity, f"{self.where}: {self.message}", None, self.hint)


class LineReport:
    """The problems of one file and the lines of its values, by path."""

    def __init__(self, file: str):
        self.file = file
        self.last_line: int | None = None   # the text's last line, once it is known
        self.lines: dict[YamlPath, int] = {}
        self.problems: list[FileProblem] = []

    def line(self, path: YamlPath) -> int | None:
        """The line of the value at ``path``, or of the nearest value holding it."""
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path)

    def add(self, code: str, severity: Severity, message: str, at: YamlPath | int | None = (),
            hint: str | None = None) -> None:
        """A problem at the value ``at`` (a path), at a line, or of the whole file (None)."""
        line = self.line(at) if isinstance(at, tuple) else at
        if line is not None and self.last_line is not None:
            line = min(line, self.last_line)   # YAML puts the end of the text after its last line
        self.problems.append(FileProblem(self.file, line, code, severity, message, hint))

    def done(self, limit: int, code: str) -> list[FileProblem]:
        """The problems by line, at most ``limit`` of them and then one ``code`` counting the rest."""
        kept = sorted(self.problems, key=lambda p: p.line or 0)
        if len(kept) > limit:
            kept = [*kept[:limit], FileProblem(self.file, None, code, Severity.WARNING,
                                               f"{len(kept) - limit} more problems are not listed")]
        return kept


def read_yaml(data: bytes | str, report: LineReport, *, code: str, twice_code: str, max_bytes: int,
              max_values: int) -> tuple[bool, Any]:
    """(True, the data) of a YAML file, with the lines of its values recorded in ``report`` and a
    ``twice_code`` warning for each key given twice in a mapping; (False, None) with a ``code`` warning naming the
    line when the file is over ``max_bytes``, not UTF-8, not YAML, or over the bounds."""
    text = _decode(data, report, code, max_bytes)
    if text is None:
        return False, None
    report.last_line = max(1, len(text.splitlines()))
    try:
        check_bounds(text, max_values=max_values, what=report.file)
    except YamlBoundError as e:
        report.add(code, Severity.WARNING, str(e), e.line + 1, "make the file flatter and smaller")
        return False, None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        value = None if node is None else loader.construct_document(node)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        problem = getattr(e, "problem", None) or str(e)
        report.add(code, Severity.WARNING, f"is not valid YAML: {problem}",
                   None if mark is None else mark.line + 1, "fix the YAML at that line")
        return False, None
    finally:
        loader.dispose()
    if node is not None:
        _record_lines(node, report, twice_code)
    return True, value


def _decode(data: bytes | str, report: LineReport, code: str, max_bytes: int) -> str | None:
    size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    if size > max_bytes:
        report.add(code, Severity.WARNING, f"is {size:,} bytes, over the {max_bytes // 1024:,} KiB that "
                   "is checked", None, "split it, or keep it shorter")
        return None
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            report.add(code, Severity.WARNING, f"is not UTF-8 text (byte 0x{data[e.start]:02x})",
                       data[:e.start].count(b"\n") + 1, "save the file as UTF-8")
            return None
    else:
        text = data
    text = text.removeprefix("\ufeff")
    bad = disallowed_character(text)
    if bad is not None:
        report.add(code, Severity.WARNING, f"has a character YAML does not allow (U+{ord(bad[0]):04X})",
                   bad[1] + 1, "remove that character")
        return None
    return text


def _record_lines(root: yaml.Node, report: LineReport, code: str) -> None:
    stack: list[tuple[yaml.Node, YamlPath]] = [(root, ())]
    seen: set[int] = set()
    while stack:
        node, path = stack.pop()
        report.lines.setdefault(path, node.start_mark.line + 1)
        if id(node) in seen:   # an alias: its values were recorded where it is anchored
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, (*path, i)) for i, child in enumerate(node.value))
        elif isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode):
                    continue
                if key.value in keys:
                    report.add(code, Severity.WARNING, f"the key '{key.value}' is given twice in one "
                               "mapping (the last one wins)", key.start_mark.line + 1, "remove one of them")
                keys.add(key.value)
                report.lines[(*path, key.value)] = key.start_mark.line + 1
                stack.append((value, (*path, key.value)))
