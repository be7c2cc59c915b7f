"""The strict dialect's checks on a composed tree (merge keys, duplicate keys, indentation, in the
order the reference builds its data) and the data it gives."""

from __future__ import annotations

from typing import Any, TypeAlias

from skill_studio.core.format.strict_yaml_tree import DialectError, _is_merge_key, _Map, _Node, _refused, _Scalar, _Seq


def _check_mappings(root: _Node) -> None:
    """Merge keys, duplicate keys and indentation, in the order the reference builds its data.

    The reference builds the top-level collection, and each mapping merged into
    it, after the rest; everything inside them at once, depth first (the depth is
    bounded by ``MAX_DEPTH``). A mapping's merge keys are taken before its keys;
    each key is checked after its value is built; the indentation of a mapping's
    values last.
    """
    later: list[_Node] = [root]
    while later:
        batch, later = later, []
        for node in batch:
            _build(node, False, later)


_CONTEXT = "while constructing a mapping"
_DUPLICATE_NOTE = """
    To suppress this check see:
       http://yaml.readthedocs.io/en/latest/api.html#duplicate-keys
    """


def _build(node: _Node, deep: bool, later: list[_Node]) -> None:
    if isinstance(node, _Seq):
        for item in node.items:
            if deep:
                _build(item, True, later)
            elif not isinstance(item, _Scalar):
                later.append(item)
        return
    if not isinstance(node, _Map):
        return
    merged = False
    pairs: list[tuple[_Node, _Node]] = []
    for key, value in node.pairs:
        if not _is_merge_key(key):
            pairs.append((key, value))
            continue
        if merged:
            raise _refused(_CONTEXT, node.start, 'found duplicate key "<<"', key.start,
                           "a mapping can have one merge key '<<'", _DUPLICATE_NOTE)
        sources = value.items if isinstance(value, _Seq) else [value]
        if not isinstance(value, (_Seq, _Map)):
            raise _refused(_CONTEXT, node.start, "expected a mapping or list of mappings for merging, but "
                           f"found {_KIND_NAMES[value.kind]}", value.start, _MERGE_HINT)
        for src in sources:
            if not isinstance(src, _Map):
                raise _refused(_CONTEXT, node.start, f"expected a mapping for merging, but found "
                               f"{_KIND_NAMES[src.kind]}", src.start, _MERGE_HINT)
            if deep:
                _build(src, True, later)
            else:
                later.append(src)
        merged = True
    seen: set[Any] = set()
    for key, value in pairs:
        _build(key, True, later)
        name = _key_value(key)
        if name is None:
            raise _refused(_CONTEXT, node.start, "found unhashable key", key.start, "write keys as text")
        _build(value, True, later)
        if name in seen:
            raise _refused("While parsing", key.start, f"Duplicate key '{name}' found", key.end,
                           f"remove one of the '{name}' keys" if isinstance(name, str) else None, at=key.start)
        seen.add(name)
    first: int | None = None
    for _, value in pairs:
        if isinstance(value, _Map):
            first = value.column if first is None else first
            if value.column != first:
                raise _refused("While parsing", value.start, "Found mapping with indentation inconsistent "
                               "with previous mapping", value.end,
                               "indent the mappings that are values of one mapping alike", at=value.start)


_MERGE_HINT = "the merge key '<<' needs a mapping or a list of mappings"


def _key_value(key: _Node) -> Any:
    """A key as the reference compares keys: text, a list as a tuple; None when it cannot be a key."""
    if isinstance(key, _Scalar):
        return key.value
    if isinstance(key, _Seq) and all(isinstance(item, _Scalar) for item in key.items):
        return tuple(item.value for item in key.items if isinstance(item, _Scalar))
    return None


_KIND_NAMES: dict[str, str] = {"scalar": "scalar", "map": "mapping", "seq": "sequence"}


class _TaggedScalar:
    """A plain '<<' or '=' used as a value: the reference reads these as tagged objects, not text."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"_TaggedScalar({self.text!r})"


# The data a tree reads as (before ``_check_mappings`` no key is guaranteed to be text).
_Data: TypeAlias = "str | _TaggedScalar | list[_Data] | dict[str, _Data]"


def _to_data(node: _Node, top: bool = False) -> _Data:
    if isinstance(node, _Scalar):
        if node.plain and node.value in ("<<", "="):
            return _TaggedScalar(node.value)
        return node.value
    if isinstance(node, _Seq):
        return [_to_data(item) for item in node.items]
    return _map_to_data(node, top)


def _map_to_data(node: _Map, top: bool = False) -> dict[str, _Data]:
    """A mapping's data; merged keys are filled in unless ``top`` (``_check_mappings`` vetted the tree)."""
    out: dict[str, _Data] = {}
    merges: list[_Node] = []
    for key, value in node.pairs:
        if _is_merge_key(key):
            merges.extend(value.items if isinstance(value, _Seq) else [value])
            continue
        if not isinstance(key, _Scalar):  # the reference fails on a list as a key
            raise DialectError(f"a {_KIND_NAMES[key.kind]} cannot be a mapping key (line {key.line + 1})",
                               key.line, key.column, "write keys as text")
        out[key.value] = _to_data(value)
    for src in merges if not top else []:
        if isinstance(src, _Map):
            for k, v in _map_to_data(src).items():
                out.setdefault(k, v)
    return out
