"""The lenient profile: SKILL.md loaded as agents load it, warning about what the strict profile refuses."""

from __future__ import annotations

import re
import unicodedata

import yaml

from skill_studio.core.format.diagnostics import Diagnostic, Parsed, err, info, warn
from skill_studio.core.format.skillmd import (
    SkillDocument,
    SkillParseError,
    compose_yaml,
    decode,
    parse_document,
    quote_scalar_double,
    split,
)
from skill_studio.core.format.strict import (
    ALLOWED_FIELDS,
    MAX_COMPATIBILITY_LENGTH,
    MAX_DESCRIPTION_LENGTH,
    MAX_NAME_LENGTH,
    MSG_NO_FRONTMATTER,
    MSG_NOT_CLOSED,
    MSG_NOT_MAPPING,
)

__all__ = ["check_lenient"]

_MAX_LISTED_KEYS = 20  # keys named in one message; the rest are counted

_PARSE_CODES = {
    MSG_NO_FRONTMATTER: "L001",
    MSG_NOT_CLOSED: "L002",
    MSG_NOT_MAPPING: "L004",
}


def _suggest_name(name: str) -> str:
    slug = re.sub(r"[^\w]+|_", "-", unicodedata.normalize("NFKC", name).lower()).strip("-")
    return re.sub(r"-{2,}", "-", slug)[:MAX_NAME_LENGTH].strip("-")


def _key_lines(fm_text: str, first_line: int,
               root: yaml.Node | None = None) -> tuple[dict[str, int], dict[str, int], list[tuple[str, int]]]:
    """Lines of the top-level and metadata keys, and the repeated keys (dotted) with their lines."""
    if root is None:
        try:
            root = compose_yaml(fm_text, None, first_line)
        except SkillParseError:
            return {}, {}, []
    lines: dict[str, int] = {}
    meta: dict[str, int] = {}
    repeated: list[tuple[str, int]] = []

    def collect(node: yaml.MappingNode, into: dict[str, int], prefix: str) -> None:
        for k, _ in node.value:
            if isinstance(k, yaml.ScalarNode):
                line = first_line + k.start_mark.line
                if k.value in into:
                    repeated.append((prefix + k.value, line))
                into.setdefault(k.value, line)

    if isinstance(root, yaml.MappingNode):
        collect(root, lines, "")
        for k, v in root.value:
            if isinstance(k, yaml.ScalarNode) and k.value == "metadata" and isinstance(v, yaml.MappingNode):
                collect(v, meta, "metadata.")
    return lines, meta, repeated


def check_lenient(raw: bytes | str, folder_name: str | None, path: str | None,
                  document: SkillDocument | None = None) -> tuple[list[Diagnostic], Parsed | None]:
    """The lenient profile's diagnostics for SKILL.md content, and what it read (None when unsplit).

    ``document`` is the same content already parsed by ``parse_document``: it is not parsed again.
    """
    where = path or "SKILL.md"
    text: str | None = None   # the decoded text, once decoded
    try:
        if document is not None:
            doc = document
        else:
            text = decode(bytes(raw), path) if isinstance(raw, (bytes, bytearray)) else raw
            doc = parse_document(text, path)
    except SkillParseError as e:
        code = _PARSE_CODES.get(e.message)
        if code is None:
            code = "L003" if e.message.lower().startswith("invalid yaml") else "L005"
        loc = where
        if e.line is not None:
            loc += f":{e.line}"
            if e.column is not None:
                loc += f":{e.column}"
        parsed = None
        if code in ("L003", "L004") and text is not None:   # (parse_document's: the text was decoded)
            try:
                d = split(text, path)
                parsed = Parsed(body=d.body, body_line=d.body_line)
            except SkillParseError:  # pragma: no cover - parse_document split it already
                parsed = None
        return [err(code, f"{loc}: {e.message}", e.line, e.hint)], parsed

    data = doc.data
    lines, meta_lines, repeated = _key_lines(doc.frontmatter_text, doc.frontmatter_line, doc.node)
    fence_line = doc.frontmatter_line - 1
    parsed = Parsed(data=data, key_lines=lines, meta_lines=meta_lines, body=doc.body,
                    body_line=doc.body_line)
    out: list[Diagnostic] = []
    if doc.prefix:
        what = "a byte-order mark" if doc.prefix.startswith("\ufeff") and not doc.prefix[1:] else (
            "a byte-order mark and blank lines" if doc.prefix.startswith("\ufeff") else "blank lines")
        out.append(warn("L008", f"{what} before the opening '---'; the strict profile refuses the file",
                        1, "start the file with '---' on its first line"))
    for key, line in repeated:
        out.append(warn("L009", f"key '{key}' appears more than once; the last value is used", line,
                        "remove the old line"))

    # name
    name_line = lines.get("name")
    value = data.get("name")
    name: str | None = None
    if value is None or (isinstance(value, str) and not value.strip()):
        used = f"; the folder name '{folder_name}' is used" if folder_name else ""
        what = "has no name" if "name" not in data else "has an empty name"
        out.append(warn("L010", f"the frontmatter {what}{used}", name_line or fence_line,
                        f"add name: {folder_name}" if folder_name else None))
    elif isinstance(value, (dict, list, bytes, bytearray)):
        used = f"; the folder name '{folder_name}' is used" if folder_name else ""
        what = "binary data" if isinstance(value, (bytes, bytearray)) else "a list" if isinstance(value, list) \
            else "a mapping"
        out.append(warn("L011", f"name is {what}, not text{used}", name_line,
                        f"name: {folder_name}" if folder_name else None))
    else:
        if not isinstance(value, str):
            out.append(warn("L011", f"name is not text; it is read as '{value}'", name_line,
                            f"quote it: name: {quote_scalar_double(str(value))}"))
        name = unicodedata.normalize("NFKC", str(value).strip())
        if isinstance(value, str) and value != name:
            changes = []
            if value != value.strip():
                changes.append("its surrounding spaces are ignored")
            if value.strip() != name:
                changes.append("it is read in NFKC form")
            out.append(info("L019", f"name {value!r} is read as '{name}': {' and '.join(changes)}",
                            name_line, f"name: {name}"))
    if name is not None:
        if len(name) > MAX_NAME_LENGTH:
            out.append(warn("L012", f"name '{name}' is {len(name)} characters, over the "
                                    f"{MAX_NAME_LENGTH}-character limit", name_line))
        problems = []
        if name != name.lower():
            problems.append("uppercase letters")
        if any(c.isspace() for c in name):
            problems.append("spaces")
        if "_" in name:
            problems.append("underscores")
        if any(not (c.isalnum() or c in "-_" or c.isspace()) for c in name):
            problems.append("other characters than letters, digits and hyphens")
        if name.startswith("-") or name.endswith("-"):
            problems.append("a leading or trailing hyphen")
        if "--" in name:
            problems.append("consecutive hyphens")
        if problems:
            suggestion = _suggest_name(name)
            out.append(warn("L013", f"name '{name}' has {', '.join(problems)}; the strict "
                                    "format wants lowercase letters, digits and single hyphens",
                            name_line, f"name: {suggestion}" if suggestion else None))
        if folder_name is not None and unicodedata.normalize("NFKC", folder_name) != name:
            out.append(warn("L014", f"name '{name}' differs from its folder '{folder_name}'",
                            name_line, "rename the folder or the skill so that they match"))

    # description
    desc_line = lines.get("description")
    if "description" not in data:
        out.append(err("L006", f"{where}:{fence_line}: the frontmatter has no description; agents "
                               "cannot tell when to use the skill", fence_line,
                       "add description: <what the skill does and when to use it>"))
    else:
        desc = data["description"]
        if desc is None or (isinstance(desc, str) and not desc.strip()):
            out.append(err("L007", f"{where}:{desc_line}: description is empty", desc_line,
                           "say what the skill does and when to use it"))
        elif isinstance(desc, (dict, list)):
            out.append(err("L007", f"{where}:{desc_line}: description must be text, not a "
                                   f"{'mapping' if isinstance(desc, dict) else 'list'}", desc_line,
                           "quote the whole description"))
        else:
            if not isinstance(desc, str):
                out.append(warn("L015", f"description is not text; it is read as '{desc}'",
                                desc_line))
            text_desc = str(desc)
            if len(text_desc) > MAX_DESCRIPTION_LENGTH:
                out.append(warn("L016", f"description is {len(text_desc)} characters, over "
                                        f"the {MAX_DESCRIPTION_LENGTH}-character limit", desc_line))

    # compatibility, metadata
    if "compatibility" in data:
        comp = data["compatibility"]
        comp_line = lines.get("compatibility")
        if not isinstance(comp, str):
            out.append(warn("L017", "compatibility is not text", comp_line))
        elif len(comp) > MAX_COMPATIBILITY_LENGTH:
            out.append(warn("L017", f"compatibility is {len(comp)} characters, over the "
                                    f"{MAX_COMPATIBILITY_LENGTH}-character limit", comp_line))
    if "metadata" in data:
        meta = data["metadata"]
        if not isinstance(meta, dict) or any(not isinstance(v, str) for v in meta.values()):
            out.append(warn("L018", "metadata should be a map of strings; the strict "
                                    "reader turns its values into text", lines.get("metadata")))

    unknown = [k for k in data if k not in ALLOWED_FIELDS]
    if unknown:
        listed = ", ".join(unknown[:_MAX_LISTED_KEYS])
        if len(unknown) > _MAX_LISTED_KEYS:
            listed += f" and {len(unknown) - _MAX_LISTED_KEYS:,} more"
        out.append(info("L020", f"keys outside the standard set are kept: {listed}", lines.get(unknown[0])))
    return out, parsed
