"""Issue 32 item 16 at the server: mutes, the host's removals, the operator's bans and announcements.

Real servers on ephemeral ports and scripted clients; the operator's commands
run as the real ``dab-server`` command line against a real ``dab-server``
process, through its socket in the data directory (and straight into the
database when no server runs there).
"""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess

import pytest

from client.link import LinkError, RequestFailed
from operator_cli import cli
from protocol import messages as m
from scripted import ScriptedClient, play_until, wait_any
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer
from server.store import Store
from server.table import TableConfig

from durability_helpers import ServerProcess


async def failure(call) -> str:
    with pytest.raises(RequestFailed) as info:
        await call
    return info.value.code


def said(client: ScriptedClient) -> list[str]:
    return [chat.text for chat in client.chats]


# ----------------------------------------------------------------- mutes


async def test_a_muted_players_chat_reaches_everyone_but_whoever_muted_them_across_restarts(durable):
    server = await durable()
    async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob, \
            ScriptedClient(server.port, "sam") as sam:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        await sam.request(m.Watch, table_id=table_id)
        await bob.request(m.Chat, text="before")
        await ann.wait_for(lambda: "before" in said(ann))
        assert await ann.request(m.Mute, name="BOB") == {"name": "bob", "muted": True}  # as the server spells it
        await bob.request(m.Chat, text="spam")
        await sam.request(m.Chat, text="after")
        await ann.wait_for(lambda: "after" in said(ann))
        await bob.wait_for(lambda: "after" in said(bob))
        assert "spam" not in said(ann) and "spam" in said(sam) and "spam" in said(bob)  # nobody else is told
        assert await ann.request(m.Mutes) == {"names": ["bob"]}
        token = ann.link.token
    await server.close(grace=1.0)
    server = await durable()  # kept with ann's player, and the table's recent chat is filtered for her
    async with ScriptedClient(server.port, "ann", token) as ann:
        await ann.wait_for(lambda: "after" in said(ann))
        assert said(ann) == ["after"]  # bob's lines are left out, those from before the mute too
        assert await ann.request(m.Mutes) == {"names": ["bob"]}
        assert await ann.request(m.Mute, name="bob", muted=False) == {"name": "bob", "muted": False}
        assert await ann.request(m.Mutes) == {"names": []}


async def test_a_spectator_is_muted_by_the_name_their_chat_line_shows(connect):
    async with connect("ann") as ann, connect("eve") as eve:
        table_id = (await ann.request(m.CreateTable, name="t"))["table_id"]
        await eve.request(m.Watch, table_id=table_id)
        await eve.request(m.Chat, text="hi from the rail")
        await ann.wait_for(lambda: ann.chats)
        line = ann.chats[-1]
        assert (line.seat, line.name) == (None, "eve")
        await ann.request(m.Mute, name=line.name)
        await eve.request(m.Chat, text="again")
        await eve.wait_for(lambda: "again" in said(eve))
        await ann.request(m.Ping)
        assert said(ann) == ["hi from the rail"]


# ----------------------------------------------------------------- the host removes a player


async def test_the_host_removes_a_player_from_a_waiting_table_who_cannot_come_back(connect):
    async with connect("ann") as ann, connect("bob") as bob:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        assert await ann.request(m.RemovePlayer, name="bob") == {"name": "bob", "at_round_end": False}
        await bob.wait_for(lambda: any(e["kind"] == "removed" and e.get("you") for e in bob.events))
        await bob.wait_for(lambda: bob.tables)  # back in the lobby: the table list comes pushed
        await ann.wait_for(lambda: [mb["seat"] for mb in ann.table["members"]] == [0])  # the seat is free
        assert {"kind": "removed", "seat": 1, "name": "bob"} in ann.events
        assert await failure(bob.request(m.Join, table_id=table_id)) == "removed"
        assert await failure(bob.request(m.Watch, table_id=table_id)) == "removed"
        async with connect("bob2", token=bob.link.token) as again:  # a new connection is the same player
            assert await failure(again.request(m.Join, table_id=table_id)) == "removed"


async def test_a_player_removed_mid_round_plays_it_out_then_sits_out_and_gets_their_chips_back(durable):
    """Removed during the round under way: they go when it ends; their seat is then played for them (they
    sit out), and when the game ends their chips come back to their balance, as for leaving."""
    server = await durable(table=TableConfig(turn_timeout=30.0, bot_delay=0.0, away_delay=0.0, round_pause=0.0))
    async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        assert (await ann.request(m.RemovePlayer, name="bob"))["at_round_end"] is True
        assert {"kind": "removing", "seat": 1, "name": "bob"} in await bob.wait_for(lambda: bob.events)
        assert await failure(bob.request(m.Chat, text="unfair!")) == "removed"

        removed = lambda: any(e["kind"] == "removed" for e in ann.events)  # noqa: E731
        playing = asyncio.ensure_future(play_until([ann, bob], removed))  # bob plays his round out
        try:
            await ann.wait_for(removed, 60)
        finally:
            playing.cancel()  # (it may wait for a view bob no longer gets)
        await bob.wait_for(lambda: any(e["kind"] == "removed" and e.get("you") for e in bob.events))
        table = server.lobby.tables[table_id]
        seat = table.seats[1]
        assert seat.left and table.played_for(seat)  # held, played for him (he sits out)
        await ann.request(m.EndGame)
        await ann.wait_for(lambda: ann.view.get("phase") == "over")
        final = ann.view["players"][1]["stack"]  # (a carried pot's antes paid back)
        balance = (await bob.request(m.ListTables))["balance"]
        assert balance == server.lobby.config.starting_balance - 1000 + final  # his stack came back
        assert await failure(bob.request(m.Join, table_id=table_id)) == "removed"
        token = bob.link.token
    await server.close(grace=1.0)
    server = await durable()  # remembered across a restart
    async with ScriptedClient(server.port, "bob", token) as bob:
        assert await failure(bob.request(m.Watch, table_id=table_id)) == "removed"


async def test_a_removed_spectator_goes_at_once_and_a_rematch_keeps_them_out(connect):
    async with connect("ann") as ann, connect("bob") as bob, connect("eve") as eve:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        await eve.request(m.Watch, table_id=table_id)
        assert (await ann.request(m.RemovePlayer, name="eve"))["at_round_end"] is False
        await eve.wait_for(lambda: any(e["kind"] == "removed" and e.get("you") for e in eve.events))
        await ann.wait_for(lambda: ann.table["spectators"] == 0)
        await ann.request(m.Start)
        await ann.request(m.EndGame)
        await ann.request(m.OfferRematch)
        await bob.request(m.AnswerRematch, accept=True)
        await wait_any([ann, bob], lambda: len(ann.facts) == 2)
        rematch = next(t for t in ann.facts if t != table_id)
        assert await failure(eve.request(m.Watch, table_id=rematch)) == "removed"


# ----------------------------------------------------------------- the operator: ban, unban, bans, say


@pytest.fixture
async def running(tmp_path):
    server = ServerProcess(tmp_path)
    await server.start()
    yield server
    await server.close()


async def test_a_ban_by_the_operator_closes_the_players_connection_at_once_and_refuses_them_since(running):
    sock = running.data_dir / "dab-server.sock"
    info = os.lstat(sock)
    assert stat.S_ISSOCK(info.st_mode) and info.st_mode & 0o077 == 0  # the operator's alone
    async with ScriptedClient(running.port, "ann") as ann, ScriptedClient(running.port, "bob") as bob:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        done = await asyncio.to_thread(cli, running.data_dir, "ban", "player", "bob", "--reason", "flooding the chat")
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"banned player bob ({bob.link.welcome.player_id}); 1 connection closed")
        await bob.wait_for(lambda: bob.closed_with)
        assert bob.closed_with == ("banned", "you are banned from this server: flooding the chat")
        await ann.wait_for(lambda: [mb["seat"] for mb in ann.table["members"]] == [0])  # he left the table
        with pytest.raises(LinkError) as refused:
            async with ScriptedClient(running.port, "bob, again", bob.link.token):
                pass
        assert (refused.value.code, refused.value.message) == ("banned", "you are banned from this server: "
                                                                          "flooding the chat")
        listed = await asyncio.to_thread(cli, running.data_dir, "bans")
        assert listed.returncode == 0 and "player  bob (" in listed.stdout and "reason: flooding the chat" in listed.stdout
        lifted = await asyncio.to_thread(cli, running.data_dir, "unban", "player", "bob")
        assert lifted.returncode == 0 and lifted.stdout.startswith("unbanned player bob")
        async with ScriptedClient(running.port, "bob", bob.link.token) as back:
            assert back.link.welcome.resumed


async def test_a_banned_address_is_refused_on_connecting(running):
    async with ScriptedClient(running.port, "ann") as ann:
        done = await asyncio.to_thread(cli, running.data_dir, "ban", "address", "127.0.0.0/8")
        assert done.returncode == 0 and "1 connection closed" in done.stdout, done.stdout + done.stderr
        await ann.wait_for(lambda: ann.closed_with)
        assert ann.closed_with[0] == "banned"
    with pytest.raises(LinkError) as refused:
        async with ScriptedClient(running.port, "newcomer"):
            pass
    assert refused.value.code == "banned"
    assert (await asyncio.to_thread(cli, running.data_dir, "unban", "address", "127.0.0.0/8")).returncode == 0
    async with ScriptedClient(running.port, "newcomer") as newcomer:
        assert newcomer.link.welcome is not None


async def test_the_operator_announces_a_line_to_everyone_online(running):
    async with ScriptedClient(running.port, "ann") as ann, ScriptedClient(running.port, "bob") as bob, \
            ScriptedClient(running.port, "cy") as cy:
        notices: list[m.Notice] = []
        push = ann.link.on_push
        ann.link.on_push = lambda message: (notices.append(message) if isinstance(message, m.Notice) else None,
                                            push(message))
        listed = await ann.request(m.ListTables)
        assert "notices" in listed["features"]
        await ann.request(m.Notices)  # ann asked for notices; bob is at a table; cy, in the lobby, did not ask
        await bob.request(m.CreateTable, name="t")
        done = await asyncio.to_thread(cli, running.data_dir, "say", "the server restarts at 22:00")
        assert done.returncode == 0 and done.stdout.strip() == "said to 2 players online", done.stdout
        await ann.wait_for(lambda: notices)
        assert (notices[0].kind, notices[0].text) == ("announcement", "the server restarts at 22:00")
        line = await bob.wait_for(lambda: bob.chats and bob.chats[-1])
        assert (line.seat, line.name, line.text) == (None, "Server", "the server restarts at 22:00")
        await cy.request(m.Ping)
        assert cy.chats == []


async def test_without_a_running_server_ban_goes_into_the_database_and_say_is_refused(tmp_path):
    store = Store.open_dir(tmp_path)
    config = LobbyConfig(table=TableConfig(), store=store)
    server = GameServer(Lobby(config, "test"), None)
    await server.start("127.0.0.1", 0)
    async with ScriptedClient(server.port, "bob") as bob:
        token = bob.link.token
    await server.close(grace=1.0)
    done = await asyncio.to_thread(cli, tmp_path, "ban", "player", "bob", "--reason", "cheating")
    assert done.returncode == 0 and "no server is running: it applies from the next start" in done.stdout
    refused = await asyncio.to_thread(cli, tmp_path, "say", "hello")
    assert refused.returncode == 2 and "nobody to tell" in refused.stderr and "Traceback" not in refused.stderr
    unknown = await asyncio.to_thread(cli, tmp_path, "ban", "player", "nobody")
    assert unknown.returncode == 2 and "no player has that id or name" in unknown.stderr
    server = ServerProcess(tmp_path)
    await server.start()
    try:
        with pytest.raises(LinkError) as banned:
            async with ScriptedClient(server.port, "bob", token):
                pass
        assert banned.value.message == "you are banned from this server: cheating"
    finally:
        await server.close()


def test_a_key_is_banned_by_its_fingerprint_public_key_or_file(tmp_path):
    from server.moderation import key_fingerprint

    key = tmp_path / "id.pub"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "mallory@x", "-f", str(tmp_path / "id")],
                   check=True)
    printed = subprocess.run(["ssh-keygen", "-lf", str(key)], capture_output=True, text=True, check=True).stdout
    fingerprint = printed.split()[1]
    assert key_fingerprint(key.read_text()) == fingerprint == key_fingerprint(fingerprint)
    with pytest.raises(ValueError):
        key_fingerprint("ssh-ed25519 not-base64")
    Store.open_dir(tmp_path).close()
    done = cli(tmp_path, "ban", "key", str(key), "--reason", "griefing")
    assert done.returncode == 0, done.stderr
    assert f"banned key mallory@x ({fingerprint})" in done.stdout
    assert fingerprint in cli(tmp_path, "bans").stdout
