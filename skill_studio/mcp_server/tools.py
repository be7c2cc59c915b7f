"""What an agent may do with the library over the Model Context Protocol, as plain calls into the
core (no protocol types here): each tool's name, description and input schema, and the function
that does it. A refusal raises :class:`ToolRefused` with words the agent can act on.

The gate decides what agents see: a skill it keeps out is neither listed, searched, loaded nor
read. What agents write enters as an extracted skill (origin ``llm``, a candidate at trust tier
1) in the review queue; a skill a person wrote or reviewed is never changed by an agent unless
the user started the server with ``--allow-manage``. Everything agents do is in the audit log
under :data:`AGENT`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from skill_studio.core.model import Lifecycle, Origin, TrustTier

AGENT = "agent (mcp)"
MAX_SEARCH = 50
MAX_FILE_TEXT = 1024 * 1024      # a file read as text is cut here (the agent is told)
PROPOSAL_SUFFIX = "-proposal"


class ToolRefused(Exception):
    """What the agent asked cannot be done; the message says why and what to do instead."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    schema: dict[str, Any]


def _obj(required: tuple[str, ...] = (), **props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


_S = {"type": "string"}
TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("search_skills",
             "Find the skills of the library that are about a task, most relevant first, with their scores and any "
             "warning. Use when you have a task and want to know which skill helps with it. Do not use to see "
             "every skill; use list_skills instead.",
             _obj(("query",), query=dict(_S, description="the task, in a few words"),
                  limit={"type": "integer", "minimum": 1, "maximum": MAX_SEARCH, "default": 10,
                         "description": "at most this many skills"})),
    ToolSpec("list_skills",
             "List the skills agents may use, each with its name, description, trust stars, lifecycle and "
             "warning, optionally only those of one origin, lifecycle or tag. Use when you want an overview of "
             "the library. Do not use to find skills for a task; use search_skills instead.",
             _obj(origin={"type": "string", "enum": [o.value for o in Origin],
                          "description": "only skills of this origin"},
                  lifecycle={"type": "string", "enum": [s.value for s in Lifecycle],
                             "description": "only skills in this state"},
                  tag=dict(_S, description="only skills with this tag"))),
    ToolSpec("load_skill",
             "Get a skill's full instructions (its SKILL.md, any warning first) and record that it was used. Use "
             "when you are about to follow a skill. Do not use to browse; use list_skills or search_skills "
             "instead, and read_skill_file for the skill's other files.",
             _obj(("name",), name=dict(_S, description="the skill's name"))),
    ToolSpec("read_skill_file",
             "Read one file of a skill (a reference, a script, a template) as text. Use when a skill's "
             "instructions point at one of its files. Do not use for SKILL.md itself; use load_skill instead. "
             "Binary files are not returned, only their size.",
             _obj(("name", "path"), name=dict(_S, description="the skill's name"),
                  path=dict(_S, description="the file's path inside the skill, e.g. references/forms.md"))),
    ToolSpec("record_outcome",
             "Record whether following a skill worked; the skill's success rate and utility follow. Use after "
             "you followed a skill to the end, once. Do not use before trying it, and not for skills you only "
             "read.",
             _obj(("name", "success"), name=dict(_S, description="the skill's name"),
                  success={"type": "boolean", "description": "whether following it did the task"},
                  note=dict(_S, description="what went well or wrong, in a sentence (kept in the audit log)"))),
    ToolSpec("manage_skill",
             "Propose skills for review: create a new candidate skill from what you learned, or propose an update "
             "of a skill as a candidate a reviewer may merge. Use when you found a reusable procedure or an "
             "improvement. Do not use to change reviewed skills directly; that is only possible when the user "
             "allowed managing (then also update, delete, merge, promote, deprecate and dependents).",
             _obj(("action",),
                  action={"type": "string", "enum": ["create", "propose_update", "update", "delete", "merge",
                                                     "promote", "deprecate", "dependents"],
                          "description": "what to do; only create and propose_update unless managing is allowed"},
                  name=dict(_S, description="the skill's name (for create: the new skill's)"),
                  skill_md=dict(_S, description="create, propose_update, update: the whole SKILL.md text"),
                  description=dict(_S, description="create: the description, when no skill_md is given"),
                  target=dict(_S, description="merge: the skill that takes this one in"),
                  reason=dict(_S, description="why (kept in the audit log)"))),
)


# --- the tools ------------------------------------------------------------------------------------

def gated_entries(store) -> dict[str, Any]:
    """name -> GateEntry of the skills agents may see."""
    from skill_studio.core.agents import matching

    return {e.name: e for e in matching.gate(store) if e.passed}


def visible(store, name: str) -> str | None:
    """The gate's warning for ``name`` (None when it has none); ToolRefused when agents may not
    see it, or there is no such skill."""
    from skill_studio.core.agents.gate import store_verdicts

    verdict = store_verdicts(store, [name]).get(name)
    if verdict is None:
        raise ToolRefused(f'no skill named "{name}"; list_skills or search_skills give the names')
    reason, warning = verdict
    if reason is not None:
        raise ToolRefused(f'"{name}" is kept from agents ({reason})')
    return warning


def search_skills(store, query: str, limit: int = 10) -> dict[str, Any]:
    from skill_studio.core.agents import matching

    if not query.strip():
        raise ToolRefused("say what the task is: query is empty")
    result = matching.match(store, query, max(1, min(int(limit), MAX_SEARCH)))
    return {"query": query, "skills": [
        {"name": m.name, "description": m.description, "score": round(m.score, 4),
         "relevance": round(m.relevance, 4), **({"warning": m.warning} if m.warning else {})}
        for m in result.matches], **({"note": result.note} if result.note else {})}


def list_skills(store, origin: str | None = None, lifecycle: str | None = None,
                tag: str | None = None) -> list[dict[str, Any]]:
    gated = gated_entries(store)
    out = []
    for card in store.cards(sorted(gated)):
        if origin and card.origin != origin or lifecycle and card.lifecycle != lifecycle \
                or tag and tag not in (card.tags or []):
            continue
        entry = gated[card.name]
        out.append({"name": card.name, "description": card.description,
                    "stars": TrustTier(card.trust_tier).stars, "lifecycle": Lifecycle(card.lifecycle).value,
                    **({"warning": entry.warning} if entry.warning else {})})
    return out


def skill_text(store, name: str) -> str:
    """The SKILL.md an agent receives: the gate's warning first, if any."""
    warning = visible(store, name)
    skill = store.get(name, with_files=False)
    text = skill.skill_md if skill.skill_md.endswith("\n") else skill.skill_md + "\n"
    return (f"Warning ({name}): {warning}\n\n" if warning else "") + text


def load_skill(store, name: str) -> str:
    """:func:`skill_text`, recording the use (the agent is about to follow it)."""
    text = skill_text(store, name)
    store.mark_loaded(name)
    return text


def confined(path: str) -> str:
    """``path`` as a path inside a skill; ToolRefused when it would leave it."""
    text = path.strip().replace("\\", "/")
    parts = PurePosixPath(text).parts
    if not text or text.startswith("/") or any(p in ("..", "") for p in parts) or "\0" in text:
        raise ToolRefused(f"{path!r}: a path inside the skill, such as references/guide.md (no '..', not "
                          "absolute)")
    return "/".join(p for p in parts if p != ".")


def read_skill_file(store, name: str, path: str) -> str:
    visible(store, name)
    rel = confined(path)
    skill = store.get(name)
    if rel in ("SKILL.md", skill.md_filename):
        raise ToolRefused("SKILL.md is what load_skill gives; read_skill_file is for the skill's other files")
    found = next((f for f in skill.files if f.path == rel), None)
    if found is None:
        listed = ", ".join(f.path for f in skill.files[:30]) or "none"
        raise ToolRefused(f'"{name}" has no file {rel}; its files: {listed}')
    data = found.data
    if b"\0" in data[:8192]:
        raise ToolRefused(f"{rel} is a binary file ({len(data):,} bytes); it is not returned as text")
    try:
        text = data[:MAX_FILE_TEXT].decode("utf-8")
    except UnicodeDecodeError:
        raise ToolRefused(f"{rel} is not UTF-8 text ({len(data):,} bytes); it is not returned") from None
    if len(data) > MAX_FILE_TEXT:
        text += f"\n[cut: the file has {len(data):,} bytes; the first {MAX_FILE_TEXT:,} are shown]\n"
    return text


def record_outcome(store, name: str, success: bool, note: str | None = None) -> dict[str, Any]:
    visible(store, name)
    with store.transaction():
        skill = store.record_use(name, bool(success))
        store.audit(name, "use", None, "success" if success else "failure", (note or "").strip()[:1000], AGENT)
    return {"name": name, "uses": skill.use_count, "success_rate": round(skill.success_rate, 4),
            "utility": round(skill.utility_score, 4)}


MANAGE_ALWAYS = ("create", "propose_update")


def manage_skill(store, action: str, *, allow_manage: bool = False, name: str | None = None,
                 skill_md: str | None = None, description: str | None = None, target: str | None = None,
                 reason: str | None = None) -> dict[str, Any]:
    from skill_studio.core.store import StoreError

    if action not in MANAGE_ALWAYS and not allow_manage:
        raise ToolRefused(f"{action} is not allowed: this server only takes new skills and proposed updates for "
                          "review (the user may start it with --allow-manage)")
    why = (reason or "").strip() or "asked by an agent"
    try:
        if action == "create":
            return _create(store, name, skill_md, description, why)
        if action == "propose_update":
            return _propose(store, _need(name, "name"), _need(skill_md, "skill_md"), why)
        return _managed(store, action, _need(name, "name"), skill_md, target, why)
    except (StoreError, ValueError) as e:
        raise ToolRefused(str(e)) from None


def _need(value: str | None, what: str) -> str:
    if not value or not value.strip():
        raise ToolRefused(f"{what} is needed for this action")
    return value


def _parsed(text: str, name: str | None):
    from skill_studio.core.format.skillmd import SkillParseError
    from skill_studio.core.library.folders import build_skill

    try:
        return build_skill(text.encode("utf-8"), name or "", [], origin=Origin.LLM, source="agent/SKILL.md")
    except (SkillParseError, ValueError) as e:
        raise ToolRefused(f"the SKILL.md text cannot be read: {e}") from None


def _create(store, name: str | None, skill_md: str | None, description: str | None, why: str) -> dict[str, Any]:
    from skill_studio.core.ops.skills import create_skill, create_skill_from

    if skill_md:
        skill = _parsed(skill_md, name)
        if name and name != skill.name:
            raise ToolRefused(f"name is {name!r} but the SKILL.md text names {skill.name!r}")
        saved = create_skill_from(store, skill, origin=Origin.LLM, author=AGENT, note=f"created by an agent: {why}")
    else:
        saved = create_skill(store, _need(name, "name"), _need(description, "description or skill_md"),
                             origin=Origin.LLM, author=AGENT, note=f"created by an agent: {why}")
    return {"created": saved.skill.name, "lifecycle": "candidate",
            "note": "added as a candidate for review; agents see it once a reviewer promotes it"}


def _propose(store, name: str, skill_md: str, why: str) -> dict[str, Any]:
    """The proposed text as a new candidate, with a merge into ``name`` proposed for review."""
    from skill_studio.core.library.extracted import PROPOSAL
    from skill_studio.core.ops.skills import create_skill_from

    visible(store, name)
    proposal = f"{name}{PROPOSAL_SUFFIX}"
    n = 2
    while proposal in store:
        proposal, n = f"{name}{PROPOSAL_SUFFIX}-{n}", n + 1
    text = skill_md.replace(f"name: {name}\n", f"name: {proposal}\n", 1)
    skill = _parsed(text, proposal)
    if skill.name != proposal:
        raise ToolRefused(f"the SKILL.md text must name the skill it updates ({name!r}) in its frontmatter")
    note = f'Proposed by an agent as an update of "{name}": {why}'
    with store.transaction():
        create_skill_from(store, skill, origin=Origin.LLM, author=AGENT, note=note)
        store.set_state(proposal, author=AGENT, lifecycle_reason=note)
        store.audit(proposal, PROPOSAL, None, name, note, AGENT)
    return {"proposed": proposal, "update_of": name,
            "note": f'a candidate for review; a reviewer may merge it into "{name}"'}


def _managed(store, action: str, name: str, skill_md: str | None, target: str | None,
             why: str) -> dict[str, Any]:
    from skill_studio.core.ops.review import merge_skills, move_skill
    from skill_studio.core.ops.skills import delete_skills, save_skill

    if name not in store:
        raise ToolRefused(f'no skill named "{name}"')
    if action == "dependents":
        return {"name": name, "dependents": store.dependents(name)}
    if action == "update":
        current = store.get(name)
        skill = _parsed(_need(skill_md, "skill_md"), name)
        saved = save_skill(store, name, skill, current.version, author=AGENT, note=f"updated by an agent: {why}")
        return {"updated": saved.skill.name, "version": saved.skill.version}
    if action == "delete":
        delete_skills(store, [name], reason=why, author=AGENT)
        return {"deleted": name}
    if action == "merge":
        merge_skills(store, _need(target, "target"), name, author=AGENT)
        return {"merged": name, "into": target}
    move_skill(store, name, action, why, author=AGENT)
    return {action + "d": name, "lifecycle": store.get(name, with_files=False).lifecycle.value}


__all__ = ["AGENT", "MANAGE_ALWAYS", "TOOLS", "ToolRefused", "ToolSpec", "confined", "list_skills", "load_skill",
           "manage_skill", "read_skill_file", "record_outcome", "search_skills"]
