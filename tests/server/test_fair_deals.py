"""Fair deals at the server (issues 15 and 28): the seed phases, the window, signatures, restores.

Issue 28, "What must be shown" 2, each failing on the main before it: a colluding seat cannot send
a seed once another seat's is known (the protocol refuses it: every counted seed is committed before
any is revealed), and the server plays no seat's seed (bots never seed); a bot that would cut at
once does not shut out a human's seed sent within the window; a server that shows two members
different commitments is caught by the member's client. Issue 15's restore test, in version 2: a
round restored mid-seeding keeps its committed deck, and its export verifies.
"""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from client.link import RequestFailed
from engine.games.down_and_back.bots import baseline_action
from engine.fairness import fingerprint, seed_commitment, verify_record
from engine.games import find_game
from protocol import messages as m
from scripted import ScriptedClient, SeedingClient, autoplay
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer
from server.store import Store
from server.table import TableConfig

SEEDS = {"ann": "a1" * 32, "bob": "b0b0"}
WINDOW = 2.0  # s: long enough for a loaded machine's clients, never waited for by one that seeds at once


@pytest.fixture
def windowed() -> TableConfig:
    return TableConfig(turn_timeout=30.0, bot_delay=0.0, away_delay=0.0, round_pause=0.0, seed_window=WINDOW)


@pytest.fixture
async def fair_server(windowed, net_config):
    server = GameServer(Lobby(LobbyConfig(table=windowed), "dab-server test"), net_config)  # secret seeds
    await server.start("127.0.0.1", 0)
    yield server
    await server.close(grace=1.0)


def commit_for(view: dict, seat: int, seed: str) -> str:
    return seed_commitment(bytes.fromhex(view["fair"]["commitment"]), seat, bytes.fromhex(seed)).hex()


async def test_a_colluding_seat_cannot_send_a_seed_once_another_is_known_nor_the_server_a_bots(fair_server):
    """Mallory (a colluder the server tells everything it may) waits for ann's seed to be known to anyone:
    her own seed is then refused whatever she sends, and the deck is made from ann's seed alone; the
    bots at the table never seed."""
    async with SeedingClient(fair_server.port, "ann") as ann, ScriptedClient(fair_server.port, "mallory") as mallory:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=4)))["table_id"]
        await mallory.request(m.Join, table_id=table_id)
        await ann.request(m.AddBot)
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        seed = await ann.wait_for(lambda: ann.deals.status and ann.deals.status.mine)
        # The first moment any member (the colluder included) could know ann's seed:
        await mallory.wait_for(lambda: seed in repr(mallory.events))
        mine = "5e" * 32
        for request, fields in ((m.SeedCommit, {"commit": commit_for(mallory.view, 1, mine)}),
                                (m.ClientSeed, {"seed": mine})):
            with pytest.raises(RequestFailed) as refused:
                await mallory.request(request, **fields)
            assert refused.value.code == "illegal_action", refused.value
        await asyncio.wait_for(asyncio.gather(autoplay(ann, 1, host=True), autoplay(mallory, 1)), 30)
        reveal = next(e for e in ann.events if e["kind"] == "deal_reveal")
        assert reveal["client_seeds"] == [[0, seed]] and reveal["withheld"] == []
        commits = [e for e in ann.events if e["kind"] == "seed_commit"]
        assert {e["seat"] for e in commits} == {0}, "no bot seat (2, 3) ever commits to a seed"
        (verdict,) = ann.verdicts[:1]
        assert verdict.ok and verdict.summary == "verified — your seed included", verdict


async def test_a_fast_bot_cut_does_not_shut_out_a_human_seed_sent_within_the_window(fair_server):
    """The issue's trace: a bot cut 152 ms after the deal_commit and every human seed was refused. Ann
    sends hers 300 ms after each deal_commit (well within the window): in the round the bot cuts, its
    cut comes after the deck is fixed, and ann's seed is in the deck."""
    async with ScriptedClient(fair_server.port, "ann") as ann:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        table = fair_server.lobby.tables[table_id]
        for round_no in (1, 2):  # the deal moves one seat on: the bot cuts in one of the two
            await ann.wait_for(lambda: ann.view.get("round") == round_no and ann.view["fair"]["round"] == round_no)
            await asyncio.sleep(0.3)  # a slow human: nothing but the window waits for it
            seed = f"{round_no:02x}" * 16
            await ann.request(m.SeedCommit, commit=commit_for(ann.view, 0, seed))
            await ann.wait_for(lambda: ann.view["fair"]["phase"] != "commit")
            await ann.request(m.ClientSeed, seed=seed)
            await ann.wait_for(lambda: ann.view["fair"]["fixed"])
            kinds = [e["kind"] for e in ann.events]
            start = max(i for i, k in enumerate(kinds) if k == "deal_commit")
            fixed = next(e for e in ann.events[start:] if e["kind"] == "deck_fixed")
            assert fixed["client_seeds"] == [[0, seed]] and fixed["after_ms"] < WINDOW * 1000
            assert "cut" not in kinds[start:kinds.index("deck_fixed", start)]
            if table.game.cutter == 1:
                await ann.wait_for(lambda: any(e["kind"] == "cut" for e in ann.events[start:]))
                break
            while (view := await ann.wait_for(lambda: (ann.view["round"] > round_no or ann.view["legal"]) and ann.view)
                   )["round"] == round_no:  # ann deals this round: play it out
                await ann.act(baseline_action(view).to_data())
                await ann.wait_for(lambda: ann.view is not view)
        else:
            pytest.fail("the bot never cut")


async def test_a_member_shown_another_commitment_than_the_others_catches_it(fair_server):
    """Equivocation: the server shows bob a different (signed) deal_commit from ann's. Bob's seed
    commitment then names the deal he was shown, ann's the real one: bob's client finds the round does
    not verify, and every signature in it is the server's, so bob can show anyone the two commitments."""
    lobby = fair_server.lobby
    async with SeedingClient(fair_server.port, "ann") as ann, SeedingClient(fair_server.port, "bob") as bob:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        bob_id = bob.link.welcome.player_id
        send = lobby.send

        def two_faced(player_id: str, message: m.Message) -> None:
            if player_id == bob_id and isinstance(message, m.Event):
                events = []
                for event in message.events:
                    if event["kind"] == "deal_commit":
                        event = dict(event, commitment=hashlib.sha256(b"another deal").hexdigest())
                        event["sig"] = lobby.key.signature(event)
                    events.append(event)
                message = m.Event(table_id=message.table_id, events=tuple(events))
            send(player_id, message)

        lobby.send = two_faced  # type: ignore[method-assign]
        await ann.request(m.Start)
        await asyncio.wait_for(asyncio.gather(autoplay(ann, 1, host=True), autoplay(bob, 1)), 30)
        await bob.wait_for(lambda: bob.verdicts)
        await ann.wait_for(lambda: ann.verdicts)
    assert not bob.verdicts[0].ok and bob.verdicts[0].what in ("commitment", "late seed"), bob.verdicts[0]
    assert ann.verdicts[0].ok and ann.verdicts[0].withheld == (1,), ann.verdicts[0]  # bob's seed did not fit


async def test_every_fair_event_is_signed_by_the_key_the_table_shows(fair_server):
    async with SeedingClient(fair_server.port, "ann") as ann:
        await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await autoplay(ann, 1, host=True)
        listed = await ann.request(m.ListTables)
    key = fair_server.lobby.key
    assert ann.table["server_key"] == listed["server_key"] == key.public.hex()
    commit = next(e for e in ann.events if e["kind"] == "deal_commit")
    assert commit["key"] == key.public.hex() and fingerprint(bytes.fromhex(commit["key"])) == key.fingerprint
    assert all(e.get("sig") for e in ann.events if e["kind"] in ("deal_commit", "seed_set", "deck_fixed", "deal_reveal"))
    assert ann.verdicts and all(v.ok for v in ann.verdicts)


@pytest.fixture
def durable_seed() -> None:
    return None  # secret seeds, as dab-server deals


async def test_a_round_restored_while_it_is_being_sealed_keeps_its_committed_deck(durable, tmp_path, windowed):
    """A server is stopped after both seats committed and the seeds were sealed, with one seed revealed;
    the restarted server shows the same commitment, seed set and key, takes the other seed, deals from
    both, and the round's export verifies for every seat against the commitment sent before the restart."""
    server = await durable(table=windowed)
    async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob:
        tokens = {c.name: c.link.token for c in (ann, bob)}
        created = await ann.request(m.CreateTable, name="fair", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        for seat, client in enumerate((ann, bob)):
            await client.wait_for(lambda: client.view.get("fair"))
            await client.request(m.SeedCommit, commit=commit_for(client.view, seat, SEEDS[client.name]))
        await ann.wait_for(lambda: ann.view["fair"]["phase"] == "reveal")
        await ann.request(m.ClientSeed, seed=SEEDS["ann"])
        before = (await ann.wait_for(lambda: ann.view["fair"]["revealed"] == [0] and ann.view))["fair"]
        await server.close(grace=1.0)
    server = await durable(table=windowed)
    async with ScriptedClient(server.port, "ann", tokens["ann"]) as ann, \
            ScriptedClient(server.port, "bob", tokens["bob"]) as bob:
        view = await ann.wait_for(lambda: ann.views and ann.view)
        assert view["phase"] == "cut" and view["fair"] == before and before["phase"] == "reveal"
        await bob.request(m.ClientSeed, seed=SEEDS["bob"])
        await ann.wait_for(lambda: ann.view["fair"]["fixed"])
        assert ann.view["fair"]["client_seeds"] == {"0": SEEDS["ann"], "1": SEEDS["bob"]}
        await asyncio.wait_for(asyncio.gather(autoplay(ann, 1, host=True), autoplay(bob, 1)), 30)
        reveal = next(e for e in ann.events if e["kind"] == "deal_reveal")
        assert reveal["commitment"] == before["commitment"] and reveal["round"] == 1
        key = server.lobby.key.public
    await server.close(grace=1.0)
    store = Store.open_dir(tmp_path)
    (table,) = store.export()["tables"]
    store.close()
    first = table["rounds"][0]
    assert first["fair"]["commitment"] == before["commitment"]
    assert dict(map(tuple, first["fair"]["client_seeds"])) == {0: SEEDS["ann"], 1: SEEDS["bob"]}
    verdicts = verify_record(find_game(table["game"]), first, key, table["table_id"])
    assert len(verdicts) == 3 and all(v.ok for v in verdicts), verdicts


class _Clock:
    """The table's loop, but for its clock: ``time()`` says ``now``."""

    def __init__(self, loop, now: float) -> None:
        self._loop, self.now = loop, now

    def time(self) -> float:
        return self.now

    def __getattr__(self, name: str):
        return getattr(self._loop, name)


async def test_a_phase_closed_by_its_window_never_says_it_closed_before_it(fair_server):
    """The window's timer may fire up to DEADLINE_SLACK before the window's end, and the milliseconds are
    rounded down: a seal or a fixed deck the window closed must still say after_ms >= the window (the
    seal's) and >= the seal's + the window (the deck's), or every verifier calls it early (FAIRNESS.md §4
    steps 5 and 6). Ann commits and withholds her seed; Bob never commits; each phase is closed by its
    window at 0.5 ms before its end."""
    fair_server.lobby.config.table.seed_window = 10.0  # the timers never come first: this test closes the phases
    async with ScriptedClient(fair_server.port, "ann") as ann, ScriptedClient(fair_server.port, "bob") as bob:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.Start)
        await ann.wait_for(lambda: (ann.view.get("fair") or {}).get("phase") == "commit")
        table = fair_server.lobby.tables[table_id]
        seat = ann.table["seat"]
        await ann.request(m.SeedCommit, commit=commit_for(ann.view, seat, "a1" * 8))
        loop = table.loop
        for phase in ("commit", "reveal"):
            assert table.game.fair.phase == phase
            table.loop = _Clock(loop, table.phase_since + 10.0 - 0.0005)
            try:
                table.seal_seeds()
            finally:
                table.loop = loop
        sealed = await ann.wait_for(lambda: next((e for e in ann.events if e["kind"] == "seed_set"), None))
        fixed = await ann.wait_for(lambda: next((e for e in ann.events if e["kind"] == "deck_fixed"), None))
        window = 10_000
        assert sealed["commits"] and len(sealed["waiting"]) == 2, sealed  # bob was waited for, and did not commit
        assert sealed["after_ms"] >= window, sealed
        assert fixed["withheld"] == [seat] and fixed["after_ms"] >= sealed["after_ms"] + window, fixed
        await ann.request(m.EndGame)
