"""The session-client fork server in-process (issue 30 item 1): what the gateways get from it."""

from __future__ import annotations

import asyncio
import logging

from server import gateway
from server.fork_server import ForkedClient
from server.gateway import GatewayThread, client_environment, start_client


async def test_a_forked_client_has_pipes_an_exit_status_and_the_fork_server_for_parent():
    thread = GatewayThread("fork")
    try:
        async def run(*args: str) -> tuple[int, bytes, bytes, bool]:
            proc = await start_client(list(args), "token", env=client_environment(), stdin=asyncio.subprocess.PIPE,
                                      stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            proc.stdin.close()
            out, err = await asyncio.gather(proc.stdout.read(), proc.stderr.read())
            return await proc.wait(), out, err, isinstance(proc, ForkedClient)

        version, out, _, forked = await thread.run(run("--version"))
        assert version == 0 and out.startswith(b"dab-client ") and forked  # forked, not exec'd
        status, _, err, _ = await thread.run(run("--no-such-option"))
        assert status == 2 and b"unrecognized arguments: --no-such-option" in err
    finally:
        await thread.stop()


async def test_where_fork_is_unavailable_clients_start_by_exec_and_the_log_says_so(monkeypatch, caplog):
    monkeypatch.setattr(gateway, "fork_available", lambda: False)
    with caplog.at_level(logging.WARNING, logger="server.gateway"):
        thread = GatewayThread("fork")
    try:
        assert thread.forks is None and "cannot fork session clients" in caplog.text

        async def run() -> tuple[int, bool]:
            proc = await start_client(["--version"], "token", env=client_environment(), stdin=None,
                                      stdout=asyncio.subprocess.DEVNULL, stderr=None)
            return await proc.wait(), isinstance(proc, asyncio.subprocess.Process)

        status, execd = await thread.run(run())
        assert status == 0 and execd
    finally:
        await thread.stop()
