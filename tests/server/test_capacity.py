"""The gateways' session limits follow the machine (issue 30 item 3)."""

from __future__ import annotations

import asyncio

import pytest

from server import capacity
from server.gateway import MachineFull, client_environment, start_client


def test_the_default_limit_is_what_memory_and_cores_hold():
    # This kind of box (2 cores, 23 GB): the cores bound forked clients, memory exec'd ones.
    assert capacity.default_sessions(True, total_mb=23 * 1024, cores=2) == 2 * capacity.SESSIONS_PER_CORE
    assert capacity.default_sessions(False, total_mb=23 * 1024, cores=2) == \
        (23 * 1024 - capacity.RESERVE_MB) // capacity.EXEC_SESSION_MB
    # A small one (2 GB, 4 cores): memory bounds both, forked clients go four times as far.
    small = capacity.default_sessions(True, total_mb=2048, cores=4)
    assert small == (2048 - capacity.RESERVE_MB) // capacity.FORKED_SESSION_MB
    assert small > 2 * capacity.default_sessions(False, total_mb=2048, cores=4) >= 2
    assert capacity.default_sessions(True, total_mb=512, cores=1) == 1  # never none


def test_a_session_is_refused_before_memory_runs_short(tmp_path, monkeypatch):
    meminfo = tmp_path / "meminfo"
    monkeypatch.setattr(capacity, "MEMINFO", meminfo)
    meminfo.write_text(f"MemTotal: {8 << 20} kB\nMemAvailable: {(capacity.RESERVE_MB + 10) * 1024} kB\n")
    assert not capacity.room_for_a_session(True)
    with pytest.raises(MachineFull, match="the server is full"):
        asyncio.run(start_client(["--version"], "token", env=client_environment(), stdin=None, stdout=None,
                                 stderr=None))
    meminfo.write_text(f"MemTotal: {8 << 20} kB\nMemAvailable: {4 << 20} kB\n")
    assert capacity.room_for_a_session(True) and capacity.room_for_a_session(False)
