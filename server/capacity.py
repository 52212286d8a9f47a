"""How many sessions this machine can hold (issue 30 item 3): the gateways' limits follow it.

Each SSH session or browser tab runs a client. What one costs was measured with
``benchmarks/bench_ssh.py`` (README "Sizing"): a client forked by the fork
server ~25 MB of its own memory seated (PSS), an exec'd one ~50-80 MB; an idle
seated client ~0.1-0.2 CPU-s a minute, and while a game moves at its table a few
percent of a core. So ``--ssh-max-sessions`` and ``--web-max-sessions`` default
to what the machine's memory holds (less a reserve for the server, its database
and the system) and its cores run (``SESSIONS_PER_CORE``), whichever is fewer.

And whatever the limits say, a session is refused, saying so, when the memory
the machine has available would not hold one more (:func:`room_for_a_session`):
a new session is turned away before the box swaps, never by slowing the players
already seated.
"""

from __future__ import annotations

import os
from pathlib import Path

FORKED_SESSION_MB = 30  # a forked client, seated: ~25 MB PSS measured, rounded up
EXEC_SESSION_MB = 80  # an exec'd client: its own interpreter, Textual, and the hand helper's tables
SESSIONS_PER_CORE = 150  # idle seated clients cost ~0.2% of a core each; a table in play a few %
RESERVE_MB = 1024  # kept for the server, its database, the fork server, the system
MEMINFO = Path("/proc/meminfo")
FULL = "the server is full: it has no room for another session now; try again later"


def _meminfo(field: str) -> float | None:
    """A /proc/meminfo field in MB, or None where there is none (not Linux)."""
    try:
        for line in MEMINFO.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def session_cost_mb(forked: bool) -> int:
    return FORKED_SESSION_MB if forked else EXEC_SESSION_MB


def default_sessions(forked: bool, total_mb: float | None = None, cores: int | None = None) -> int:
    """The sessions a machine of ``total_mb`` memory and ``cores`` cores (default: this one) holds."""
    total_mb = _meminfo("MemTotal") if total_mb is None else total_mb
    cores = (os.cpu_count() or 1) if cores is None else cores
    by_cpu = SESSIONS_PER_CORE * max(1, cores)
    if total_mb is None:
        return min(by_cpu, 100)  # (unknown memory: the old fixed default)
    by_memory = int((total_mb - RESERVE_MB) // session_cost_mb(forked))
    return max(1, min(by_memory, by_cpu))


def room_for_a_session(forked: bool, available_mb: float | None = None) -> bool:
    """Whether the machine's available memory holds one more session's client and the reserve."""
    available_mb = _meminfo("MemAvailable") if available_mb is None else available_mb
    return available_mb is None or available_mb >= session_cost_mb(forked) + RESERVE_MB
