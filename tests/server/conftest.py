"""Fixtures of the server tests: a durable server on the test's own database."""

from __future__ import annotations

import pytest

from server.lobby import Lobby, LobbyConfig
from server.net import GameServer
from server.store import Store


@pytest.fixture
def durable_seed() -> bytes:
    """The table seed of :func:`durable`'s servers (a test module may give its own)."""
    return b"durable"


@pytest.fixture
async def durable(tmp_path, table_config, net_config, durable_seed):
    """``await durable(**config)`` starts a server on ``tmp_path``'s database (closed at the end)."""
    servers: list[GameServer] = []

    async def start(**overrides) -> GameServer:
        config = LobbyConfig(**{"table": table_config, "seed": durable_seed, "store": Store.open_dir(tmp_path),
                                **overrides})
        server = GameServer(Lobby(config, "dab-server test"), net_config)
        await server.start("127.0.0.1", 0)
        servers.append(server)
        return server

    yield start
    for server in servers:
        if not server.shutting_down:
            await server.close(grace=1.0)
