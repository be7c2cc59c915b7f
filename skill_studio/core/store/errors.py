"""What the store refuses to do, as exceptions whose message says why."""

from __future__ import annotations


class StoreError(Exception):
    """A store operation that cannot be done; the message says why."""


class NotFound(StoreError):
    pass


class StoreBusy(StoreError):
    """Another process held the store for longer than the wait allows; trying again later works."""


class AlreadyExists(StoreError):
    pass


class VersionConflict(StoreError):
    """The skill changed since the caller read it."""

    def __init__(self, name: str, expected: int, current: int):
        super().__init__(f'"{name}" was changed elsewhere: you edited version {expected}, '
                         f"the store now has version {current}; reload it and apply your change again")
        self.name, self.expected, self.current = name, expected, current


class DependentsExist(StoreError):
    def __init__(self, name: str, dependents: list[str], action: str = "delete"):
        super().__init__(f'Cannot {action} "{name}": {len(dependents)} other skill(s) depend on it: '
                         + ", ".join(dependents))
        self.name, self.dependents = name, dependents


class ReadOnlySkill(StoreError):
    """Builtin skills ship with the app: they can be copied into a new skill, not changed."""

    def __init__(self, name: str):
        super().__init__(f'"{name}" is a builtin skill and cannot be changed; copy it into a new skill')
        self.name = name


class UnusableStore(StoreError):
    """A file that cannot be used as a skill store, left exactly as it was.

    ``kind`` says why: ``"not-a-store"`` (not SQLite, or another program's database),
    ``"newer"`` (written by a newer Skill Studio), ``"damaged"`` (SQLite reports corruption;
    what is readable can still be rescued) or ``"unreadable"`` (it cannot be opened at all).
    """

    def __init__(self, path, kind: str, reason: str):
        hint = {"damaged": "; nothing was changed. Export what is still readable with: "
                           f"skill-studio --store '{path}' rescue --to FOLDER",
                "newer": "; open it with a newer Skill Studio (the file was not changed)",
                "not-a-store": "; choose another file (this one was not changed)"}.get(kind, "")
        super().__init__(f"{path}: {reason}{hint}")
        self.path, self.kind, self.reason = path, kind, reason
