"""Seed a new store with the bundled sample skills and their review state."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from skill_studio.core.health import scores
from skill_studio.core.model import Lifecycle, Origin, TrustTier
from skill_studio.core.paths import samples_dir
from skill_studio.core.store import Store

SEEDED_SETTING = "store.seeded_with_samples"


def seed(store: Store, folder: Path | None = None) -> list[str]:
    """Add every sample skill (state from ``state.json``) to the store; returns their names.

    Uses are replayed through ``record_use`` so the scores are the real ones.
    """
    # (the skill reader and the YAML parser load to seed a store, not to open one)
    from skill_studio.core.library.folders import build_skill, discover, read_folder

    folder = folder or samples_dir()
    state = json.loads((folder / "state.json").read_text(encoding="utf-8"))["skills"]
    now = scores.utcnow()
    added: list[str] = []
    with store.transaction():
        for skill_dir in discover(folder):
            md, data, files, _ = read_folder(skill_dir)
            st = state.get(skill_dir.name, {})
            origin = Origin(st.get("origin", "human"))
            skill = build_skill(data, skill_dir.name, files, origin=origin, source=str(md))
            days = st.get("last_used_days_ago")
            created = now - timedelta(days=max(60, (days or 0) + 30))
            store.add(skill, author="samples", note="sample skill", now=created)
            _replay_uses(store, skill.name, st, now)
            store.set_state(skill.name, author="samples", reason=st.get("reason", "sample"),
                            lifecycle=Lifecycle(st.get("lifecycle", skill.lifecycle)),
                            trust_tier=TrustTier(st.get("trust_tier", skill.trust_tier)),
                            pinned=bool(st.get("pinned", False)),
                            lifecycle_reason=st.get("reason"))
            added.append(skill.name)
        store.set_setting(SEEDED_SETTING, True)
    store.refresh_freshness(now)
    return added


def _replay_uses(store: Store, name: str, st: dict, now) -> None:
    successes, failures = int(st.get("successes", 0)), int(st.get("failures", 0))
    days = st.get("last_used_days_ago")
    total = successes + failures
    if total == 0 or days is None:
        return
    # Spread the uses over the days before the last one, failures evenly interleaved.
    outcomes = [(i + 1) * failures // total == i * failures // total for i in range(total)]
    for i, ok in enumerate(outcomes):
        when = now - timedelta(days=days + (total - 1 - i) * 0.5)
        store.record_use(name, ok, now=when)


def open_default(path: Path) -> Store:
    """Open (creating it if needed) the store at ``path``, seeding it with samples on first run."""
    new = not Path(path).exists()
    store = Store(path)
    if new or (len(store) == 0 and not store.setting(SEEDED_SETTING, False)):
        seed(store)
    return store
