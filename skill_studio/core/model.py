"""Domain types shared by every layer: skills, their files, lifecycle, origin and trust."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Lifecycle(str, enum.Enum):
    CANDIDATE = "candidate"
    VERIFIED = "verified"
    RELEASED = "released"
    DEGRADED = "degraded"
    DEPRECATED = "deprecated"
    ARCHIVED = "archived"

    @property
    def label(self) -> str:
        return self.value.capitalize()


class Origin(str, enum.Enum):
    HUMAN = "human"
    LLM = "llm"
    BUILTIN = "builtin"


class TrustTier(enum.IntEnum):
    UNTRUSTED = 1
    PROVISIONAL = 2
    TRUSTED = 3
    VETTED = 4

    @property
    def label(self) -> str:
        return self.name.capitalize()

    @property
    def stars(self) -> str:
        return "★" * int(self) + "☆" * (4 - int(self))


#: Lifecycle and trust a skill gets when it enters the store (SPEC §1).
ENTRY_DEFAULTS: dict[Origin, tuple[Lifecycle, TrustTier]] = {
    Origin.HUMAN: (Lifecycle.RELEASED, TrustTier.TRUSTED),
    Origin.LLM: (Lifecycle.CANDIDATE, TrustTier.UNTRUSTED),
    Origin.BUILTIN: (Lifecycle.RELEASED, TrustTier.VETTED),
}

#: Lifecycle states whose skills an agent may see (degraded with a warning).
EXPOSED_STATES = frozenset({Lifecycle.VERIFIED, Lifecycle.RELEASED, Lifecycle.DEGRADED})


@dataclass(frozen=True)
class SkillFile:
    """A file beside SKILL.md: path relative to the skill folder (POSIX), bytes, mode bits."""

    path: str
    data: bytes
    mode: int = 0o644

    @property
    def executable(self) -> bool:
        return bool(self.mode & 0o111)


@dataclass
class Skill:
    """One skill as the store keeps it.

    ``skill_md`` is the exact text of SKILL.md (what export writes back);
    the other text fields are read from it.
    """

    name: str
    description: str = ""
    content: str = ""
    steps: list[dict[str, Any]] = field(default_factory=list)
    trigger_pattern: str | None = None
    origin: Origin = Origin.HUMAN
    lifecycle: Lifecycle = Lifecycle.RELEASED
    trust_tier: TrustTier = TrustTier.TRUSTED
    version: int = 0
    success_rate: float = 0.5
    utility_score: float = 0.25
    freshness: float = 1.0
    last_used_at: str | None = None
    depends_on: list[str] = field(default_factory=list)
    conflicts_with: list[str] = field(default_factory=list)
    parent_skill_id: str | None = None
    tags: list[str] = field(default_factory=list)
    # Beyond the 17 columns of SPEC §1.
    created_at: str | None = None
    updated_at: str | None = None
    use_count: int = 0
    success_count: int = 0
    failure_count: int = 0
    success_decayed: float = 0.0
    failure_decayed: float = 0.0
    lifecycle_reason: str | None = None
    pinned: bool = False
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    folder_name: str | None = None
    md_filename: str = "SKILL.md"  # kept as found: a few skills use skill.md
    source_path: str | None = None
    content_hash: str | None = None
    skill_md: str = ""
    files: list[SkillFile] = field(default_factory=list)

    @property
    def stars(self) -> str:
        return TrustTier(self.trust_tier).stars
