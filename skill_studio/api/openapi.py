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


def openapi_document(server_url: str) -> dict[str, Any]:
    from skill_studio.api.routes import ROUTES

    paths: dict[str, dict] = {}
    for r in ROUTES:
        op: dict[str, Any] = {"summary": r.summary, "operationId": f"{r.method.lower()}_{r.handler.__name__}",
                              "responses": {"200" if r.method != "POST" or r.path != "/api/skills" else "201": {
                                  "description": "Success", "content": {"application/json": {"schema": {
                                      "type": "object"}}}}}}
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
                    "properties": {n: {"type": t, "description": d} for n, (t, d, _req) in r.body.items()},
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
