"""A hostile client cannot hold slots, memory or the log (issue 11): connection-level limits."""

from __future__ import annotations

import asyncio
import time
import logging
import struct

import pytest

from client.link import LinkError
from protocol import messages as m
from protocol.framing import encode_frame
from server.limits import BucketsByKey

from scripted import autoplay, until
from test_robustness import hello_frame, raw_client, read_all


async def greeted(port: int, name: str = "raw"):
    reader, writer = await raw_client(port)
    writer.write(hello_frame(name))
    await writer.drain()
    return reader, writer


@pytest.mark.parametrize("frame_timeout, idle_timeout, reason", [(0.5, 100.0, "frame_timeout"), (100.0, 0.5, "idle")])
async def test_a_frame_dribbled_a_byte_at_a_time_does_not_hold_the_connection(
        server, frame_timeout, idle_timeout, reason):
    server.net.frame_timeout, server.net.idle_timeout = frame_timeout, idle_timeout
    reader, writer = await greeted(server.port)
    never_finished = struct.pack(">I", 60_000) + b"\x80" * 100

    async def dribble():
        for byte in never_finished:
            writer.write(bytes([byte]))
            await asyncio.sleep(0.1)  # the attack's pace, not a synchronisation

    dribbler = asyncio.ensure_future(dribble())
    try:
        replies = await asyncio.wait_for(read_all(reader), 8)
    finally:
        dribbler.cancel()
        writer.close()
    assert isinstance(replies[-1], m.Bye) and replies[-1].reason == reason, replies


async def test_connections_per_address_are_limited_and_refusals_logged_sparingly(server, caplog):
    server.net.max_per_address = 3
    clients = [await greeted(server.port, f"p{i}") for i in range(3)]
    for reader, _ in clients:
        assert isinstance((await m_read(reader)), m.Welcome)
    caplog.set_level(logging.WARNING, logger="server.net")
    refused = []
    started = time.monotonic()
    for _ in range(40):
        reader, writer = await raw_client(server.port)
        refused.append(await read_all(reader))
        writer.close()
    elapsed = time.monotonic() - started
    for replies in refused:
        assert [r.type for r in replies] == ["error", "bye"] and replies[0].code == "too_many_connections"
    lines = [r.getMessage() for r in caplog.records if r.name == "server.net"]
    allowed = 20 + 5 * elapsed + 1  # the peer log's burst, its 5 lines a second, one count of those left out
    assert 1 <= len(lines) <= min(allowed, len(refused) - 1), (lines, elapsed)
    assert all(line.startswith("127.0.0.1:") or line.endswith("were left out (too many)") for line in lines), lines
    clients[0][1].close()
    await asyncio.wait_for(until(lambda: server.per_address.get("127.0.0.1") == 2), 5)
    reader, writer = await greeted(server.port, "again")
    assert isinstance(await m_read(reader), m.Welcome)
    for _, w in clients[1:] + [(reader, writer)]:
        w.close()


async def test_new_identities_per_address_are_limited_but_tokens_still_work(server, connect):
    server.net.new_players_per_hour = 2
    server.new_players = BucketsByKey(2 / 3600, 2)
    async with connect("one") as one, connect("two"):
        token = one.link.token
    with pytest.raises(LinkError) as info:
        async with connect("three"):
            pass
    assert info.value.code == "rate_limited"
    async with connect("one again", token=token) as back:
        assert back.link.welcome.resumed


async def test_the_bye_arrives_even_with_unread_input_on_the_connection(server):
    reader, writer = await raw_client(server.port)
    writer.write(hello_frame() + b"\x00\x00\x00\x01\xc1" + b"\x00" * 512 * 1024)  # a bad frame, then more
    replies = await read_all(reader)  # a reset would raise ConnectionResetError here, the bye lost
    assert [r.type for r in replies[-2:]] == ["error", "bye"] and replies[-1].reason == "protocol_error"
    writer.close()


async def test_a_lost_connection_is_not_written_to_again(server, caplog):
    """After a failed send asyncio counts every further write to the lost
    connection and logs each one: replies to the rest of a read must not go out."""
    reader, writer = await greeted(server.port)
    assert isinstance(await m_read(reader), m.Welcome)
    (session,) = server.sessions
    session.transport.abort()  # what asyncio does when a send fails (peer reset)
    caplog.set_level(logging.WARNING)
    session.data_received(b"".join(encode_frame({"type": "ping", "id": i}) for i in range(50)))
    assert not [r for r in caplog.records if "socket.send()" in r.getMessage()]
    writer.close()


async def test_slow_readers_are_bounded_in_total_worst_first(server, connect):
    net = server.net
    net.behind, net.max_total_backlog = 8 * 1024, 96 * 1024  # each alone could queue 1 MiB
    async with connect("ann") as ann:
        created = await ann.request(m.CreateTable, name="busy", settings=m.TableSettings(seats=2))
        await ann.request(m.AddBot)
        sloths = []
        for i in range(3):
            reader, writer = await raw_client(server.port, rcvbuf=4096)
            writer.write(hello_frame(f"sloth{i}") + encode_frame({"type": "watch", "id": 2, "table_id": created["table_id"]}))
            sloths.append(writer)
        table = server.lobby.tables[created["table_id"]]
        await ann.wait_for(lambda: len(table.spectators) == 3)
        watching = [s for s in server.sessions if s.player_id in table.spectators]
        peak, drops = 0, []
        original_abort, original_write = type(watching[0]).abort, type(watching[0])._write

        def queued(session):
            return 0 if session.transport.is_closing() else session.transport.get_write_buffer_size()

        def measuring_write(session, data):
            nonlocal peak
            original_write(session, data)
            peak = max(peak, sum(queued(s) for s in watching))

        def recording_abort(session):
            drops.append((queued(session), max(queued(s) for s in watching)))
            original_abort(session)

        for session in watching:
            session._write = measuring_write.__get__(session)
            session.abort = recording_abort.__get__(session)
        await ann.request(m.Start)
        playing = asyncio.ensure_future(autoplay(ann, 10_000, host=True))
        await ann.wait_for(lambda: sum(s.closed for s in watching) >= 2, 30)
        assert peak <= net.max_total_backlog + 64 * 1024  # at most one write past the bound
        assert drops and all(size == worst for size, worst in drops), drops
        target = table.game.round_no + 1
        await ann.wait_for(lambda: table.game.round_no > target, 20)  # the honest player goes on
        await ann.request(m.EndGame)
        await asyncio.wait_for(playing, 20)
        for writer in sloths:
            writer.close()


async def m_read(reader: asyncio.StreamReader) -> m.Message:
    header = await asyncio.wait_for(reader.readexactly(4), 10)
    body = await asyncio.wait_for(reader.readexactly(int.from_bytes(header, "big")), 10)
    return m.decode(header + body)


async def test_many_messages_at_once_from_one_connection_do_not_hold_up_the_others(server, connect):
    order: list[str] = []
    handle = server.lobby.handle

    def recording_handle(player_id, msg):
        order.append(player_id)
        return handle(player_id, msg)

    server.lobby.handle = recording_handle
    async with connect("ann") as ann:
        reader, writer = await greeted(server.port, "flood")
        assert isinstance(await m_read(reader), m.Welcome)
        writer.write(b"".join(encode_frame({"type": "ping", "id": i}) for i in range(900)))
        await writer.drain()
        await ann.request(m.Ping)
        ann_id = ann.link.welcome.player_id
        (flood_id,) = set(order) - {ann_id}
        assert order.index(ann_id) < len(order) - 1 - order[::-1].index(flood_id)  # served among the flood
        writer.close()
