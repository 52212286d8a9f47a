"""The game's only source of chance: a seeded, replayable, unpredictable RNG.

A game must replay bit for bit from its seed and actions (for tests, crash
recovery and hand histories), yet nobody who watches the cards must be able to
predict the stock. A Mersenne Twister fails the second need, so we draw from
SHA-256 in counter mode: deterministic given the secret seed, and as hard to
predict as SHA-256 without it. The server seeds it from ``secrets``.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any, Mapping, MutableSequence, Protocol, TypeVar

T = TypeVar("T")


class Rng(Protocol):
    """What the engine needs from randomness: a uniform integer below ``n``."""

    def randbelow(self, n: int) -> int: ...


class BitPool:
    """A counter-mode stream of 256-bit blocks (``_block(k)``), read as one bit string, most
    significant bit first. Each block is spent a few bits at a time, so a shuffle costs a couple of
    hashes, not fifty; the unread bits of the last block (``pool``, ``pool_bits``) travel with the state."""

    __slots__ = ("counter", "pool", "pool_bits")

    def _block(self, counter: int) -> bytes:
        raise NotImplementedError

    def bits(self, width: int) -> int:
        """The next ``width`` bits of the stream (``width`` at most 256)."""
        if self.pool_bits < width:
            block = self._block(self.counter)
            self.counter += 1
            self.pool = (self.pool << 256) | int.from_bytes(block, "big")
            self.pool_bits += 256
        self.pool_bits -= width
        value = self.pool >> self.pool_bits
        self.pool &= (1 << self.pool_bits) - 1
        return value


class HashRng(BitPool):
    """SHA-256 counter-mode generator. The whole state is ``(seed, counter, pool, pool_bits)``."""

    __slots__ = ("seed",)

    def __init__(
        self, seed: bytes | str | int | None = None, counter: int = 0, pool: int = 0, pool_bits: int = 0,
    ) -> None:
        if seed is None:
            seed = secrets.token_bytes(32)
        elif isinstance(seed, int):
            seed = seed.to_bytes((seed.bit_length() + 8) // 8, "big", signed=True)
        elif isinstance(seed, str):
            seed = seed.encode()
        self.seed: bytes = seed
        self.counter = counter
        self.pool = pool
        self.pool_bits = pool_bits

    def _block(self, counter: int) -> bytes:
        return hashlib.sha256(self.seed + counter.to_bytes(8, "big")).digest()

    def randbelow(self, n: int) -> int:
        """Uniform in ``range(n)`` by rejection sampling (no modulo bias)."""
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        bits = n.bit_length()
        while True:
            value = self.bits(bits)
            if value < n:
                return value

    def token(self, size: int) -> bytes:
        """``size`` bytes of the stream (a fair round's secret seed, :mod:`engine.fairness`)."""
        return bytes(self.bits(8) for _ in range(size))

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def to_data(self) -> dict[str, Any]:
        return {"seed": self.seed.hex(), "counter": self.counter, "pool": self.pool_bits and hex(self.pool),
                "pool_bits": self.pool_bits}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "HashRng":
        pool = data.get("pool") or "0x0"
        return cls(bytes.fromhex(data["seed"]), data["counter"], int(pool, 16), data.get("pool_bits", 0))


def bot_rng(initial_rng: Mapping[str, Any], *context: object) -> HashRng:
    """The generator a bot's decision draws its lots from: seeded one-way (SHA-256) from a game's
    starting RNG state (:attr:`Game.initial_rng`) and the decision's ``context`` (e.g. the number of
    actions applied so far and the seat). The same game and decision always give the same lots, so a
    replay reproduces the bot; the game's own stream is never touched (the deal stays as it would be),
    and nothing about the seed, so nothing about the deal, can be learnt from the bot's lots.
    """
    digest = hashlib.sha256(b"bot\0" + bytes.fromhex(initial_rng["seed"]) + repr(context).encode()).digest()
    return HashRng(digest)
