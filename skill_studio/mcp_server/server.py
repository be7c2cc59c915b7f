"""The library as a Model Context Protocol server (the official Python SDK, ``mcp``): the tools of
:mod:`.tools`, each gated skill's SKILL.md and files as resources (``skill://NAME/SKILL.md``,
``skill://NAME/PATH``), and the ``<available_skills>`` block of the gated set as a prompt.

The store is read and written on worker threads (SQLite waits, the event loop does not). The
server looks at the store every second: when the gated set changes (a promotion in the window,
an import from the command line), every connected client is sent the protocol's list-changed
notifications for resources and prompts, so an agent sees it without restarting.

Transports: standard input and output (what clients start), or streamable HTTP on 127.0.0.1
only, with a bearer token and the Host check ``serve`` makes (:mod:`.http`).
"""

from __future__ import annotations

import hashlib
import json
import weakref
from typing import Any
from urllib.parse import quote, unquote

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from pydantic import AnyUrl

from skill_studio import __version__
from skill_studio.core.agents.prompt import with_warning
from skill_studio.mcp_server import tools

SCHEME = "skill"
POLL_SECONDS = 1.0
PROMPT = "available_skills"
INSTRUCTIONS = ("Skill Studio's library of agent skills. Find a skill for a task with search_skills, follow it "
                "with load_skill (and read_skill_file for its files), then say how it went with record_outcome. "
                "Skills you write with manage_skill go to a reviewer first.")


def skill_uri(name: str, path: str = "SKILL.md") -> str:
    return f"{SCHEME}://{quote(name, safe='')}/{quote(path, safe='/')}"


def parse_uri(uri: str) -> tuple[str, str]:
    """(skill name, path inside it) of a skill resource URI; ToolRefused for any other."""
    text = str(uri)
    head = f"{SCHEME}://"
    if not text.startswith(head) or "/" not in text[len(head):]:
        raise tools.ToolRefused(f"{text}: not a skill resource (skill://NAME/SKILL.md or skill://NAME/PATH)")
    name, _, path = text[len(head):].partition("/")
    return unquote(name), tools.confined(unquote(path))


class LibraryServer:
    """One server over ``store``; ``allow_manage`` opens manage_skill's full set."""

    def __init__(self, store, *, allow_manage: bool = False):
        self.store, self.allow_manage = store, allow_manage
        self.server: Server = Server("skill-studio", version=__version__, instructions=INSTRUCTIONS)
        self.sessions: weakref.WeakSet = weakref.WeakSet()
        # What the lists hold when the server starts, before any client can ask: every change after
        # it is told to every client connected then.
        self._token = store.change_token()
        self._seen = self.signature()
        self._register()

    # --- what clients see ---------------------------------------------------------------------

    def _remember(self) -> None:
        """Keep the session of the request being answered, to tell it of changes later."""
        try:
            self.sessions.add(self.server.request_context.session)
        except LookupError:
            pass

    def _register(self) -> None:
        server = self.server

        @server.list_tools()
        async def list_tools() -> list[types.Tool]:
            self._remember()
            return [types.Tool(name=t.name, description=t.description, inputSchema=t.schema) for t in tools.TOOLS]

        @server.call_tool(validate_input=True)
        async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
            self._remember()
            try:
                result = await anyio.to_thread.run_sync(self._call, name, arguments or {})
            except tools.ToolRefused as e:
                return types.CallToolResult(content=[types.TextContent(type="text", text=str(e))], isError=True)
            if isinstance(result, str):
                return types.CallToolResult(content=[types.TextContent(type="text", text=result)])
            text = json.dumps(result, ensure_ascii=False, indent=1)
            structured = result if isinstance(result, dict) else {"skills": result}
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                        structuredContent=structured)

        @server.list_resources()
        async def list_resources() -> list[types.Resource]:
            self._remember()
            return await anyio.to_thread.run_sync(self._resources)

        @server.list_resource_templates()
        async def list_templates() -> list[types.ResourceTemplate]:
            return [types.ResourceTemplate(uriTemplate=f"{SCHEME}://{{name}}/{{+path}}", name="skill file",
                                           description="A file of a skill agents may use: SKILL.md or any other")]

        @server.read_resource()
        async def read_resource(uri) -> list[ReadResourceContents]:
            self._remember()
            try:
                return await anyio.to_thread.run_sync(self._read, str(uri))
            except tools.ToolRefused as e:
                raise ValueError(str(e)) from None

        @server.list_prompts()
        async def list_prompts() -> list[types.Prompt]:
            self._remember()
            return [types.Prompt(name=PROMPT, description="The <available_skills> block of the skills agents may "
                                                          "use, to put in a system prompt")]

        @server.get_prompt()
        async def get_prompt(name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
            self._remember()
            if name != PROMPT:
                raise ValueError(f"no prompt {name!r}; the prompt is {PROMPT!r}")
            text = await anyio.to_thread.run_sync(self._block)
            return types.GetPromptResult(description="The skills agents may use", messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))])

    # --- the work, on worker threads -----------------------------------------------------------

    def _call(self, name: str, args: dict[str, Any]) -> Any:
        s = self.store
        if name == "search_skills":
            return tools.search_skills(s, str(args.get("query", "")), int(args.get("limit", 10)))
        if name == "list_skills":
            return tools.list_skills(s, args.get("origin"), args.get("lifecycle"), args.get("tag"))
        if name == "load_skill":
            return tools.load_skill(s, str(args["name"]))
        if name == "read_skill_file":
            return tools.read_skill_file(s, str(args["name"]), str(args["path"]))
        if name == "record_outcome":
            return tools.record_outcome(s, str(args["name"]), bool(args["success"]), args.get("note"))
        if name == "manage_skill":
            fields = {k: args.get(k) for k in ("name", "skill_md", "description", "target", "reason")}
            return tools.manage_skill(s, str(args["action"]), allow_manage=self.allow_manage, **fields)
        raise tools.ToolRefused(f"no tool {name!r}; the tools are {', '.join(t.name for t in tools.TOOLS)}")

    def _gated_cards(self):
        gated = tools.gated_entries(self.store)
        return gated, self.store.cards(sorted(gated))

    def _resources(self) -> list[types.Resource]:
        gated, cards = self._gated_cards()
        out: list[types.Resource] = []
        for card in cards:
            out.append(types.Resource(uri=AnyUrl(skill_uri(card.name)), name=card.name, title=f"{card.name} (SKILL.md)",
                                      description=with_warning(card.description, gated[card.name].warning),
                                      mimeType="text/markdown"))
            for path, size, _mode in self.store.file_list(card.name):
                out.append(types.Resource(uri=AnyUrl(skill_uri(card.name, path)), name=f"{card.name}/{path}", size=size,
                                          mimeType=_mime(path)))
        return out

    def _read(self, uri: str) -> list[ReadResourceContents]:
        name, path = parse_uri(uri)
        if path in ("SKILL.md", "skill.md"):   # read, not followed: no use is recorded
            return [ReadResourceContents(tools.skill_text(self.store, name), "text/markdown")]
        tools.visible(self.store, name)
        found = next((f for f in self.store.get(name).files if f.path == path), None)
        if found is None:
            raise tools.ToolRefused(f'"{name}" has no file {path}')
        try:
            return [ReadResourceContents(found.data.decode("utf-8"), _mime(path))]
        except UnicodeDecodeError:
            return [ReadResourceContents(found.data, _mime(path, binary=True))]

    def _block(self) -> str:
        from skill_studio.core.agents.prompt import gated_prompt

        return gated_prompt(self.store).text

    def signature(self) -> str:
        """What the clients' lists depend on: the gated skills, their descriptions and files."""
        return self._signature_of(*self._gated_cards())

    @staticmethod
    def _signature_of(gated, cards) -> str:
        h = hashlib.sha256()
        for card in cards:
            h.update(f"{card.name}\0{card.description}\0{gated[card.name].warning}\0{card.version}\n".encode())
        return h.hexdigest()

    # --- telling clients of changes ----------------------------------------------------------

    async def watch(self, poll_seconds: float = POLL_SECONDS) -> None:
        """Every ``poll_seconds``, send the list-changed notifications when the gated set changed
        (looked at again only after something was committed to the store)."""
        while True:
            await anyio.sleep(poll_seconds)
            try:
                latest = await anyio.to_thread.run_sync(self.store.change_token)
                if latest == self._token:
                    continue
                now = await anyio.to_thread.run_sync(self.signature)
            except Exception:   # noqa: BLE001 - a busy or briefly locked store: look again next time
                continue
            self._token = latest   # (only once the signature was read: a failed look is tried again)
            if now != self._seen:
                self._seen = now
                await self.tell_sessions()

    async def tell_sessions(self) -> None:
        for session in list(self.sessions):
            try:
                await session.send_resource_list_changed()
                await session.send_prompt_list_changed()
            except Exception:   # noqa: BLE001 - a client gone meanwhile
                self.sessions.discard(session)

    def initialization_options(self):
        return self.server.create_initialization_options(
            NotificationOptions(resources_changed=True, prompts_changed=True))

    async def run_stdio(self) -> None:
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write), anyio.create_task_group() as group:
            group.start_soon(self.watch)
            await self.server.run(read, write, self.initialization_options())
            group.cancel_scope.cancel()


def _mime(path: str, binary: bool = False) -> str:
    import mimetypes

    guessed = mimetypes.guess_type(path)[0]
    if guessed:
        return guessed
    return "application/octet-stream" if binary else "text/plain"


__all__ = ["LibraryServer", "PROMPT", "SCHEME", "parse_uri", "skill_uri"]
