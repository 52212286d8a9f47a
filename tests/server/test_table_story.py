"""The table's story (issue 27 item 8): who joined, left, went offline, came back, sat out or was
played for, as the server's own events (PROTOCOL.md 5.6), worded once by the engine."""

from __future__ import annotations

import pytest

from engine.contract import TABLE_EVENT_KINDS, describe_table_event, plain_text
from engine.games import find_game
from protocol import messages as m
from scripted import ScriptedClient, play_until


def lines(client: ScriptedClient, game: str = "down-and-back", names: dict[int, str] | None = None) -> list[str]:
    """Every table event ``client`` was sent, in the game's one wording."""
    game_type = find_game(game)
    said = []
    for event in client.events:
        if event["kind"] in TABLE_EVENT_KINDS:
            parts = game_type.describe(event)
            said.append(plain_text(parts, lambda seat: (names or {}).get(seat, f"seat {seat}")))
    return said


def story(client: ScriptedClient) -> list[tuple]:
    """The table events of ``client``, as (kind, seat, name) and the flags each kind has."""
    out = []
    for e in client.events:
        if e["kind"] in ("joined", "left", "offline", "online"):
            flags = tuple(sorted(k for k in ("back", "held", "offline") if e.get(k)))
            out.append((e["kind"], e["seat"], e["name"], flags))
    return out


async def test_joins_bots_and_leaves_in_the_waiting_room_are_told(connect):
    async with connect("ann") as ann, connect("bob") as bob:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=4)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.AddBot)
        await ann.request(m.RemoveBot, seat=2)
        await bob.request(m.Leave)
        await ann.wait_for(lambda: len(story(ann)) >= 4)
        assert story(ann) == [("joined", 1, "bob", ()), ("joined", 2, "Ada (bot)", ()), ("left", 2, "Ada (bot)", ()),
                              ("left", 1, "bob", ())]
        assert lines(ann) == ["bob joins the table", "Ada (bot) joins the table", "Ada (bot) leaves the table",
                              "bob leaves the table"]


async def test_a_dropped_connection_in_the_waiting_room_frees_the_seat_and_says_so(connect):
    async with connect("ann") as ann:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3)))["table_id"]
        async with connect("bob") as bob:
            await bob.request(m.Join, table_id=table_id)
            await ann.wait_for(lambda: len(ann.table["members"]) == 2)
        await ann.wait_for(lambda: any(e[0] == "left" for e in story(ann)))
        assert story(ann)[-1] == ("left", 1, "bob", ("offline",))
        assert lines(ann)[-1] == "bob is offline: the seat is free again"


async def test_a_running_game_tells_who_left_dropped_and_came_back(connect, server):
    """Leaving holds the seat, the connection dropping is "offline", coming back is told both ways; and
    the one whose absent grace ran out is "offline: played for them", not "ran out of time"."""
    server.lobby.config.table.absent_grace = 0.05
    async with connect("ann") as ann:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        bob = ScriptedClient(server.port, "bob")
        await bob.link.connect()
        token = bob.link.token
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.Start)
        await ann.wait_for(lambda: ann.view.get("phase"))
        await bob.request(m.Leave)
        await ann.wait_for(lambda: ("left", 1, "bob", ("held",)) in story(ann))
        await bob.request(m.Join, table_id=table_id)
        await ann.wait_for(lambda: ("joined", 1, "bob", ("back",)) in story(ann))
        await bob.link.close()
        await ann.wait_for(lambda: ("offline", 1, "bob", ()) in story(ann))
        # ann plays on; bob's decisions are played for him once his grace has run out
        await play_until([ann], lambda: any(e["kind"] == "timeout" and e["seat"] == 1 for e in ann.events))
        timeout = next(e for e in ann.events if e["kind"] == "timeout" and e["seat"] == 1)
        assert timeout["offline"] is True
        async with ScriptedClient(server.port, "bob", token) as again:
            await ann.wait_for(lambda: ("online", 1, "bob", ()) in story(ann))
            assert again.link.welcome.resumed
        said = lines(ann, names={0: "ann", 1: "bob"})
        assert "bob leaves the table: the seat is kept and played for them" in said
        assert "bob comes back to the table" in said
        assert "bob is offline: the seat is kept" in said
        assert "bob is offline: played for them" in said
        assert "bob is back online" in said
        assert not any("ran out of time" in line for line in said)


async def test_a_deadline_that_passes_is_still_out_of_time(connect, server):
    server.lobby.config.table.turn_timeout = 0.2
    async with connect("ann") as ann:
        await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await ann.wait_for(lambda: any(e["kind"] == "timeout" for e in ann.events), timeout=10)
        timeout = next(e for e in ann.events if e["kind"] == "timeout")
        assert timeout == {"kind": "timeout", "seat": 0, "offline": False}
        assert "ann ran out of time: played automatically" in lines(ann, names={0: "ann"})


async def test_a_player_taken_over_from_elsewhere_is_not_said_to_come_back_online(connect, server):
    """A second connection with the same token replaces the first: nobody went offline."""
    async with connect("ann") as ann:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        async with connect("bob") as bob:
            await bob.request(m.Join, table_id=table_id)
            await ann.request(m.Start)
            async with ScriptedClient(server.port, "bob", bob.link.token) as other:
                await other.wait_for(lambda: other.views)
                await bob.wait_for(lambda: bob.closed_with is not None)
                await ann.request(m.Chat, text="sync")
                await ann.wait_for(lambda: ann.chats)
            assert [e[0] for e in story(ann)] == ["joined"]  # no "offline", no "back online"


@pytest.mark.parametrize("kind, event, text", [
    ("joined", {"seat": 1, "name": "Bob", "back": False}, "Bob joins the table"),
    ("left", {"seat": 1, "name": "Bob", "held": False, "offline": False}, "Bob leaves the table"),
    ("offline", {"seat": 1, "name": "Bob"}, "Bob is offline: the seat is kept"),
    ("online", {"seat": 1, "name": "Bob"}, "Bob is back online"),
])
def test_a_left_seat_is_named_by_the_event_even_when_the_reader_no_longer_knows_it(kind, event, text):
    for game in ("down-and-back", "cribbage"):
        parts = find_game(game).describe({"kind": kind, **event})
        assert parts == describe_table_event({"kind": kind, **event})
        assert plain_text(parts, lambda seat: "?") == text


async def test_a_round_with_the_table_story_in_it_still_verifies(connect, server):
    """The story's events come between a round's commitment and its reveal: the deal check leaves them out,
    as it leaves out timeouts (FAIRNESS.md 4), so a round someone left, came back to and dropped out of
    is "deal verified", not a mismatch."""
    from engine.fairness import verify_round

    server.lobby.config.table.absent_grace = 0.05
    async with connect("ann") as ann, connect("sam") as sam:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3)))["table_id"]
        await sam.request(m.Watch, table_id=table_id)
        bob = ScriptedClient(server.port, "bob")
        await bob.link.connect()
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await ann.wait_for(lambda: ann.view.get("phase"))
        await bob.request(m.Leave)
        await bob.request(m.Join, table_id=table_id)
        await bob.link.close()
        await ann.wait_for(lambda: any(e["kind"] == "offline" for e in ann.events))
        async with ScriptedClient(server.port, "bob", bob.link.token) as again:
            await ann.wait_for(lambda: any(e["kind"] == "online" for e in ann.events))
            await play_until([ann, again], lambda: any(e["kind"] == "deal_reveal" for e in sam.events))
    for client, seat in ((ann, 0), (sam, None)):
        start = next(i for i, e in enumerate(client.events) if e["kind"] == "deal_commit")
        end = next(i for i, e in enumerate(client.events) if e["kind"] == "deal_reveal")
        round_events = client.events[start:end + 1]
        assert {"left", "joined", "offline", "online"} <= {e["kind"] for e in round_events}
        verdict = verify_round(find_game("down-and-back"), round_events, seat)
        assert verdict.ok, verdict


async def test_a_player_the_host_removes_is_told_as_removed_not_as_leaving(connect):
    async with connect("ann") as ann, connect("bob") as bob:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.RemovePlayer, name="bob")
        await ann.wait_for(lambda: any(e["kind"] == "removed" for e in ann.events))
        assert [e[0] for e in story(ann)] == ["joined"]  # no "left" beside the removal
