"""Whole Cribbage games over a real server: 2 players, 3, and 2 against 2, to the target.

Scripted protocol clients play the baseline bot's choice from the legal entries
of the view they are shown (bots seated by the host play their own). Every view
conserves the chips; the stakes are settled as the rules say (the skunk
multipliers, never more than a loser holds); then the history, the round
records and the export read as Cribbage.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from typing import Any

import pytest

from scripted_cribbage import assert_conserved, games_won, play_cribbage, seat_table
from client.link import RequestFailed
from protocol import messages as m
from scripted import ScriptedClient
from server.export import history_text

GAME_SECONDS = 20  # a whole game to 121 takes well under a second or two here


async def failure(call) -> str:
    """The error code a request is answered with (it must fail)."""
    with pytest.raises(RequestFailed) as info:
        await call
    return info.value.code


def expected_multiplier(score: int, target: int) -> int:
    """The rules' skunk line: 90 (30 in a 61-point game) pays double, 60 (121 only) triple."""
    if target == 121:
        return 3 if score <= 60 else 2 if score <= 90 else 1
    return 2 if score <= 30 else 1


def assert_settled(won: dict[str, Any], sides: list[list[int]], stake: int, held: dict[int, int], target: int) -> None:
    """The losers pay stake x multiplier (capped at what they hold); the winners share it all."""
    winning = next(i for i, side in enumerate(sides) if set(side) == set(won["winners"]))
    assert won["scores"][winning] >= target
    for loss in won["losses"]:
        side = next(i for i, seats in enumerate(sides) if loss["seat"] in seats)
        assert side != winning
        assert loss["multiplier"] == expected_multiplier(won["scores"][side], target)
        assert loss["chips"] == min(stake * loss["multiplier"], held[loss["seat"]])
    assert sorted(loss["seat"] for loss in won["losses"]) == sorted(s for i, side in enumerate(sides) if i != winning
                                                                     for s in side)
    assert sum(g["chips"] for g in won["gains"]) == sum(loss["chips"] for loss in won["losses"])
    shares = [g["chips"] for g in won["gains"]]
    assert max(shares) - min(shares) <= 1  # shared equally, odd chips in seat order


@pytest.mark.parametrize("seats, bots", [(2, 0), (3, 1), (4, 0)], ids=["two", "three-with-a-bot", "partners"])
async def test_whole_games_to_121_settle_the_stakes(tmp_path, durable, seats, bots):
    server = await durable()
    stake, brought = 100, 300  # each brings three stakes (a double skunk's worth)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(ScriptedClient(server.port, f"p{i}"))
                   for i in range(seats - bots)]
        host = clients[0]
        table_id = await seat_table(clients, seats, bots)
        await asyncio.wait_for(play_cribbage(clients), GAME_SECONDS)
        (won,) = games_won(host)
        sides = host.all_views[-1]["sides"]
        sides = [side["seats"] for side in sides]
        assert_settled(won, sides, stake, {s: brought for s in range(seats)}, 121)
        if host.view["phase"] != "over":  # nobody was left with no chips: end the table
            await host.request(m.EndGame)
        await host.wait_for(lambda: host.view["phase"] == "over")
        for client in clients:
            assert_conserved(client, brought * seats)
            assert {e["kind"] for e in client.events} >= {"new_game", "deal", "starter", "play", "show", "game_won"}
        standings = host.view["standings"]
        change = {g["seat"]: g["chips"] for g in won["gains"]}
        change.update({loss["seat"]: -loss["chips"] for loss in won["losses"]})
        assert {s["seat"]: s["stack"] for s in standings} == {s: brought + change[s] for s in range(seats)}
        assert [s["stack"] for s in standings] == sorted((s["stack"] for s in standings), reverse=True)

        rounds = (await host.request(m.History, limit=100))["rounds"]
        finished = [r for r in rounds if not r["abandoned"]]
        assert [r["deal"] for r in finished] == list(range(1, len(finished) + 1))
        assert finished[-1]["won"]["winners"] == won["winners"] and finished[-1]["won"]["losses"] == won["losses"]
        assert all(r["table_id"] == table_id and r["game"] == 1 for r in finished)
        assert all(len(r["show"]) == seats + 1 for r in finished[:-1])  # every hand and the crib, before the last deal

        # Issue 27 item 10: a stake is the player's until the game is won, so the chart and each player's
        # history show nothing lost before that deal, then the game's result (not -100, then +200).
        host_seat = host.table["seat"]
        chart = (await host.wait_for(lambda: host.table.get("chip_history")))
        assert chart[0] == {str(s): brought for s in range(seats)}
        assert chart[-1] == {str(s): brought + change[s] for s in range(seats)}
        changed = next(i for i, row in enumerate(chart) if row != chart[0])  # the deal the game was won in
        assert changed == len(finished) and all(row == chart[-1] for row in chart[changed:]), chart
        mine = (await host.request(m.PastRounds, table_id=table_id, limit=50))["rounds"]
        mine = [r for r in reversed(mine) if not r["result"].startswith("abandoned")]
        assert [r["chips"] for r in mine] == [0] * (len(mine) - 1) + [change[host_seat]], mine
        (game_line,) = (await host.request(m.PastGames))["games"]
        assert game_line["chips"] == change[host_seat]

    exported = server.lobby.store.export(table_id)
    (table,) = exported["tables"]
    assert table["game"] == "cribbage" and table["game_settings"]["stake"] == stake
    text = history_text(exported)
    assert "(Cribbage, " in text and "stake 100" in text
    assert "Deal 1 of game 1" in text and " win" in text and "fifteen two" in text
    assert "Final stacks: " in text


async def test_games_to_61_settle_each_game_and_the_lobby_lists_the_table(durable):
    server = await durable()
    async with (ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob,
                ScriptedClient(server.port, "cat") as cat):
        table_id = await seat_table([ann, bob], 2, target=61, stake=7)
        await asyncio.wait_for(play_cribbage([ann, bob], games=2), GAME_SECONDS)
        (listed,) = (await cat.request(m.ListTables))["tables"]
        assert (listed["table_id"], listed["title"], listed["state"]) == (table_id, "Cribbage", "playing")
        assert listed["settings"] == {"game": "cribbage", "seats": 2,
                                      "rules": {"target": 61, "skunks": True, "stake": 7, "muggins": False}}
        first, second = games_won(ann)[:2]
        sides = [[0], [1]]
        assert_settled(first, sides, 7, {0: 21, 1: 21}, 61)
        after = {s: 21 for s in (0, 1)}
        for entry in first["gains"]:
            after[entry["seat"]] += entry["chips"]
        for loss in first["losses"]:
            after[loss["seat"]] -= loss["chips"]
        assert_settled(second, sides, 7, after, 61)
        assert_conserved(ann, 42)
        assert_conserved(bob, 42)


async def test_each_brings_three_stakes_or_the_whole_balance_and_the_table_cashes_out(server, connect):
    """A balance below one stake cannot sit down; a smaller one than three stakes is brought whole; after
    the table is over every balance is what it was, less what was brought, plus the final stack."""
    server.lobby.config.starting_balance = 250
    async with connect("ann") as ann, connect("bob") as bob:
        assert await failure(ann.request(m.CreateTable, name="dear", settings=m.TableSettings(
            game="cribbage", seats=2, rules={"stake": 251}))) == "insufficient_chips"
        await seat_table([ann, bob], 2, stake=100, target=61)  # three stakes are 300: each brings all 250
        start = await ann.wait_for(lambda: ann.view)
        assert [(s["stack"] + s["staked"], s["staked"]) for s in start["seats"]] == [(250, 100), (250, 100)]
        await asyncio.wait_for(play_cribbage([ann, bob]), GAME_SECONDS)
        if ann.view["phase"] != "over":
            await ann.request(m.EndGame)
        await ann.wait_for(lambda: ann.view["phase"] == "over")
        final = {s["name"]: s["stack"] for s in ann.view["standings"]}
        for client in (ann, bob):
            await client.request(m.Leave)
            balance = (await client.request(m.ListTables))["balance"]
            assert balance == final[client.name]  # 250, less the 250 brought, plus the final stack
        assert sum(final.values()) == 500 and sorted(final.values()) != [250, 250]  # a game was settled
