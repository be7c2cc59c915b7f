"""Skills as JSON: the summary of a list and the detail of one, the same for the command line and
the local API."""

from __future__ import annotations

from typing import Any

from skill_studio.core.model import Skill

DETAIL_FIELDS = ("content", "steps", "trigger_pattern", "depends_on", "conflicts_with", "parent_skill_id",
                 "license", "compatibility", "allowed_tools", "metadata", "extra", "created_at", "use_count",
                 "success_count", "failure_count", "pinned", "lifecycle_reason", "source_path")


def summary_json(s: Skill, verdict: tuple[str | None, str | None] | None = None) -> dict[str, Any]:
    """The card fields of a skill, and the gate's verdict on it when given (the rule that keeps
    it from agents, or the warning it reaches them with: SPEC §8)."""
    data: dict[str, Any] = {"name": s.name, "description": s.description, "origin": s.origin.value,
            "lifecycle": s.lifecycle.value, "trust_tier": int(s.trust_tier), "stars": s.stars,
            "version": s.version, "tags": s.tags, "success_rate": s.success_rate,
            "utility_score": s.utility_score, "freshness": s.freshness,
            "last_used_at": s.last_used_at, "updated_at": s.updated_at}
    if verdict is not None:
        data["gate"] = {"passed": verdict[0] is None, "reason": verdict[0], "warning": verdict[1]}
    return data


def files_json(s: Skill) -> list[dict[str, Any]]:
    """The files beside SKILL.md: path, mode as octal digits ("755"), size, and whether executable."""
    return [{"path": f.path, "mode": f"{f.mode & 0o777:o}", "size": len(f.data), "executable": f.executable}
            for f in s.files]


def detail_json(store, s: Skill) -> dict[str, Any]:
    """Everything about one skill: its card and the gate's verdict, body and fields, files
    (without their bytes), the skills that need it, and its versions."""
    from skill_studio.core.agents.gate import store_verdicts

    data = summary_json(s, store_verdicts(store, [s.name]).get(s.name))
    data.update({k: getattr(s, k) for k in DETAIL_FIELDS})
    data["files"] = files_json(s)
    data["dependents"] = store.dependents(s.name)
    data["versions"] = [vars(v) for v in store.versions(s.name)]
    return data
