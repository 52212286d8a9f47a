"""Every restart comes back: restore never refuses state the server itself wrote.

* a finished table that some (not all) of its players left restores
  (``test_a_finished_table_half_left_restores``), after SIGTERM and SIGKILL;
* a seat freed by the restore grace timer restores on the next start
  (``test_a_seat_freed_by_the_grace_timer_restores``), after SIGTERM and SIGKILL;
* SIGTERM while restoring or right when listening exits cleanly with 0
  (``test_sigterm_at_start_up_exits_cleanly``).
"""

from __future__ import annotations

import asyncio
import signal

import pytest

from protocol import messages as m
from scripted import ScriptedClient

from durability_helpers import FAST, Player, ServerProcess, stored_tables

STOPS = pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])


async def finished_game(server: ServerProcess, names: list[str]) -> list[Player]:
    """``names`` play one round to the end; returns the players, disconnected, seats at the finished table."""
    players = [Player(server, name) for name in names]
    for player in players:
        await player.connect()
    host = players[0]
    created = await host.request(m.CreateTable, name="done", settings=m.TableSettings(seats=len(names), rules={"stack": 100}))
    host.table_id, host.seat = created["table_id"], created["seat"]
    for player in players[1:]:
        joined = await player.request(m.Join, table_id=host.table_id)
        player.table_id, player.seat = joined["table_id"], joined["seat"]
    await host.request(m.Start)
    playing = [host.play(end_after=1)] + [p.play() for p in players[1:]]
    assert await asyncio.wait_for(asyncio.gather(*playing), 30) == [True] * len(players)
    return players


async def restart(server: ServerProcess, sig: int) -> None:
    code = await server.stop(sig)
    assert code == (0 if sig == signal.SIGTERM else -signal.SIGKILL)
    await server.start()  # fails if the server exits instead of listening


@STOPS
async def test_a_finished_table_half_left_restores(tmp_path, sig):
    server = ServerProcess(tmp_path, *FAST, "--seed", "half-left")
    try:
        await server.start()
        ann, bob, cat = await finished_game(server, ["ann", "bob", "cat"])
        await ann.connect()
        await ann.request(m.Leave)  # ann leaves the standings; bob and cat stay
        ann.table_id = ann.seat = None
        await ann.disconnect()
        await restart(server, sig)
        await restart(server, sig)  # and again: the restored state is itself restorable
        for player in (bob, cat):
            client = await player.connect()  # the same seat at the finished table, checked inside
            view = await client.wait_for(lambda: client.views.get(player.table_id))
            assert view["phase"] == "over" and {p["seat"] for p in view["players"]} >= {bob.seat, cat.seat}
        client = await ann.connect()
        assert client.link.welcome.table_id is None
    finally:
        await server.close()
    (table,) = stored_tables(server.db).values()
    assert table["state"] == "finished"


@STOPS
async def test_a_seat_freed_by_the_grace_timer_restores(tmp_path, sig):
    server = ServerProcess(tmp_path, *FAST, "--seed", "grace", "--restore-grace", "2.5")  # bob is back well within it, even under load
    try:
        await server.start()
        ann, bob = await finished_game(server, ["ann", "bob"])
        await restart(server, sig)
        await bob.connect()  # bob comes back in time; ann does not
        async with ScriptedClient(server.port, "cat") as cat:  # the lobby list shows who is seated
            def seated() -> list[int] | None:
                return next(([p.seat for p in t.players] for t in cat.tables if t.table_id == bob.table_id), None)
            assert await cat.wait_for(lambda: seated() == [bob.seat])
        await bob.disconnect()
        await restart(server, sig)  # the table as the grace timer left it
        ann.table_id = ann.seat = None
        client = await ann.connect()
        assert client.link.welcome.table_id is None
    finally:
        await server.close()


@pytest.mark.parametrize("moment", ["database: ", "listening on "])
async def test_sigterm_at_start_up_exits_cleanly(tmp_path, moment):
    """SIGTERM sent the moment the server logs ``moment`` (restore starts next; or it is listening)."""
    server = ServerProcess(tmp_path, *FAST)
    await server.start()
    await finished_game(server, ["ann", "bob"])  # something to restore
    assert await server.stop(signal.SIGTERM) == 0
    process = await asyncio.create_subprocess_exec(*server.command(), stderr=asyncio.subprocess.PIPE)
    lines = []
    try:
        while moment not in (lines[-1] if lines else ""):
            line = (await asyncio.wait_for(process.stderr.readline(), 20)).decode()
            assert line, "".join(lines)
            lines.append(line)
        process.send_signal(signal.SIGTERM)
        rest = (await asyncio.wait_for(process.stderr.read(), 20)).decode()
        assert await asyncio.wait_for(process.wait(), 10) == 0, "".join(lines) + rest
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert "Traceback" not in rest and "ERROR" not in rest, rest
