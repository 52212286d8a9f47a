"""Shared fixtures: a real server on 127.0.0.1 (ephemeral port) and scripted clients.

Every test also runs under :func:`timing_watch`: after each message any
in-process server handles (and each timer step and disconnect), every table
is checked for a seat the game waits on with no deadline or automatic move
armed (:meth:`server.pacing.Pacer.timing_problems`). A table that could stall
fails the test that got it there.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import settings

from scripted import ScriptedClient
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer, NetConfig
from server.pacing import Pacer
from server.table import TableConfig

# No per-example time limit: the suite shares a 2-core machine, where one example of a large
# message can take over Hypothesis's default 200 ms; speed is measured in benchmarks/.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


@pytest.fixture(autouse=True)
def timing_watch(monkeypatch) -> list[str]:
    """Collect every stall-prone table state seen during the test; the test fails if there was one."""
    problems: list[str] = []

    def check(tables) -> None:
        for table in tables:
            problems.extend(f"table {table.table_id}: {p}" for p in table.pacer.timing_problems())

    def after_lobby(method):
        @functools.wraps(method)
        def checked(lobby: Lobby, *args, **kwargs):
            result = method(lobby, *args, **kwargs)
            if not lobby._closing:
                check(lobby.tables.values())
            return result
        return checked

    def after_step(method):
        @functools.wraps(method)
        def checked(pacer: Pacer, *args, **kwargs):
            result = method(pacer, *args, **kwargs)
            check([pacer.table])
            return result
        return checked

    for name in ("handle", "hello", "disconnected"):
        monkeypatch.setattr(Lobby, name, after_lobby(getattr(Lobby, name)))
    monkeypatch.setattr(Pacer, "_guarded", after_step(Pacer._guarded))
    yield problems
    assert not problems, f"the game waited with nothing armed to move it on: {problems[:5]}"


@pytest.fixture
def table_config() -> TableConfig:
    return TableConfig(turn_timeout=30.0, bot_delay=0.0, away_delay=0.0, round_pause=0.0, seed_window=0.05)


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
