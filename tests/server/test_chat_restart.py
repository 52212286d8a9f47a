"""A table's recent chat is kept across a server restart (issue 12, "Coming back" item 8).

* after a restart, a player and a spectator coming back are sent the table's
  last 50 chat lines, oldest first, as they were said
  (``test_the_last_50_chat_lines_come_back_after_a_restart``);
* a line the server acknowledged survives a ``kill -9``
  (``test_an_acknowledged_chat_line_survives_a_kill``);
* a closed table's chat is forgotten (``test_a_closed_tables_chat_is_forgotten``).
"""

from __future__ import annotations

import signal
import sqlite3
from contextlib import AsyncExitStack, closing

import pytest

from protocol import messages as m
from scripted import ScriptedClient
from server.audience import CHAT_KEEP
from server.net import NetConfig
from server.store import DB_NAME, Store

from durability_helpers import FAST, ServerProcess


@pytest.fixture
def net_config() -> NetConfig:
    """Chat as fast as the test says it (the chat limit is not what is tested here)."""
    return NetConfig(rate=1000.0, burst=1000.0, chat_rate=1000.0, chat_burst=1000.0)


def said(client: ScriptedClient) -> list[tuple[int | None, str, str]]:
    return [(c.seat, c.name, c.text) for c in client.chats]


async def test_the_last_50_chat_lines_come_back_after_a_restart(durable):
    server = await durable()
    async with AsyncExitStack() as stack:
        ann, bob, eve = [await stack.enter_async_context(ScriptedClient(server.port, n)) for n in ("ann", "bob", "eve")]
        table_id = (await ann.request(m.CreateTable, name="talk", settings=m.TableSettings(seats=2)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        await eve.request(m.Watch, table_id=table_id)
        await ann.request(m.Start)
        for n in range(CHAT_KEEP + 4):
            await ann.request(m.Chat, text=f"line {n}")
        await eve.request(m.Chat, text="from the rail")
        await bob.wait_for(lambda: len(bob.chats) == CHAT_KEEP + 5)
        before = said(bob)[-CHAT_KEEP:]
        tokens = {c.name: c.link.token for c in (ann, bob, eve)}
        await server.close(grace=1.0)  # a shutdown is not a goodbye: seats and the spectator are kept
    assert before[0] == (0, "ann", "line 5") and before[-1] == (None, "eve", "from the rail")

    server = await durable()
    async with AsyncExitStack() as stack:
        for name in ("bob", "eve"):
            client = await stack.enter_async_context(ScriptedClient(server.port, name, tokens[name]))
            assert client.link.welcome.table_id == table_id
            await client.wait_for(lambda: len(client.chats) >= CHAT_KEEP)
            assert said(client) == before, name
            assert client.views.get(table_id)  # the view first, then the chat (PROTOCOL.md 5.2)


async def test_an_acknowledged_chat_line_survives_a_kill(tmp_path):
    server = ServerProcess(tmp_path, *FAST)
    try:
        await server.start()
        async with ScriptedClient(server.port, "ann") as ann:
            await ann.request(m.CreateTable, name="talk", settings=m.TableSettings(seats=2))
            await ann.request(m.AddBot)
            await ann.request(m.Start)
            for text in ("one", "two", "three"):
                assert await ann.request(m.Chat, text=text) == {}  # ok: durable
            token = ann.link.token
            await server.stop(signal.SIGKILL)
        await server.start()
        async with ScriptedClient(server.port, "ann", token) as ann:
            await ann.wait_for(lambda: len(ann.chats) == 3)
            assert [c.text for c in ann.chats] == ["one", "two", "three"]
    finally:
        await server.close()


async def test_a_closed_tables_chat_is_forgotten(tmp_path, durable):
    server = await durable()
    async with ScriptedClient(server.port, "ann") as ann:
        await ann.request(m.CreateTable, name="talk", settings=m.TableSettings(seats=2))
        await ann.request(m.Chat, text="anyone?")
        await ann.request(m.Leave)  # the table empties and closes
        await server.close(grace=1.0)
    with closing(sqlite3.connect(tmp_path / DB_NAME)) as conn:
        assert conn.execute("SELECT count(*) FROM chat").fetchone()[0] == 0
        assert conn.execute("SELECT state FROM tables").fetchall() == [("closed",)]


def test_the_store_keeps_a_tables_last_lines_only(tmp_path):
    store = Store.open_dir(tmp_path)
    try:
        store.add_player("p1", "Ann", b"x" * 32, 100)
        table_id = store.create_table("t", "down-and-back", {}, "p1", None)
        for n in range(CHAT_KEEP + 10):
            store.add_chat(table_id, {"seat": 0, "name": "Ann", "text": str(n), "ts": n}, CHAT_KEEP)
        store.commit()
        (row,) = store.load_tables()
    finally:
        store.close()
    assert [line["text"] for line in row.chat] == [str(n) for n in range(10, CHAT_KEEP + 10)]
