"""Issue 15 at the server: client seeds are logged actions, and a restored round keeps its committed deck.

"What must be shown" 5: a server is stopped after two client seeds were
acknowledged but before the cut; the restarted server (its tables rebuilt
from the store) shows the same commitment and seeds, deals from them, and the
round's export verifies for every seat against the commitment announced
before the restart.
"""

from __future__ import annotations

import asyncio

from engine.fairness import verify_record
from engine.games import find_game
from protocol import messages as m
from scripted import ScriptedClient, autoplay
from server.store import Store

SEEDS = {"ann": "a1" * 32, "bob": "b0b0"}


async def test_a_round_restored_before_its_cut_keeps_its_committed_deck(durable, tmp_path):
    server = await durable()
    async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob:
        tokens = {c.name: c.link.token for c in (ann, bob)}
        created = await ann.request(m.CreateTable, name="fair", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        for client in (ann, bob):  # both seats are human: the cut waits, both seeds are in time
            await client.request(m.ClientSeed, seed=SEEDS[client.name])
        before = (await ann.wait_for(lambda: len(ann.view["fair"]["client_seeds"]) == 2 and ann.view))["fair"]
        await server.close(grace=1.0)
    server = await durable()
    async with ScriptedClient(server.port, "ann", tokens["ann"]) as ann, \
            ScriptedClient(server.port, "bob", tokens["bob"]) as bob:
        view = await ann.wait_for(lambda: ann.views and ann.view)
        assert view["phase"] == "cut" and view["fair"] == before and not before["fixed"] and before["seed"] is None
        assert sorted(before["client_seeds"].values()) == sorted(SEEDS.values())
        await asyncio.wait_for(asyncio.gather(autoplay(ann, 1, host=True), autoplay(bob, 1)), 30)
        reveal = next(e for e in ann.events if e["kind"] == "deal_reveal")
        assert reveal["commitment"] == before["commitment"] and reveal["round"] == 1
    await server.close(grace=1.0)
    store = Store.open_dir(tmp_path)
    (table,) = store.export()["tables"]
    store.close()
    first = table["rounds"][0]
    assert first["fair"]["commitment"] == before["commitment"]
    assert dict(map(tuple, first["fair"]["client_seeds"])) == {int(s): v for s, v in before["client_seeds"].items()}
    verdicts = verify_record(find_game(table["game"]), first)
    assert len(verdicts) == 3 and all(v.ok for v in verdicts), verdicts
