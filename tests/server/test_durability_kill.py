"""SIGKILL the real ``dab-server`` at random points during play: nothing acknowledged is lost.

Batches of three games (2 humans; 3 humans; 1 human and 2 bots) play on one
server while the test kills it with SIGKILL after a random 0-0.3 s, checks the
database while it is down, restarts it and lets the scripted clients reconnect
with their tokens, until at least 50 distinct points of play have been hit.
Then every game is finished and checked:

* every round completed (a result for rounds 1..N, no round cut short);
* stacks + pot equal what the players brought in every view any client was
  shown, after every replayed action, and in the database at every kill; the
  ledger accounts for every chip between balances and tables;
* every acknowledged action is in the log at the index its ``ok`` named;
* no client was ever shown a state the restarted server did not continue from
  (each view matches the replay of the final log after some action);
* ``PRAGMA integrity_check`` is ok at every kill and at the end.
"""

from __future__ import annotations

import asyncio
import random
import signal
import time

from protocol import messages as m

from durability_helpers import FAST, Player, ServerProcess, every_state, integrity, signature, stored_tables

KILL_POINTS = 50
BATCH = [(2, 0), (3, 0), (1, 2)]  # (humans, bots) per table


async def seat_batch(server: ServerProcess, batch: int) -> list[tuple[Player, bool]]:
    players: list[tuple[Player, bool]] = []
    for t, (humans, bots) in enumerate(BATCH):
        group = [Player(server, f"b{batch}t{t}p{i}") for i in range(humans)]
        for player in group:
            await player.connect()
        host = group[0]
        created = await host.request(
            m.CreateTable, name=f"kill {batch}.{t}", settings=m.TableSettings(seats=humans + bots, ante=10, stack=50),
        )
        host.table_id, host.seat = created["table_id"], created["seat"]
        for player in group[1:]:
            joined = await player.request(m.Join, table_id=host.table_id)
            player.table_id, player.seat = joined["table_id"], joined["seat"]
        for _ in range(bots):
            await host.request(m.AddBot)
        await host.request(m.Start)
        players += [(player, player is host) for player in group]
    return players


async def test_sigkill_at_random_points_loses_nothing(tmp_path):
    rng = random.Random(20261129)
    started = time.monotonic()
    server = ServerProcess(tmp_path, *FAST, "--seed", "kill-test")
    everyone: list[Player] = []
    points: set[tuple[str, int]] = set()
    kills = 0
    try:
        await server.start()
        batch = 0
        while len(points) < KILL_POINTS:
            assert batch < 8, f"only {len(points)} kill points after {batch} batches"
            seated = await seat_batch(server, batch)
            everyone += [p for p, _ in seated]
            games = [asyncio.ensure_future(p.play(end_after=15 if host else None)) for p, host in seated]
            while not all(g.done() for g in games):
                await asyncio.wait(games, timeout=rng.uniform(0.0, 0.3))
                if all(g.done() for g in games) or len(points) >= KILL_POINTS:
                    continue  # enough: let the batch finish in peace
                assert await server.stop(signal.SIGKILL) == -signal.SIGKILL
                kills += 1
                integrity(server.db)
                for table_id, table in stored_tables(server.db).items():
                    if table["state"] == "playing":
                        points.add((table_id, len(table["actions"])))
                await server.start()
            for game in games:
                assert game.result() is True
            batch += 1
        tables = stored_tables(server.db)
    finally:
        await server.close()
    integrity(server.db)

    assert kills >= KILL_POINTS // len(BATCH) and len(points) >= KILL_POINTS
    assert len(tables) == len(BATCH) * batch
    for table_id, table in tables.items():
        game = table["game"]
        assert table["state"] == "finished" and game.phase == "over"
        assert game.chips_in_play() == game.brought and game.pot == 0
        rounds = table["rounds"]
        assert [r["round"] for r in rounds] == list(range(1, game.round_no + 1)), table_id
        assert all(r["result"] is not None for r in rounds), f"{table_id}: a round was cut short"

    states = {table_id: every_state(table) for table_id, table in tables.items()}
    acked = shown = 0
    for player in everyone:
        log = tables[player.table_id]["actions"]
        for table_id, seq, seat, action in player.acked:
            assert log[seq] == (seat, action), f"{player.name}: acknowledged action {seq} lost"
            acked += 1
        for view in player.views:
            if view["phase"] != "lobby":
                assert sum(p["stack"] for p in view["players"]) + view["pot"] == tables[player.table_id]["game"].brought
                assert signature(view) in states[player.table_id][player.seat], f"{player.name} saw a lost state"
                shown += 1
    assert acked > 300 and shown > 300
    assert max(p.connections for p in everyone) > 1
    problems = [line for line in server.log if "ERROR" in line or "Traceback" in line or "CRITICAL" in line]
    assert not problems, "".join(problems)
    elapsed = time.monotonic() - started
    print(f"{batch} batches, {kills} SIGKILLs, {len(points)} kill points {sorted(n for _, n in points)[:: 5]}, {acked} acknowledged actions, {shown} views, {elapsed:.1f} s")
    assert elapsed < 60
