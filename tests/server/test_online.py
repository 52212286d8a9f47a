"""Who is online and invitations (issue 27 item 6; PROTOCOL.md list_online, online, invite, invitation)."""

from __future__ import annotations

import asyncio

import pytest

from client.link import RequestFailed
from protocol import messages as m
from scripted import ScriptedClient


def names(result: dict) -> list[tuple]:
    return [(p["name"], p["where"], p["table_id"], p["away"], p["idle"]) for p in result["players"]]


async def test_the_list_says_where_each_player_is_and_only_what_anyone_may_know(connect):
    async with connect("cat") as cat, connect("Ann") as ann, connect("bob") as bob, connect("dan") as dan, \
            connect("eve") as eve:
        public = (await ann.request(m.CreateTable, name="open", settings=m.TableSettings(seats=3)))["table_id"]
        await bob.request(m.Join, table_id=public)
        private = (await dan.request(m.CreateTable, name="closed", private_code="sesame",
                                     settings=m.TableSettings(seats=2)))["table_id"]
        await eve.request(m.Watch, table_id=private, private_code="sesame")
        await cat.request(m.Watch, table_id=public)
        listed = await ann.request(m.ListOnline)
        assert listed["total"] == 5
        # the lobby first (none here), then those watching, then those seated; each by name
        assert names(listed) == [("cat", "watching", public, False, False), ("eve", "watching", None, False, False),
                                 ("Ann", "seated", public, False, False), ("bob", "seated", public, False, False),
                                 ("dan", "seated", private, False, False)]
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await bob.request(m.SitOut, away=True)
        listed = await cat.request(m.ListOnline)
        assert ("bob", "seated", public, True, False) in names(listed)
        await bob.request(m.Leave)  # his seat is held, played for him; he is in the lobby
        listed = await cat.request(m.ListOnline)
        assert names(listed)[0] == ("bob", "lobby", None, False, False)


async def test_the_list_is_bounded_and_counts_everyone(connect, server):
    from server.lobby import PlayerRecord

    lobby = server.lobby
    more = [PlayerRecord(f"x{i}", f"p{i:02}", b"", session=object()) for i in range(m.MAX_ONLINE + 4)]  # connected
    lobby.players.update({p.player_id: p for p in more})
    try:
        async with connect("first") as first:
            listed = await first.request(m.ListOnline)
    finally:
        for p in more:
            del lobby.players[p.player_id]
    assert listed["total"] == m.MAX_ONLINE + 5 and len(listed["players"]) == m.MAX_ONLINE
    assert [p["name"] for p in listed["players"]] == sorted(["first", *(p.name for p in more)])[:m.MAX_ONLINE]


async def test_idle_is_doing_nothing_for_a_while_and_a_ping_is_not_doing_something(connect, server):
    server.lobby.config.idle_after = 0.3
    async with connect("ann") as ann, connect("bob") as bob:
        await asyncio.sleep(0.4)  # (the idle time itself is what is tested: nothing to wait on but the clock)
        await bob.request(m.Ping)
        await ann.request(m.ListTables)  # ann does something
        listed = {p["name"]: p["idle"] for p in (await ann.request(m.ListOnline))["players"]}
        assert listed == {"ann": False, "bob": True}


async def test_followers_in_the_lobby_are_pushed_changes_and_nobody_else_is(connect, server):
    server.lobby.config.online_interval = 0.05
    server.lobby._online_timer.cancel()
    server.lobby._push_online()
    async with connect("ann") as ann, connect("old") as old:
        await ann.request(m.ListOnline)
        async with connect("bob"):
            await ann.wait_for(lambda: any("bob" in [p.name for p in push.players] for push in ann.online))
        await ann.wait_for(lambda: "bob" not in [p.name for p in ann.online[-1].players])
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        seen = len(ann.online)
        async with connect("cat") as cat:  # ann is at a table now: no more online pushes for her
            await cat.request(m.ListOnline)
            await cat.request(m.Join, table_id=table_id)
            await ann.wait_for(lambda: len(ann.table["members"]) == 2)
        assert len(ann.online) == seen
    assert old.online == []  # it never asked list_online: a client that knows nothing of the push never gets one


async def test_an_invitation_tells_the_player_and_lets_them_in_without_the_code(connect, server):
    async with connect("ann") as ann, connect("bob") as bob:
        table_id = (await ann.request(m.CreateTable, name="ann's", private_code="sesame",
                                      settings=m.TableSettings(game="cribbage", seats=2)))["table_id"]
        await bob.request(m.ListOnline)
        assert await ann.request(m.Invite, name="BOB") == {}  # names as the lobby compares them: any case
        invitation = await bob.wait_for(lambda: bob.invitations and bob.invitations[-1])
        assert invitation.to_wire() == {"type": "invitation", "table_id": table_id, "table_name": "ann's",
                                        "title": "Cribbage", "host": "ann", "private": True, "expires_ms": 60000}
        assert (await bob.request(m.Join, table_id=table_id))["seat"] == 1  # no code: the invitation is the pass
        await bob.request(m.Leave)
        with pytest.raises(RequestFailed) as refused:  # once: back in the lobby, the code is asked again
            await bob.request(m.Join, table_id=table_id)
        assert refused.value.code == "wrong_code"


async def test_an_invitation_lapses(connect, server, monkeypatch):
    import server.lobby as lobby

    monkeypatch.setattr(lobby, "INVITE_TTL", 0.2)
    async with connect("ann") as ann, connect("bob") as bob:
        table_id = (await ann.request(m.CreateTable, name="t", private_code="sesame",
                                      settings=m.TableSettings(seats=2)))["table_id"]
        await bob.request(m.ListOnline)
        await ann.request(m.Invite, name="bob")
        invitation = await bob.wait_for(lambda: bob.invitations and bob.invitations[-1])
        assert invitation.expires_ms == 200
        await asyncio.sleep(0.3)  # (the lapse itself is what is tested)
        with pytest.raises(RequestFailed) as refused:
            await bob.request(m.Watch, table_id=table_id)
        assert refused.value.code == "wrong_code"


async def test_invitations_are_limited(connect, server):
    async with connect("ann") as ann:
        await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=5))
        guests = [connect(f"g{i}") for i in range(5)]
        await asyncio.gather(*(g.__aenter__() for g in guests))
        try:
            for guest in guests:
                await guest.request(m.ListOnline)
            with pytest.raises(RequestFailed) as again:
                await ann.request(m.Invite, name="g0")
                await ann.request(m.Invite, name="g0")
            assert again.value.code == "rate_limited" and "again in" in again.value.message
            await ann.request(m.Invite, name="g1")
            await ann.request(m.Invite, name="g2")
            with pytest.raises(RequestFailed) as burst:
                await ann.request(m.Invite, name="g3")
            assert burst.value.code == "rate_limited" and "one every" in burst.value.message
            assert [len(g.invitations) for g in guests] == [1, 1, 1, 0, 0]
        finally:
            await asyncio.gather(*(g.__aexit__() for g in guests))


async def test_the_invitations_a_player_holds_are_bounded(connect, server):
    import server.lobby as lobby

    lobby_ = server.lobby
    async with connect("bob") as bob:
        await bob.request(m.ListOnline)
        hosts = [connect(f"h{i}") for i in range(lobby.INVITES_KEPT + 3)]
        await asyncio.gather(*(h.__aenter__() for h in hosts))
        try:
            for host in hosts:
                await host.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
                await host.request(m.Invite, name="bob")
            held = [k for k in lobby_._invited if k[0] == lobby_.players[bob.link.welcome.player_id].player_id]
            assert len(held) == lobby.INVITES_KEPT
        finally:
            await asyncio.gather(*(h.__aexit__() for h in hosts))


async def test_a_player_who_muted_the_host_gets_no_invitation_and_the_host_cannot_tell(connect, server):
    async with connect("ann") as ann, connect("bob") as bob, connect("cat") as cat:
        table_id = (await ann.request(m.CreateTable, name="ann's", private_code="sesame",
                                      settings=m.TableSettings(seats=3)))["table_id"]
        await cat.request(m.CreateTable, name="cat's", settings=m.TableSettings(seats=3))
        await bob.request(m.ListOnline)
        await bob.request(m.Mute, name="ann")
        assert await ann.request(m.Invite, name="bob") == {}  # answered as for anyone
        with pytest.raises(RequestFailed) as again:  # ... and again as for anyone: the mute stays bob's secret
            await ann.request(m.Invite, name="bob")
        assert again.value.code == "rate_limited" and "again in" in again.value.message
        await cat.request(m.Invite, name="bob")  # a host bob hears: its invitation comes after ann's would have
        await bob.wait_for(lambda: bob.invitations)
        assert [i.host for i in bob.invitations] == ["cat"]
        with pytest.raises(RequestFailed) as refused:  # nor is the unheard invitation a pass to the table
            await bob.request(m.Join, table_id=table_id)
        assert refused.value.code == "wrong_code"
