"""Cribbage tables against docs/PROTOCOL.md and docs/games/cribbage.md: every view, event and round record sent.

Two tables play over a real server: three players (two people and a bot, with a
spectator) under the muggins house rule, where one person sits out a deal and
lets a deadline pass; and two people without muggins, where the show is
counted by itself. Each plays a game to 61 and the host ends the next one
mid-deal. Every view push and event each member received, and every round
record of ``history``, must have exactly the fields the documents list.
"""

from __future__ import annotations

import asyncio
from typing import Any

import protocol_spec
from scripted_cribbage import baseline, games_won, play_until, seat_table
from protocol import messages as m
from scripted import ScriptedClient, SeedingClient

SPEC = protocol_spec.load()
DOC = protocol_spec.load_game("cribbage")
EVENTS = {**SPEC.events, **DOC.events}
CHANCE = {"draw_tie", "heels"}  # events only some deals have
REMATCH = {"rematch", "rematch_answer", "rematch_cancelled", "rematch_started",  # the server's, at every table:
           "removing", "removed"}  # test_conformance provokes them (and the rematch tests start one at a
# Cribbage table, the moderation tests remove a player from one)
STORY = {"joined", "left", "offline", "online"}  # the server's too: test_the_table_story_... below


def entry_keys(notation: str) -> frozenset[str]:
    """The keys of the entries of a ``[{seat, card}]``-style type."""
    inner = notation[notation.index("{") + 1:notation.index("}")]
    return frozenset(k.split(":")[0].strip() for k in inner.split(","))


def check_event(event: dict[str, Any], seat: int | None) -> None:
    always, optional, own = EVENTS[event["kind"]]
    mine = seat is not None and event.get("seat") == seat
    assert set(event) - optional == always | (own if mine else set()), (seat, event)


SHOW_MAP = EVENTS["show"][0] - {"kind"}  # "a show or claim event's fields and seat"


def check_view(push: m.View) -> None:
    table, game, seat = push.table, push.game, push.table["seat"]
    assert set(table) == set(SPEC.table), sorted(table)
    assert list(table["settings"]) == SPEC.settings and list(table["settings"]["rules"]) == list(DOC.rules)
    if game is None:
        assert push.decision is None and push.deadline_ms is None
        return
    assert set(game) == DOC.view_keys(seat is not None), (seat, sorted(game))
    assert game["seat"] == seat and list(game["settings"]) == list(DOC.rules)
    for entry in game["legal"]:
        assert set(entry) == DOC.legal[entry["kind"]], entry
    for field in ("seats", "sides", "series", "draws", "standings"):
        for entry in game[field] or ():
            assert set(entry) == entry_keys(DOC.view[field].type), (field, entry)
    assert set(game["crib"]) == entry_keys(DOC.view["crib"].type)
    if game["counting"] is not None:
        assert game["phase"] == "show" and set(game["counting"]) == entry_keys(DOC.view["counting"].type)
    muggins = game["settings"]["muggins"]
    for shown in game["show"]:
        assert set(shown) == SHOW_MAP | ({"claimed", "muggins"} if muggins else set()), shown
        for item in shown["items"] or ():
            assert set(item) == {"name", "cards", "points", "total"}, item
    for event in game["log"]:
        check_event(event, seat)
    phase = game["phase"]
    assert (game["standings"] is not None) == (phase == "over")
    if phase in ("waiting", "over"):
        assert game["to_act"] == [] and push.decision is None and push.deadline_ms is None, push
    elif game["fair"]["phase"] in ("commit", "reveal"):  # the deal is being sealed: nobody is to act
        assert game["to_act"] == game["legal"] == [] and push.decision is None and push.deadline_ms is None, push
    else:  # the decision id of the game's document: [round, phase, n]
        round_no, decision_phase, taken = push.decision
        assert (round_no, decision_phase) == (game["round"], phase) and isinstance(taken, int), push.decision
        members = {mb["seat"]: mb for mb in table["members"]}
        on_clock = [s for s in game["to_act"] if not members[s]["bot"] and not members[s]["away"]]
        assert (push.deadline_ms is None) == (not on_clock), (game["to_act"], push.deadline_ms)


async def play_table(clients: list[ScriptedClient], seats: int, bots: int, muggins: bool, sit_out: bool) -> None:
    """A game to 61, then the host ends the next one mid-deal; with ``sit_out`` the second client sits out
    a deal of the first game and lets one of its deadlines pass. Under muggins the host claims nothing
    until an opponent has decided on a claim that fell short."""
    host, other = clients[0], clients[1]

    def choose(client: ScriptedClient, view: dict[str, Any]) -> dict[str, Any]:
        short = client is host and not any(e["kind"] == "muggins" for e in host.events)
        return {"kind": "claim", "points": 0} if short and view["legal"][0]["kind"] == "claim" else baseline(client, view)
    await seat_table(clients, seats, bots, target=61, stake=5, muggins=muggins)
    if sit_out:
        await play_until(clients, lambda: other.views and other.view["phase"] == "play", choose)
        await other.request(m.SitOut, away=True)
        await play_until([host], lambda: host.view["phase"] == "cut", choose)  # the next deal: back in
        await other.request(m.SitOut, away=False)
        seen = len(other.events)
        await other.wait_for(lambda: any(e["kind"] == "timeout" for e in other.events[seen:]))
    await play_until(clients, lambda: games_won(host), choose)
    await play_until(clients, lambda: host.view["phase"] == "play" and host.view["game"] == 2, choose)
    await host.request(m.EndGame)
    await host.wait_for(lambda: host.view["phase"] == "over")
    rounds = (await host.request(m.History, limit=100))["rounds"]
    assert rounds[-1]["abandoned"] and not rounds[0]["abandoned"]
    for record in rounds:
        assert set(record) == set(SPEC.round_record) | set(DOC.round_record), sorted(record)
        for player in record["players"]:
            assert set(player) == set(DOC.round_player), player


async def test_every_cribbage_view_event_and_round_record_has_exactly_the_documented_fields(server, connect):
    server.lobby.config.table.turn_timeout = 0.3
    server.lobby.config.table.seed_window = 5.0  # the players seed at once, as ours do: the deal waits for them
    seeding = lambda name: SeedingClient(server.port, name, fixed_seeds=True)  # noqa: E731
    async with seeding("ann") as ann, seeding("bob") as bob, connect("sam") as sam, \
            seeding("cat") as cat, seeding("dan") as dan:
        async def three_with_muggins() -> None:
            await play_table([ann, bob], 3, 1, muggins=True, sit_out=True)

        async def watch() -> None:
            await ann.wait_for(lambda: ann.views)
            await sam.request(m.Watch, table_id=next(iter(ann.views)))
            await sam.wait_for(lambda: sam.views and sam.view and sam.view["phase"] == "over", 30)

        await asyncio.wait_for(asyncio.gather(three_with_muggins(), watch(),
                                              play_table([cat, dan], 2, 0, muggins=False, sit_out=False)), 30)
    seen: set[str] = set()
    for client in (ann, bob, sam, cat, dan):
        seat_of = {tid: facts["seat"] for tid, facts in client.facts.items()}
        (seat,) = set(seat_of.values())
        for event in client.events:
            check_event(event, seat)
            seen.add(event["kind"])
        for push in client.view_pushes:
            check_view(push)
    assert seen >= set(EVENTS) - CHANCE - REMATCH - STORY, \
        f"not provoked: {set(EVENTS) - CHANCE - REMATCH - STORY - seen}"


async def test_the_table_story_at_a_cribbage_table_has_the_documented_fields(server, connect):
    """Joins, a bot, a leave and a return to the held seat, a dropped connection and its resume (PROTOCOL.md 5.6)."""
    async with connect("ann") as ann, connect("sam") as sam:
        created = await ann.request(m.CreateTable, name="story", settings=m.TableSettings(game="cribbage", seats=3))
        await sam.request(m.Watch, table_id=created["table_id"])
        bob = connect("bob")
        await bob.link.connect()
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.AddBot)
        await ann.request(m.RemoveBot, seat=2)
        await ann.request(m.Start)
        await bob.request(m.Leave)
        await bob.request(m.Join, table_id=created["table_id"])
        await bob.link.close()
        await ann.wait_for(lambda: any(e["kind"] == "offline" for e in ann.events))
        async with connect("bob", bob.link.token):
            await sam.wait_for(lambda: any(e["kind"] == "online" for e in sam.events))
    for client, seat in ((ann, 0), (sam, None)):
        kinds = [e["kind"] for e in client.events if e["kind"] in STORY]
        assert kinds == ["joined", "joined", "left", "left", "joined", "offline", "online"], kinds
        for event in client.events:
            check_event(event, seat)
