"""The endpoints of the local skills API, each a call of the same core functions the window and the
command line use. A handler takes the request and returns (status, JSON data) or raises ApiError."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from skill_studio.api import sources
from skill_studio.core.agents.gate import store_verdicts
from skill_studio.core.agents.skill_json import detail_json, summary_json
from skill_studio.core.model import Lifecycle, Origin
from skill_studio.core.ops.skills import FIELD_SPELLINGS, NEW_SKILL_FIELDS
from skill_studio.core.store import Filters, NotFound, Store


class ApiError(Exception):
    """An answer other than success: the HTTP status, the problem named, and any details."""

    allow: str | None = None   # for 405: the methods the path takes

    def __init__(self, status: int, message: str, **details: Any):
        super().__init__(message)
        self.status, self.details = status, details


@dataclass
class Request:
    store: Store
    query: dict[str, str]
    body: dict[str, Any]
    actor: str

    def arg(self, key: str, *, required: bool = True, default: Any = None) -> Any:
        """A value from the query string or the JSON body (400 when a required one is missing)."""
        value = self.query.get(key, self.body.get(key, default))
        if required and (value is None or value == ""):
            raise ApiError(400, f"missing '{key}'")
        if value is not None and not isinstance(value, (str, bool, int, float, list, dict)):
            raise ApiError(400, f"'{key}' has the wrong type")
        return value

    def flag(self, key: str) -> bool:
        """A yes/no value: JSON true/false, or "true"/"false"/"1"/"0" (400 for anything else)."""
        value = self.arg(key, required=False, default=False)
        if isinstance(value, bool):
            return value
        if isinstance(value, (str, int)) and str(value).strip().lower() in ("true", "1", "yes", "false", "0", "no",
                                                                            ""):
            return str(value).strip().lower() in ("true", "1", "yes")
        raise ApiError(400, f"'{key}' must be true or false")

    def number(self, key: str, default: int) -> int:
        value = self.arg(key, required=False, default=default)
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ApiError(400, f"'{key}' must be a whole number") from None
        if number < 0:
            raise ApiError(400, f"'{key}' must not be negative")
        return number

    def text(self, key: str, *, required: bool = True, default: str | None = None) -> str | None:
        value = self.arg(key, required=required, default=default)
        if value is not None and not isinstance(value, str):
            raise ApiError(400, f"'{key}' must be a string")
        return value


@dataclass
class Route:
    method: str
    path: str
    handler: Callable[[Request], tuple[int, Any]]
    summary: str
    writes: bool = False
    params: list[tuple[str, str, bool]] = field(default_factory=list)    # (name, description, required)
    # name: (type: a JSON type or a shape of NEW_SKILL_FIELDS, description, required)
    body: dict[str, tuple[str, str, bool]] = field(default_factory=dict)
    description: str = ""   # what the OpenAPI description says beside the summary


def _keys(req: Request) -> list[str]:
    return list(dict.fromkeys([*req.query, *req.body]))


def _only(req: Request, path: str, allowed: tuple[str, ...], hint: str = "") -> None:
    """400 naming what the request holds that ``path`` does not take: nothing is ignored unsaid."""
    unknown = [k for k in _keys(req) if k not in allowed]
    if unknown:
        listed = ", ".join(f"'{k}'" for k in unknown)
        raise ApiError(400, f"{path} does not take {listed}; it takes {', '.join(allowed)}{hint}")


def _skill(req: Request, key: str = "name"):
    name = req.text(key)
    try:
        return req.store.get(name)
    except NotFound:
        raise ApiError(404, f'no skill named "{name}"') from None


# --- reading -----------------------------------------------------------------------------

def list_skills(req: Request) -> tuple[int, Any]:
    origin, lifecycle = req.text("origin", required=False), req.text("lifecycle", required=False)
    if origin and origin not in {o.value for o in Origin}:
        raise ApiError(400, f"unknown origin {origin!r}; expected one of {', '.join(o.value for o in Origin)}")
    if lifecycle and lifecycle not in {s.value for s in Lifecycle}:
        raise ApiError(400, f"unknown lifecycle {lifecycle!r}; expected one of "
                            f"{', '.join(s.value for s in Lifecycle)}")
    flt = Filters(lifecycle=lifecycle or None, origin=origin or None, tag=req.text("tag", required=False) or None,
                  text=req.text("search", required=False) or None)
    skills = req.store.list(flt, sort="name")
    verdicts = store_verdicts(req.store, [s.name for s in skills])
    return 200, {"total": len(skills), "skills": [summary_json(s, verdicts.get(s.name)) for s in skills]}


def stats(req: Request) -> tuple[int, Any]:
    from skill_studio.core.bus import dispatch as bus

    data = req.store.stats()
    total, enabled = req.store.binding_counts()
    data["bindings"] = {"total": total, "enabled": enabled}
    status = bus.status(req.store)
    data["bus"] = {"total": status.total, "enabled": status.enabled, "cooling": status.cooling}
    return 200, data


def detail(req: Request) -> tuple[int, Any]:
    skill = _skill(req)
    return 200, _detail(req.store, skill)


def _detail(store, skill) -> dict:
    data = detail_json(store, skill)
    data["skill_md"] = skill.skill_md
    return data


def dependencies(req: Request) -> tuple[int, Any]:
    from skill_studio.core.graph.dependencies import SkillGraph

    skill = _skill(req)
    g = SkillGraph.from_store(req.store)
    problems = [{"kind": p.kind, "severity": p.severity, "skills": list(p.skills), "message": p.message}
                for p in g.problems() if skill.name in p.skills]
    return 200, {"name": skill.name, "depends_on": skill.depends_on, "conflicts_with": skill.conflicts_with,
                 "parent": skill.parent_skill_id,
                 "load_order": [{"name": n, "missing": g.node(n).missing} for n in g.dependencies(skill.name)],
                 "dependents": g.dependents(skill.name), "problems": problems}


def health_view(req: Request) -> tuple[int, Any]:
    from skill_studio.core.health import checks as health

    name = req.text("name", required=False)
    if name and name not in req.store:
        raise ApiError(404, f'no skill named "{name}"')
    skills, pairs, families = health.compute(req.store)
    if name:
        s = next((s for s in skills if s.name == name), None)
        if s is None:   # deleted meanwhile
            raise ApiError(404, f'no skill named "{name}"')
        weights = health.settings(req.store)
        return 200, {**asdict(s), "origin": s.origin.value, "lifecycle": s.lifecycle.value,
                     "trust_tier": int(s.trust_tier), "band": s.band,
                     "weights": {k[len("health.weight_"):]: v for k, v in weights.items()
                                 if k.startswith("health.weight_")}}
    actions = health.plan(req.store, skills, pairs, families=families)
    return 200, {"summary": health.summarize(skills, actions), "actions": [asdict(a) for a in actions],
                 "applied": False, "note": "the plan only: apply it with skill-studio health --apply or the window"}


def bindings(req: Request) -> tuple[int, Any]:
    from skill_studio.core.bus import dispatch as bus

    found = req.store.bindings()
    described = {s.name: s.description for s in req.store.cards(sorted({b.skill for b in found}))}
    status = bus.status(req.store, recent=min(req.number("events", 20), 1000))
    return 200, {"bindings": [{**bus.binding_json(b), "skill_description": described.get(b.skill, "")}
                              for b in found],
                 "status": {"total": status.total, "enabled": status.enabled, "cooling": status.cooling},
                 "events": [asdict(e) for e in status.recent]}


# --- writing -----------------------------------------------------------------------------

#: What POST /api/skills takes beside the fields of a new skill (NEW_SKILL_FIELDS).
_CREATE_KEYS = ("name", "description", "template", "origin", "skill_md")
#: What may go with skill_md: the rest is in the text.
_WITH_SKILL_MD = ("skill_md", "name", "origin")


def create(req: Request) -> tuple[int, Any]:
    from skill_studio.core.format import skillmd
    from skill_studio.core.library.folders import build_skill
    from skill_studio.core.ops.skills import create_skill, create_skill_from, fields_problem

    keys = _keys(req)
    problem = fields_problem(keys, also=_CREATE_KEYS)
    if problem:
        raise ApiError(400, problem)

    # What arrives over the API was written by a program until a reviewer says otherwise: llm
    # (a candidate at trust tier 1, whose scripts ask before they run) unless told "human".
    origin = req.text("origin", required=False) or "llm"
    if origin not in ("human", "llm"):
        raise ApiError(400, "origin must be human or llm (builtin skills ship with the app)")
    text = req.text("skill_md", required=False)
    note = "created over the local API"
    if text is not None:
        beside = [k for k in keys if k not in _WITH_SKILL_MD]
        if beside:
            listed = ", ".join(f"'{k}'" for k in beside)
            raise ApiError(400, f"{listed} cannot go with 'skill_md', the whole SKILL.md text: write "
                                f"{'it' if len(beside) == 1 else 'them'} into the text, or send name and "
                                "description instead of skill_md")
        try:
            skill = build_skill(text.encode("utf-8"), "", [], origin=Origin(origin), source="request/SKILL.md")
        except (skillmd.SkillParseError, ValueError) as e:
            raise ApiError(400, str(e)) from None
        given = req.text("name", required=False)
        if given and given != skill.name:
            raise ApiError(400, f"'name' is {given!r} but the SKILL.md text names {skill.name!r}")
        created = create_skill_from(req.store, skill, origin=Origin(origin), author=req.actor, note=note)
    else:
        name, description = req.text("name"), req.text("description")
        template = req.text("template", required=False) or "blank"
        fields = {k: req.arg(k, required=False) for k in keys if k not in _CREATE_KEYS}
        created = create_skill(req.store, name, description, template, origin=Origin(origin), author=req.actor,
                               note=note, fields=fields)
    return 201, _detail(req.store, created.skill)


def _move(action: str) -> Callable[[Request], tuple[int, Any]]:
    def handler(req: Request) -> tuple[int, Any]:
        from skill_studio.core.ops.review import move_skill
        from skill_studio.core.review.lifecycle import move_path

        _only(req, f"/api/skills/{action}", ("name", "reason", "to"))
        skill = _skill(req)
        to = req.text("to", required=False) or None
        reason = req.text("reason", required=False) or f"{action} over the local API"
        change = move_skill(req.store, skill.name, action, reason, author=req.actor, to=to).change
        before, after = change.before[skill.name], change.after[skill.name]
        assert before is not None and after is not None   # a move never adds or removes a skill
        through = move_path(skill.name, action, before.lifecycle, after.lifecycle)
        return 200, {"name": skill.name, "from": before.lifecycle.value, "to": after.lifecycle.value,
                     "through": [s.value for s in through], "trust_tier": int(after.trust_tier), "reason": reason}
    handler.__name__ = action
    return handler


def merge(req: Request) -> tuple[int, Any]:
    from skill_studio.core.ops.review import merge_skills
    from skill_studio.core.review.merge import merge_preview

    target, source = _skill(req, "target"), _skill(req, "source")
    preview = merge_preview(req.store, target.name, source.name)
    data = {"target": target.name, "source": source.name, "added_steps": preview.added_steps,
            "tags": preview.merged.tags, "depends_on": preview.merged.depends_on,
            "dependents_rewritten": preview.dependents, "description_cut": preview.description_cut}
    if req.flag("dry_run"):
        return 200, {**data, "dry_run": True}
    change = merge_skills(req.store, target.name, source.name, author=req.actor).change
    return 200, {**data, "dry_run": False, "version": change.after[target.name].version,
                 "source_lifecycle": change.after[source.name].lifecycle.value}


def load_human(req: Request) -> tuple[int, Any]:
    from skill_studio.core.library.folders import discover, has_skill_md
    from skill_studio.core.ops.library import import_skills

    path = Path(os.path.expanduser(req.text("path")))
    if not path.is_absolute():
        raise ApiError(400, f"'path' must be absolute (the server's working folder means nothing to you): {path}")
    refusal = sources.system_source(path)
    if refusal:
        raise ApiError(400, f"{path} {refusal}; give the folder that holds the skills, such as ~/.cortex/skills")
    if not path.is_dir():
        raise ApiError(400, f"{path}: no such folder")
    found = 1 if has_skill_md(path) else len(discover(path))   # counted before anything is written
    limit = sources.MAX_API_IMPORT_SKILLS
    if found > limit:
        raise ApiError(400, f"{path} holds {found:,} skills; one import over the API brings at most "
                            f"{limit:,}: nothing was imported. Give a folder with fewer, or "
                            "import it with skill-studio import", found=found, limit=limit)
    report = import_skills(req.store, [path], origin=Origin.HUMAN, author=req.actor).report
    entries = [asdict(e) for e in report.entries]
    if not any(e.status != "skipped" for e in report.entries):
        first = next((e.reason for e in report.entries if e.reason), "no skill found")
        raise ApiError(400, f"nothing was imported: {first}", summary=report.summary, entries=entries)
    return 200, {"summary": report.summary, "entries": entries}


def export(req: Request) -> tuple[int, Any]:
    from skill_studio.core.library.archive import skill_file_mode
    from skill_studio.core.library.folder_write import skill_files_with_md

    _only(req, "/api/skills/export", ("name",), "; it writes nothing on this machine: it answers with every "
          "file of the skill's folder, for you to write where you want")
    skill = _skill(req)
    files = []
    for f in skill_files_with_md(skill):
        try:
            content, encoding = f.data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            content, encoding = base64.b64encode(f.data).decode("ascii"), "base64"
        mode = skill_file_mode(f.mode)
        files.append({"path": f.path, "mode": f"{mode:o}", "size": len(f.data), "executable": bool(mode & 0o111),
                      "encoding": encoding, "content": content})
    return 200, {"name": skill.name, "version": skill.version, "folder": skill.folder_name or skill.name,
                 "filename": skill.md_filename, "skill_md": skill.skill_md, "files": files}


def delete(req: Request) -> tuple[int, Any]:
    from skill_studio.core.ops.skills import delete_skills

    skill = _skill(req)
    done = delete_skills(req.store, [skill.name], reason=req.text("reason", required=False)
                         or "deleted over the local API", author=req.actor)
    if done.refused:
        raise done.refused[skill.name]
    return 200, {"deleted": skill.name, "version": skill.version}


_NAME = [("name", "the skill's name", True)]
_REASON = {"name": ("string", "the skill's name", True), "reason": ("string", "why (kept in the audit log)", False)}
_CREATE_BODY = {
    "name": ("string", "the new skill's name (without skill_md)", False),
    "description": ("string", "what it does and when to use it (without skill_md)", False),
    "template": ("string", "blank (the default), script or reference", False),
    "skill_md": ("string", "the whole SKILL.md text, instead of name, description, template and the fields "
                           "below (only name, which must match the text, and origin may go with it)", False),
    "origin": ("string", "llm (default: a candidate for review) or human", False),
    **{key: (shape, what, False) for key, (shape, what) in NEW_SKILL_FIELDS.items()},
}
_CREATE_TEXT = (
    "Every field given is written into the new SKILL.md the way the designer writes it (tags, depends_on, "
    "conflicts_with, trigger_pattern and parent under metadata; steps as a top-level list), so the file and "
    "the store agree. A key that names no field is refused with 400 naming it, as is state the store keeps "
    "(lifecycle, trust_tier, version, scores), 'content' with a template other than blank, any field beside "
    "skill_md, and a field given twice (" + ", ".join(f"{a} is {b}" for a, b in FIELD_SPELLINGS.items()) + ").")
_MOVE_BODY = {**_REASON, "to": ("string", "the state wanted (promote: verified or released); the skill takes "
                                          "each allowed step to it, or the move is refused naming why", False)}

ROUTES: list[Route] = [
    Route("GET", "/api/skills", list_skills, "Skills, filtered",
          params=[("origin", "human, llm or builtin", False), ("lifecycle", "candidate, verified, released, "
                  "degraded, deprecated or archived", False), ("tag", "a tag", False),
                  ("search", "words of the name, description or body", False)]),
    Route("GET", "/api/skills/stats", stats, "Counts by origin and lifecycle, score averages, bindings"),
    Route("GET", "/api/skills/detail", detail, "One skill: fields, SKILL.md, files, versions", params=_NAME),
    Route("GET", "/api/skills/dependencies", dependencies, "What a skill needs (in load order), what needs it, "
          "and its graph problems", params=_NAME),
    Route("GET", "/api/skills/health", health_view, "One skill's health breakdown; without a name, the "
          "maintenance plan (not applied)", params=[("name", "the skill's name", False)]),
    Route("GET", "/api/skills/bindings", bindings, "Bindings with their skill's description, the bus status "
          "and recent events", params=[("events", "how many recent events (default 20)", False)]),
    Route("POST", "/api/skills", create, "Create a skill from a template and fields, or from SKILL.md text",
          writes=True, body=_CREATE_BODY, description=_CREATE_TEXT),
    Route("POST", "/api/skills/merge", merge, "Merge a skill into another (the source is archived)", writes=True,
          body={"target": ("string", "the skill that stays", True), "source": ("string", "the skill merged", True),
                "dry_run": ("boolean", "only say what would happen", False)}),
    Route("POST", "/api/skills/deprecate", _move("deprecate"), "Deprecate a skill", writes=True, body=_MOVE_BODY),
    Route("POST", "/api/skills/promote", _move("promote"), "Promote a skill one step, or to the state asked",
          writes=True, body=_MOVE_BODY,
          description="Without 'to', one step: candidate → verified → released, degraded → verified. With "
                      "'to', each allowed step until the skill is in that state (a candidate to released "
                      "passes verified), every step audited with the reason; a state already held or not on "
                      "the way is refused with 409 naming why, an unknown state with 400."),
    Route("POST", "/api/skills/load-human", load_human, "Import a folder of human-written skills (such as "
          f".cortex/skills), at most {sources.MAX_API_IMPORT_SKILLS:,} of them; not the root or a system folder",
          writes=True, body={"path": ("string", "the folder, on this machine", True)}),
    Route("POST", "/api/skills/export", export, "Every file of a skill's folder, in the answer",
          body={"name": ("string", "the skill's name", True)},
          description="Writes nothing on this machine: the answer holds each file of the skill's folder "
                      "(SKILL.md first) with its path, mode and bytes (UTF-8 text, or base64), for the client "
                      "to write under 'folder' where it wants. A 'path' or any other key is refused with 400."),
    Route("DELETE", "/api/skills", delete, "Delete a skill (its history stays)", writes=True,
          params=[("name", "the skill's name", True), ("reason", "why (kept in the audit log)", False)]),
]
