"""Fair deals in tests: a fixed Ed25519 key (RFC 8032's first test key), signing events as the server
does, and a watched game whose seats commit to and reveal client seeds (docs/FAIRNESS.md)."""

from __future__ import annotations

import copy
from typing import Any, Mapping

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.contract import StartRound, Status
from engine.fairness import (
    SIGN_LABELS, ClientSeed, FairBinding, FixDeck, SealSeeds, SeedCommit, seed_commitment, signed_message,
)
from engine.rng import HashRng

TEST_SECRET = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
TEST_KEY = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
OTHER_SECRET = bytes.fromhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")  # RFC 8032 test 2
WINDOW_MS = 3000


def sign(event: Mapping[str, Any], secret: bytes = TEST_SECRET) -> str:
    """The server's signature of a signed event (hex)."""
    return Ed25519PrivateKey.from_private_bytes(secret).sign(signed_message(event)).hex()


def signed(event: Mapping[str, Any], secret: bytes = TEST_SECRET) -> dict[str, Any]:
    """``event`` with its ``sig`` (again), if it is one of the kinds the server signs."""
    event = {k: v for k, v in event.items() if k != "sig"}
    if event.get("kind") in SIGN_LABELS:
        event["sig"] = sign(event, secret)
    return event


def binding(game_type: Any, table_id: str = "t1", window_ms: int = WINDOW_MS, key: bytes = TEST_KEY) -> FairBinding:
    return FairBinding(key.hex(), table_id, game_type.name, window_ms)


class Watched:
    """A game bound to a table, and every event each viewer (its seats and a spectator) has seen of it,
    signed as the server signs them."""

    def __init__(self, game_type: Any, players: int, seed: int, table_id: str = "t1", **rules: Any) -> None:
        self.game_type = game_type
        self.game = game_type.new(game_type.settings(rules), [(s, f"p{s}", 1000) for s in range(players)],
                                  HashRng(seed))
        self.game.apply(None, binding(game_type, table_id))
        self.seen: dict[int | None, list[dict[str, Any]]] = {v: [] for v in [*range(players), None]}

    def apply(self, seat: int | None, action: Any) -> list[Any]:
        records = self.game.apply(seat, action)
        for record in records:
            sig = signed(record.for_seat(None)).get("sig")
            for viewer, events in self.seen.items():
                event = dict(record.for_seat(viewer))
                if sig is not None:
                    event["sig"] = sig
                events.append(event)
        return records

    def seed(self, seeds: Mapping[int, str], reveal: Mapping[int, str] | None = None, after_ms: int = 40,
             fix_ms: int | None = None, waiting: tuple[int, ...] | None = None) -> None:
        """The seed phases: each of ``seeds`` commits, the set is sealed (``waiting``: the seats of ``seeds``
        by default: those the table waited for), each of ``reveal`` (``seeds`` by default) reveals, and the deck is fixed."""
        fair = self.game.fair
        for seat, value in seeds.items():
            self.apply(seat, SeedCommit(seed_commitment(fair.commitment, seat, bytes.fromhex(value)).hex()))
        self.apply(None, SealSeeds(after_ms, tuple(sorted(seeds)) if waiting is None else waiting))
        if fair.seeding:
            for seat, value in (seeds if reveal is None else reveal).items():
                self.apply(seat, ClientSeed(value))
            self.apply(None, FixDeck(after_ms + 5 if fix_ms is None else fix_ms))

    def round(self, seeds: Mapping[int, str], pick: int = 7, **seeding: Any) -> None:
        """Deal a round with ``seeds`` committed and revealed, and play it out by a fixed spread of choices."""
        self.apply(None, StartRound())
        self.seed(seeds, **seeding)
        self.play(pick)

    def play(self, pick: int = 7) -> None:
        while self.game.status is Status.PLAYING:
            seat = self.game.to_act()[0]
            legal = self.game.legal_actions(seat)
            self.apply(seat, legal[len(self.game.history) * pick % len(legal)])

    def last_round(self, viewer: int | None) -> list[dict[str, Any]]:
        events = self.seen[viewer]
        start = max(i for i, e in enumerate(events) if e["kind"] == "deal_commit")
        return copy.deepcopy(events[start:])
