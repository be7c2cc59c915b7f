"""One skill open in the designer: what the store held when it was opened, what the author
has now, and writing it through the skill operations without ever writing over somebody else's
change."""

from __future__ import annotations

from dataclasses import replace

from skill_studio.core.format import skillmd
from skill_studio.core.format.fields import to_skill
from skill_studio.core.format.frontmatter import set_field
from skill_studio.core.model import Origin, Skill, SkillFile
from skill_studio.core.ops.skills import Saved, create_skill_from, restore_version, save_skill
from skill_studio.core.store import Store

__all__ = ["EditSession", "body_of"]


def body_of(text: str) -> tuple[str, int]:
    """The Markdown body of SKILL.md text and the 1-based line it starts on, found without
    parsing the YAML (so the preview keeps working while the frontmatter is broken)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return text, 1
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return "".join(lines[i + 1:]), i + 2
    return "", len(lines) + 1


def _same_files(a: list[SkillFile], b: list[SkillFile]) -> bool:
    key = lambda f: f.path  # noqa: E731
    return [(f.path, f.data, f.mode) for f in sorted(a, key=key)] == \
           [(f.path, f.data, f.mode) for f in sorted(b, key=key)]


class EditSession:
    """The skill ``name`` as read from ``store``; saving checks that nobody saved since.

    ``base_version`` is the version a draft was written on: when the store holds a newer one,
    saving the draft meets it as a conflict. Every write answers with the :class:`Saved` skill
    and the change set the views need."""

    def __init__(self, store: Store, name: str, *, base_version: int | None = None):
        self.store = store
        self.base: Skill = store.get(name)
        if base_version is not None and base_version != self.base.version:
            self.base = replace(self.base, version=base_version)

    @property
    def name(self) -> str:
        return self.base.name

    @property
    def version(self) -> int:
        return self.base.version

    @property
    def read_only(self) -> bool:
        """Builtin skills are shipped with the app; they are looked at, not edited."""
        return self.base.origin == Origin.BUILTIN

    def is_dirty(self, text: str, files: list[SkillFile]) -> bool:
        return text != self.base.skill_md or not _same_files(files, self.base.files)

    def changed_elsewhere(self) -> bool:
        """True when the store holds a newer version than the one being edited (or none)."""
        try:
            return self.store.get(self.name, with_files=False).version != self.base.version
        except Exception:  # noqa: BLE001 - deleted, or the store is gone: saving will say so
            return True

    def stored_text(self) -> str:
        """The SKILL.md text the store holds now."""
        return self.store.get(self.name, with_files=False).skill_md

    def _skill_from(self, text: str, files: list[SkillFile], name_hint: str) -> Skill:
        doc = skillmd.parse_document(text, f"{name_hint}/{self.base.md_filename}")
        skill = to_skill(doc, None, files=list(files), md_filename=self.base.md_filename,
                         source_path=self.base.source_path)
        if not skill.name:
            raise ValueError(f"{name_hint}/{self.base.md_filename}: the frontmatter needs a name")
        # The folder follows the name; a skill kept under another folder name keeps it.
        same_folder = self.base.folder_name in (None, self.base.name)
        skill.folder_name = skill.name if same_folder else self.base.folder_name
        return skill

    def save(self, text: str, files: list[SkillFile], note: str = "") -> Saved:
        """Save as the next version (a new name in the text renames the skill). Raises
        VersionConflict when the store moved on since this session read it (nothing written),
        SkillParseError/ValueError for text that does not load, and the operation's refusals
        (StoreError for a name it refuses, ReadOnlySkill, AlreadyExists, DependentsExist)."""
        skill = self._skill_from(text, files, self.name)
        old_name = self.name
        saved = save_skill(self.store, old_name, skill, self.base.version, note=note or "edited")
        for key in {old_name, saved.skill.name}:  # a rename carries the draft to the new name
            self.store.discard_draft(key)
        self.base = saved.skill
        return saved

    def overwrite(self, text: str, files: list[SkillFile], note: str = "") -> Saved:
        """Save over whatever the store holds now (the author saw the difference and chose this)."""
        self.base = replace(self.base, version=self.store.get(self.name, with_files=False).version)
        return self.save(text, files, note or "edited (over a change made elsewhere)")

    def save_as_copy(self, text: str, files: list[SkillFile], new_name: str, note: str = "") -> Saved:
        """Add the text as a new skill ``new_name`` (the name field rewritten), under the rules
        for a new skill; this session then edits the copy."""
        doc = skillmd.parse_document(text, f"{self.name}/{self.base.md_filename}")
        skill = self._skill_from(set_field(doc, "name", new_name), files, new_name)
        saved = create_skill_from(self.store, skill, origin=Origin.HUMAN, note=note or f"copied from {self.name}")
        self.store.discard_draft(self.name)
        self.base = saved.skill
        return saved

    def free_copy_name(self) -> str:
        stem = f"{self.name}-copy"
        name, n = stem, 2
        while name in self.store:
            name, n = f"{stem}-{n}", n + 1
        return name

    def reload(self) -> Skill:
        """Read the skill again; what the author had is dropped (with its draft)."""
        self.store.discard_draft(self.name)
        self.base = self.store.get(self.name)
        return self.base

    def restore(self, version: int) -> Saved:
        """Make an earlier version current (a new version); raises VersionConflict if stale."""
        saved = restore_version(self.store, self.name, version, self.base.version)
        self.store.discard_draft(self.name)
        self.base = saved.skill
        return saved

    def save_draft(self, text: str) -> None:
        self.store.save_draft(self.name, text, self.base.version)

    def discard_draft(self) -> None:
        self.store.discard_draft(self.name)

    def draft(self) -> tuple[str, int | None, str] | None:
        return self.store.draft(self.name)
