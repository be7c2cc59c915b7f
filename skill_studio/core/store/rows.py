"""How skills map to rows: filters, sort keys, JSON columns, hashes and search queries."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from dataclasses import MISSING, dataclass, fields
from typing import Any

from skill_studio.core.model import LIFECYCLE_TERMS, UNSEARCHED_STATES, Lifecycle, Origin, Skill, SkillFile, TrustTier
from skill_studio.core.store.errors import StoreError


@dataclass(frozen=True)
class Filters:
    """What a list, a count or a stats query is restricted to."""

    lifecycle: str | None = None
    origin: str | None = None
    tag: str | None = None
    text: str | None = None


@dataclass(frozen=True)
class VersionInfo:
    version: int
    author: str
    note: str
    created_at: str
    content_hash: str


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: str
    actor: str
    skill: str
    action: str
    from_value: str | None
    to_value: str | None
    reason: str


def searched(column: str) -> str:
    """SQL condition on a lifecycle ``column``: the skill takes part in neighbour and duplicate searches."""
    return f"{column} NOT IN ({', '.join(repr(s.value) for s in sorted(UNSEARCHED_STATES))})"


SORT_COLUMNS = {
    "name": "c.name COLLATE NOCASE",
    "lifecycle": "CASE c.lifecycle " + " ".join(f"WHEN '{s.value}' THEN {t.rank}" for s, t in LIFECYCLE_TERMS.items())
                 + f" ELSE {len(LIFECYCLE_TERMS)} END",
    "trust": "c.trust_tier",
    "origin": "c.origin",
    "success": "c.success_rate",
    "utility": "c.utility_score",
    "freshness": "c.freshness",
    "last_used": "c.last_used_at",
    "updated": "c.updated_at",
    "created": "c.created_at",
    "version": "c.version",
}

#: The columns of skill_cards: what a card, a list row or a count needs.
CARD_COLUMNS = ["name", "description", "trigger_pattern", "origin", "lifecycle", "trust_tier", "version",
                "success_rate", "utility_score", "freshness", "last_used_at", "depends_on",
                "conflicts_with", "parent_skill_id", "tags", "created_at", "updated_at", "use_count",
                "pinned", "lifecycle_reason", "folder_name", "content_hash"]

_JSON_COLUMNS = {"steps", "depends_on", "conflicts_with", "tags", "metadata", "extra"}
_SKILL_COLUMNS = [f.name for f in fields(Skill) if f.name not in ("skill_md", "files")]
ROW_COLUMNS = _SKILL_COLUMNS + ["head"]
INSERT_ROW_HEAD = f"INSERT INTO procedural_memory ({', '.join(ROW_COLUMNS)})"



def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


def blob_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_hash(skill_md: str, files: Iterable[SkillFile]) -> str:
    """A hash of SKILL.md and every file beside it (path, mode, bytes)."""
    h = hashlib.sha256(skill_md.encode("utf-8"))
    for f in sorted(files, key=lambda f: f.path):
        h.update(b"\0" + f.path.encode() + b"\0" + str(f.mode & 0o777).encode() + b"\0")
        h.update(blob_hash(f.data).encode())
    return h.hexdigest()


def fts_query(text: str) -> str | None:
    """A safe FTS5 query for what a user typed: every word must appear, the last as a prefix."""
    words = [w for w in "".join(c if c.isalnum() else " " for c in text).split() if w]
    if not words:
        return None
    terms = [f'"{w}"' for w in words]
    if text and text[-1].isalnum():
        terms[-1] += "*"
    return " AND ".join(terms)


def name_tier_sql(text: str, column: str) -> str:
    """An SQL expression ranking how well the name in ``column`` matches what a user typed, for a
    relevance order: 0 the name itself, 1 a name that starts with it, 2 a name with a word that
    starts with it, 3 a name holding it anywhere, 4 a match elsewhere (description, body, tags).
    The typed words are joined with hyphens, the way skill names join theirs."""
    words = [w for w in "".join(c if c.isalnum() else " " for c in text.casefold()).split() if w]
    if not words:
        return "4"
    wanted = "'" + "-".join(words).replace("'", "''") + "'"   # letters, digits and hyphens only
    name = f"lower({column})"
    return (f"CASE WHEN {name} = {wanted} THEN 0 WHEN substr({name}, 1, length({wanted})) = {wanted} THEN 1 "
            f"WHEN instr('-' || {name}, '-' || {wanted}) > 0 THEN 2 WHEN instr({name}, {wanted}) > 0 THEN 3 "
            "ELSE 4 END")


def row_values(s: Skill) -> tuple[Any, ...]:
    """The procedural_memory row of a skill, in ROW_COLUMNS order."""
    head = s.skill_md[: len(s.skill_md) - len(s.content)] if s.content else s.skill_md
    if head + s.content != s.skill_md:
        raise StoreError(f'"{s.name}": the body is not the end of its SKILL.md text')
    values = []
    for c in _SKILL_COLUMNS:
        v = getattr(s, c)
        if c in _JSON_COLUMNS:
            v = to_json(v) if v else ("{}" if c in ("metadata", "extra") else "[]")
        elif c in ("origin", "lifecycle"):
            v = v.value if isinstance(v, (Origin, Lifecycle)) else (Origin(v).value if c == "origin"
                                                                    else Lifecycle(v).value)
        elif c in ("trust_tier", "pinned"):
            v = int(v)
        values.append(v)
    values.append(head)
    return tuple(values)


_LIFECYCLES = {s.value: s for s in Lifecycle}
_ORIGINS = {o.value: o for o in Origin}
_TIERS = {int(t): t for t in TrustTier}
_EMPTY_JSON = {"[]": list, "{}": dict}


def json_names(text: str) -> list[Any]:
    """A JSON list as ``json.loads`` reads it, quicker for what the store writes for names and
    tags: strings without escapes, joined with no spaces (``["a","b"]``)."""
    if text == "[]":
        return []
    if text[:2] == '["' and text[-2:] == '"]' and "\\" not in text and text.isprintable():
        names = text[2:-2].split('","')
        if text.count('"') == 2 * len(names):   # every quote opens or closes one of the strings
            return names
    return json.loads(text)


def _card_fields(row: tuple[Any, ...]) -> dict[str, Any]:
    """The Skill fields of a tuple of CARD_COLUMNS, decoded as ``skill_from_row`` decodes them."""
    values = dict(zip(CARD_COLUMNS, row))
    values["origin"] = _ORIGINS[values["origin"]]
    values["lifecycle"] = _LIFECYCLES[values["lifecycle"]]
    values["trust_tier"] = _TIERS[values["trust_tier"]]
    values["pinned"] = bool(values["pinned"])
    for column in ("depends_on", "conflicts_with", "tags"):
        values[column] = json_names(values[column])
    return values


class _CardField:
    """A card field of a SkillCard. The first read of any of them decodes every card field of the
    row onto the instance, whose own attributes are found first from then on; a field set
    before that keeps the value it was given. The name is read alone: it is all that a
    lookup by name needs."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __get__(self, card: Any, owner: type | None = None) -> Any:
        if card is None:
            return self
        values = _card_fields(card._row)
        values.update(card.__dict__)
        card.__dict__.update(values)
        return values[self.name]


class _CardName:
    """The name of a SkillCard, read alone from its row."""

    __slots__ = ()

    def __get__(self, card: Any, owner: type | None = None) -> Any:
        if card is None:
            return self
        card.__dict__["name"] = name = card._row[0]
        return name


class _EmptyList:
    """A list or dict a card leaves empty (steps, metadata, files): a new one for each card, made
    when first read and kept on the instance, so that changes to it stay."""

    __slots__ = ("name", "make")

    def __init__(self, name: str, make: Any):
        self.name, self.make = name, make

    def __get__(self, card: Any, owner: type | None = None) -> Any:
        if card is None:
            return self
        card.__dict__[self.name] = value = self.make()
        return value


class SkillCard(Skill):
    """A skill's card read from a skill_cards row: the same fields and values as ``skill_from_row``
    gives for that row (the body, SKILL.md text, metadata and files empty), decoded only when
    one is first read. A page of cards costs little more than fetching its rows; a view decodes
    the cards it shows. Equal to a Skill with the same fields, like a Skill."""

    __slots__ = ("_row",)
    _row: tuple[Any, ...]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Skill):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _FIELD_NAMES)

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(Skill) if f.repr)
        return f"Skill({shown})"


_FIELD_NAMES = [f.name for f in fields(Skill)]
if CARD_COLUMNS[0] != "name":
    raise RuntimeError("CARD_COLUMNS must begin with the name: SkillCard and Queries.cards read it first")
for _field in fields(Skill):
    if _field.name == "name":
        SkillCard.name = _CardName()  # type: ignore[assignment]
    elif _field.name in CARD_COLUMNS:
        setattr(SkillCard, _field.name, _CardField(_field.name))
    elif _field.default is MISSING:   # a list or dict made for each skill; other defaults are Skill's own
        setattr(SkillCard, _field.name, _EmptyList(_field.name, _field.default_factory))
_new_card = object.__new__


def card_from_tuple(row: tuple[Any, ...]) -> Skill:
    """The card of a skill from a tuple of CARD_COLUMNS, in that order (see SkillCard)."""
    card = _new_card(SkillCard)
    card._row = row
    return card


def skill_from_row(row: sqlite3.Row) -> Skill:
    """A Skill from a procedural_memory or skill_cards row (whatever columns it has)."""
    values: dict[str, Any] = {}
    for k, v in zip(row.keys(), row):
        if k in _JSON_COLUMNS:
            empty = _EMPTY_JSON.get(v)
            v = empty() if empty else json_names(v)
        values[k] = v
    head = values.pop("head", None)
    values["origin"] = _ORIGINS[values["origin"]]
    values["lifecycle"] = _LIFECYCLES[values["lifecycle"]]
    values["trust_tier"] = _TIERS[values["trust_tier"]]
    values["pinned"] = bool(values["pinned"])
    skill = Skill(**values)
    if head is not None:
        skill.skill_md = head + skill.content
    return skill
