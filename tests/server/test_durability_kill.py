"""SIGKILL the real ``dab-server`` at random points during play: nothing acknowledged is lost.

Batches of six games (2 humans; 3 humans; 1 human and 2 bots; twice) play on one
server while the test kills it with SIGKILL after a random 0-0.3 s, checks the
database while it is down, restarts it and lets the scripted clients reconnect
with their tokens, until at least 50 distinct points of play have been hit.
When a batch is over, each table's host comes back and leaves the finished
table, a third player stays connected through every later kill, and the rest
stay away, so the restore grace (0.3 s here) frees their seats; the server is
killed a few more times at random moments of that grace, and once more after
it freed them. Every restart must come up. Then every game is checked:

* every round completed (a result for rounds 1..N, no round cut short);
* stacks + pot equal what the players brought in every view any client was
  shown, after every replayed action, and in the database at every kill; the
  ledger accounts for every chip between balances and tables;
* every acknowledged action is in the log at the index its ``ok`` named;
* no client was ever shown a state the restarted server did not continue from
  (each view matches the replay of the final log after some action);
* ``PRAGMA integrity_check`` is ok at every kill and at the end;
* every player comes back at the end (a leaver to the lobby) and finds the
  balance it should: the starting balance, minus the buy-in, plus the final stack.

The machinery is ``durability_helpers.chaos``; ``benchmarks/soak_durability.py``
runs it for as many kills as you like.
"""

from __future__ import annotations

import asyncio
import sys

from engine.games.down_and_back.bots import baseline_action
from engine.games.down_and_back.views import view_for
from protocol import messages as m
from scripted import ScriptedClient

from durability_helpers import FAST, ServerProcess, chaos, integrity, signature, stored_tables, wait_until

KILL_POINTS = 50


async def test_sigkill_at_random_points_loses_nothing(tmp_path):
    summary = await chaos(tmp_path, kill_points=KILL_POINTS, seed=20261129)
    print(summary)
    assert summary["kills"] >= KILL_POINTS // 6 and summary["points"] >= KILL_POINTS
    assert summary["acknowledged"] > 300 and summary["views"] > 300


# ----------------------------------------------------------------- a kill while a commit is in flight

# dab-server, with the writer thread holding its N-th commit just before the COMMIT (the transaction's
# statements executed, nothing durable yet) and saying so on stderr: the window a kill -9 must survive.
SLOW_COMMIT = """
import os, sys, threading, time
from server import store
from server.__main__ import main

held, run = int(os.environ["DAB_HOLD_COMMIT"]), store.Store._run

class Holding:
    def __init__(self, conn):
        self.conn = conn
    def execute(self, sql, params=()):
        if sql == "COMMIT":
            print("commit in flight", file=sys.stderr, flush=True)
            time.sleep(30)
        return self.conn.execute(sql, params)
    def __getattr__(self, name):
        return getattr(self.conn, name)

def holding_run(self, statements, locked):
    global held
    if threading.current_thread().name.startswith("dab-store-writer"):
        held -= 1
        if held == 0:
            self.conn = Holding(self.conn)
    return run(self, statements, locked)

store.Store._run = holding_run
sys.exit(main(sys.argv[1:]))
"""


class HeldCommitServer(ServerProcess):
    def command(self) -> list[str]:
        return [sys.executable, "-c", SLOW_COMMIT, *super().command()[3:]]


async def test_sigkill_during_a_commit_in_flight_restores_what_was_acknowledged(tmp_path, monkeypatch):
    """The kill lands while the writer thread commits: every action acknowledged is restored at the
    index its ok named, the one in flight (never acknowledged) is not, and the restored game is
    the one the player was last shown."""
    monkeypatch.setenv("DAB_HOLD_COMMIT", "12")
    server = HeldCommitServer(tmp_path, *FAST)
    await server.start()
    try:
        async with ScriptedClient(server.port, "ann") as ann:
            tid = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
            await ann.request(m.AddBot)
            await ann.request(m.Start)
            acked, seen = [], 0

            def held() -> bool:
                return any("commit in flight" in line for line in server.log)

            while True:  # ann plays until a commit is held: hers, or the bot's
                await wait_until(lambda: held() or (len(ann.all_views) > seen and ann.views[tid].get("legal")), 10)
                if held():
                    break
                view = ann.views[tid]
                seen = len(ann.all_views)  # the next action needs a newer view
                action = baseline_action(view).to_data()
                try:
                    reply = await asyncio.wait_for(ann.act(action), 5.0)
                except asyncio.TimeoutError:  # its commit is the one held
                    await wait_until(held, 10)
                    break
                acked.append((view["seat"], action, reply["seq"]))
            shown = signature(ann.views[tid])
            await server.stop()
    finally:
        await server.close()
    (table,) = stored_tables(server.db).values()  # the replay matches the checkpoint, chips are conserved
    assert len(acked) >= 2
    for seat, action, seq in acked:
        assert table["actions"][seq] == (seat, action)
    assert signature(view_for(table["game"], 0)) == shown  # nothing the player was not told of, nothing lost
    integrity(server.db)
