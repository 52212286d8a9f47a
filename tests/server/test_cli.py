"""The real ``dab-server`` process: flags, and a clean shutdown that tells clients."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import time

from protocol import messages as m
from scripted import ScriptedClient


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server", *args], capture_output=True, text=True, timeout=30)


def test_help_and_version():
    shown = run_cli("--help")
    assert shown.returncode == 0
    for flag in ("--host", "--port", "--ante", "--stack", "--turn-timeout", "--data-dir", "--version"):
        assert flag in shown.stdout
    version = run_cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("dab-server ")


def test_bad_flag_is_a_usage_error_not_a_traceback():
    result = run_cli("--port", "seven")
    assert result.returncode == 2 and "Traceback" not in result.stderr and "--port" in result.stderr


def test_default_ante_and_stack_outside_the_games_limits_are_refused_at_start():
    """The game's settings are their one owner: a stack below the ante, or an ante above the game's
    largest, stops the start (before, every table created with the defaults was refused instead)."""
    for flags, words in ((("--ante", "50", "--stack", "40"), "at least the ante"),
                         (("--ante", "2000000", "--stack", "3000000"), "ante must be")):
        result = run_cli(*flags, "--memory", "--port", "0")
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert "--ante/--stack" in result.stderr and words in result.stderr


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


async def test_ante_and_stack_are_the_defaults_of_a_table_created_without_them(tmp_path):
    from durability_helpers import FAST, ServerProcess

    shown = run_cli("--help")
    assert " ".join(shown.stdout.split()).count("creator does not choose one") == 2
    server = ServerProcess(tmp_path, *FAST, "--ante", "25", "--stack", "300")
    await server.start()
    try:
        async with ScriptedClient(server.port, "ann") as ann:
            assert (await ann.request(m.ListTables))["defaults"] == {"ante": 25, "stack": 300}
            await ann.request(m.CreateTable, name="plain")  # no settings at all
            await ann.request(m.AddBot)
            await ann.request(m.Start)
            view = await ann.wait_for(lambda: ann.views and ann.view.get("round") and ann.view)
            assert view["settings"]["ante"] == 25 and view["settings"]["stack"] == 300
            assert [p["stack"] + p["contributed"] for p in view["players"]] == [300, 300]
            chosen = await ann.request(m.ListTables)
            assert [(t["settings"]["ante"], t["settings"]["stack"]) for t in chosen["tables"]] == [(25, 300)]
    finally:
        await server.close()
