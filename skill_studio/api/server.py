"""The local skills API over HTTP: on 127.0.0.1 only, JSON in and out, writes with a bearer token.
Requests run on threads; the store serialises them, and other processes (the window, the command
line) keep working on the same store. A request must arrive within deadlines and say plainly where
its body ends (see http_io); every refusal closes its connection."""

from __future__ import annotations

import hmac
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

from skill_studio import __version__
from skill_studio.api import announcement
from skill_studio.api.http_io import (
    MAX_HEAD_BYTES,
    MAX_LINE_BYTES,
    READ_BUFFER_BYTES,
    HeadCounter,
    HeadTooLarge,
    content_length,
    framing_problem,
    reader_for,
)
from skill_studio.api.openapi import openapi_document
from skill_studio.api.routes import ROUTES, ApiError, Request
from skill_studio.core.format.json_nesting import json_too_deep
from skill_studio.core.format.names import printable
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
MAX_CONNECTIONS = 32           # more at once wait for a free one (each holds a thread)
HEAD_TIMEOUT_S = 5.0           # the request line and headers must arrive within this, all of them
BODY_TIMEOUT_S = 10.0          # and then the body within this
SOCKET_TIMEOUT_S = 10          # an answer the client does not read is dropped after this
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



_LOG_LOCK = threading.Lock()


def _log_line(line: str) -> None:
    """One line on stderr, whole: the connections' threads never interleave their lines."""
    with _LOG_LOCK:
        sys.stderr.write(printable(line) + "\n")   # a client's request line may hold escapes
        sys.stderr.flush()

class ApiServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128   # connections the system accepts before the server takes them

    def __init__(self, store: Store, port: int = 0, token: str | None = None, *, quiet: bool = True,
                 max_connections: int = MAX_CONNECTIONS, head_timeout: float = HEAD_TIMEOUT_S,
                 body_timeout: float = BODY_TIMEOUT_S):
        super().__init__(("127.0.0.1", port), _Handler)
        self.store = store
        self.token = token or secrets.token_urlsafe(32)
        self.quiet = quiet
        self.routes = {(r.method, r.path): r for r in ROUTES}
        self.max_connections, self.head_timeout, self.body_timeout = max_connections, head_timeout, body_timeout
        self.busy = 0                      # connections being served
        self._slot_freed = threading.Condition()
        self._stopping = False

    def process_request(self, request, client_address) -> None:
        """Serve the connection on a thread of its own once fewer than ``max_connections`` are
        served. While all are taken, new ones wait (in the listening socket's queue): each taken
        one ends within the head and body deadlines, so clients that send nothing cannot keep
        the others out for longer than that."""
        if not self._take_slot():
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def _take_slot(self) -> bool:
        deadline = time.monotonic() + self.head_timeout + self.body_timeout
        with self._slot_freed:
            while self.busy >= self.max_connections and not self._stopping:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._slot_freed.wait(left)
            if self._stopping:
                return False
            self.busy += 1
            return True

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._slot_freed:
                self.busy -= 1
                self._slot_freed.notify_all()

    def shutdown(self) -> None:
        with self._slot_freed:
            self._stopping = True
            self._slot_freed.notify_all()
        super().shutdown()

    def handle_error(self, request, client_address) -> None:
        """A client that hangs up before its answer is sent is normal: one line (none when quiet),
        no traceback. Anything else is reported in full."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            if not self.quiet:
                host, port = client_address[:2]
                what = f"did not read its answer within {SOCKET_TIMEOUT_S} s" if isinstance(error, TimeoutError) \
                    else f"closed the connection before its answer was sent ({type(error).__name__})"
                _log_line(f"{host}:{port} {what}")
            return
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def announce(self) -> None:
        """Leave the address and token in the store for the window (removed by ``withdraw``)."""
        announcement.announce(self.store, self.url, self.token)

    def withdraw(self) -> None:
        announcement.withdraw(self.store)


class _Handler(BaseHTTPRequestHandler):
    server: ApiServer
    server_version = f"SkillStudio/{__version__}"
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_S
    _framing: str | None = None    # why the request's framing headers are refused, once checked

    def setup(self) -> None:
        super().setup()
        self.rfile.close()   # replaced by one that reads against deadlines
        self.reader, self.rfile = reader_for(self.connection, SOCKET_TIMEOUT_S)

    def handle_one_request(self) -> None:
        """Read one request (its head within the head deadline, its body within the body deadline)
        and answer it; any refusal closes the connection, so nothing left unread is taken for a
        request."""
        self.command, self.requestline, self.request_version = "", "", ""
        self._framing = None
        self.reader.start(self.server.head_timeout, MAX_HEAD_BYTES + READ_BUFFER_BYTES)
        buffered = self.rfile
        self.rfile = HeadCounter(buffered, MAX_HEAD_BYTES)   # type: ignore[assignment]
        try:
            self.raw_requestline = self.rfile.readline(MAX_LINE_BYTES + 1)
            if not self.raw_requestline:
                self.close_connection = True
                return
            if len(self.raw_requestline) > MAX_LINE_BYTES:
                self.send_error(414, f"the request line is longer than {MAX_LINE_BYTES:,} bytes")
                return
            if not self.parse_request():
                return
        except TimeoutError:
            self.close_connection = True
            if not self.reader.received:   # an idle connection kept open between requests
                return
            self.send_error(408, f"the request's line and headers did not arrive within "
                                 f"{self.server.head_timeout:g} s; send them at once")
            return
        except HeadTooLarge:
            self.send_error(431, f"the request's line and headers are longer than {MAX_HEAD_BYTES:,} bytes")
            return
        finally:
            self.rfile = buffered
        self.reader.start(self.server.body_timeout)
        method = getattr(self, f"do_{self.command}", None)
        if method is None:
            self.send_error(501, f"{self.command} is not supported")
            return
        method()
        self.wfile.flush()

    def parse_request(self) -> bool:
        return super().parse_request() and self._framing_accepted()

    def _framing_accepted(self) -> bool:
        if self._framing is None:
            self._framing = framing_problem(self.headers) or ""
            if self._framing:
                self.send_error(400, self._framing)
        return not self._framing

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
        if not self._framing_accepted():
            return False
        length = content_length(self.headers)
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            self._send(413, {"error": f"the body is {length:,} bytes; at most {MAX_BODY_BYTES:,} are accepted",
                             "status": 413})
            return False
        return super().handle_expect_100()

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            _log_line(f"{self.address_string()} - - [{self.log_date_time_string()}] {format % args}")

    def _handle(self, method: str) -> None:
        path, _, query_text = self.path.partition("?")
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
        except ConnectionError:
            raise              # the client hung up: nobody to answer (see ApiServer.handle_error)
        except Exception as e:   # noqa: BLE001 - every failure becomes a JSON answer naming it
            status = status_for(e)
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
        length = content_length(self.headers)   # its framing was checked with the headers
        if length > MAX_BODY_BYTES:
            raise ApiError(413, f"the body is {length:,} bytes; at most {MAX_BODY_BYTES:,} are accepted")
        if length <= 0:
            return {}
        try:
            raw = self.rfile.read(length)
        except TimeoutError:
            raise ApiError(408, f"the body ({length:,} bytes) did not arrive within {self.server.body_timeout:g} s; "
                                "send it at once, right after the headers") from None
        if len(raw) < length:
            raise ApiError(400, f"the body ended after {len(raw):,} of the {length:,} bytes its Content-Length "
                                "announced")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ApiError(400, f"the body is not JSON: {e}") from None
        deep = json_too_deep(text)
        if deep:
            raise ApiError(400, f"the body cannot be read: {deep}")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
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
