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

from durability_helpers import chaos

KILL_POINTS = 50


async def test_sigkill_at_random_points_loses_nothing(tmp_path):
    summary = await chaos(tmp_path, kill_points=KILL_POINTS, seed=20261129)
    print(summary)
    assert summary["kills"] >= KILL_POINTS // 6 and summary["points"] >= KILL_POINTS
    assert summary["acknowledged"] > 300 and summary["views"] > 300
