"""A tool's parameters checked as JSON Schema: the list of parameter entries tools.yaml allows, or
a schema of the input object, against the meta-schema (Draft 2020-12 unless ``$schema`` names
another draft), with each default checked against its own schema."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["PARAMETER_TYPES", "ParamProblem", "check_parameters"]

_JSON_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
#: The types a parameter entry may have: JSON Schema's, and ``path`` (text naming a file).
PARAMETER_TYPES = (*_JSON_TYPES, "path")
_ENTRY_ONLY = ("name", "required")
_MAX_SHOWN = 120
# Keywords whose checking may reach outside the file ($ref) or take unbounded time (patterns on
# long defaults): a default under them is not checked.
_UNCHECKED = frozenset({"$ref", "$dynamicRef", "pattern", "patternProperties", "$recursiveRef"})


@dataclass(frozen=True)
class ParamProblem:
    """One problem of a tool's parameters: the path inside the parameters value (list indexes and
    keys), the message, the kind ('schema', 'shape' or 'description') and a fix hint."""

    path: tuple[Any, ...]
    message: str
    kind: str = "schema"
    hint: str | None = None


def check_parameters(value: Any) -> list[ParamProblem]:
    """The problems of a tool's parameters (a list of entries or a JSON Schema object)."""
    if value is None:
        return []
    if isinstance(value, list):
        return _entries(value)
    if isinstance(value, dict):
        return _schema(value)
    return [ParamProblem((), "the parameters must be a list of parameters or a JSON Schema object", "shape")]


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "…"


def _entries(entries: list[Any]) -> list[ParamProblem]:
    out: list[ParamProblem] = []
    properties: dict[str, Any] = {}
    where: dict[str, int] = {}
    for j, entry in enumerate(entries):
        if not isinstance(entry, dict):
            out.append(ParamProblem((j,), f"parameter {j + 1} is not a mapping with name, type and description",
                                    "shape"))
            continue
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            out.append(ParamProblem((j, "name"), f"parameter {j + 1} has no name", "shape"))
            continue
        label = f"parameter '{name}'"
        if name in where:
            out.append(ParamProblem((j, "name"), f"{label} is given twice", "shape"))
            continue
        where[name] = j
        kind = entry.get("type")
        if kind is None:
            out.append(ParamProblem((j,), f"{label} has no type", "shape",
                                    f"add 'type:', one of {', '.join(PARAMETER_TYPES)}"))
        elif isinstance(kind, str) and kind not in PARAMETER_TYPES:
            out.append(ParamProblem((j, "type"), f"{label} has the type '{kind}', which is not one of "
                                                 f"{', '.join(PARAMETER_TYPES)}", "shape"))
            continue
        if "required" in entry and not isinstance(entry["required"], bool):
            out.append(ParamProblem((j, "required"), f"{label}: required must be true or false", "shape"))
        desc = entry.get("description")
        if not isinstance(desc, str) or not desc.strip():
            out.append(ParamProblem((j,), f"{label} has no description", "description",
                                    "say what the value is and which values are allowed"))
        schema = {k: v for k, v in entry.items() if k not in _ENTRY_ONLY}
        if kind == "path":
            schema["type"] = "string"
        properties[name] = schema
    schema_problems = _meta_problems({"type": "object", "properties": properties})
    for path, message in schema_problems:
        if len(path) >= 2 and path[0] == "properties" and path[1] in where:
            out.append(ParamProblem((where[path[1]], *path[2:]), f"parameter '{path[1]}': {message}"))
        else:  # pragma: no cover - every entry's problems are below its own property
            out.append(ParamProblem((), message))
    if not schema_problems:
        for name, schema in properties.items():
            out.extend(ParamProblem((where[name], "default"), f"parameter '{name}': the default {m}")
                       for m in _default_problems(schema))
    return out


def _schema(schema: dict[str, Any]) -> list[ParamProblem]:
    problems = _meta_problems(schema)
    out = [ParamProblem(path, f"parameters{_pointer(path)}: {message}") for path, message in problems]
    if schema.get("type") != "object":
        out.append(ParamProblem(("type",) if "type" in schema else (),
                                "the parameters' schema must describe an object (type: object)",
                                hint="a tool takes an object of named arguments: 'type: object' with "
                                     "'properties' and 'required'"))
    props = schema.get("properties")
    required = schema.get("required")
    if isinstance(props, dict) and isinstance(required, list):
        for i, name in enumerate(required):
            if isinstance(name, str) and name not in props:
                out.append(ParamProblem(("required", i), f"'{name}' is required but not among the properties",
                                        hint="add it under 'properties', or remove it from 'required'"))
    if not problems and isinstance(props, dict):
        for name, sub in props.items():
            if isinstance(sub, dict):
                out.extend(ParamProblem(("properties", name, "default"),
                                        f"parameter '{name}': the default {m}") for m in _default_problems(sub))
    return out


def _pointer(path: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _meta_problems(schema: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    """Every place where ``schema`` breaks its meta-schema, with a message."""
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    cls = validator_for(schema, default=Draft202012Validator)
    meta = validator_for(cls.META_SCHEMA, default=cls)
    checker = meta(cls.META_SCHEMA, format_checker=meta.FORMAT_CHECKER)
    out = []
    for error in sorted(checker.iter_errors(schema), key=lambda e: [str(p) for p in e.absolute_path]):
        path = tuple(error.absolute_path)
        if path and path[-1] == "type" and error.validator == "anyOf":
            message = (f"{_shown(error.instance)} is not a JSON Schema type ({', '.join(_JSON_TYPES)}, "
                       "or a list of them)")
        elif error.validator == "format" and error.validator_value == "regex":
            message = f"{_shown(error.instance)} is not a valid regular expression"
        else:
            message = error.message if len(error.message) <= 2 * _MAX_SHOWN else \
                error.message[:2 * _MAX_SHOWN] + "…"
        out.append((path, message))
    return out


def _default_problems(schema: dict[str, Any]) -> list[str]:
    """What is wrong with the schema's default under the schema itself."""
    if "default" not in schema or _has_unchecked(schema):
        return []
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for
    from referencing import Registry

    cls = validator_for(schema, default=Draft202012Validator)
    rest = {k: v for k, v in schema.items() if k != "default"}
    validator = cls(rest, registry=Registry())   # an empty registry: nothing is fetched
    return [e.message if len(e.message) <= 2 * _MAX_SHOWN else e.message[:2 * _MAX_SHOWN] + "…"
            for e in validator.iter_errors(schema["default"])][:3]


def _has_unchecked(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if _UNCHECKED.intersection(item):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
