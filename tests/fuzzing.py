"""Garbage for a live server: random frames and the connections that send them.

Shared by the unit suite's bounded fuzz test (``tests/server/test_fuzz.py``)
and the long run (``benchmarks/bench_fuzz.py``). Most frames are well-formed
requests with hostile values (they keep the connection open and reach the
lobby); the rest break the protocol in every way a frame can (each ends its
connection, which then reconnects with its token).
"""

from __future__ import annotations

import asyncio
import importlib.util
import random
import socket
import string
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from protocol import messages as m
from protocol.framing import FrameDecoder

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
CARDS = [r + s for r in RANKS for s in "SHDC"] + ["1S", "ZZ", "10h", ""]
NASTY = ["\x1b[2J", "\u202e", "\x00", "\ud7ff", "\U0001f600", "Server", "Ada (bot)", "%s%n", "\x9b31m", "\t\n"]


def documented_error_codes() -> set[str]:
    """Every error code PROTOCOL.md lists (read by the conformance suite's parser)."""
    module = sys.modules.get("protocol_spec")
    if module is None:
        path = Path(__file__).parent / "protocol" / "protocol_spec.py"
        spec = importlib.util.spec_from_file_location("protocol_spec", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["protocol_spec"] = module
        spec.loader.exec_module(module)
    return set(module.load().error_codes)


def text(rng: random.Random, limit: int) -> str:
    parts = [rng.choice(NASTY) if rng.random() < 0.3 else rng.choice(string.printable) for _ in range(rng.randint(0, 12))]
    return "".join(parts)[:limit] * rng.choice([1, 1, 1, 10, 100])


def value(rng: random.Random, depth: int = 0) -> Any:
    """Any msgpack value, allowed or not (bin, huge ints, deep nesting, non-string keys)."""
    roll = rng.random()
    if depth > 18 or roll < 0.25:
        return rng.choice([None, True, False, 0, -1, 2 ** 63, -2 ** 63, 1.5, float("nan"), b"\x00bin", "x"])
    if roll < 0.45:
        return rng.randint(-2 ** 40, 2 ** 40)
    if roll < 0.65:
        return text(rng, 2000)
    if roll < 0.8:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["type", "id", "kind", text(rng, 10), 7]): value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def action(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(["cut", "take_stock", "take_discard", "discard", "split", "skip", "call_end"])
    if kind == "cut":
        return {"kind": kind, "position": rng.choice([None, rng.randint(0, 52)])}
    if kind == "discard":
        return {"kind": kind, "card": rng.choice(CARDS[:52])}
    if kind == "split":
        cards = rng.sample(CARDS[:52], 7)
        return {"kind": kind, "down": cards[:4], "back": cards[4:]}
    return {"kind": kind}


def request(rng: random.Random, table_ids: list[str]) -> dict[str, Any]:
    """A well-formed request with hostile values: it reaches the lobby and is answered."""
    rid = rng.randint(0, 2 ** 32 - 1)
    table_id = rng.choice(table_ids + ["t1", "t999", "x"])
    code = rng.choice([None, "1234", text(rng, 32) or "a"])
    kind = rng.choice(["list_tables", "create_table", "join", "watch", "leave", "start", "add_bot", "remove_bot",
                       "end_game", "act", "act", "act", "sit_out", "chat", "history", "ping"])
    if kind == "create_table":
        settings = {"ante": rng.randint(1, 1_000_000), "stack": rng.randint(1, 1_000_000_000),
                    "seats": rng.randint(2, 5), "turns": rng.choice([6, 7]), "early_call": rng.random() < 0.5,
                    "no_take_back": rng.random() < 0.5}
        return {"type": kind, "id": rid, "name": text(rng, 64), "settings": settings, "private_code": code}
    if kind in ("join", "watch"):
        msg = {"type": kind, "id": rid, "table_id": table_id, "private_code": code}
        if kind == "join":
            msg["seat"] = rng.choice([None, rng.randint(0, 4)])
        return msg
    if kind == "remove_bot":
        return {"type": kind, "id": rid, "seat": rng.randint(0, 4)}
    if kind == "act":
        return {"type": kind, "id": rid, "action": action(rng)}
    if kind == "sit_out":
        return {"type": kind, "id": rid, "away": rng.random() < 0.5}
    if kind == "chat":
        return {"type": kind, "id": rid, "text": text(rng, 1000) or "hi"}
    if kind == "history":
        return {"type": kind, "id": rid, "limit": rng.randint(1, 100)}
    return {"type": kind, "id": rid}


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def pack(obj: Any) -> bytes:
    try:
        return msgpack.packb(obj, use_bin_type=True)
    except (ValueError, OverflowError, TypeError):
        return b"\xc1"


def garbage(rng: random.Random, table_ids: list[str], fatal: float = 0.1) -> tuple[bytes, bool]:
    """One frame (or stray bytes) and whether the server should keep the connection
    after it (a ``fatal`` share of them break the protocol)."""
    roll = rng.random()
    if roll >= fatal:
        return frame(pack(request(rng, table_ids))), True
    roll /= fatal
    if roll < 0.5:  # a known type with wrong fields: bad_message or too_long
        msg = request(rng, table_ids)
        msg[rng.choice(list(msg))] = value(rng)
        return frame(pack(msg)), False
    if roll < 0.8:
        return frame(pack(value(rng))), False
    return rng.choice([
        struct.pack(">I", 0), struct.pack(">I", 70_000), struct.pack(">I", 2 ** 32 - 1),
        bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 64))),
        frame(b"\x81\xa4type\xa4ping\xff"), frame(b"\xdc\xff\xff" + b"\x91" * 100),
    ]), False


@dataclass
class FuzzStats:
    frames: int = 0
    connections: int = 0
    codes: set[str] = field(default_factory=set)
    byes: set[str] = field(default_factory=set)


async def fuzz_connections(port: int, rng: random.Random, stats: FuzzStats, stop: asyncio.Event,
                           batch: int = 200, fatal: float = 0.1, listen: float = 1.0) -> None:
    """One hostile client for as long as ``stop`` is not set: connect, hello (with its
    token once it has one), a batch of garbage, read what comes back, hang up (sometimes
    with a reset), again."""
    token: str | None = None
    table_ids: list[str] = []
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            await loop.sock_connect(sock, ("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        reader, writer = await asyncio.open_connection(sock=sock)
        stats.connections += 1
        hello = {"type": "hello", "id": 1, "version": m.PROTOCOL_VERSION, "name": text(rng, 64) or "fuzz",
                 "token": token, "client": None}
        chunks = [frame(pack(hello))]
        for _ in range(rng.randint(1, batch)):
            data, keeps = garbage(rng, table_ids, fatal)
            chunks.append(data)
            if not keeps:
                break
        stats.frames += len(chunks)
        try:
            writer.write(b"".join(chunks))
            decoder = FrameDecoder()
            until = loop.time() + listen  # a watcher is sent views for ever: listen for a while only
            while loop.time() < until:
                try:
                    data = await asyncio.wait_for(reader.read(65536), min(0.2, listen))
                except asyncio.TimeoutError:
                    break
                if not data:
                    break
                decoder.feed(data)
                for reply in decoder:
                    if reply.get("type") == "welcome":
                        token = reply.get("token")
                    elif reply.get("type") == "error":
                        stats.codes.add(reply.get("code"))
                    elif reply.get("type") == "bye":
                        stats.byes.add(reply.get("reason"))
                    elif reply.get("type") == "tables":
                        table_ids = [t["table_id"] for t in reply.get("tables", [])][:50]
        except (ConnectionError, OSError):
            pass
        finally:
            if rng.random() < 0.2:  # hang up with a reset
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.close()
