"""Shared fixtures: a real server on 127.0.0.1 (ephemeral port) and scripted clients."""

from __future__ import annotations

import pytest

from scripted import ScriptedClient
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer, NetConfig
from server.table import TableConfig


@pytest.fixture
def table_config() -> TableConfig:
    return TableConfig(turn_timeout=30.0, bot_delay=0.0, away_delay=0.0, round_pause=0.0)


@pytest.fixture
def net_config() -> NetConfig:
    return NetConfig(rate=1000.0, burst=1000.0)  # scripted clients play far faster than people


@pytest.fixture
async def server(table_config, net_config):
    game_server = GameServer(Lobby(LobbyConfig(table=table_config, seed=b"tests"), "dab-server test"), net_config)
    await game_server.start("127.0.0.1", 0)
    yield game_server
    await game_server.close(grace=1.0)


@pytest.fixture
def connect(server):
    """``async with connect("ann") as ann:`` a scripted client of the test server."""

    def make(name: str, token: str | None = None) -> ScriptedClient:
        return ScriptedClient(server.port, name, token)

    return make
