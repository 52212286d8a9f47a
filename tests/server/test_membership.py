"""Who may be where: one table at a time, seats, names, and who holds the host's powers.

Each test is a disagreement between server and PROTOCOL.md (or a trap a
group of friends fell into) that the server used to get wrong.
"""

from __future__ import annotations

import pytest

from client.link import LinkError, RequestFailed
from protocol import messages as m


async def refused(client, kind, **fields) -> str:
    with pytest.raises(RequestFailed) as info:
        await client.request(kind, **fields)
    return info.value.code


async def test_seated_at_a_waiting_table_you_must_leave_before_creating_or_joining_another(server, connect):
    async with connect("ann") as ann, connect("bob") as bob:
        first = await ann.request(m.CreateTable, name="first", settings=m.TableSettings(seats=2))
        other = await bob.request(m.CreateTable, name="other", settings=m.TableSettings(seats=3))
        assert await refused(ann, m.CreateTable, name="second", settings=m.TableSettings()) == "already_at_table"
        assert await refused(ann, m.Join, table_id=other["table_id"]) == "already_at_table"
        assert await refused(ann, m.Watch, table_id=other["table_id"]) == "already_at_table"
        table = server.lobby.tables[first["table_id"]]
        assert table.seat_of(ann.link.welcome.player_id) == 0 and len(server.lobby.tables) == 2  # nothing moved
        await ann.request(m.Leave)
        assert (await ann.request(m.Join, table_id=other["table_id"]))["seat"] == 1


async def test_names_must_be_1_to_24_code_points_after_cleaning(server, connect):
    with pytest.raises(LinkError) as info:
        async with connect("x" * 26):
            pass
    assert info.value.code == "bad_name"  # not silently cut to 24
    async with connect("y" * 24 + "\x1b[31m") as ok:
        assert server.lobby.players[ok.link.welcome.player_id].name == "y" * 24
        for name in ("\x1b[2J\u200b", "t" * 41):
            assert await refused(ok, m.CreateTable, name=name, settings=m.TableSettings()) == "bad_name"
        created = await ok.request(m.CreateTable, name="  t" * 13 + "t", settings=m.TableSettings())
        assert server.lobby.tables[created["table_id"]].name == " ".join(["t"] * 13) + "t"


async def test_join_and_watch_answer_the_documented_codes(server, connect):
    async with connect("ann") as ann, connect("bob") as bob, connect("cy") as cy:
        created = await ann.request(m.CreateTable, name="two", settings=m.TableSettings(seats=2))
        table_id = created["table_id"]
        assert await refused(ann, m.Join, table_id=table_id) == "already_at_table"  # your own table
        await bob.request(m.Join, table_id=table_id)
        assert await refused(cy, m.Join, table_id=table_id, seat=1) == "seat_taken"  # full, but that seat is named
        assert await refused(cy, m.Join, table_id=table_id) == "table_full"
        assert await refused(cy, m.Join, table_id=table_id, seat=4) == "no_such_seat"
        await cy.request(m.Watch, table_id=table_id)
        assert await refused(cy, m.Watch, table_id=table_id) == "already_at_table"  # already watching it
        await bob.request(m.Leave)
        assert (await cy.request(m.Join, table_id=table_id))["seat"] == 1  # a spectator may sit down where they watch


async def test_host_powers_belong_to_a_seated_host_and_pass_on_when_the_host_is_gone(server, connect):
    async with connect("ann") as ann, connect("cy") as cy, connect("dee") as dee:
        created = await ann.request(m.CreateTable, name="hosted", settings=m.TableSettings(seats=3))
        table_id = created["table_id"]
        table = server.lobby.tables[table_id]
        await cy.request(m.Watch, table_id=table_id)  # the table stays open after the host leaves
        await ann.request(m.Leave)
        await dee.request(m.Join, table_id=table_id)
        assert table.host_id == dee.link.welcome.player_id  # the new seated player hosts
        await dee.request(m.AddBot)
        await ann.request(m.Watch, table_id=table_id)
        assert await refused(ann, m.Start) == "not_host"  # the ex-host, now watching, has no powers
        await dee.request(m.Start)
        assert await refused(ann, m.EndGame) == "not_host"
        assert table.summary().host == "dee"


async def test_an_away_host_keeps_the_role_and_a_host_who_leaves_hands_it_on(server, connect):
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="away", settings=m.TableSettings(seats=3))
        table_id = created["table_id"]
        table = server.lobby.tables[table_id]
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        ann_id = ann.link.welcome.player_id
        await ann.request(m.SitOut, away=True)
        assert table.host_id == ann_id
        await ann.link.close()  # dropped: still the host, seat held
        await bob.wait_for(lambda: not bob.member(0)["connected"])
        assert table.host_id == ann_id and await refused(bob, m.EndGame) == "not_host"
        async with connect("ann", ann.link.welcome.token) as back:
            await back.request(m.SitOut, away=False)
            await back.request(m.Leave)  # gone from the running game, her seat held: bob hosts now
            assert table.host_id == bob.link.welcome.player_id
            await back.request(m.Join, table_id=table_id)  # her own seat back, not the role
            assert table.seat_of(ann_id) == 0 and table.host_id == bob.link.welcome.player_id
            await bob.request(m.EndGame)


async def test_names_that_mark_bots_or_the_server_are_reserved(connect):
    for name in ("Ada (bot)", "me (BOT)", "Server", " server "):
        with pytest.raises(LinkError) as info:
            async with connect(name):
                pass
        assert info.value.code == "bad_name", name


async def test_names_are_unique_among_players_online(server, connect):
    """Online means connected or holding a seat; a returning player whose name was taken gets a number."""
    async def name_refused(name: str) -> bool:
        with pytest.raises(LinkError) as info:
            async with connect(name):
                pass
        return info.value.code == "bad_name" and "in use" in str(info.value)

    async with connect("Ann") as ann, connect("bob") as bob:
        assert await name_refused("ann")
        created = await ann.request(m.CreateTable, name="held", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        token = ann.link.welcome.token
        await ann.link.close()
        await bob.wait_for(lambda: not bob.member(0)["connected"])
        assert await name_refused("ANN")  # her seat is held for her
    async with connect("Cy") as cy:
        token = cy.link.welcome.token
    async with connect("cy") as other:  # Cy is offline and seated nowhere: the name is free
        async with connect("Cy", token) as returning:  # Cy comes back: told apart by a number
            assert server.lobby.players[returning.link.welcome.player_id].name == "Cy 2"
            assert server.lobby.players[other.link.welcome.player_id].name == "cy"


async def test_newcomers_get_the_recent_chat_after_their_view(server, connect):
    """A spectator (and a player joining late) sees what was said before they came, right after the view."""
    async with connect("ann") as ann, connect("vic") as vic, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="talk", settings=m.TableSettings(seats=2))
        table_id = created["table_id"]
        await ann.request(m.Chat, text="anyone there?")
        await vic.request(m.Watch, table_id=table_id)
        await vic.wait_for(lambda: vic.chats)
        assert [c.text for c in vic.chats] == ["anyone there?"] and vic.facts[table_id]
        await vic.request(m.Chat, text="just watching")
        await bob.request(m.Join, table_id=table_id)
        await bob.wait_for(lambda: len(bob.chats) == 2)
        assert [(c.seat, c.name, c.text) for c in bob.chats] == [(0, "ann", "anyone there?"),
                                                                 (None, "vic", "just watching")]
