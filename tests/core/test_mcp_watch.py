"""The MCP server's change watch: every connected client hears of a change to the gated set, once,
also when the store was busy the first time the watch looked."""

from __future__ import annotations

import anyio
from conftest import make

from skill_studio.core.model import Lifecycle, Origin, TrustTier
from skill_studio.mcp_server.server import LibraryServer


class Client:
    def __init__(self):
        self.told = 0

    async def send_resource_list_changed(self):
        self.told += 1

    async def send_prompt_list_changed(self):
        pass


def _candidate(store):
    idea = make("idea", "An idea about caching. Use when caching.")
    idea.origin, idea.lifecycle, idea.trust_tier = Origin.LLM, Lifecycle.CANDIDATE, TrustTier.UNTRUSTED
    store.add(idea)


def test_every_client_hears_of_a_promotion_once_even_after_a_busy_look(store, monkeypatch):
    _candidate(store)
    library = LibraryServer(store)
    a, b = Client(), Client()
    library.sessions.update({a, b})
    real, failures = library.signature, [1]

    def busy_once():
        if failures:
            failures.pop()
            raise RuntimeError("database is locked")
        return real()

    monkeypatch.setattr(library, "signature", busy_once)

    async def go():
        async with anyio.create_task_group() as group:
            group.start_soon(library.watch, 0.01)
            store.set_state("idea", lifecycle=Lifecycle.RELEASED, trust_tier=2, reason="reviewed")
            with anyio.fail_after(10):
                while not (a.told and b.told):
                    await anyio.sleep(0.01)
            for _ in range(20):   # and nothing more while nothing changes
                await anyio.sleep(0.01)
            group.cancel_scope.cancel()

    anyio.run(go)
    assert (a.told, b.told) == (1, 1) and not failures


def test_a_listing_does_not_hide_a_change_from_other_clients(store):
    _candidate(store)
    library = LibraryServer(store)
    other = Client()
    library.sessions.add(other)
    store.set_state("idea", lifecycle=Lifecycle.RELEASED, trust_tier=2, reason="reviewed")
    library._resources()   # one client lists before the watch looks

    async def go():
        async with anyio.create_task_group() as group:
            group.start_soon(library.watch, 0.01)
            with anyio.fail_after(10):
                while not other.told:
                    await anyio.sleep(0.01)
            group.cancel_scope.cancel()

    anyio.run(go)
    assert other.told == 1
