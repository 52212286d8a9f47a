"""The operator's view of health: how late the event loop runs, and how busy the server is.

:class:`LoopMonitor` schedules a tick every ``TICK`` seconds and records how
late each one ran (the loop's *lag*: whatever blocked it, a slow callback, a
commit, a garbage collection). Once a minute, if there was traffic, it logs
one INFO line: the lag's p50, p99 and max over the minute, actions and
requests per second, connections and tables; and once more when the server
stops, for the period since. dab-server also logs it at once, and begins a
new period, on SIGUSR1 (``benchmarks/bench_server.py`` brackets its measured
window so).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Callable

log = logging.getLogger("dab-server")

TICK = 0.05  # s between lag samples: 20 callbacks a second, nothing next to the traffic
REPORT_PERIOD = 60.0  # s between log lines (only when there was traffic)
MAX_SAMPLES = int(REPORT_PERIOD / TICK) * 2  # a loop that runs early cannot grow the list without bound


@dataclass(frozen=True)
class Health:
    """One period's figures (lags in milliseconds)."""

    lag_p50: float
    lag_p99: float
    lag_max: float
    actions_per_s: float
    requests_per_s: float
    connections: int
    tables: int

    def line(self) -> str:
        return (f"health: loop lag p50 {self.lag_p50:.2f} ms, p99 {self.lag_p99:.2f} ms, max {self.lag_max:.2f} ms; "
                f"{self.actions_per_s:.1f} actions/s, {self.requests_per_s:.1f} requests/s; "
                f"{self.connections} connections, {self.tables} tables")


def percentile(ordered: list[float], fraction: float) -> float:
    """The ``fraction`` quantile of a sorted list (nearest rank); 0 for an empty one."""
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class LoopMonitor:
    """Measures the loop's lag; ``counts()`` gives (actions, requests, connections, tables) so far."""

    def __init__(self, counts: Callable[[], tuple[int, int, int, int]], period: float = REPORT_PERIOD) -> None:
        self._counts = counts
        self._period = period
        self._loop = asyncio.get_running_loop()
        self._lags: list[float] = []
        self._since = self._loop.time()
        self._base = counts()[:2]
        self._previous: tuple[list[float], float, tuple[int, int]] = ([], self._since, self._base)  # the last period
        self._expected = self._since + TICK
        self._timer: asyncio.TimerHandle | None = self._loop.call_at(self._expected, self._tick)

    def _tick(self) -> None:
        now = self._loop.time()
        if len(self._lags) < MAX_SAMPLES:
            self._lags.append(max(0.0, now - self._expected))
        if now - self._since >= self._period:
            self.report()
        self._expected = now + TICK
        self._timer = self._loop.call_at(self._expected, self._tick)

    def report(self, always: bool = False) -> None:
        """Log the period's figures at INFO if there was traffic (or ``always``), and begin a new period."""
        figures = self.take()
        if always or figures.requests_per_s > 0 or figures.actions_per_s > 0:
            log.info("%s", figures.line())

    def take(self) -> Health:
        """The figures since the last ``take`` (or the start), and begin a new period."""
        figures = self._figures(self._lags, self._since, self._base)
        self._previous = (self._lags, self._since, self._base)
        self._lags = []
        self._since = self._loop.time()
        self._base = self._counts()[:2]
        return figures

    def peek(self) -> tuple[Health, float]:
        """The figures of the last period and the current one together (one to two report
        periods, or since the start), and how many seconds they cover; nothing is reset."""
        lags, since, base = self._previous
        return self._figures(lags + self._lags, since, base), self._loop.time() - since

    def _figures(self, samples: list[float], since: float, base: tuple[int, int]) -> Health:
        actions, requests, connections, tables = self._counts()
        elapsed = max(self._loop.time() - since, 1e-9)
        lags = sorted(samples)
        return Health(percentile(lags, 0.5) * 1000, percentile(lags, 0.99) * 1000, (lags[-1] if lags else 0) * 1000,
                      (actions - base[0]) / elapsed, (requests - base[1]) / elapsed, connections, tables)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
