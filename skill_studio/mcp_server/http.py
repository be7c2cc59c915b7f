"""The server over streamable HTTP, on 127.0.0.1 only: every request needs the bearer token the
server prints, and must be addressed to the loopback (the Host check ``serve`` makes, so a web
page cannot reach the library through a name of its own: DNS rebinding)."""

from __future__ import annotations

import contextlib
import hmac
import secrets
from collections.abc import AsyncIterator

import anyio
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from skill_studio.mcp_server.server import LibraryServer

HOST = "127.0.0.1"
PATH = "/mcp"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def new_token() -> str:
    return secrets.token_urlsafe(32)


class Guard:
    """Refuses a request not addressed to the loopback (403) or without the token (401)."""

    def __init__(self, app: ASGIApp, token: str):
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        raw = headers.get("host", "")
        host = raw[:raw.index("]") + 1] if raw.startswith("[") and "]" in raw else raw.split(":", 1)[0]
        if host not in LOOPBACK_HOSTS:
            await JSONResponse({"error": f"requests must be addressed to 127.0.0.1, not {host or 'no host'!r}"},
                               status_code=403)(scope, receive, send)
            return
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), self.token.encode()):
            await JSONResponse({"error": "this server needs the token it printed: Authorization: Bearer TOKEN"},
                               status_code=401, headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
            return
        await self.app(scope, receive, send)


def http_app(library: LibraryServer, token: str, port: int) -> ASGIApp:
    """The ASGI application: the MCP endpoint at /mcp behind the guard, the change watch running
    while it serves."""
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                         allowed_hosts=[f"{h}:{port}" for h in LOOPBACK_HOSTS] + list(LOOPBACK_HOSTS),
                                         allowed_origins=[f"http://{h}:{port}" for h in LOOPBACK_HOSTS])
    manager = StreamableHTTPSessionManager(app=library.server, security_settings=security)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with manager.run(), anyio.create_task_group() as group:
            group.start_soon(library.watch)
            yield
            group.cancel_scope.cancel()

    app = Starlette(routes=[Route(PATH, endpoint=_Endpoint(manager), methods=["GET", "POST", "DELETE"])],
                    lifespan=lifespan)
    return Guard(app, token)


class _Endpoint:
    """The session manager as the ASGI application of one route (/mcp exactly, no redirect to /mcp/)."""

    def __init__(self, manager: StreamableHTTPSessionManager):
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.manager.handle_request(scope, receive, send)


def serve_http(library: LibraryServer, port: int, token: str, ready=None) -> None:
    """Serve until interrupted; ``ready(url)`` once listening (the port chosen when ``port`` is 0)."""
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    sock.listen(128)   # connections wait for the server from here on: the address is good once said
    bound = sock.getsockname()[1]
    config = uvicorn.Config(http_app(library, token, bound), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    if ready is not None:
        ready(f"http://{HOST}:{bound}{PATH}")
    server.run(sockets=[sock])


__all__ = ["Guard", "HOST", "PATH", "http_app", "new_token", "serve_http"]
