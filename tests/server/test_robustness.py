"""Untrusted input, disconnects, slow readers and limits, against a real server."""

from __future__ import annotations

import asyncio
import socket
import struct

import msgpack
import pytest

from client.link import LinkError, RequestFailed
from engine.games.down_and_back.rules import PLAY
from protocol import messages as m
from protocol.framing import FrameDecoder, encode_frame

from scripted import autoplay


async def raw_client(port: int, rcvbuf: int | None = None):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    return await asyncio.open_connection(sock=sock)


async def read_all(reader: asyncio.StreamReader) -> list[m.Message]:
    """Everything the server sends until it closes the connection."""
    data = await asyncio.wait_for(reader.read(), 10)
    decoder = FrameDecoder()
    decoder.feed(data)
    return [m.from_wire(frame) for frame in decoder]


def hello_frame(name: str = "raw", version: int = m.PROTOCOL_VERSION) -> bytes:
    return encode_frame({"type": "hello", "id": 1, "version": version, "name": name})


@pytest.mark.parametrize("garbage, code", [
    (b"\x00\x00\x00\x01\xc1", "bad_frame"),
    (struct.pack(">I", 10_000_000), "frame_too_large"),
    (b"\x00\x00\x00\x00", "bad_frame"),
    (encode_frame({"type": "ping", "id": 1}), "hello_required"),
    (encode_frame({"type": "launch_missiles", "id": 1}), "unknown_type"),
    (struct.pack(">I", 3) + msgpack.packb({1: 2}), "bad_frame"),
    (hello_frame() + encode_frame({"type": "act", "id": 2, "action": {"card": "7S"}}), "bad_message"),  # no kind
    (hello_frame() + encode_frame({"type": "join", "id": 2, "table_id": True}), "bad_message"),
])
async def test_garbage_gets_a_clear_error_and_closes_only_that_connection(server, connect, garbage, code):
    async with connect("bystander") as bystander:
        reader, writer = await raw_client(server.port)
        writer.write(garbage)
        await writer.drain()
        replies = await read_all(reader)
        errors = [r for r in replies if isinstance(r, m.Error)]
        assert errors and errors[-1].code == code, replies
        assert isinstance(replies[-1], m.Bye)
        writer.close()
        assert await bystander.request(m.Ping) == {}


async def test_version_mismatch_names_both_versions(server):
    reader, writer = await raw_client(server.port)
    writer.write(hello_frame(version=99))
    replies = await read_all(reader)
    assert replies[0].code == "version_mismatch"
    assert replies[0].message == f"server speaks protocol {m.PROTOCOL_VERSION}, client sent 99"
    writer.close()


async def test_bad_input_and_illegal_actions_leave_another_table_playing(server, connect):
    async with connect("ann") as ann, connect("bob") as bob, connect("mallory") as mallory:
        created = await ann.request(m.CreateTable, name="calm", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        game = asyncio.gather(autoplay(ann, 3, host=True), autoplay(bob, 3))

        other = await mallory.request(m.CreateTable, name="rowdy", settings=m.TableSettings(seats=2))
        await mallory.request(m.AddBot)
        await mallory.request(m.Start)
        table = server.lobby.tables[other["table_id"]]
        await mallory.wait_for(lambda: mallory.view["legal"])  # the bot waits for us: the state is still
        for attack in [
            {"kind": "discard", "card": "AS"},
            {"kind": "split", "down": ["AS", "2S", "3S", "4S"], "back": ["5S", "6S", "7S"]},
            {"kind": "cut", "position": 50},
            {"kind": "call_end"},  # not a rule at this table, whatever mallory is to do (cut or draw)
        ]:
            before = table.game.to_data()
            with pytest.raises(RequestFailed) as info:
                await mallory.act(attack)
            assert info.value.code in ("illegal_action", "not_your_turn")
            assert table.game.to_data() == before
        with pytest.raises(RequestFailed) as info:
            await mallory.request(m.Join, table_id="nope")
        assert info.value.code == "no_such_table"
        for garbage in [b"\xff" * 64, struct.pack(">I", 1 << 30), b"\x00\x00\x00\x02\x91\xc1"]:
            reader, writer = await raw_client(server.port)
            writer.write(hello_frame("junk") + garbage)
            await read_all(reader)
            writer.close()
        await asyncio.wait_for(game, 60)
        assert ann.view["phase"] == "over" and ann.view["round"] >= 3


async def test_disconnect_autoplay_and_resume_with_token(server, connect):
    server.lobby.config.table.turn_timeout = 0.4
    async with connect("ann") as ann:
        bob = connect("bob")
        await bob.__aenter__()
        created = await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
        bob_seat = (await bob.request(m.Join, table_id=created["table_id"]))["seat"]
        token = bob.link.token
        await ann.request(m.Start)
        table = server.lobby.tables[created["table_id"]]
        # Let the cut and any earlier turns time out until it is bob's turn to draw.
        await ann.wait_for(lambda: table.game.phase == PLAY and table.game.turn_seat == bob_seat, 10)
        await bob.act({"kind": "take_stock"})
        hand_mid_turn = list(bob.view["hand"])
        assert len(hand_mid_turn) == 8
        await bob.link.close()
        await ann.wait_for(lambda: not ann.member(bob_seat)["connected"])
        # The deadline plays bob's discard for him; the turn moves on.
        await ann.wait_for(lambda: any(e["kind"] == "timeout" and e["seat"] == bob_seat for e in ann.events))
        await ann.wait_for(lambda: table.game.players[bob_seat].turns_taken >= 1)
        async with connect("bob again", token=token) as back:
            welcome = back.link.welcome
            assert welcome.resumed and welcome.seat == bob_seat and welcome.table_id == created["table_id"]
            await back.wait_for(lambda: back.views)
            assert back.view["seat"] == bob_seat
            assert back.view["hand"] == [str(c) for c in table.game.players[bob_seat].hand]
            assert len(back.view["hand"]) == 7
            await ann.wait_for(lambda: ann.member(bob_seat)["connected"])
        with pytest.raises(LinkError) as info:
            async with connect("impostor", token=token[:-2] + "xx"):
                pass
        assert info.value.code == "bad_token"


async def test_a_client_that_never_reads_is_dropped_and_delays_nobody(server, connect):
    server.net.max_backlog = 16 * 1024
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="busy", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        reader, writer = await raw_client(server.port, rcvbuf=4096)
        writer.write(hello_frame("sloth"))
        writer.write(encode_frame({"type": "watch", "id": 2, "table_id": created["table_id"]}))
        await writer.drain()
        await ann.wait_for(lambda: server.lobby.tables[created["table_id"]].spectators)
        (sloth,) = [s for s in server.sessions if s.player_id and server.lobby.players[s.player_id].name == "sloth"]
        peak = 0
        original_push = type(sloth).push

        def measuring_push(message, encoded=None, _session=sloth):
            nonlocal peak
            original_push(_session, message, encoded)
            if not _session.closed:
                peak = max(peak, _session.transport.get_write_buffer_size())

        sloth.push = measuring_push  # type: ignore[method-assign]
        await ann.request(m.Start)
        players = asyncio.gather(autoplay(ann, 10_000, host=True), autoplay(bob, 10_000))
        await ann.wait_for(lambda: sloth.closed, 60)
        assert sloth not in server.sessions or sloth.transport.is_closing()
        assert peak <= server.net.max_backlog
        # The others play on at full speed: two more rounds, then the host ends it.
        table = server.lobby.tables[created["table_id"]]
        target = table.game.round_no + 2
        await ann.wait_for(lambda: table.game.round_no >= target, 20)
        await ann.request(m.EndGame)
        await asyncio.wait_for(players, 20)
        writer.close()


async def test_limits_on_hello_names_chat_and_rate(server, connect):
    server.net.hello_timeout = 0.2
    reader, writer = await raw_client(server.port)
    replies = await read_all(reader)
    assert isinstance(replies[-1], m.Bye) and replies[-1].reason == "hello_timeout"
    writer.close()
    async with connect("\x1b[31mEvil\u202e\x07 Name\x9b") as evil, connect("ok") as other:
        assert server.lobby.players[evil.link.welcome.player_id].name == "Evil Name"
        created = await evil.request(m.CreateTable, name="\x1b]0;pwned\x07chat", settings=m.TableSettings(seats=2))
        await other.request(m.Join, table_id=created["table_id"])
        assert server.lobby.tables[created["table_id"]].name == "chat"
        await evil.request(m.Chat, text="hi \x1b[2J there")
        await other.wait_for(lambda: other.chats)
        assert other.chats[0].text == "hi there" and other.chats[0].name == "Evil Name"
        with pytest.raises(RequestFailed) as info:
            await evil.request(m.Chat, text="x" * 300)
        assert info.value.code == "too_long"
        codes = []
        for _ in range(8):
            try:
                await evil.request(m.Chat, text="spam")
            except RequestFailed as exc:
                codes.append(exc.code)
        assert "rate_limited" in codes
        with pytest.raises(RequestFailed) as info:
            await other.request(m.Start)
        assert info.value.code == "not_host"
    with pytest.raises(LinkError) as info:
        async with connect("\x1b\x07"):
            pass
    assert info.value.code == "bad_name"


async def test_private_tables_need_their_code(server, connect):
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="secret", settings=m.TableSettings(), private_code="sesame")
        for code in (None, "wrong"):
            with pytest.raises(RequestFailed) as info:
                await bob.request(m.Join, table_id=created["table_id"], private_code=code)
            assert info.value.code == "wrong_code"
        assert (await bob.request(m.Join, table_id=created["table_id"], private_code="sesame"))["seat"] == 1


async def test_server_full(server, connect):
    server.net.max_connections = 1
    async with connect("first"):
        with pytest.raises(LinkError) as info:
            async with connect("second"):
                pass
        assert info.value.code == "server_full"


async def test_sitting_out_is_auto_played_and_coming_back_works(server, connect):
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await bob.request(m.SitOut, away=True)
        table = server.lobby.tables[created["table_id"]]
        bob_seat = table.seat_of(bob.link.welcome.player_id)
        playing = asyncio.ensure_future(autoplay(ann, 3, host=True))
        await ann.wait_for(lambda: table.game.round_no >= 2, 20)
        assert not table.game.players[bob_seat].in_round
        await bob.request(m.SitOut, away=False)
        await ann.wait_for(lambda: table.game.players[bob_seat].in_round or table.game.phase == "over", 20)
        bob_playing = asyncio.ensure_future(autoplay(bob, 3))
        await asyncio.wait_for(asyncio.gather(playing, bob_playing), 30)


async def test_the_operator_sets_the_table_limit_past_500_and_the_list_still_fits_its_frame(server, connect):
    """5,000 players four to a table need 1,250 tables (benchmarks/bench_server.py --knee): ``--max-tables``
    (LobbyConfig.max_tables, 500 by default) bounds them, and however many there are, the table list
    holds what fits one frame (fewer than the protocol's 500); ``total`` counts them all."""
    from server.table import complete_settings

    lobby = server.lobby
    lobby.config.max_tables = 601
    settings, _ = complete_settings(m.TableSettings())
    for _ in range(600):  # (tables no one sits at: only their count and their summaries matter here)
        lobby._new_table("t", settings, "nobody", None)
    async with connect("ann") as ann:
        listed = await ann.request(m.ListTables)
        assert 100 < len(listed["tables"]) < 500 and listed["total"] == 600
        await ann.request(m.CreateTable, name="the 601st")
        async with connect("bob") as bob:
            with pytest.raises(RequestFailed) as refused:
                await bob.request(m.CreateTable, name="one more")
            assert refused.value.code == "server_full"
