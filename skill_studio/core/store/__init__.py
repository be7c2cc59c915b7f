"""The SQLite skill store: the only package that writes SQL."""

from skill_studio.core.store.errors import (
                                            AlreadyExists,
                                            DependentsExist,
                                            NotFound,
                                            ReadOnlySkill,
                                            StoreBusy,
                                            StoreError,
                                            UnusableStore,
                                            VersionConflict,
)
from skill_studio.core.store.event_log import EventRecord
from skill_studio.core.store.rows import AuditEntry, Filters, VersionInfo, content_hash, fts_query
from skill_studio.core.store.store import Store

__all__ = ["AlreadyExists", "AuditEntry", "DependentsExist", "EventRecord", "Filters", "NotFound", "ReadOnlySkill",
           "Store", "StoreBusy", "StoreError", "UnusableStore", "VersionConflict", "VersionInfo", "content_hash",
           "fts_query"]
