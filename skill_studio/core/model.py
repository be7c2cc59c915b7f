"""Domain types shared by every layer: skills, their files, lifecycle, origin and trust.

Each enum's vocabulary (what people read, the colour role the theme paints it with, whether agents see
it, where it sorts) is one table beside it, keyed by every member; a test checks that every table covers
every member, so a new state is one line in each table below and nowhere else.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, NamedTuple


class Lifecycle(str, enum.Enum):
    CANDIDATE = "candidate"
    VERIFIED = "verified"
    RELEASED = "released"
    DEGRADED = "degraded"
    DEPRECATED = "deprecated"
    ARCHIVED = "archived"

    @property
    def label(self) -> str:
        return LIFECYCLE_TERMS[self].label

    @property
    def terms(self) -> StateTerms:
        return LIFECYCLE_TERMS[self]


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

    @property
    def meaning(self) -> str:
        return TRUST_TERMS[self].meaning


@dataclass(frozen=True)
class StateTerms:
    """What the studio says and does about one lifecycle state (SPEC §2, §8)."""

    label: str
    #: Place in lists, filters and sorts (released first).
    rank: int
    #: An agent may see the skill (a degraded one with a warning).
    exposed: bool
    #: The review queue works through it.
    in_review: bool
    #: Out of use (deprecated, archived): a dependency on it is a problem, the graph greys it.
    shelved: bool
    #: Neighbour and near-duplicate searches consider it (an archived skill is out of the library).
    searchable: bool
    #: The theme's colour role for its badge: success, info, attention, warning, danger or muted.
    colour_role: str
    #: One line for tooltips and help.
    meaning: str


L = Lifecycle
LIFECYCLE_TERMS: dict[Lifecycle, StateTerms] = {
    L.RELEASED: StateTerms("Released", 0, True, False, False, True, "success",
                           "in use and recommended to agents"),
    L.VERIFIED: StateTerms("Verified", 1, True, False, False, True, "info",
                           "reviewed and visible to agents"),
    L.CANDIDATE: StateTerms("Candidate", 2, False, True, False, True, "attention",
                            "waiting for review; agents do not see it"),
    L.DEGRADED: StateTerms("Degraded", 3, True, True, False, True, "warning",
                           "failing lately; agents see it with a warning"),
    L.DEPRECATED: StateTerms("Deprecated", 4, False, False, True, True, "danger",
                             "replaced or not to be used; hidden from agents"),
    L.ARCHIVED: StateTerms("Archived", 5, False, False, True, False, "muted",
                           "kept for history only, out of every search"),
}
del L

#: Lifecycle states in their display order.
LIFECYCLE_ORDER: tuple[Lifecycle, ...] = tuple(sorted(Lifecycle, key=lambda s: LIFECYCLE_TERMS[s].rank))

#: Lifecycle states whose skills an agent may see (degraded with a warning).
EXPOSED_STATES = frozenset(s for s, t in LIFECYCLE_TERMS.items() if t.exposed)
#: Lifecycle states the review queue holds.
REVIEW_STATES: tuple[Lifecycle, ...] = tuple(s for s in LIFECYCLE_ORDER if LIFECYCLE_TERMS[s].in_review)
#: Lifecycle states out of use.
SHELVED_STATES = frozenset(s for s, t in LIFECYCLE_TERMS.items() if t.shelved)
#: Lifecycle states that neighbour and duplicate searches leave out.
UNSEARCHED_STATES = frozenset(s for s, t in LIFECYCLE_TERMS.items() if not t.searchable)


@dataclass(frozen=True)
class OriginTerms:
    #: The lifecycle and trust a skill of this origin gets when it enters the store (SPEC §1).
    entry: tuple[Lifecycle, TrustTier]
    meaning: str


ORIGIN_TERMS: dict[Origin, OriginTerms] = {
    Origin.HUMAN: OriginTerms((Lifecycle.RELEASED, TrustTier.TRUSTED), "written by a person"),
    Origin.LLM: OriginTerms((Lifecycle.CANDIDATE, TrustTier.UNTRUSTED), "extracted by an agent"),
    Origin.BUILTIN: OriginTerms((Lifecycle.RELEASED, TrustTier.VETTED), "shipped with the studio"),
}

#: Lifecycle and trust a skill gets when it enters the store (SPEC §1).
ENTRY_DEFAULTS: dict[Origin, tuple[Lifecycle, TrustTier]] = {o: t.entry for o, t in ORIGIN_TERMS.items()}


@dataclass(frozen=True)
class TierTerms:
    #: Who or what earns the tier, in plain words (SPEC §3).
    meaning: str


TRUST_TERMS: dict[TrustTier, TierTerms] = {
    TrustTier.UNTRUSTED: TierTerms("extracted by an agent and not reviewed yet"),
    TrustTier.PROVISIONAL: TierTerms("reviewed once; it needs more use before it is relied on"),
    TrustTier.TRUSTED: TierTerms("written or checked by a person"),
    TrustTier.VETTED: TierTerms("shipped with the studio; it cannot be changed, only copied"),
}


@dataclass(frozen=True)
class ScoreTerms:
    """What people read about one of a skill's scores (SPEC §4), in plain words."""

    label: str
    meaning: str


#: The scores a skill carries, by the :class:`Skill` field that holds them ("health" is worked out by
#: the health check). Each runs from 0 to 1, higher is better.
SCORE_TERMS: dict[str, ScoreTerms] = {
    "success_rate": ScoreTerms("Success", "how often the skill's uses went well; recent uses count more, "
                                          "and a skill never used starts in the middle, at 0.5"),
    "utility_score": ScoreTerms("Utility", "how useful the skill has proved: its success, believed more "
                                           "as its uses add up"),
    "freshness": ScoreTerms("Freshness", "how recently the skill was used: 1 when just used, halving with "
                                         "each month without use (counted from its creation if never used)"),
    "health": ScoreTerms("Health", "one figure that sums up utility, success, freshness and how little the "
                                   "skill repeats another; the health check suggests degrading or retiring "
                                   "skills whose health stays low"),
}


class GateCard(NamedTuple):
    """What the reliability gate reads of a skill (SPEC §8): its card columns, and its
    redundancy as of the latest health run (0 before any)."""

    lifecycle: str
    trust_tier: int
    origin: str
    success_rate: float
    uses: int
    utility: float
    last_used_at: str | None
    created_at: str | None
    redundancy: float


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
