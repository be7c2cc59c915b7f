"""New skills from the templates in resources/templates/: a blank one, a script-backed one
and a reference-heavy one. Each template is a skill folder with ``{name}`` and
``{description}`` placeholders in its SKILL.md body."""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Container
from dataclasses import dataclass

from skill_studio.core.format import skillmd
from skill_studio.core.format.frontmatter import compose
from skill_studio.core.format.strict import MAX_NAME_LENGTH
from skill_studio.core.library.folders import build_skill
from skill_studio.core.model import Origin, Skill, SkillFile


@dataclass(frozen=True)
class Template:
    key: str
    label: str
    summary: str


TEMPLATES: dict[str, Template] = {t.key: t for t in (
    Template("blank", "Blank", "Instructions only: when to use, steps, examples, pitfalls."),
    Template("script", "Script-backed", "Instructions that run scripts/run.sh, with a strict shell script to fill in."),
    Template("reference", "Reference-heavy", "Short instructions that point to detail kept in references/."),
)}


def _folder(key: str):
    if key not in TEMPLATES:
        raise ValueError(f"unknown template {key!r}; expected one of {', '.join(TEMPLATES)}")
    return importlib.resources.files("skill_studio.resources") / "templates" / key


def _walk(node, prefix: str = ""):
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        path = f"{prefix}{child.name}"
        if child.is_dir():
            yield from _walk(child, path + "/")
        elif child.name != "__init__.py":
            yield path, child.read_bytes()


def fill(template: str, values: dict[str, str]) -> str:
    """Replace ``{key}`` placeholders in one pass: other braces, and braces in the values, stay."""
    return re.sub(r"\{(" + "|".join(map(re.escape, values)) + r")\}", lambda m: values[m.group(1)], template)


def template_files(key: str) -> tuple[str, list[SkillFile]]:
    """The template's SKILL.md text (placeholders unfilled) and its other files."""
    text, files = None, []
    for path, data in _walk(_folder(key)):
        if path == "SKILL.md":
            text = data.decode("utf-8")
        else:  # scripts (a #! line) are executable; package data does not keep modes
            files.append(SkillFile(path, data, 0o755 if data.startswith(b"#!") else 0o644))
    if text is None:
        raise ValueError(f"template {key!r} has no SKILL.md")
    return text, files


def new_skill_md(name: str, description: str, template: str = "blank") -> str:
    """SKILL.md of a new skill: the template's body filled in, the frontmatter written by compose
    (so any name and description read back exactly)."""
    text, _files = template_files(template)
    body = skillmd.split(text, f"templates/{template}/SKILL.md").body
    return compose({"name": name, "description": description},
                   fill(body, {"name": name, "description": description}))


def new_skill(name: str, description: str, template: str = "blank") -> Skill:
    """A new human-written skill from a template, ready for ``Store.add`` (folder named after it)."""
    _text, files = template_files(template)
    text = new_skill_md(name, description, template)
    skill = build_skill(text.encode("utf-8"), name, files, origin=Origin.HUMAN, source=f"new:{name}")
    skill.source_path = None
    return skill


_NAME_CHARS = re.compile(r"[a-z0-9-]+")


def name_problem(name: str, existing: Container[str] | None = None) -> str | None:
    """Why ``name`` cannot name a new skill (the strict format; not taken in ``existing``,
    e.g. a store), or None."""
    if not name:
        return "Enter a name: lowercase letters, digits and hyphens."
    if len(name) > MAX_NAME_LENGTH:
        return f"At most {MAX_NAME_LENGTH} characters (this one has {len(name)})."
    if not _NAME_CHARS.fullmatch(name):
        return "Use only lowercase letters, digits and hyphens."
    if name.startswith("-") or name.endswith("-"):
        return "A name cannot start or end with a hyphen."
    if "--" in name:
        return "A name cannot have two hyphens in a row."
    if existing is not None and name in existing:
        return f'A skill named "{name}" already exists.'
    return None
