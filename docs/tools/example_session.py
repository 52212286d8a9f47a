"""Record PROTOCOL.md's example session (section 12) from a real server, and write it into the document.

    python docs/tools/example_session.py           # print the transcripts
    python docs/tools/example_session.py --write   # replace them in docs/PROTOCOL.md

A seeded in-process dab-server and a bare client that writes every frame
itself: Ann plays a bot heads-up for one round (committing to and revealing her
client seed), chats, pings, and the server shuts down; then a client that skips its
hello. Every message shown is one the server really sent, in the order it sent them;
the trimming is only that a view's ``table`` and ``game`` show some of their fields
(``...``) and that the random player id, token and clock readings are replaced by
fixed ones (``deadline_ms`` to the second; a seed phase's ``after_ms`` by fixed
milliseconds, its signature made again for them: the example's server key is a fixed
one, so every signature shown verifies).
``tests/protocol/test_conformance.py`` records it again and fails if the document differs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from engine.fairness import seed_commitment  # noqa: E402
from engine.games.down_and_back.bots import baseline_action  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.framing import FrameDecoder, encode_frame  # noqa: E402
from server import __version__  # noqa: E402
from server.keys import ServerKey  # noqa: E402
from server.lobby import Lobby, LobbyConfig  # noqa: E402
from server.net import GameServer, NetConfig  # noqa: E402
from server.table import TableConfig  # noqa: E402

PROTOCOL_MD = ROOT / "docs" / "PROTOCOL.md"
PLAYER_ID, TOKEN, TS = "f5e6f8d75b454d88", "f5e6f8d75b454d88_7JOYVZAH7Exnc71BJ5KsZT262pP9lw9A", 1795958774000
TABLE_FIELDS = ("title", "seat", "state", "host_seat")
GAME_FIELDS = ("phase", "hand", "discard_top", "legal", "round", "dealer", "turn", "step", "to_act", "pot",
               "stock_count")
WIDTH = 86
KEY = ServerKey(Ed25519PrivateKey.from_private_bytes(bytes(range(100, 132))))  # the example server's
ANN_SEED = "a1" * 16  # Ann's client seed (the reference client draws 32 fresh bytes)
AFTER_MS = {"seed_set": 7, "deck_fixed": 12}  # the seed phases' clock readings, fixed


class Recorder:
    """A client that sends raw frames and keeps every line of the transcript."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.decoder = FrameDecoder()
        self.lines: list[str] = []
        self.view: dict[str, Any] = {}
        self.ids = 0

    def say(self, text: str) -> None:
        self.lines.append(text)

    def send(self, message: dict[str, Any], show: bool = True) -> int:
        self.ids += 1
        message = {"type": message["type"], "id": self.ids, **{k: v for k, v in message.items() if k != "type"}}
        self.writer.write(encode_frame(message))
        if show:
            self.lines += render("C", message)
        return self.ids

    async def receive(self, show: bool = True) -> dict[str, Any] | None:
        """The next message from the server (None when it has closed the connection)."""
        while (frame := self.decoder.next_frame()) is None:
            data = await asyncio.wait_for(self.reader.read(65536), 10)
            if not data:
                return None
            self.decoder.feed(data)
        if frame["type"] == "view":
            self.view = frame["game"] or {}
        if show:
            self.lines += render("S", frame)
        return frame

    async def request(self, message: dict[str, Any], show: bool = True) -> dict[str, Any]:
        """Send a request; show what the server sends up to its reply and, if it sends one, the view after it."""
        request_id = self.send(message, show)
        reply = None
        while reply is None:
            frame = await self.receive(show)
            assert frame is not None
            if frame["type"] in ("ok", "error", "welcome") and frame.get("id") == request_id:
                reply = frame
        if reply["type"] == "ok" and message["type"] in ("create_table", "add_bot", "start", "act"):
            while (await self.receive(show) or {}).get("type") != "view":
                pass
        return reply

    async def until_bye(self) -> None:
        """Show what the server sends up to its goodbye."""
        while (frame := await self.receive()) is not None and frame["type"] != "bye":
            pass

    async def until(self, predicate, show: bool = False) -> None:
        while not predicate(self.view):
            assert await self.receive(show) is not None


def render(direction: str, message: dict[str, Any]) -> list[str]:
    """One message, JSON-style, wrapped like the document's transcripts."""
    message = dict(message)
    if message.get("type") == "welcome":
        message.update(player_id=PLAYER_ID, token=TOKEN)
    if message.get("type") == "hello" and message.get("token"):
        message["token"] = TOKEN
    if message.get("type") == "chat_message":
        message["ts"] = TS
    if message.get("type") == "view" and message["deadline_ms"] is not None:
        message["deadline_ms"] = -(-message["deadline_ms"] // 1000) * 1000
    if message.get("type") == "event":
        message["events"] = [fixed_clock(e) for e in message["events"]]
    parts = []
    for key, value in message.items():
        fields = {"table": TABLE_FIELDS, "game": GAME_FIELDS}.get(key) if message.get("type") == "view" else None
        if fields is not None and value is not None:
            shown = ", ".join(f'"{k}": {_json(value[k])}' for k in fields if k in value)
            parts.append(f'"{key}": {{{shown}, ...}}')
        else:
            parts.append(f'"{key}": {_json(value)}')
    text = f"{direction}: {{" + ", ".join(parts) + "}"
    return textwrap.wrap(text, WIDTH, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)


def fixed_clock(event: dict[str, Any]) -> dict[str, Any]:
    """A seed phase's ``after_ms`` (and the reveal's actions that made it) fixed, and signed again."""
    kind = event.get("kind")
    if kind in AFTER_MS:
        event = dict(event, after_ms=AFTER_MS[kind])
        event["sig"] = KEY.signature(event)
    elif kind == "deal_reveal":
        after = {"seal_seeds": AFTER_MS["seed_set"], "fix_deck": AFTER_MS["deck_fixed"]}
        event = dict(event, actions=[[s, dict(a, after_ms=after[a["kind"]]) if a["kind"] in after else a]
                                     for s, a in event["actions"]])
    return event


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


async def session() -> list[str]:
    """Ann against a bot, heads-up, for one round."""
    config = LobbyConfig(table=TableConfig(turn_timeout=60.0, bot_delay=0.0, away_delay=0.0, round_pause=60.0,
                                           seed_window=10.0), seed=b"protocol example", key=KEY)
    server = GameServer(Lobby(config, f"dab-server {__version__}"), NetConfig())
    await server.start("127.0.0.1", 0)
    try:
        ann = Recorder(*await asyncio.open_connection("127.0.0.1", server.port))
        await ann.request({"type": "hello", "version": m.PROTOCOL_VERSION, "name": "Ann", "token": None,
                           "client": f"dab-client {__version__}"})
        await ann.receive()  # the lobby's table list
        ann.say("")
        await ann.request({"type": "create_table", "name": "Ann's table", "private_code": None,
                           "settings": m.TableSettings(seats=2).to_wire()})
        ann.say("")
        await ann.request({"type": "add_bot"})
        ann.say("")
        await ann.request({"type": "start"})
        ann.say("          (the deal waits for Ann's seed, or its 10 s window: nobody is to act)")
        await ann.until(lambda v: v)  # the game has started
        commit = seed_commitment(bytes.fromhex(ann.view["fair"]["commitment"]), ann.view["seat"],
                                 bytes.fromhex(ANN_SEED)).hex()
        await ann.request({"type": "seed_commit", "commit": commit})
        await ann.until(lambda v: v["fair"]["phase"] == "reveal", show=True)
        ann.say("          (the only human has committed: the seeds are sealed; Ann reveals hers)")
        await ann.request({"type": "client_seed", "seed": ANN_SEED})
        await ann.until(lambda v: v["legal"], show=True)
        if ann.view["cutter"] == ann.view["seat"]:
            ann.say("          (the first dealer was drawn from the deal; heads-up, Ann sits right of the")
            ann.say("          dealer: she cuts)")
        await ann.request({"type": "act", "action": baseline_action(ann.view).to_data()})
        ann.say("          (only Ann's copy of her deal event carries her hand)")
        await ann.until(lambda v: v["legal"])
        ann.say("")
        await ann.request({"type": "act", "action": baseline_action(ann.view).to_data()})
        ann.say("")
        missing = next(f"{r}{s}" for s in "SHDC" for r in ("A", "K", "Q") if f"{r}{s}" not in ann.view["hand"])
        await ann.request({"type": "act", "action": {"kind": "discard", "card": missing}})
        await ann.request({"type": "act", "action": {"kind": "discard", "card": "1S"}})
        await ann.request({"type": "act", "action": baseline_action(ann.view).to_data()})
        turns = 1
        while ann.view["phase"] != "showdown" or not ann.view["legal"]:
            await ann.until(lambda v: v["legal"])
            if ann.view["phase"] == "play" and ann.view["step"] == "draw":
                turns += 1
            if ann.view["phase"] == "play":
                await ann.request({"type": "act", "action": baseline_action(ann.view).to_data()}, show=False)
        ann.say(f'   ... the bot\'s turns arrive as events and views; {turns - 1} more turns each; then')
        ann.say('   "phase": "showdown" with "legal": [{"kind": "split"}] ...')
        await ann.until(lambda v: all(p["submitted"] for p in v["players"] if p["seat"] != v["seat"]))
        await ann.request({"type": "act", "action": baseline_action(ann.view).to_data()})
        ann.say("")
        await ann.request({"type": "chat", "text": "gg"})
        while (await ann.receive())["type"] != "chat_message":  # type: ignore[index]
            pass
        ann.say("")
        await ann.request({"type": "ping"})
        ann.say("   ...")
        closing = asyncio.ensure_future(server.close(grace=1.0))
        await ann.until_bye()
        ann.say("   (the server closes the connection)")
        ann.writer.close()
        await closing

        return ann.lines
    finally:
        if not server.shutting_down:
            await server.close(grace=1.0)


async def broken_client() -> list[str]:
    """A client that does not begin with hello."""
    server = GameServer(Lobby(LobbyConfig(), f"dab-server {__version__}"), NetConfig())
    await server.start("127.0.0.1", 0)
    try:
        client = Recorder(*await asyncio.open_connection("127.0.0.1", server.port))
        client.send({"type": "list_tables"})
        client.lines[-1] += "           (no hello first)"
        await client.until_bye()
        client.say("   (closed)")
        client.writer.close()
        return client.lines
    finally:
        await server.close(grace=1.0)


async def transcripts() -> tuple[str, str]:
    return "\n".join(await session()) + "\n", "\n".join(await broken_client()) + "\n"


def documented(text: str) -> tuple[str, str]:
    """The two transcripts as section 12 of ``text`` holds them."""
    section = text[text.index("## 12. Example session"):]
    blocks = re.findall(r"```\n(.*?)```", section, re.S)
    return blocks[0], blocks[1]


def write(text: str, fresh: tuple[str, str]) -> str:
    start = text.index("## 12. Example session")
    section = text[start:]
    for old, new in zip(documented(text), fresh):
        section = section.replace(f"```\n{old}```", f"```\n{new}```", 1)
    return text[:start] + section


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="replace the transcripts in docs/PROTOCOL.md")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # the seed's loud warning: this game is a fixed example
    fresh = asyncio.run(transcripts())
    if args.write:
        PROTOCOL_MD.write_text(write(PROTOCOL_MD.read_text(encoding="utf-8"), fresh), encoding="utf-8")
    else:
        print("\n\n".join(fresh), end="")


if __name__ == "__main__":
    main()
