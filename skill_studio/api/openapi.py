"""The OpenAPI description of the local API, made from the route table (so the two never differ)."""

from __future__ import annotations

from typing import Any

from skill_studio import __version__

_ERROR = {"description": "An error, named", "content": {"application/json": {"schema": {
    "$ref": "#/components/schemas/Error"}}}}
_ERRORS = {"400": "Bad JSON, a bad value, or headers that do not say plainly where the body ends (more than "
                  "one Content-Length, any Transfer-Encoding)", "401": "Missing or wrong token",
           "403": "Not addressed to 127.0.0.1 or localhost", "404": "No such skill or endpoint",
           "405": "Another method is needed (see the Allow header)",
           "409": "Refused: a move the lifecycle does not allow, a conflict, a builtin or pinned skill",
           "408": "The request's headers or body did not arrive in time", "413": "The body is over 1 MiB",
           "431": "The request's headers are too long",
           "500": "An internal error, named", "503": "The store is busy (try again) or damaged"}


#: The JSON schema of each shape of a new skill's field (NEW_SKILL_FIELDS); other types are JSON's own.
_SHAPES: dict[str, dict[str, Any]] = {
    "text": {"type": "string"},
    "words": {"type": "array", "items": {"type": "string"}},
    "steps": {"type": "array", "items": {"oneOf": [{"type": "string"}, {
        "type": "object", "required": ["action"], "additionalProperties": False,
        "properties": {"action": {"type": "string"}, "n": {"type": "integer"}}}]}},
    "map": {"type": "object", "additionalProperties": {"type": "string"}},
}
#: What POST /api/skills/export answers: the files, for the client to write.
EXPORT_ANSWER: dict[str, Any] = {"type": "object", "required": ["name", "version", "folder", "files"],
                                 "properties": {
    "name": {"type": "string"}, "version": {"type": "integer"},
    "folder": {"type": "string", "description": "the folder name to write the files under"},
    "filename": {"type": "string"}, "skill_md": {"type": "string"},
    "files": {"type": "array", "items": {"type": "object", "properties": {
        "path": {"type": "string", "description": "relative to the folder, / between parts; SKILL.md first"},
        "mode": {"type": "string", "description": "permission bits as octal digits: 755 or 644"},
        "size": {"type": "integer"}, "executable": {"type": "boolean"},
        "encoding": {"type": "string", "enum": ["utf-8", "base64"]},
        "content": {"type": "string", "description": "the bytes: as text, or base64 when not UTF-8"}}}}}}
#: The data of a success, by operation, where it is worth spelling out.
_ANSWERS = {"post_export": EXPORT_ANSWER}


def openapi_document(server_url: str) -> dict[str, Any]:
    from skill_studio.api.routes import ROUTES

    paths: dict[str, dict] = {}
    for r in ROUTES:
        operation = f"{r.method.lower()}_{r.handler.__name__}"
        op: dict[str, Any] = {"summary": r.summary, "operationId": operation,
                              "responses": {"200" if r.method != "POST" or r.path != "/api/skills" else "201": {
                                  "description": "Success", "content": {"application/json": {
                                      "schema": _ANSWERS.get(operation, {"type": "object"})}}}}}
        if r.description:
            op["description"] = r.description
        codes = ["400", "403", "404", "405", "408", "409", "413", "431", "500", "503"] + (["401"] if r.writes else [])
        for code in codes:
            op["responses"][code] = {**_ERROR, "description": _ERRORS[code]}
        if r.params:
            op["parameters"] = [{"name": n, "in": "query", "required": req, "description": d,
                                 "schema": {"type": "string"}} for n, d, req in r.params]
        if r.body:
            op["requestBody"] = {"required": any(req for _t, _d, req in r.body.values()), "content": {
                "application/json": {"schema": {
                    "type": "object",
                    "properties": {n: {**_SHAPES.get(t, {"type": t}), "description": d}
                                   for n, (t, d, _req) in r.body.items()},
                    "required": [n for n, (_t, _d, req) in r.body.items() if req] or None}}}}
            schema = op["requestBody"]["content"]["application/json"]["schema"]
            if schema["required"] is None:
                del schema["required"]
        if r.writes:
            op["security"] = [{"bearer": []}]
        paths.setdefault(r.path, {})[r.method.lower()] = op
    paths["/api/openapi.json"] = {"get": {"summary": "This description", "operationId": "get_openapi",
                                          "responses": {"200": {"description": "The OpenAPI document"}}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Skill Studio local API", "version": __version__,
                 "description": "The skills REST endpoints over a Skill Studio store. Reads are open on the "
                                "loopback; writes need the bearer token `skill-studio serve` prints."},
        "servers": [{"url": server_url}],
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Error": {"type": "object", "required": ["error", "status"], "properties": {
                "error": {"type": "string"}, "status": {"type": "integer"}}}},
        },
    }
