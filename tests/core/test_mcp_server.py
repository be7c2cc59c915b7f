"""The Model Context Protocol server, tried with the SDK's own client: over stdio (the server a
subprocess, as clients start it) and over streamable HTTP on the loopback (token and Host
checked). A promotion made in the store by another process reaches a connected client as a
list change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import asynccontextmanager

import anyio
import httpx
import pytest
from conftest import make
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from skill_studio.core.model import Lifecycle, Origin, SkillFile, TrustTier
from skill_studio.core.review.queue import queue
from skill_studio.core.store import Store
from skill_studio.mcp_server import presence

WAIT = 30   # seconds a test waits for the server at most


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "library.db"
    with Store(path) as store:
        store.add(make("pdf-forms", "Fill PDF forms field by field. Use when a task has a .pdf form.",
                       files=[SkillFile("references/fields.md", b"# Fields\n", 0o644)]))
        store.add(make("release-notes", "Write release notes from merged changes. Use when preparing a release."))
        idea = make("draft-idea", "An unreviewed idea about caching. Use when caching.")
        idea.origin, idea.lifecycle, idea.trust_tier = Origin.LLM, Lifecycle.CANDIDATE, TrustTier.UNTRUSTED
        store.add(idea)
    return path


def _server_args(db, *extra: str) -> list[str]:
    return ["-m", "skill_studio", "mcp", "--store", str(db), *extra]   # as the connect snippets write it


@asynccontextmanager
async def stdio_session(db, *extra: str, handler=None):
    params = StdioServerParameters(command=sys.executable, args=_server_args(db, *extra), env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write, message_handler=handler) as session:
        await session.initialize()
        yield session


def _text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def test_over_stdio_an_agent_finds_loads_reads_and_reports(db):
    async def go():
        async with stdio_session(db) as s:
            names = [t.name for t in (await s.list_tools()).tools]
            assert names == ["search_skills", "list_skills", "load_skill", "read_skill_file", "record_outcome",
                             "manage_skill"]
            listed = json.loads(_text(await s.call_tool("list_skills", {})))
            assert [x["name"] for x in listed] == ["pdf-forms", "release-notes"]
            found = await s.call_tool("search_skills", {"query": "fill a pdf form", "limit": 3})
            assert found.structuredContent["skills"][0]["name"] == "pdf-forms"
            loaded = await s.call_tool("load_skill", {"name": "pdf-forms"})
            assert not loaded.isError and _text(loaded).startswith("---\nname: pdf-forms")
            read = await s.call_tool("read_skill_file", {"name": "pdf-forms", "path": "references/fields.md"})
            assert _text(read) == "# Fields\n"
            escape = await s.call_tool("read_skill_file", {"name": "pdf-forms", "path": "../release-notes/SKILL.md"})
            assert escape.isError and "a path inside the skill" in _text(escape)
            hidden = await s.call_tool("load_skill", {"name": "draft-idea"})
            assert hidden.isError and "kept from agents" in _text(hidden)
            outcome = await s.call_tool("record_outcome", {"name": "release-notes", "success": True})
            assert outcome.structuredContent["uses"] == 1
            made = await s.call_tool("manage_skill", {"action": "create", "name": "csv-cleanup",
                                                      "description": "Clean CSV files. Use when quotes stray."})
            assert made.structuredContent["created"] == "csv-cleanup"
            refused = await s.call_tool("manage_skill", {"action": "delete", "name": "release-notes"})
            assert refused.isError and "--allow-manage" in _text(refused)
            resources = [str(r.uri) for r in (await s.list_resources()).resources]
            assert resources == ["skill://pdf-forms/SKILL.md", "skill://pdf-forms/references/fields.md",
                                 "skill://release-notes/SKILL.md"]
            body = await s.read_resource("skill://pdf-forms/references/fields.md")
            assert body.contents[0].text == "# Fields\n"
            prompt = await s.get_prompt("available_skills")
            assert "<available_skills>" in prompt.messages[0].content.text
    anyio.run(go)
    with Store(db) as store:
        assert store.get("pdf-forms", with_files=False).last_used_at is not None   # the load was recorded
        assert store.get("release-notes", with_files=False).use_count == 1
        assert "csv-cleanup" in [s.name for s in queue(store)]
        assert "release-notes" in store
        assert presence.running(store) == []   # the server withdrew its note


def test_with_allow_manage_the_full_set_runs(db):
    async def go():
        async with stdio_session(db, "--allow-manage") as s:
            done = await s.call_tool("manage_skill", {"action": "promote", "name": "draft-idea", "reason": "ok"})
            assert not done.isError and done.structuredContent["lifecycle"] == "verified"
    anyio.run(go)


def test_a_promotion_in_the_store_reaches_a_connected_client(db):
    changed = anyio.Event()

    async def handler(message) -> None:
        if isinstance(message, types.ServerNotification) and \
                isinstance(message.root, types.ResourceListChangedNotification):
            changed.set()

    async def go():
        async with stdio_session(db, handler=handler) as s:
            before = [r.name for r in (await s.list_resources()).resources]
            assert "draft-idea" not in before
            with Store(db) as store:   # another process: the window, the command line
                assert presence.running(store)[0]["transport"] == "stdio"
                store.set_state("draft-idea", lifecycle=Lifecycle.RELEASED, trust_tier=2, reason="reviewed")
            with anyio.fail_after(WAIT):
                await changed.wait()
            after = [r.name for r in (await s.list_resources()).resources]
            assert "draft-idea" in after
    anyio.run(go)


@pytest.fixture
def http_server(db):
    proc = subprocess.Popen([sys.executable, *_server_args(db, "--http")], stderr=subprocess.PIPE, text=True)
    try:
        url = token = None
        lines = []
        for line in proc.stderr:   # the first lines say where it listens and its token
            lines.append(line)
            if line.startswith("Skill Studio MCP server on "):
                url = line.split(" on ", 1)[1].strip()
            if line.startswith("token: "):
                token = line.split(": ", 1)[1].strip()
                break
        assert url and token, "".join(lines)
        yield url, token
    finally:
        proc.terminate()
        proc.wait(WAIT)


def test_over_http_with_the_token(http_server):
    url, token = http_server

    async def go():
        client = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=WAIT)
        async with client, streamable_http_client(url, http_client=client) as (read, write, _), \
                ClientSession(read, write) as s:
            await s.initialize()
            listed = await s.call_tool("list_skills", {})
            assert [x["name"] for x in json.loads(_text(listed))] == ["pdf-forms", "release-notes"]
    anyio.run(go)


def test_over_http_a_bad_token_and_a_foreign_host_are_refused(http_server):
    url, token = http_server
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    wrong = httpx.post(url, json=hello, headers={**accept, "Authorization": "Bearer wrong"}, timeout=WAIT)
    assert wrong.status_code == 401 and "needs the token" in wrong.json()["error"]
    missing = httpx.post(url, json=hello, headers=accept, timeout=WAIT)
    assert missing.status_code == 401
    foreign = httpx.post(url, json=hello, headers={**accept, "Authorization": f"Bearer {token}",
                                                   "Host": "evil.example"}, timeout=WAIT)
    assert foreign.status_code == 403 and "127.0.0.1" in foreign.json()["error"]
    good = httpx.post(url, json=hello, headers={**accept, "Authorization": f"Bearer {token}"}, timeout=WAIT)
    assert good.status_code == 200
