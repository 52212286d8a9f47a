"""The real ``dab-server`` process: flags, and a clean shutdown that tells clients."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import time

from engine.games import find_game
from protocol import messages as m
from scripted import ScriptedClient


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server", *args], capture_output=True, text=True, timeout=30)


def test_help_and_version():
    shown = run_cli("--help")
    assert shown.returncode == 0
    for flag in ("--host", "--port", "--turn-timeout", "--data-dir", "--version"):
        assert flag in shown.stdout
    version = run_cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("dab-server ")


def test_bad_flag_is_a_usage_error_not_a_traceback():
    result = run_cli("--port", "seven")
    assert result.returncode == 2 and "Traceback" not in result.stderr and "--port" in result.stderr


async def start_server(tmp_path) -> tuple[asyncio.subprocess.Process, int]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path),
        stderr=asyncio.subprocess.PIPE,
    )
    while True:
        line = (await asyncio.wait_for(process.stderr.readline(), 20)).decode()
        assert line, "the server exited before listening"
        found = re.search(r"listening on [\d.]+:(\d+)", line)
        if found:
            return process, int(found.group(1))


async def test_sigterm_tells_clients_and_exits_within_five_seconds(tmp_path):
    process, port = await start_server(tmp_path)
    try:
        async with ScriptedClient(port, "ann") as ann:
            await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
            started = time.monotonic()
            process.send_signal(signal.SIGTERM)
            await ann.wait_for(lambda: ann.closed_with)
            assert ann.closed_with[0] == "shutting_down"
            code = await asyncio.wait_for(process.wait(), 5)
            assert code == 0 and time.monotonic() - started < 5
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_a_table_created_without_rules_gets_the_games_defaults_which_list_tables_states(connect):
    """The game is the one owner of its rules' defaults: no server option (v1's --ante, --stack) overrides them."""
    assert "--ante" not in run_cli("--help").stdout
    defaults = find_game("down-and-back").settings().to_data()
    async with connect("ann") as ann:
        offered = next(g for g in (await ann.request(m.ListTables))["games"] if g["name"] == "down-and-back")
        assert {rule["name"]: rule["default"] for rule in offered["rules"]} == defaults
        assert (offered["name"], offered["min_seats"], offered["max_seats"]) == ("down-and-back", 2, 5)
        await ann.request(m.CreateTable, name="plain")  # no settings at all
        await ann.wait_for(lambda: ann.facts)
        assert ann.table["settings"] == {"game": "down-and-back", "seats": 5, "rules": defaults}
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        view = await ann.wait_for(lambda: ann.view.get("round") and ann.view)
        assert view["settings"] == defaults
        assert [p["stack"] + p["contributed"] for p in view["players"]] == [defaults["stack"]] * 2
        (listed,) = (await ann.request(m.ListTables))["tables"]
        assert listed["settings"]["rules"] == defaults and listed["title"] == "Down and Back"
