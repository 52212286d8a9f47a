"""Small policies that bound what peers can make the server do: token buckets,
back-off after failures, per-address keys and rate-limited log lines."""

from __future__ import annotations

import ipaddress
import logging
import time

# The gateways' clients (a process per SSH session or browser tab) run this much nicer than the
# server: fifty of them repainting at once must not take the CPU from the game that everyone waits on.
CLIENT_NICENESS = 10


class TokenBucket:
    """``rate`` events per second on average, ``burst`` at once."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self, cost: int = 1) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    @property
    def full(self) -> bool:
        """Refilled to its burst: forgetting this bucket changes nothing."""
        return self.tokens + (time.monotonic() - self.stamp) * self.rate >= self.burst


class BucketsByKey:
    """One :class:`TokenBucket` per key (an address), forgetting full buckets so
    the table stays small however many keys pass."""

    def __init__(self, rate: float, burst: float, keep: int = 4096) -> None:
        self.rate, self.burst, self.keep = rate, burst, keep
        self._buckets: dict[str, TokenBucket] = {}

    def take(self, key: str, cost: int = 1) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.keep:
                self._buckets = {k: b for k, b in self._buckets.items() if not b.full}
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst)
        return bucket.take(cost)


class Backoff:
    """Failures allowed ``free`` at once: the ``free``-th arms the back-off, so each retry after it waits
    twice as long (``base`` seconds first, at most ``cap``); quiet for ``forget`` seconds, all is forgiven."""

    __slots__ = ("free", "base", "cap", "forget", "failures", "last", "until")

    def __init__(self, free: int, base: float = 1.0, cap: float = 300.0, forget: float = 600.0) -> None:
        self.free, self.base, self.cap, self.forget = free, base, cap, forget
        self.failures = 0
        self.last = self.until = float("-inf")

    def wait(self, now: float) -> float:
        """Seconds before the next attempt is allowed (0: now)."""
        if now - self.last > self.forget:
            self.failures = 0
        return max(0.0, self.until - now) if self.failures >= self.free else 0.0

    def failed(self, now: float) -> None:
        self.wait(now)  # forget old failures first
        self.failures += 1
        self.last = now
        if self.failures >= self.free:
            self.until = now + min(self.cap, self.base * 2 ** (self.failures - self.free))


def address_key(host: str) -> str:
    """What per-address limits count by: the IPv4 address, or an IPv6 address's /64
    (one machine usually holds a whole /64)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class PeerLog:
    """Log lines a peer can cause, at most ``rate`` a second (bursts of ``burst``):
    a flood costs a few lines and one count of what was left out."""

    def __init__(self, logger: logging.Logger, rate: float = 5.0, burst: float = 20.0) -> None:
        self.logger = logger
        self._bucket = TokenBucket(rate, burst)
        self.suppressed = 0

    def warning(self, peer: str, text: str, *args: object) -> None:
        """Log ``text % args`` about ``peer`` (its address comes first), unless flooded."""
        self._log(logging.WARNING, peer, text, args)

    def info(self, peer: str, text: str, *args: object) -> None:
        """As :meth:`warning`, at INFO."""
        self._log(logging.INFO, peer, text, args)

    def _log(self, level: int, peer: str, text: str, args: tuple[object, ...]) -> None:
        if not self._bucket.take():
            self.suppressed += 1
            return
        if self.suppressed:
            self.logger.log(level, "%d log lines caused by peers were left out (too many)", self.suppressed)
            self.suppressed = 0
        self.logger.log(level, "%s: " + text, peer, *args)
