"""Issue 15, "What must be shown" 3: whole games through a real server (secret seeds, a real store),
where every client sends its seed and verifies every round as our client does (client.fairness), and
the export of those games (``dab-server export --format json``) verifies with ``dab-client verify``."""

from __future__ import annotations

import asyncio

import pytest

from client.__main__ import main as dab_client
from protocol import messages as m
from scripted import SeedingClient, autoplay
from scripted_cribbage import play_until
from server.__main__ import main as dab_server
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer
from server.store import Store


FairClient = SeedingClient  # seeds and checks every round as our client does (client.fairness.DealWatch)


@pytest.fixture
async def stored_server(tmp_path, table_config, net_config):
    """The real server as dab-server runs it: secret seeds (no --seed) and a store in ``tmp_path``."""
    table_config.seed_window = 5.0  # every player seeds at once: the deal waits for them
    server = GameServer(Lobby(LobbyConfig(table=table_config, store=Store.open_dir(tmp_path)), "e2e"), net_config)
    await server.start("127.0.0.1", 0)
    yield server
    if not server.shutting_down:
        await server.close(grace=1.0)


def rounds_revealed(client: FairClient) -> list[int]:
    return [e["round"] for e in client.events if e["kind"] == "deal_reveal"]


async def test_every_client_verifies_every_round_and_the_export_verifies(stored_server, tmp_path, capsys):
    port = stored_server.port
    async with FairClient(port, "ann") as ann, FairClient(port, "bob") as bob, FairClient(port, "sam") as sam:
        clients = (ann, bob, sam)
        table = await ann.request(m.CreateTable, name="fair", settings=m.TableSettings(seats=3))
        await bob.request(m.Join, table_id=table["table_id"])
        await ann.request(m.AddBot)
        await sam.request(m.Watch, table_id=table["table_id"])
        await ann.request(m.Start)
        await asyncio.wait_for(asyncio.gather(autoplay(ann, 1, host=True), autoplay(bob, 1)), 30)
        await sam.wait_for(lambda: sam.view.get("phase") == "over")
        for client in clients:
            await client.request(m.Leave)
            client.views.clear()
            client.facts.clear()
        crib = await ann.request(m.CreateTable, name="crib", settings=m.TableSettings(game="cribbage", seats=2))
        await bob.request(m.Join, table_id=crib["table_id"])
        await sam.request(m.Watch, table_id=crib["table_id"])
        await ann.request(m.Start)
        await asyncio.wait_for(play_until([ann, bob], lambda: ann.view.get("round", 0) >= 2), 30)
        await ann.request(m.EndGame)
        await sam.wait_for(lambda: sam.view.get("phase") == "over")
        await asyncio.gather(*(task for c in clients for task in c.seeding))
    for client in clients:
        revealed = rounds_revealed(client)
        assert len(revealed) >= 4 and [v.round for v in client.verdicts] == revealed, client.name
        assert all(v.ok for v in client.verdicts), [v.message for v in client.verdicts if not v.ok]
    assert any(e["kind"] == "client_seed" for e in sam.events)  # seeds got in before the cut
    summaries = {v.summary for c in (ann, bob) for v in c.verdicts}  # (a round the host ended while sealing: no deal)
    assert "verified — your seed included" in summaries
    assert summaries <= {"verified — your seed included", "verified — no cards were dealt"}, summaries
    await stored_server.close(grace=1.0)  # the store is closed, as for an operator's export
    capsys.readouterr()
    assert dab_server(["export", "--data-dir", str(tmp_path), "--format", "json"]) == 0
    (tmp_path / "history.json").write_text(capsys.readouterr().out)
    assert dab_client(["verify", str(tmp_path / "history.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "every deal verified" and len(lines) - 2 == len(rounds_revealed(sam))
    assert lines[-2] == f"every round is signed by the server key {stored_server.lobby.key.fingerprint}"
