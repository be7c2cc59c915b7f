"""What one operation changed, as the views need to know it: the skills added, changed, renamed or
removed, and the other things (bindings, settings, linked folders, installs) it touched.

An operation returns one :class:`ChangeSet`; the window hands it to every view once, and each view
refreshes only what it shows of it. A change noticed from another process has an unknown scope:
:meth:`ChangeSet.outside` says "anything may have changed".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ChangeSet:
    added: frozenset[str] = field(default_factory=frozenset)
    #: Skills whose content or review state changed under the same name.
    changed: frozenset[str] = field(default_factory=frozenset)
    removed: frozenset[str] = field(default_factory=frozenset)
    #: (old name, new name) pairs.
    renamed: tuple[tuple[str, str], ...] = ()
    bindings: bool = False
    settings: bool = False
    links: bool = False
    installs: bool = False
    #: Noticed from outside (another process wrote the store): anything may have changed.
    unknown: bool = False
    label: str = ""

    @classmethod
    def of(cls, *, added: Iterable[str] = (), changed: Iterable[str] = (), removed: Iterable[str] = (),
           renamed: Iterable[tuple[str, str]] = (), label: str = "", bindings: bool = False,
           settings: bool = False, links: bool = False, installs: bool = False) -> ChangeSet:
        return cls(added=frozenset(added), changed=frozenset(changed), removed=frozenset(removed),
                   renamed=tuple(renamed), label=label, bindings=bindings, settings=settings, links=links,
                   installs=installs)

    @classmethod
    def outside(cls, label: str = "changed outside") -> ChangeSet:
        return cls(unknown=True, bindings=True, settings=True, links=True, installs=True, label=label)

    @classmethod
    def from_states(cls, before: Mapping[str, object | None], after: Mapping[str, object | None], *,
                    label: str = "", bindings: bool = False) -> ChangeSet:
        """From each affected skill before and after an operation (None: absent then or now)."""
        names = set(before) | set(after)
        added = {n for n in names if before.get(n) is None and after.get(n) is not None}
        removed = {n for n in names if before.get(n) is not None and after.get(n) is None}
        changed = {n for n in names if before.get(n) is not None and after.get(n) is not None}
        return cls.of(added=added, changed=changed, removed=removed, label=label, bindings=bindings)

    @property
    def skills(self) -> frozenset[str]:
        """Every skill name the change touches, both sides of a rename included."""
        return self.added | self.changed | self.removed | {n for pair in self.renamed for n in pair}

    @property
    def membership(self) -> bool:
        """Whether skills came, went or changed names (a list of skills must be read again)."""
        return bool(self.unknown or self.added or self.removed or self.renamed)

    def touches(self, names: Iterable[str]) -> bool:
        """Whether any of ``names`` is among what changed (always, for an outside change)."""
        return self.unknown or not self.skills.isdisjoint(names)

    def __bool__(self) -> bool:
        return bool(self.unknown or self.skills or self.bindings or self.settings or self.links or self.installs)

    def __or__(self, other: ChangeSet) -> ChangeSet:
        renamed = self.renamed + tuple(p for p in other.renamed if p not in self.renamed)
        return ChangeSet(
            added=self.added | other.added, changed=self.changed | other.changed,
            removed=self.removed | other.removed, renamed=renamed,
            bindings=self.bindings or other.bindings, settings=self.settings or other.settings,
            links=self.links or other.links, installs=self.installs or other.installs,
            unknown=self.unknown or other.unknown, label=self.label or other.label)
