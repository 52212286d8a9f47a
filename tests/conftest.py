"""Shared fixtures: a real server on 127.0.0.1 (ephemeral port) and scripted clients."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

import pytest

from client.link import Link
from protocol import messages as m
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer, NetConfig
from server.table import TableConfig

WAIT = 10.0


@pytest.fixture
def table_config() -> TableConfig:
    return TableConfig(turn_timeout=30.0, bot_delay=0.0, away_delay=0.0, round_pause=0.0)


@pytest.fixture
def net_config() -> NetConfig:
    return NetConfig()


@pytest.fixture
async def server(table_config, net_config):
    game_server = GameServer(Lobby(LobbyConfig(table=table_config, seed=b"tests"), "dab-server test"), net_config)
    await game_server.start("127.0.0.1", 0)
    yield game_server
    await game_server.close(grace=1.0)


class ScriptedClient:
    """A protocol client that remembers what it was told and can wait for it."""

    def __init__(self, port: int, name: str, token: str | None = None) -> None:
        self.name = name
        self.views: dict[str, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.chats: list[m.ChatMessage] = []
        self.tables: tuple[m.TableSummary, ...] = ()
        self.raw = bytearray()
        self.closed_with: tuple[str, str] | None = None
        self._changed = asyncio.Event()
        self.link = Link("127.0.0.1", port, name, token, on_push=self._push, on_close=self._closed,
                         on_data=self.raw.extend)

    async def __aenter__(self) -> "ScriptedClient":
        await self.link.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.link.close()

    def _push(self, message: m.Message) -> None:
        if isinstance(message, m.View):
            self.views[message.table_id] = message.view
        elif isinstance(message, m.Event):
            self.events.extend(message.events)
        elif isinstance(message, m.ChatMessage):
            self.chats.append(message)
        elif isinstance(message, m.Tables):
            self.tables = message.tables
        self._changed.set()

    def _closed(self, reason: str, text: str) -> None:
        self.closed_with = (reason, text)
        self._changed.set()

    @property
    def view(self) -> dict[str, Any]:
        (view,) = self.views.values()
        return view

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = WAIT) -> Any:
        """Wait until ``predicate()`` is truthy, re-checking after every push."""
        async def loop() -> Any:
            while True:
                result = predicate()
                if result:
                    return result
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(loop(), timeout)

    async def request(self, kind: type[m.Message], **fields: Any) -> dict[str, Any]:
        return await self.link.request(kind, **fields)

    async def act(self, action: dict[str, Any]) -> dict[str, Any]:
        return await self.link.act(action)


@pytest.fixture
def connect(server):
    """``async with connect("ann") as ann:`` a scripted client of the test server."""

    def make(name: str, token: str | None = None) -> ScriptedClient:
        return ScriptedClient(server.port, name, token)

    return make
