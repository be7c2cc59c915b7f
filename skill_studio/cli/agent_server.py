"""The command that serves the library to agents over the Model Context Protocol: ``mcp``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def cmd_mcp(args: argparse.Namespace) -> int:
    from skill_studio.cli.common import CliError, open_store

    try:
        import anyio

        from skill_studio.mcp_server import presence
        from skill_studio.mcp_server.server import LibraryServer
    except ImportError as e:   # an install without the SDK
        raise CliError(f"the Model Context Protocol SDK is missing ({e}); install it: pip install mcp", 1) from None
    store = open_store(args)
    library = LibraryServer(store, allow_manage=args.allow_manage)
    try:
        if args.http:
            from skill_studio.mcp_server.http import new_token, serve_http

            token = new_token()

            def ready(url: str) -> None:
                presence.announce(store, "http", url)
                print(f"Skill Studio MCP server on {url}\ntoken: {token}\n(Authorization: Bearer TOKEN; "
                      "Ctrl+C stops it)", file=sys.stderr, flush=True)

            try:
                serve_http(library, args.port, token, ready)
            except OSError as e:
                raise CliError(f"cannot listen on 127.0.0.1:{args.port}: {e.strerror or e}", 1) from None
        else:
            presence.announce(store, "stdio")
            anyio.run(library.run_stdio)
    except KeyboardInterrupt:
        pass
    finally:
        presence.withdraw(store)
        store.close()
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    m = add("mcp", "serve the library to agents over the Model Context Protocol (stdio, or --http on 127.0.0.1)",
            cmd_mcp, json_flag=False)
    m.add_argument("--store", metavar="PATH", default=argparse.SUPPRESS,
                   help="the store file (as before the command; default: the user's store)")
    m.add_argument("--http", action="store_true",
                   help="streamable HTTP on 127.0.0.1 with a bearer token (printed) instead of stdio")
    m.add_argument("--port", type=int, default=0, help="with --http: the port (default: any free one)")
    m.add_argument("--allow-manage", action="store_true",
                   help="let agents update, delete, merge, promote and deprecate skills too (by default they "
                        "only propose new skills and updates, for review)")
