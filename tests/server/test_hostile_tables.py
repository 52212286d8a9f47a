"""A hostile client cannot fill the lobby or break a view (issue 11): tables nobody
attends close, seats left behind are limited, lists and views fit one frame."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys

import pytest

from client.link import LinkError, RequestFailed
from engine.games.down_and_back.rules import OVER
from protocol import messages as m
from protocol.framing import MAX_FRAME_SIZE
from server.lobby import (
    CODE_TRIES_PER_PLAYER, CODE_TRIES_PER_TABLE, MAX_HELD_SEATS, Lobby, LobbyConfig, PlayerRecord,
)
from server.store import Store, secret_hash
from server.rounds import CHIP_HISTORY_ROWS

from scripted import until


async def bot_game_left_behind(client, name: str = "bots") -> str:
    """The attack: a bot game started and left, its seat held. Returns its table id."""
    created = await client.request(m.CreateTable, name=name, settings=m.TableSettings(seats=2, rules={"ante": 1, "stack": 1}))
    await client.request(m.AddBot)
    await client.request(m.Start)
    await client.request(m.Leave)
    return created["table_id"]


async def balance(client) -> int:
    return (await client.request(m.ListTables))["balance"]


async def test_a_bot_game_left_behind_ends_and_closes_after_a_grace(server, connect):
    server.lobby.config.empty_grace = 0.2
    async with connect("ann") as ann:
        before = await balance(ann)
        table_id = await bot_game_left_behind(ann)
        table = server.lobby.tables[table_id]
        await ann.wait_for(lambda: table_id not in server.lobby.tables)
        assert table.game.phase == OVER
        await ann.wait_for(lambda: all(t.table_id != table_id for t in ann.tables))
        assert await balance(ann) == before - 1 + table.game.players[0].stack  # cashed out


async def test_a_bot_game_left_behind_closes_after_a_restart(durable):  # noqa: F811
    server = await durable(empty_grace=100.0)
    async with connect_to(server, "ann") as ann:
        token, before = ann.link.token, await balance(ann)
        table_id = await bot_game_left_behind(ann)
    await server.close(grace=1.0)
    server = await durable(empty_grace=0.2)
    table = server.lobby.tables[table_id]  # restored, still playing
    async with connect_to(server, "ann", token) as ann:
        await ann.wait_for(lambda: table_id not in server.lobby.tables)
        assert await balance(ann) == before - 1 + table.game.players[0].stack
    assert table_id not in [row.table_id for row in server.lobby.store.load_tables()]


async def test_a_player_can_leave_only_a_few_running_games_behind(server, connect):
    async with connect("ann") as ann:
        for i in range(MAX_HELD_SEATS):
            await bot_game_left_behind(ann, f"bots {i}")
        with pytest.raises(RequestFailed) as info:
            await ann.request(m.CreateTable, name="one more", settings=m.TableSettings(rules={"ante": 1, "stack": 1}))
        assert info.value.code == "too_many_tables"


async def test_the_lobby_list_always_fits_one_frame_and_is_answered(server, connect, caplog):
    lobby = server.lobby
    wide = "\U0001f600" * 24  # 96 bytes of UTF-8 in each name
    for i in range(200):
        player_id = f"p{i}"
        lobby.players[player_id] = PlayerRecord(player_id, wide, b"", 10_000)
        lobby.handle(player_id, m.CreateTable(id=1, name=(wide * 2)[:40], settings=m.TableSettings()))  # the longest
        for _ in range(4):
            lobby.handle(player_id, m.AddBot(id=2))
    assert len(lobby.tables) == 200
    caplog.set_level(logging.WARNING)
    async with connect("ann") as ann:
        listed = await ann.request(m.ListTables)
        await ann.wait_for(lambda: ann.tables)
        assert 0 < len(listed["tables"]) < listed["total"] == 200
        assert len(ann.tables) == len(listed["tables"])
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_a_10000_round_game_still_has_a_final_view(server, connect, caplog):
    caplog.set_level(logging.WARNING)
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="marathon", settings=m.TableSettings(seats=5))
        for _ in range(4):
            await ann.request(m.AddBot)
        await ann.request(m.Start)
        await ann.request(m.EndGame)
        table = server.lobby.tables[created["table_id"]]
        # 10,000 rounds of chip history, as a long game leaves it (the rounds themselves are not needed).
        table.rounds.chip_history = [{seat: 1_000_000_000 - r for seat in range(5)} for r in range(10_001)]
        await bob.request(m.Watch, table_id=created["table_id"])
        view = await bob.wait_for(lambda: bob.views.get(created["table_id"]))
        assert view["phase"] == "over" and view["standings"]
        history = bob.table["chip_history"]
        assert len(history) == CHIP_HISTORY_ROWS
        assert history[0]["0"] == 1_000_000_000 and history[-1]["0"] == 1_000_000_000 - 10_000
        assert len(m.encode(bob.view_pushes[-1])) < MAX_FRAME_SIZE // 2
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_a_fixed_seed_is_announced_loudly_and_shown_at_every_table(server, connect, caplog):
    with caplog.at_level(logging.WARNING, logger="server.lobby"):
        Lobby(LobbyConfig(seed=b"predictable"), "test").close()
    assert any("NOT A FAIR GAME" in r.getMessage() for r in caplog.records)
    async with connect("ann") as ann:
        created = await ann.request(m.CreateTable, name="seeded", settings=m.TableSettings())
        facts = await ann.wait_for(lambda: ann.facts.get(created["table_id"]))
        assert facts["fixed_seed"] is True
        server.lobby.config.seed = None
        await ann.request(m.AddBot)
        await ann.wait_for(lambda: len(ann.table["members"]) == 2)
        assert ann.table["fixed_seed"] is False


def connect_to(server, name: str, token: str | None = None):
    from scripted import ScriptedClient

    return ScriptedClient(server.port, name, token)


async def test_private_codes_cannot_be_brute_forced(server, connect, caplog):
    caplog.set_level(logging.WARNING, logger="server.lobby")
    async with connect("host") as host, connect("mallory") as mallory:
        created = await host.request(m.CreateTable, name="secret", settings=m.TableSettings(), private_code="1234")
        table_id = created["table_id"]

        async def attempt(client, code):
            try:
                await client.request(m.Join, table_id=table_id, private_code=code)
            except RequestFailed as exc:
                return exc.code
            return "ok"

        codes = [await attempt(mallory, f"{guess:04}") for guess in range(10)]
        assert codes[:CODE_TRIES_PER_PLAYER] == ["wrong_code"] * CODE_TRIES_PER_PLAYER  # PROTOCOL.md 10: 5, then wait
        assert set(codes[CODE_TRIES_PER_PLAYER:]) == {"too_many_attempts"}
        assert await attempt(mallory, "1234") == "too_many_attempts"  # not even the right one, for now
        # Many identities share the table's allowance.
        wrong = CODE_TRIES_PER_PLAYER
        helpers = []
        while wrong < CODE_TRIES_PER_TABLE:
            helper = connect(f"sybil{len(helpers)}")
            await helper.__aenter__()
            helpers.append(helper)
            for _ in range(min(CODE_TRIES_PER_PLAYER, CODE_TRIES_PER_TABLE - wrong)):
                assert await attempt(helper, "0000") == "wrong_code"
                wrong += 1
        async with connect("friend") as friend:
            assert await attempt(friend, "1234") == "too_many_attempts"
        for helper in helpers:
            await helper.__aexit__(None, None, None)
    lines = [r.getMessage() for r in caplog.records if "wrong code" in r.getMessage()]
    assert lines and all(line.startswith("127.0.0.1:") for line in lines)


async def test_players_who_never_played_are_forgotten(durable):  # noqa: F811
    server = await durable(unplayed_ttl=0.3)
    async with connect_to(server, "visitor") as visitor, connect_to(server, "player") as player:
        visitor_id, visitor_token = visitor.link.welcome.player_id, visitor.link.token
        player_id = player.link.welcome.player_id
        created = await player.request(m.CreateTable, name="once", settings=m.TableSettings(seats=2, rules={"stack": 10}))
        await player.request(m.AddBot)
        await player.request(m.Start)
        await player.request(m.EndGame)
        await player.request(m.Leave)
        assert created
    lobby = server.lobby
    await asyncio.wait_for(until(lambda: visitor_id not in lobby.players), 10)
    assert player_id in lobby.players
    assert [row.player_id for row in lobby.store.load_players()] == [player_id]
    assert lobby.store.audit() == []
    with pytest.raises(LinkError) as info:
        async with connect_to(server, "visitor", visitor_token):
            pass
    assert info.value.code == "bad_token"


def test_the_operator_can_start_players_at_zero_and_grant_chips(tmp_path):
    from server.__main__ import build_parser

    assert build_parser().parse_args(["--starting-balance", "0"]).starting_balance == 0
    store = Store.open_dir(tmp_path)
    store.add_player("a1b2", "ann", secret_hash("s"), 0)
    store.commit()
    store.close()
    done = subprocess.run([sys.executable, "-m", "server", "grant", "--data-dir", str(tmp_path), "ann", "500"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "500 chips" in done.stdout
    store = Store.open_dir(tmp_path)
    try:
        (row,) = store.load_players()
        assert row.balance == 500 and row.played  # granted players are never pruned
        assert store.audit() == []
    finally:
        store.close()
    refused = subprocess.run([sys.executable, "-m", "server", "grant", "--data-dir", str(tmp_path), "bob", "5"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2 and "no player" in refused.stderr
