"""The real ``dab-server`` process: flags, and a clean shutdown that tells clients."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import time

import pytest

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


async def _server_with_open_files(tmp_path, soft: int, hard: int, *flags: str) -> tuple[asyncio.subprocess.Process,
                                                                                         list[str]]:
    """A real dab-server started under ``ulimit -n soft`` (``-Hn hard``); its log lines until it listens."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--memory", *flags,
        stderr=asyncio.subprocess.PIPE, preexec_fn=limit, cwd=tmp_path,
    )
    lines: list[str] = []
    while not lines or "listening on" not in lines[-1]:
        line = (await asyncio.wait_for(process.stderr.readline(), 20)).decode()
        assert line, f"the server exited before listening: {lines}"
        lines.append(line)
    return process, lines


def _open_files(pid: int) -> int:
    (line,) = [x for x in open(f"/proc/{pid}/limits") if x.startswith("Max open files")]
    return int(line.split()[3])


async def test_the_server_raises_its_open_files_limit_to_max_connections_or_says_it_cannot(tmp_path):
    """``ulimit -n`` is often 1024, below what --max-connections 1000 and the server's own files need: a full
    server then failed to accept instead of refusing with server_full. It raises its soft limit as far as
    the hard limit allows, and says so at start when that is not enough. SIGUSR1 logs the health line at
    once (benchmarks/bench_server.py brackets its window so), even with no traffic."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 1000:
        pytest.skip(f"this machine's hard limit on open files is {hard}")
    raised, raised_log = await _server_with_open_files(tmp_path, 256, hard, "--max-connections", "600")
    short, short_log = await _server_with_open_files(tmp_path, 256, 256, "--max-connections", "600")
    try:
        assert _open_files(raised.pid) >= 600 and not any(" WARNING " in line for line in raised_log)
        assert _open_files(short.pid) == 256
        (warning,) = [line for line in short_log if " WARNING " in line]
        assert "--max-connections 600" in warning and "ulimit -n" in warning and "to 56" in warning
        raised.send_signal(signal.SIGUSR1)
        line = ""
        while "health:" not in line:
            line = (await asyncio.wait_for(raised.stderr.readline(), 10)).decode()
            assert line, "the server exited on SIGUSR1"
        assert re.search(r"health: loop lag p50 [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms; 0.0 actions/s", line)
        assert raised.returncode is None
    finally:
        for process in (raised, short):
            process.terminate()
            assert await asyncio.wait_for(process.wait(), 10) == 0
