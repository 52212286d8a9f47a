"""Idle costs nothing (issue 30 item 2): the real dab-client in a pseudo-terminal against a real server.

An idle lobby neither writes nor wakes; a client seated at a table, waiting on another player, wakes only
for its countdown's second (its timer, the screen's update, the output thread: ~5 wake-ups) and writes ~100
bytes for it, and not much more with a dialog open over the table. Wake-ups are the threads' voluntary context switches (/proc/PID/task/*/status): unlike CPU time,
a loaded machine does not make more of them. (Old client: ~11 wake-ups a second in the lobby (input polled 10 times a second), ~18 seated,
and ~7 KB a second under a dialog: the whole screen repainted for each second of the countdown.)
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from evening_helpers import EveningServer, Terminal, play_until
from protocol import messages as m
from scripted import ScriptedClient

WINDOW = 2.0  # seconds each measure lasts
SEATED_WAKES = 8  # a second, at most: the countdown's timer, the screen's update, the output thread's write


def wake_ups(pid: int) -> int:
    """Every thread's voluntary context switches so far (a thread that sleeps and wakes again adds one)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "status").read_text()
        except OSError:  # a thread that has just ended
            continue
        total += int(text.split("voluntary_ctxt_switches:")[1].split()[0])
    return total


def measure(terminal: Terminal) -> tuple[float, float]:
    """(wake-ups, bytes written) per second over WINDOW seconds of the program's idling."""
    wakes, size, began = wake_ups(terminal.proc.pid), len(terminal.output), time.monotonic()
    time.sleep(WINDOW)  # idling is what is measured: nothing to wait on but time
    spent = time.monotonic() - began
    return (wake_ups(terminal.proc.pid) - wakes) / spent, (len(terminal.output) - size) / spent


def at_rest(terminal: Terminal) -> None:
    """Wait until the program has stopped working (a first table warms the hand helper's tables in a thread)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        before = wake_ups(terminal.proc.pid), len(terminal.output)
        time.sleep(1.0)  # sampling the program's rest
        if wake_ups(terminal.proc.pid) - before[0] <= SEATED_WAKES and len(terminal.output) - before[1] <= 400:
            return
    raise AssertionError(f"the client never came to rest\n{terminal.dump()}")


@pytest.fixture
def server(tmp_path):
    with EveningServer(tmp_path, turn_timeout=600.0, extra=("--seed-window", "0.05")) as server:
        yield server


def test_an_idle_lobby_neither_writes_nor_wakes(server):
    lia = server.client("Lia", (80, 24), relay=False)
    lia.wait_for("as Lia")
    at_rest(lia)
    wakes, written = measure(lia)
    assert written == 0, lia.dump()
    assert wakes <= 1.0, f"{wakes:.1f} wake-ups a second in an idle lobby"


def test_a_seated_client_waiting_wakes_and_paints_only_for_its_countdown(server):
    async def scenario() -> tuple[tuple[float, float], tuple[float, float]]:
        async with ScriptedClient(server.port, "Host") as host:
            table_id = (await host.request(m.CreateTable, name="quiet table",  # (Cribbage: no helper tables to warm)
                                            settings=m.TableSettings(game="cribbage", seats=2)))["table_id"]
            ann = server.client("Ann", (80, 24), "--join", table_id, relay=False)
            await asyncio.to_thread(ann.wait_for, "quiet table")
            await host.wait_for(lambda: host.facts and len(host.table["members"]) >= 2)
            await host.request(m.Start)

            def waiting_on_host() -> bool:
                view = host.views.get(table_id) or {}
                return view.get("to_act") == [host.table["seat"]] and "Host ⏱" in ann.text()

            await asyncio.to_thread(play_until, [ann], "cribbage", waiting_on_host, 60.0, "the host's turn")
            await asyncio.to_thread(at_rest, ann)
            seated = await asyncio.to_thread(measure, ann)
            ann.press("m")  # the table's menu, a dialog the table shows through
            await asyncio.to_thread(ann.wait_for, "Table menu")
            await asyncio.to_thread(at_rest, ann)
            under_dialog = await asyncio.to_thread(measure, ann)
            assert "Host ⏱" in ann.text()  # still counting down under the menu
            return seated, under_dialog

    (wakes, written), (dialog_wakes, dialog_written) = asyncio.run(scenario())
    # ~100 bytes a tick (its cells, the frame's marks): a 2 s window may hold 3 ticks when one runs late.
    assert 0 < written <= 250, f"{written:.0f} bytes a second for a countdown"
    assert wakes <= SEATED_WAKES, f"{wakes:.1f} wake-ups a second seated"
    assert 0 < dialog_written <= 400, f"{dialog_written:.0f} bytes a second under a dialog"
    assert dialog_wakes <= SEATED_WAKES, f"{dialog_wakes:.1f} wake-ups a second under a dialog"
