"""The strict dialect's composed tree: the refusal it raises, one class per kind of node, and
SKILL.md positions of the YAML text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

import yaml

from skill_studio.core.format.strict_yaml_reader import Refusal, reference_text


class DialectError(Exception):
    """Frontmatter the strict dialect refuses.

    ``message`` is the reference validator's parser's own text where the reference
    refuses it too (see ``reference_text``); the studio's limits speak for
    themselves, giving positions as a ``Where`` formats them. ``hint`` says how to
    fix it, in the studio's words.
    """

    def __init__(self, message: str, line: int | None, column: int | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line        # 0-based, in the YAML text
        self.column = column    # 0-based
        self.hint = hint


def from_marked(e: yaml.MarkedYAMLError) -> DialectError:
    """A parser's error as the reference words it, placed at its problem (else its context);
    a ``Refusal`` keeps its explanation as the hint."""
    mark = e.problem_mark or e.context_mark
    return DialectError(reference_text(e.context, e.context_mark, e.problem, e.problem_mark, e.note),
                        None if mark is None else mark.line, None if mark is None else mark.column,
                        e.explanation if isinstance(e, Refusal) else None)


def _refused(context: str | None, context_mark: Any, problem: str, problem_mark: Any,
             hint: str | None = None, note: str | None = None, at: Any = None) -> DialectError:
    """The reference's refusal, placed at ``at`` (by default ``problem_mark``)."""
    at = at or problem_mark
    return DialectError(reference_text(context, context_mark, problem, problem_mark, note),
                        at.line, at.column, hint)


# The composed tree: one class per kind of node. Positions are 0-based, of the
# node's start in the YAML text.
@dataclass
class _Scalar:
    kind: ClassVar[Literal["scalar"]] = "scalar"
    line: int
    column: int
    value: str
    plain: bool = False  # a plain (unquoted) scalar
    start: Any = None    # the parser's marks (positions, with the text around them)
    end: Any = None


@dataclass
class _Seq:
    kind: ClassVar[Literal["seq"]] = "seq"
    line: int
    column: int
    items: list[_Node] = field(default_factory=list)
    start: Any = None
    end: Any = None


@dataclass
class _Map:
    kind: ClassVar[Literal["map"]] = "map"
    line: int
    column: int
    pairs: list[tuple[_Node, _Node]] = field(default_factory=list)  # (key, value), in order
    start: Any = None
    end: Any = None


_Node: TypeAlias = _Scalar | _Seq | _Map


def _is_merge_key(key: _Node) -> bool:
    return isinstance(key, _Scalar) and key.plain and key.value == "<<"


def _start(event: yaml.Event) -> Any:
    """Where an event starts (a parser's mark); both parsers give every event its position."""
    mark = event.start_mark
    if mark is None:  # pragma: no cover - the parsers mark every event
        raise DialectError(f"{type(event).__name__} without a position", None)
    return mark


class Where:
    """Formats 0-based positions of the YAML text as SKILL.md positions."""

    def __init__(self, first_line: int = 1, first_column: int = 1):
        self.first_line = first_line      # SKILL.md line of the YAML text's first line
        self.first_column = first_column  # SKILL.md column of its first character

    def line(self, line0: int) -> int:
        return self.first_line + line0

    def __call__(self, line0: int, column0: int) -> str:
        column = column0 + (self.first_column if line0 == 0 else 1)
        return f"line {self.line(line0)}, column {column}"
