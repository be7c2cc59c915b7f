"""What a fired binding's action would do, described and never executed (SPEC §9): the payload's
fields filled into its parameters' ``{field}`` placeholders, each template compiled once."""

from __future__ import annotations

import re

from skill_studio.core.bus.model import MISSING, Binding, lookup, text_of

_PLACEHOLDER = re.compile(r"\{([^{}\s]+)\}")
_UNSET = object()


def _text_at(payload: dict, texts: dict, name: str) -> str | None:
    """The text of a payload field (None when missing), looked up once per event."""
    t = texts.get(name, _UNSET)
    if t is _UNSET:
        found = lookup(payload, name)
        t = texts[name] = None if found is MISSING else text_of(found)
    return t


def compile_text(text: str):
    """``render(payload, texts)``: ``text`` with each ``{field}`` (dotted paths too) replaced by
    that payload value's text; fields the payload lacks are left as they are."""
    if "{" not in text:
        return lambda payload, texts: text
    pieces: list[tuple[str, str | None]] = []   # (raw text, the field of a placeholder or None)
    pos = 0
    for m in _PLACEHOLDER.finditer(text):
        if m.start() > pos:
            pieces.append((text[pos:m.start()], None))
        pieces.append((m.group(0), m.group(1)))
        pos = m.end()
    if pos < len(text):
        pieces.append((text[pos:], None))

    def render(payload: dict, texts: dict, unset=_UNSET) -> str:
        out = []
        for raw, name in pieces:
            if name is None:
                out.append(raw)
                continue
            t = texts.get(name, unset)
            if t is unset:
                t = _text_at(payload, texts, name)
            out.append(raw if t is None else t)
        return "".join(out)
    return render


def compile_value(value):
    """``render(payload, texts)``: ``compile_text`` through mappings and lists, each rendering a
    new copy; a string that is one placeholder and nothing else takes the payload value itself
    (a number stays a number)."""
    if isinstance(value, str):
        m = _PLACEHOLDER.fullmatch(value)
        if m is None:
            return compile_text(value)
        name = m.group(1)

        def whole(payload: dict, texts: dict):
            found = lookup(payload, name)
            return value if found is MISSING else found
        return whole
    if isinstance(value, dict):
        items = tuple((k, compile_value(v)) for k, v in value.items())
        return lambda payload, texts: {k: f(payload, texts) for k, f in items}
    if isinstance(value, list):
        parts = tuple(compile_value(v) for v in value)
        return lambda payload, texts: [f(payload, texts) for f in parts]
    return lambda payload, texts: value


def fill_text(text: str, payload: dict) -> str:
    """``text`` with each ``{field}`` filled in from the payload (see compile_text)."""
    return compile_text(text)(payload, {})


def fill_value(value, payload: dict):
    """``value`` with its placeholders filled in from the payload (see compile_value)."""
    return compile_value(value)(payload, {})


def describer(b: Binding, warning: str | None, locate):
    """``describe(payload, texts)`` of a binding's action: a new dict each time."""
    p = b.params if isinstance(b.params, dict) else {}
    skill, action = b.skill, b.action
    if action == "invoke_skill":
        fill = compile_value(p.get("arguments"))

        def describe_invocation(payload: dict, texts: dict) -> dict:
            found = locate(skill)
            if found is None:
                result = {"skill": skill, "error": f'no skill named "{skill}" any more'}
            else:
                result = {"skill": skill, "version": found[0], "content_chars": found[1], "location": found[2],
                          "arguments": fill(payload, texts)}
            if warning:
                result["warning"] = warning
            return result
        return describe_invocation
    if action == "inject_context":
        key, fill, fixed = "text", compile_text(str(p.get("text") or "")), {}
    elif action == "notify":
        key, fill = "message", compile_text(str(p.get("message") or ""))
        fixed = {"channel": p.get("channel") or "default"}
    elif action == "emit_event":
        key, fill, fixed = "payload", compile_value(p.get("payload") or {}), {"event_type": p.get("event_type")}
    elif action == "call_tool":
        key, fill, fixed = "arguments", compile_value(p.get("arguments") or {}), {"tool": p.get("tool")}
    else:
        return lambda payload, texts: {"error": f'unknown action "{action}"'}
    items = tuple(fixed.items())

    def describe(payload: dict, texts: dict) -> dict:
        result = dict(items)
        result[key] = fill(payload, texts)
        if warning:
            result["warning"] = warning
        return result
    return describe
