"""The local skills API over HTTP: on 127.0.0.1 only, JSON in and out, writes with a bearer token.
Requests run on threads; the store serialises them, and other processes (the window, the command
line) keep working on the same store."""

from __future__ import annotations

import hmac
import json
import os
import secrets
import sqlite3
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

from skill_studio import __version__
from skill_studio.api import SERVER_SETTING
from skill_studio.api.openapi import openapi_document
from skill_studio.api.routes import ROUTES, ApiError, Request
from skill_studio.core.health import scores
from skill_studio.core.store import (
    AlreadyExists,
    DependentsExist,
    NotFound,
    ReadOnlySkill,
    Store,
    StoreBusy,
    StoreError,
    UnusableStore,
    VersionConflict,
)

MAX_BODY_BYTES = 1024 * 1024
MAX_CONNECTIONS = 32           # more at once are turned away (each holds a thread)
SOCKET_TIMEOUT_S = 30          # a client that stops sending mid-request is dropped after this
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def status_for(error: Exception) -> int:
    """The HTTP status of an error from the core."""
    if isinstance(error, ApiError):
        return error.status
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, (UnusableStore, StoreBusy)):
        return 503
    if isinstance(error, (AlreadyExists, VersionConflict, DependentsExist, ReadOnlySkill, StoreError)):
        return 409   # refused moves, pinned or builtin skills, conflicts
    if isinstance(error, (ValueError, RecursionError)):   # bad values (SkillParseError, an empty reason), JSON
        return 400                                          # nested too deep
    return 500


class ApiServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, store: Store, port: int = 0, token: str | None = None, *, quiet: bool = True):
        super().__init__(("127.0.0.1", port), _Handler)
        self.store = store
        self.token = token or secrets.token_urlsafe(32)
        self.quiet = quiet
        self.routes = {(r.method, r.path): r for r in ROUTES}
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False):   # too many at once: turned away, not queued
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def announce(self) -> None:
        """Leave the address and token in the store for the window (removed by ``withdraw``)."""
        self.store.set_setting(SERVER_SETTING, {"url": self.url, "token": self.token, "pid": os.getpid(),
                                                "started_at": scores.format_time(scores.utcnow())})

    def withdraw(self) -> None:
        try:
            current = self.store.setting(SERVER_SETTING)
            if isinstance(current, dict) and current.get("pid") == os.getpid():
                self.store.set_setting(SERVER_SETTING, None)
        except (StoreError, sqlite3.Error):
            pass


class _Handler(BaseHTTPRequestHandler):
    server: ApiServer
    server_version = f"SkillStudio/{__version__}"
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_S
    _body_read = False

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_HEAD(self) -> None:
        self._handle("HEAD")

    def do_OPTIONS(self) -> None:
        self._handle("OPTIONS")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """What http.server answers itself (a malformed request line, an unknown method, a header
        too long) as JSON too."""
        self.close_connection = True
        self._send(code, {"error": message or self.responses.get(code, ("error",))[0], "status": code})

    def handle_expect_100(self) -> bool:
        """``Expect: 100-continue``: a body over the limit is refused before it is sent."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            self._send(413, {"error": f"the body is {length:,} bytes; at most {MAX_BODY_BYTES:,} are accepted",
                             "status": 413})
            return False
        return super().handle_expect_100()

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            super().log_message(format, *args)

    def _handle(self, method: str) -> None:
        path, _, query_text = self.path.partition("?")
        self._body_read = False
        try:
            self._check_host()
            if method == "GET" and path == "/api/openapi.json":
                return self._send(200, openapi_document(self.server.url))
            route = self.server.routes.get((method, path))
            if route is None:
                allowed = sorted(m for m, p in self.server.routes if p == path) or \
                    (["GET"] if path == "/api/openapi.json" else [])
                if allowed:
                    refused = ApiError(405, f"{method} is not allowed on {path}; use {', '.join(allowed)}")
                    refused.allow = ", ".join(allowed)
                    raise refused
                raise ApiError(404, f"no endpoint {path}")
            if route.writes:
                self._check_token()
            body = self._body()
            query = dict(parse_qsl(query_text, keep_blank_values=True))
            status, data = route.handler(Request(self.server.store, query, body, "api"))
        except Exception as e:   # noqa: BLE001 - every failure becomes a JSON answer naming it
            status = status_for(e)
            if not self._body_read and self.headers.get("Content-Length", "0").strip() not in ("", "0"):
                self.close_connection = True   # a body left unread must not be taken for the next request
            answer = {"error": str(e) if status != 500 else f"internal error: {e}", "status": status}
            answer.update(getattr(e, "details", {}))
            self._send(status, answer, allow=getattr(e, "allow", None))
            return
        self._send(status, data)

    def _check_host(self) -> None:
        """Only requests addressed to the loopback (a web page reaching us through a name of its own,
        DNS rebinding, is refused)."""
        raw = self.headers.get("Host") or ""
        host = raw[:raw.index("]") + 1] if raw.startswith("[") and "]" in raw else raw.split(":", 1)[0]
        if host not in _LOOPBACK_HOSTS:
            raise ApiError(403, f"requests must be addressed to 127.0.0.1, not {host or 'no host'!r}")

    def _check_token(self) -> None:
        given = self.headers.get("Authorization") or ""
        scheme, _, token = given.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise ApiError(401, "writes need the token skill-studio serve printed: Authorization: Bearer TOKEN")
        if not hmac.compare_digest(token.strip().encode(), self.server.token.encode()):
            raise ApiError(401, "wrong token")

    def _body(self) -> dict:
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise ApiError(411, "send the body with a Content-Length")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True
            raise ApiError(400, "Content-Length is not a number of bytes")
        if length > MAX_BODY_BYTES:
            self.close_connection = True   # the body is not read
            raise ApiError(413, f"the body is {length:,} bytes; at most {MAX_BODY_BYTES:,} are accepted")
        if length <= 0:
            return {}
        raw = self.rfile.read(length)
        self._body_read = True
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ApiError(400, f"the body is not JSON: {e}") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the body must be a JSON object")
        return data

    def _send(self, status: int, data: Any, *, allow: str | None = None) -> None:
        payload = json.dumps(data, ensure_ascii=False, default=str).encode("utf-8")
        self.send_response(status)
        if allow:
            self.send_header("Allow", allow)
        if status == 503:
            self.send_header("Retry-After", "5")
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        if status == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="skill-studio"')
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
