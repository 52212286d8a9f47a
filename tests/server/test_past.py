"""Issue 17 at the server: one's past rounds and games (paged), replays, and the leaderboard.

Real servers on ephemeral ports, scripted clients. The replay tests hold the
engine's replay against what each client was shown live (every live view of
the round is one of the replay's steps) and against the round's full record:
no step shows a requester a card another seat held hidden at that moment.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from client.link import RequestFailed
from protocol import messages as m
from scripted import ScriptedClient, autoplay, play_until
from scripted_cribbage import play_until as play_cribbage_until

CARD = re.compile(r"(10|[2-9AJQK])[SHDC]")


async def failure(call) -> str:
    with pytest.raises(RequestFailed) as info:
        await call
    return info.value.code


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in ``value`` (a step, a view, a record's part)."""
    if isinstance(value, str):
        return {value} if CARD.fullmatch(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def hidden_from(seat: int | None, log: list[dict[str, Any]]) -> list[set[str]]:
    """For each record of a round's full log: the cards other seats had been told privately and that no
    public part had shown yet, after that record."""
    told: set[str] = set()
    shown: set[str] = set()
    after = []
    for record in log:
        shown |= cards_in(record["public"])
        if record["seat"] != seat:
            told |= cards_in(record["private"])
        after.append(told - shown)
    return after


async def full_replay(client: ScriptedClient, table_id: str, round_no: int) -> dict[str, Any]:
    """Every page of a replay, joined (the pages follow ``next``)."""
    reply = await client.request(m.Replay, table_id=table_id, round=round_no)
    steps = list(reply["steps"])
    while reply["next"] is not None:
        reply = await client.request(m.Replay, table_id=table_id, round=round_no, from_step=reply["next"])
        steps += reply["steps"]
    assert len(steps) == reply["total"]
    return {**reply, "steps": steps}


def check_replay(replay: dict[str, Any], record: dict[str, Any], live: list[dict[str, Any]]) -> None:
    """Each live view of the round is a step's view; no step shows a card hidden from the seat then."""
    views = [step["view"] for step in replay["steps"]]
    round_no = record["round"]
    seen = [v for v in live if v and v.get("round") == round_no and v.get("phase") not in ("over",)]
    missing = [v for v in seen if v not in views]
    assert seen and not missing
    # the steps line up with the records: one record list per action, in order, and the last step ends
    # with the round's deal_reveal as it was sent, signed (PROTOCOL.md 5.1 replay: "as you were sent them")
    *_, last = replay["steps"]
    assert last["events"][-1]["kind"] == "deal_reveal" and last["events"][-1] == dict(record["fair"], kind="deal_reveal")
    assert last["events"][-1]["sig"] and all(e.get("sig") for s in replay["steps"] for e in s["events"]
                                             if e["kind"] in ("deal_commit", "seed_set", "deck_fixed"))
    hidden = hidden_from(replay["seat"], record["log"])
    at = 0
    for step in replay["steps"]:
        logged = [e for e in step["events"] if e["kind"] != "deal_reveal"]  # the reveal is never logged
        at += len(logged)
        assert not cards_in(dict(step, events=logged)) & hidden[at - 1], (step, hidden[at - 1])


def round_record(server, table_id: str, round_no: int) -> dict[str, Any]:
    """The server's full record of a round (what a replay must never leak from)."""
    store = server.lobby.store
    if store is not None:
        return store.rounds_read.round_for_replay(table_id, round_no)[1]
    return server.lobby.archive._records[(table_id, round_no)][1]


async def test_past_rounds_and_games_are_paged_newest_first_with_chips_and_results(connect):
    async with connect("ann") as ann:
        created = await ann.request(m.CreateTable, name="Ann's", settings=m.TableSettings(seats=2))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await autoplay(ann, until_round=3, host=True)
        first = await ann.request(m.PastRounds, limit=2)
        assert [r["round"] for r in first["rounds"]] == [4, 3] and first["next"] is not None
        rest = await ann.request(m.PastRounds, limit=50, before=first["next"])
        assert [r["round"] for r in rest["rounds"]] == [2, 1] and rest["next"] is None
        lines = first["rounds"] + rest["rounds"]
        assert {(r["table_id"], r["table_name"], r["game_name"], r["seat"]) for r in lines} == \
            {(created["table_id"], "Ann's", "down-and-back", 0)}
        assert lines[0]["result"] == "abandoned: antes back"  # antes paid back, a carried pot's too
        for line in lines[1:]:
            assert (line["chips"] > 0) is line["result"].startswith("won the pot"), line
        games = await ann.request(m.PastGames)
        (game,) = games["games"]
        assert games["next"] is None and game["rounds"] == 4 and game["chips"] == sum(r["chips"] for r in lines)
        assert game["won"] is (game["chips"] > 0)
        assert (await ann.request(m.PastRounds, table_id="t999"))["rounds"] == []


@pytest.mark.parametrize("game", ["down-and-back", "cribbage"])
async def test_a_replay_shows_each_player_what_they_saw_and_a_spectator_only_public_events(server, connect, game):
    async with connect("ann") as ann, connect("bob") as bob, connect("sam") as sam:
        created = await ann.request(m.CreateTable, name="t", settings=m.TableSettings(game=game, seats=2))
        table_id = created["table_id"]
        await bob.request(m.Join, table_id=table_id)
        await sam.request(m.Watch, table_id=table_id)
        await ann.request(m.Start)
        done = lambda: ann.view.get("round", 0) >= 2  # noqa: E731
        if game == "cribbage":
            await play_cribbage_until([ann, bob], done)
        else:
            await play_until([ann, bob], done)
        record = round_record(server, table_id, 1)
        for client, seat in ((ann, 0), (bob, 1), (sam, None)):
            replay = await full_replay(client, table_id, 1)
            assert (replay["game_name"], replay["seat"]) == (game, seat)
            check_replay(replay, record, client.all_views)
        assert cards_in(record["log"][-1]["public"])  # the round's end showed cards, which replays then show


async def test_nobody_replays_a_round_they_did_not_play_nor_watch_nor_past_its_end(server, connect):
    async with connect("ann") as ann, connect("eve") as eve:
        created = await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
        table_id = created["table_id"]
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await play_until([ann], lambda: ann.view.get("round") == 2)
        assert await failure(eve.request(m.Replay, table_id=table_id, round=1)) == "no_such_round"
        assert await failure(ann.request(m.Replay, table_id=table_id, round=2)) == "no_such_round"  # under way
        assert await failure(ann.request(m.Replay, table_id="t404", round=1)) == "no_such_round"
        total = (await ann.request(m.Replay, table_id=table_id, round=1))["total"]
        past = await ann.request(m.Replay, table_id=table_id, round=1, from_step=total + 5)
        assert past["steps"] == [] and past["next"] is None
        assert (await eve.request(m.PastRounds))["rounds"] == []


async def test_the_leaderboard_ranks_who_played_and_hides_who_asks_durably(durable):
    server = await durable()
    async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob:
        await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await autoplay(ann, until_round=2, host=True)
        board = await bob.request(m.Leaderboard, by="wins", game="down-and-back")
        assert [p["name"] for p in board["players"]] == ["ann"] and board["rank"] is None  # bob never played
        assert board["players"][0]["games"] == 1
        assert (await bob.request(m.Leaderboard, game="cribbage"))["players"] == []
        assert await failure(bob.request(m.Leaderboard, game="chess")) == "no_such_game"
        await ann.request(m.SetHidden, hidden=True)
        assert (await bob.request(m.Leaderboard))["players"] == []
        token = ann.link.token
        rounds = (await ann.request(m.PastRounds))["rounds"]
    await server.close(grace=1.0)
    server = await durable()
    async with ScriptedClient(server.port, "x", token) as ann:
        board = await ann.request(m.Leaderboard)
        assert board["hidden"] is True and board["players"] == [] and board["total"] == 0
        assert (await ann.request(m.PastRounds))["rounds"] == rounds  # from the store, after a restart
        replay = await full_replay(ann, rounds[-1]["table_id"], 1)
        assert replay["seat"] == 0 and replay["steps"]
        await ann.request(m.SetHidden, hidden=False)
        assert [p["name"] for p in (await ann.request(m.Leaderboard))["players"]] == ["ann"]


async def test_a_round_cut_by_a_restart_replays_whole_once_finished(durable):
    """The opening of the round under way is rebuilt on restore, so the round stays replayable."""
    server = await durable()
    async with ScriptedClient(server.port, "ann") as ann:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await play_until([ann], lambda: ann.view.get("round") == 2 and ann.view.get("phase") == "play")  # under way
        token = ann.link.token
    await server.close(grace=1.0)
    server = await durable()
    async with ScriptedClient(server.port, "ann", token) as ann:
        await play_until([ann], lambda: ann.view.get("round") == 3)
        replay = await full_replay(ann, table_id, 2)
        assert replay["seat"] == 0 and replay["steps"][-1]["view"]["phase"] == "waiting"
        check_replay(replay, round_record(server, table_id, 2), ann.all_views)


async def test_chips_at_tables_are_given_beside_the_balance(server, connect):
    """Issue 27 item 10: a balance leaves out chips sitting at a table; list_tables and the leaderboard say
    how many (``at_tables``): a Cribbage seat's three stakes, the stake at risk still the player's."""
    async with connect("ann") as ann, connect("bob") as bob:
        await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2, rules={"stack": 100}))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await autoplay(ann, until_round=1, host=True)  # a game finished: ann is on the leaderboard
        await ann.request(m.Leave)
        ann.views.clear()
        before = await ann.request(m.ListTables)
        assert before["at_tables"] == 0
        await ann.request(m.CreateTable, name="crib", settings=m.TableSettings(game="cribbage", seats=2))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await ann.wait_for(lambda: ann.view.get("seats") and ann.view["seats"][0]["staked"])
        seat = ann.view["seats"][0]
        assert (seat["stack"], seat["staked"]) == (200, 100)  # three stakes brought, one at risk
        listed = await ann.request(m.ListTables)
        assert listed["at_tables"] == 300 and listed["balance"] == before["balance"] - 300
        assert (await bob.request(m.ListTables))["at_tables"] == 0
        (entry,) = (await bob.request(m.Leaderboard))["players"]
        assert (entry["name"], entry["balance"], entry["at_tables"]) == ("ann", before["balance"] - 300, 300)
