"""The server against docs/PROTOCOL.md and docs/games/: error codes, results, views and events, over real sockets.

What the spec says is read from the documents themselves (:mod:`protocol_spec`),
so a field, code or result key added to the server but not to a document, or the
reverse, fails here. Every scenario runs against the real server of the
``server`` fixture on an ephemeral port.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import re
import sqlite3
import struct
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

import msgpack
import pytest

import protocol_spec
from client.link import RequestFailed
from engine.contract import TABLE_ACTION_FIELDS
from engine.errors import InvalidAction
from engine.fairness import seed_commitment
from engine.games import GAMES, find_game
from engine.games.down_and_back import actions as down_and_back_actions
from engine.games.down_and_back.bots import baseline_action
from protocol import messages as m
from protocol.errors import PROTOCOL_ERROR_CODES
from protocol.framing import FrameDecoder, encode_frame
from scripted import SeedingClient, ScriptedClient, autoplay, wait_any
from server import lobby as lobby_module
from server import moderation as moderation_module
from server.limits import BucketsByKey
from server.lobby import Lobby, LobbyConfig
from server.moderation import Ban
from server.net import GameServer, NetConfig
from server.store import DB_NAME, Store

SPEC = protocol_spec.load()
GAME_SPEC = protocol_spec.load_game("down-and-back")
ROOT = Path(__file__).resolve().parents[2]
REQUESTS = sorted(m.CLIENT_MESSAGE_TYPES)


async def failure(call: Awaitable[Any]) -> str:
    """The error code a request is answered with (it must fail)."""
    with pytest.raises(RequestFailed) as info:
        await call
    return info.value.code


# ----------------------------------------------------------------- raw connections


class Raw:
    """A bare TCP connection: frames out, every message the server sends until it closes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.decoder = FrameDecoder()

    @classmethod
    async def open(cls, port: int) -> "Raw":
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    def send(self, *frames: bytes | dict[str, Any]) -> None:
        self.writer.write(b"".join(f if isinstance(f, bytes) else encode_frame(f) for f in frames))

    async def until_closed(self) -> list[dict[str, Any]]:
        """Every frame the server sends until it closes the connection."""
        data = await asyncio.wait_for(self.reader.read(), 10)
        self.writer.close()
        self.decoder.feed(data)
        return list(self.decoder)


def hello(version: int = m.PROTOCOL_VERSION, name: str = "raw", token: str | None = None, id: int = 1) -> dict:
    return {"type": "hello", "id": id, "version": version, "name": name, "token": token}


async def refused(port: int, *frames: bytes | dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Send ``frames`` on a new connection; the server's last ``error`` and its ``bye``."""
    raw = await Raw.open(port)
    raw.send(*frames)
    return await refused_on(raw)


async def refused_on(raw: Raw) -> tuple[dict[str, Any], dict[str, Any]]:
    replies = await raw.until_closed()
    errors = [r for r in replies if r["type"] == "error"]
    assert errors and replies[-1]["type"] == "bye", replies
    return errors[-1], replies[-1]


# ----------------------------------------------------------------- the spec and the code


def _doc_type_matches(notation: str, spec: m.Spec) -> bool:
    """Whether a field's type in PROTOCOL.md (``int 1..100 = 10``, ``seat | nil`` ...) is what messages.py checks."""
    notation = notation.split(" = ")[0].strip()
    if notation.endswith("| nil"):
        return isinstance(spec, m.Nullable) and _doc_type_matches(notation[:-5].strip(), spec.inner)
    named = {"request_id": m.REQUEST_ID, "version": m.VERSION, "seat": m.SEAT, "table_id": m.TABLE_ID,
             "player_id": m.PLAYER_ID, "token": m.TOKEN, "code": m.CODE, "name": m.NAME, "text": m.TEXT}
    if notation in named:
        return spec is named[notation]
    bounds = re.fullmatch(r"(int|str) (\d+)\.\.(\S+)", notation)
    if bounds:
        hi = eval(bounds.group(3).replace("^", "**"))  # "2^63-1" and plain numbers only
        cls = m.Int if bounds.group(1) == "int" else m.Str
        return type(spec) is cls and (spec.lo, spec.hi) == (int(bounds.group(2)), hi)
    if notation == "bool":
        return isinstance(spec, m.Bool)
    listed = re.fullmatch(r"\[[a-z ]+\] (\d+)\.\.(\d+)", notation.split("`")[0].strip())
    if listed:
        return isinstance(spec, m.ListOf) and (spec.lo, spec.hi) == (int(listed.group(1)), int(listed.group(2)))
    return True  # maps and actions: their own tables are checked elsewhere


def test_every_message_in_the_spec_has_exactly_the_fields_and_types_the_code_checks():
    assert set(SPEC.messages) == set(m.MESSAGE_TYPES)
    for name, fields in SPEC.messages.items():
        cls = m.MESSAGE_TYPES[name]
        assert list(fields) == list(cls._fields), name
        for field, notation in fields.items():
            assert _doc_type_matches(notation, cls._fields[field].spec), (name, field, notation)
    assert SPEC.table_summary == list(m.TableSummary._fields)
    assert SPEC.online_player == list(m.OnlinePlayer._fields)
    assert SPEC.player_summary == list(m.PlayerSummary._fields)
    assert SPEC.settings == list(m.TableSettings._fields)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_the_server_hosts_has_a_document_stating_its_rules_and_actions(name):
    """PROTOCOL.md names one document per game; its rules are the game's own (names and defaults), and
    every action kind it lists is one the game's parser knows, as a player's."""
    assert set(SPEC.games) == set(GAMES)
    game, doc = GAMES[name], protocol_spec.load_game(name)
    assert {f.name: f.default for f in game.setting_fields} == \
        {rule: json.loads(default.strip("`")) for rule, default in doc.rules.items()}
    for kind in doc.actions:
        assert kind not in TABLE_ACTION_FIELDS
        try:
            game.action_from_data({"kind": kind})
        except InvalidAction as exc:
            assert "unknown action kind" not in str(exc), kind
    with pytest.raises(InvalidAction, match="unknown action kind"):
        game.action_from_data({"kind": "no_such_kind"})
    assert set(doc.legal) <= set(doc.actions) and game.max_seats <= m.MAX_SEATS


def test_down_and_back_documents_exactly_its_action_schema():
    game = find_game("down-and-back")
    player_kinds = {kind: fields for kind, fields in down_and_back_actions._FIELDS.items()
                    if kind not in TABLE_ACTION_FIELDS}
    assert GAME_SPEC.actions == player_kinds
    assert set(GAME_SPEC.legal) == set(GAME_SPEC.actions)  # every kind is offered by a legal entry
    assert game.max_seats <= m.MAX_SEATS


def test_every_request_states_its_result_and_its_errors():
    assert sorted(SPEC.request_errors) == REQUESTS
    assert sorted(SPEC.results) == sorted(set(REQUESTS) - {"hello"})


def _codes_in_source() -> tuple[set[str], set[str]]:
    """Error codes and bye reasons the server and protocol code can send, read from their source."""
    codes, reasons = set(), set()
    codes, reasons = set(PROTOCOL_ERROR_CODES), set()
    for path in ROOT.glob("server/*.py"):
        text = path.read_text()
        codes |= set(re.findall(r'RequestError\(\s*"([a-z_]+)"', text))
        codes |= set(re.findall(r'code(?:: str)? ?= ?"([a-z_]+)"', text))  # Error(code="..."), code defaults
        codes |= set(re.findall(r'return "([a-z_]+)", f?"', text))  # GameServer.refusal
        reasons |= set(re.findall(r'close_with\(\s*"([a-z_]+)"', text))
    return codes, reasons


def test_the_server_sends_exactly_the_documented_codes_and_bye_reasons():
    codes, reasons = _codes_in_source()
    assert codes == set(SPEC.error_codes)
    # Hello and connection refusals close with their own code as the reason.
    assert reasons | set(SPEC.hello_refusals) == set(SPEC.bye_reasons)


# ----------------------------------------------------------------- every documented error code


class Env:
    """What a scenario may use: the server, scripted clients, pytest's monkeypatch and a directory."""

    def __init__(self, server, connect, monkeypatch, tmp_path: Path) -> None:
        self.server, self.connect, self.monkeypatch, self.tmp_path = server, connect, monkeypatch, tmp_path

    @property
    def lobby(self) -> Lobby:
        return self.server.lobby

    async def table(self, host: ScriptedClient, seats: int = 2, bots: int = 0, start: bool = False,
                    **settings: Any) -> str:
        created = await host.request(m.CreateTable, name="t", settings=m.TableSettings(seats=seats, rules=settings))
        for _ in range(bots):
            await host.request(m.AddBot)
        if start:
            await host.request(m.Start)
        return created["table_id"]

    async def playing(self, client: ScriptedClient) -> str:
        """``client`` plays a running game against a bot (the bot waits for it)."""
        return await self.table(client, bots=1, start=True)


Scenario = Callable[[Env], Awaitable[None]]
SCENARIOS: dict[tuple[str, str], Scenario] = {}


def provokes(request: str, code: str) -> Callable[[Scenario], Scenario]:
    def register(scenario: Scenario) -> Scenario:
        SCENARIOS[(request, code)] = scenario
        return scenario
    return register


@provokes("hello", "version_mismatch")
async def _(env: Env) -> None:
    error, bye = await refused(env.server.port, hello(version=1, name="   "))  # checked before the name
    assert (error["code"], error["id"], bye["reason"]) == ("version_mismatch", 1, "protocol_error")
    assert error["message"] == "server speaks protocol 2, client sent 1"  # PROTOCOL.md 6.1, word for word


@provokes("hello", "shutting_down")
async def _(env: Env) -> None:
    raw = await Raw.open(env.server.port)
    async with env.connect("later"):  # accepted after the raw connection, so that one is in too
        env.server.shutting_down = True
        raw.send(hello())
        error, bye = await refused_on(raw)
        env.server.shutting_down = False
    assert (error["code"], error["id"], bye["reason"]) == ("shutting_down", 1, "shutting_down")
    env.server.shutting_down = True
    error, bye = await refused(env.server.port, hello())  # refused on connecting, before the hello is read
    assert (error["code"], error["id"], bye["reason"]) == ("shutting_down", None, "shutting_down")
    env.server.shutting_down = False


@provokes("hello", "rate_limited")
async def _(env: Env) -> None:
    env.server.new_players = BucketsByKey(1 / 3600, 1)
    async with env.connect("first"):
        pass
    error, bye = await refused(env.server.port, hello(name="second"))
    assert (error["code"], error["id"], bye["reason"]) == ("rate_limited", 1, "rate_limited")


@provokes("hello", "bad_token")
async def _(env: Env) -> None:
    error, bye = await refused(env.server.port, hello(token="nobody_knows", name="   "))  # before the name
    assert (error["code"], error["id"], bye["reason"]) == ("bad_token", 1, "bad_token")


@provokes("hello", "bad_name")
async def _(env: Env) -> None:
    async with env.connect("Ann"):
        for name in (" \u200b\t ", "x" * 25, "server", "Ada (Bot)", "ANN"):  # 8.1: empty, long, reserved, in use
            error, bye = await refused(env.server.port, hello(name=name))
            assert (error["code"], error["id"], bye["reason"]) == ("bad_name", 1, "bad_name"), name


@provokes("create_table", "server_full")
async def _(env: Env) -> None:
    env.lobby.config.max_tables = 0
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.CreateTable, name="t", settings=m.TableSettings(rules={"ante": 5, "stack": 1}))) \
            == "server_full"  # before the settings


@provokes("create_table", "bad_settings")
async def _(env: Env) -> None:
    env.lobby.config.starting_balance = 1
    async with env.connect("ann") as ann:  # too poor as well: the settings are checked first
        for settings, says in (
            (m.TableSettings(rules={"ante": 5, "stack": 1}), "stack"),  # the game's own limit
            (m.TableSettings(game="chess"), "known games: " + ", ".join(sorted(GAMES))),
            (m.TableSettings(seats=1), "seats 2 to 5"),
            (m.TableSettings(seats=6), "seats 2 to 5"),
            (m.TableSettings(rules={"rake": 5}), "rake"),
            (m.TableSettings(rules={"turns": "6"}), "turns"),
        ):
            with pytest.raises(RequestFailed) as refused:
                await ann.request(m.CreateTable, name="t", settings=settings)
            assert refused.value.code == "bad_settings" and says in refused.value.message, (settings, refused.value)


@provokes("create_table", "insufficient_chips")
async def _(env: Env) -> None:
    env.lobby.config.starting_balance = 9
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.CreateTable, name="t", settings=m.TableSettings(rules={"ante": 10}))) \
            == "insufficient_chips"


@provokes("create_table", "already_at_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("sam") as sam:
        table_id = await env.table(ann)  # seated at a waiting table
        assert await failure(ann.request(m.CreateTable, name="another")) == "already_at_table"
        await sam.request(m.Watch, table_id=table_id)
        assert await failure(sam.request(m.CreateTable, name="mine")) == "already_at_table"  # watching
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        assert await failure(ann.request(m.CreateTable, name="another")) == "already_at_table"  # playing


@provokes("create_table", "bad_name")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:  # nothing visible, or over 40 once cleaned: refused, never replaced or cut
        for name in ("\x1b[2J \u200b", "t" * 41):
            assert await failure(ann.request(m.CreateTable, name=name)) == "bad_name"


async def _holding_a_seat(env: Env, request: str) -> None:
    """Ann left a running game (her seat is held), with a limit of one such seat."""
    env.monkeypatch.setattr(lobby_module, "MAX_HELD_SEATS", 1)
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        other = await env.table(bob)
        await env.playing(ann)
        await ann.request(m.Leave)
        if request == "create_table":
            assert await failure(ann.request(m.CreateTable, name="another")) == "too_many_tables"
        else:
            assert await failure(ann.request(m.Join, table_id=other)) == "too_many_tables"


provokes("create_table", "too_many_tables")(lambda env: _holding_a_seat(env, "create_table"))
provokes("join", "too_many_tables")(lambda env: _holding_a_seat(env, "join"))


@provokes("join", "no_such_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.Join, table_id="nope")) == "no_such_table"


@provokes("join", "wrong_code")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="private", private_code="sesame")
        assert await failure(bob.request(m.Join, table_id=created["table_id"])) == "wrong_code"
        assert await failure(bob.request(m.Join, table_id=created["table_id"], private_code="open")) == "wrong_code"
        # 7.1: the code is checked before anything else about you, even at your own table.
        assert await failure(ann.request(m.Join, table_id=created["table_id"])) == "wrong_code"


async def _guessing(env: Env, request: type[m.Message]) -> None:
    """Wrong codes, one after another: after the free ones, not even the right code is checked."""
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="private", private_code="sesame")
        codes = []
        free = lobby_module.CODE_TRIES_PER_PLAYER
        for guess in range(free + 2):
            codes.append(await failure(bob.request(request, table_id=created["table_id"], private_code=f"g{guess}")))
        assert codes == ["wrong_code"] * free + ["too_many_attempts"] * 2  # PROTOCOL.md 10: the 5th wrong one arms it
        assert await failure(bob.request(request, table_id=created["table_id"], private_code="sesame")) \
            == "too_many_attempts"


provokes("join", "too_many_attempts")(lambda env: _guessing(env, m.Join))
provokes("watch", "too_many_attempts")(lambda env: _guessing(env, m.Watch))


@provokes("join", "insufficient_chips")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        table_id = await env.table(ann, ante=50)
        env.lobby.config.starting_balance = 49
        async with env.connect("bob") as bob:
            assert await failure(bob.request(m.Join, table_id=table_id)) == "insufficient_chips"


@provokes("join", "already_at_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob, env.connect("sam") as sam:
        other = await env.table(bob, seats=3)
        mine = await env.table(ann, seats=3)
        assert await failure(ann.request(m.Join, table_id=mine)) == "already_at_table"  # seated here already
        assert await failure(ann.request(m.Join, table_id=other)) == "already_at_table"  # seated elsewhere
        await sam.request(m.Watch, table_id=mine)
        assert await failure(sam.request(m.Join, table_id=other)) == "already_at_table"  # watching elsewhere
        assert await sam.request(m.Join, table_id=mine)  # a spectator may take a seat where they watch
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        assert await failure(ann.request(m.Join, table_id=other)) == "already_at_table"  # playing


@provokes("join", "game_running")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        finished = await env.table(ann, seats=3, bots=1, start=True)
        await ann.request(m.EndGame)
        assert await failure(bob.request(m.Join, table_id=finished, seat=2)) == "game_running"  # a finished game
        await ann.request(m.Leave)
        crib = (await ann.request(m.CreateTable, name="c", settings=m.TableSettings(game="cribbage", seats=3)))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        assert await failure(bob.request(m.Join, table_id=crib["table_id"])) == "game_running"  # takes nobody new


@provokes("join", "table_full")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        table_id = await env.table(ann, bots=1)
        assert await failure(bob.request(m.Join, table_id=table_id)) == "table_full"


@provokes("join", "no_such_seat")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        table_id = await env.table(ann)
        assert await failure(bob.request(m.Join, table_id=table_id, seat=4)) == "no_such_seat"


@provokes("join", "seat_taken")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        table_id = await env.table(ann, seats=3)
        assert await failure(bob.request(m.Join, table_id=table_id, seat=0)) == "seat_taken"
        await ann.request(m.AddBot)
        await ann.request(m.AddBot)
        assert await failure(bob.request(m.Join, table_id=table_id, seat=2)) == "seat_taken"  # even when full


@provokes("watch", "no_such_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.Watch, table_id="nope")) == "no_such_table"


@provokes("watch", "wrong_code")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="private", private_code="sesame")
        assert await failure(bob.request(m.Watch, table_id=created["table_id"])) == "wrong_code"


@provokes("watch", "already_at_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob, env.connect("sam") as sam:
        other = await env.table(bob)
        here = await env.playing(ann)
        assert await failure(ann.request(m.Watch, table_id=other)) == "already_at_table"
        assert await failure(ann.request(m.Watch, table_id=here)) == "already_at_table"
        await sam.request(m.Watch, table_id=other)
        assert await failure(sam.request(m.Watch, table_id=other)) == "already_at_table"  # watching it already


@provokes("leave", "not_at_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.Leave)) == "not_at_table"


async def _host_and_guest(env: Env, request: type[m.Message], code: str, **fields: Any) -> None:
    """In the lobby: ``not_at_table``; a seated player who is not the host: ``not_host``."""
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        if code == "not_at_table":
            assert await failure(ann.request(request, **fields)) == "not_at_table"
            return
        table_id = await env.table(ann, seats=3, bots=1, start=request is not m.Start)
        await bob.request(m.Watch if request is not m.Start else m.Join, table_id=table_id)
        assert await failure(bob.request(request, **fields)) == "not_host"


for _request, _kind, _fields in [("start", m.Start, {}), ("add_bot", m.AddBot, {}),
                                 ("remove_bot", m.RemoveBot, {"seat": 1}), ("end_game", m.EndGame, {})]:
    for _code in ("not_at_table", "not_host"):
        provokes(_request, _code)(
            lambda env, kind=_kind, code=_code, fields=_fields: _host_and_guest(env, kind, code, **fields))


@provokes("start", "game_running")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.playing(ann)
        assert await failure(ann.request(m.Start)) == "game_running"


@provokes("start", "not_enough_players")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann)
        assert await failure(ann.request(m.Start)) == "not_enough_players"


@provokes("start", "insufficient_chips")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        table_id = await env.table(ann, ante=50)
        await bob.request(m.Join, table_id=table_id)
        # A balance cannot fall between join and start over the protocol; the check guards restored state.
        env.lobby.players[bob.link.welcome.player_id].balance = 49
        assert await failure(ann.request(m.Start)) == "insufficient_chips"


@provokes("add_bot", "game_running")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann, seats=3, bots=1, start=True)
        assert await failure(ann.request(m.AddBot)) == "game_running"


@provokes("add_bot", "table_full")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann, bots=1)
        assert await failure(ann.request(m.AddBot)) == "table_full"


@provokes("add_bot", "bad_level")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann, seats=3)
        assert await failure(ann.request(m.AddBot, level="expert")) == "bad_level"


@provokes("remove_bot", "game_running")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.playing(ann)
        assert await failure(ann.request(m.RemoveBot, seat=1)) == "game_running"


@provokes("remove_bot", "no_such_seat")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann, seats=3, bots=1)
        assert await failure(ann.request(m.RemoveBot, seat=0)) == "no_such_seat"  # a human there
        assert await failure(ann.request(m.RemoveBot, seat=2)) == "no_such_seat"  # nobody there


@provokes("end_game", "no_game")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann, bots=1)
        assert await failure(ann.request(m.EndGame)) == "no_game"
        await ann.request(m.Start)
        await ann.request(m.EndGame)
        assert await failure(ann.request(m.EndGame)) == "no_game"


@provokes("act", "not_seated")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("sam") as sam:
        assert await failure(ann.act({"kind": "take_stock"})) == "not_seated"  # in the lobby
        table_id = await env.playing(ann)
        await sam.request(m.Watch, table_id=table_id)
        assert await failure(sam.act({"kind": "cut", "position": 20})) == "not_seated"  # watching


@provokes("act", "no_game")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann, bots=1)
        assert await failure(ann.act({"kind": "cut", "position": 20})) == "no_game"  # before the start
        await ann.request(m.Start)
        await ann.request(m.EndGame)
        assert await failure(ann.act({"kind": "take_stock"})) == "no_game"  # after the end


@provokes("act", "not_your_turn")
async def _(env: Env) -> None:
    env.lobby.config.table.bot_delay = 30.0  # the bot holds every decision it gets
    async with env.connect("ann") as ann:
        await env.playing(ann)
        while True:  # play until the game waits on the bot
            view = await ann.wait_for(lambda: ann.view.get("to_act") and ann.view)
            if view["seat"] not in view["to_act"]:
                break
            await ann.act(baseline_action(view).to_data())
            await ann.wait_for(lambda: ann.view is not view)
        assert await failure(ann.act({"kind": "take_stock"})) == "not_your_turn"


@provokes("act", "bad_action")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.playing(ann)
        if (await ann.wait_for(lambda: ann.view.get("legal") and ann.view))["phase"] == "cut":
            await ann.act({"kind": "cut", "position": None})  # the first dealer's draw had her cut
        view = await ann.wait_for(lambda: ann.view.get("legal") and ann.view["hand"] and ann.view)  # the bot waits
        for action in ({"kind": "fold"}, {"kind": "discard", "card": "1S"}, {"kind": "take_stock", "card": "AS"},
                       {"kind": "discard", "card": view["hand"][0].lower()},  # upper case only (game doc §1)
                       {"kind": "discard", "card": " " + view["hand"][0]},
                       {"kind": "split", "down": ["AS"], "back": []}, {"kind": "cut", "position": "5"},
                       {"kind": "start_round"}, {"kind": "set_away", "seat": 1, "away": True}):
            assert await failure(ann.act(action)) == "bad_action", action
        assert await ann.request(m.Ping) == {}  # not fatal


@provokes("act", "illegal_action")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.playing(ann)
        view = await ann.wait_for(lambda: ann.view.get("legal") and ann.view)  # the bot waits for us
        if view["phase"] == "cut":  # 52 cards: 4..48 may be lifted
            assert await failure(ann.act({"kind": "cut", "position": 52})) == "illegal_action"
        else:
            assert await failure(ann.act({"kind": "discard", "card": view["hand"][0]})) == "illegal_action"


@provokes("sit_out", "not_seated")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("sam") as sam:
        assert await failure(ann.request(m.SitOut, away=True)) == "not_seated"
        table_id = await env.playing(ann)
        await sam.request(m.Watch, table_id=table_id)
        assert await failure(sam.request(m.SitOut, away=True)) == "not_seated"


@provokes("sit_out", "no_game")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann, bots=1)
        assert await failure(ann.request(m.SitOut, away=True)) == "no_game"
        await ann.request(m.Start)
        await ann.request(m.EndGame)
        assert await failure(ann.request(m.SitOut, away=False)) == "no_game"


@provokes("client_seed", "not_seated")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("sam") as sam:
        assert await failure(ann.request(m.ClientSeed, seed="ab")) == "not_seated"
        table_id = await env.playing(ann)
        await sam.request(m.Watch, table_id=table_id)
        assert await failure(sam.request(m.ClientSeed, seed="ab")) == "not_seated"


@provokes("client_seed", "no_game")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann, bots=1)
        assert await failure(ann.request(m.ClientSeed, seed="ab")) == "no_game"
        await ann.request(m.Start)
        await ann.request(m.EndGame)
        assert await failure(ann.request(m.ClientSeed, seed="ab")) == "no_game"


@provokes("client_seed", "bad_action")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.playing(ann)
        for seed in ("abc", "ab" * 65):  # an odd number of digits; 65 bytes
            assert await failure(ann.request(m.ClientSeed, seed=seed)) == "bad_action"
        assert await failure(ann.act({"kind": "client_seed", "seed": "ab"})) == "bad_action"  # its own request
        assert await ann.request(m.Ping) == {}  # not fatal


@provokes("client_seed", "illegal_action")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.playing(ann)
        await ann.wait_for(lambda: ann.view.get("fair"))
        # No commitment of ann's is in the seed set, whether it is sealed yet or not (FAIRNESS.md §3.3)
        assert await failure(ann.request(m.ClientSeed, seed="ab" * 32)) == "illegal_action"


def commit_of(view: dict[str, Any], seat: int, seed: str) -> str:
    return seed_commitment(bytes.fromhex(view["fair"]["commitment"]), seat, bytes.fromhex(seed)).hex()


@provokes("seed_commit", "not_seated")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("sam") as sam:
        assert await failure(ann.request(m.SeedCommit, commit="ab" * 32)) == "not_seated"
        table_id = await env.playing(ann)
        await sam.request(m.Watch, table_id=table_id)
        assert await failure(sam.request(m.SeedCommit, commit="ab" * 32)) == "not_seated"


@provokes("seed_commit", "no_game")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann, bots=1)
        assert await failure(ann.request(m.SeedCommit, commit="ab" * 32)) == "no_game"
        await ann.request(m.Start)
        await ann.request(m.EndGame)
        assert await failure(ann.request(m.SeedCommit, commit="ab" * 32)) == "no_game"


@provokes("seed_commit", "bad_action")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.playing(ann)
        for commit in ("ab", "ab" * 33):  # a commitment is 32 bytes
            assert await failure(ann.request(m.SeedCommit, commit=commit)) == "bad_action"
        assert await failure(ann.act({"kind": "seed_commit", "commit": "ab" * 32})) == "bad_action"  # its own request
        assert await ann.request(m.Ping) == {}  # not fatal


@provokes("seed_commit", "illegal_action")
async def _(env: Env) -> None:
    env.monkeypatch.setattr(env.lobby.config.table, "seed_window", 5.0)
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        table_id = await env.table(ann)
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.Start)  # two humans: the seeds wait for both (or 5 s)
        view = await ann.wait_for(lambda: ann.view.get("fair") and ann.view)
        assert await ann.request(m.SeedCommit, commit=commit_of(view, 0, "a1")) == {}
        assert await failure(ann.request(m.SeedCommit, commit=commit_of(view, 0, "a2"))) == "illegal_action"  # twice
        assert await bob.request(m.SeedCommit, commit=commit_of(view, 1, "b1")) == {}  # the last awaited: sealed
        await ann.wait_for(lambda: ann.view["fair"]["phase"] != "commit")
        assert await failure(ann.request(m.SeedCommit, commit=commit_of(view, 0, "a3"))) == "illegal_action"  # late


@provokes("chat", "rate_limited")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann)
        replies = await asyncio.gather(*(ann.request(m.Chat, text="hi") for _ in range(6)), return_exceptions=True)
        assert [getattr(r, "code", "ok") for r in replies] == ["ok"] * 5 + ["rate_limited"]  # a burst of 5


@provokes("chat", "not_at_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.Chat, text="anyone?")) == "not_at_table"


@provokes("chat", "too_long")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann)
        assert await failure(ann.request(m.Chat, text="a" * 201)) == "too_long"
        assert await ann.request(m.Chat, text=" " + "a" * 200 + "\x07 ") == {}  # cleaned first


@provokes("any", "rate_limited")
async def _(env: Env) -> None:
    env.server.net.burst, env.server.net.rate = 3, 0.01  # for connections made from now on
    async with env.connect("ann") as ann:  # the hello takes one
        replies = await asyncio.gather(*(ann.request(m.Ping) for _ in range(3)), return_exceptions=True)
        assert [getattr(r, "code", "ok") for r in replies] == ["ok", "ok", "rate_limited"]


async def _busy(env: Env) -> None:
    """A durable server whose database another program holds locked (say, a backup tool)."""
    server = GameServer(Lobby(LobbyConfig(store=Store.open_dir(env.tmp_path)), "test"), NetConfig())
    await server.start("127.0.0.1", 0)
    try:
        async with ScriptedClient(server.port, "ann") as ann:
            other = sqlite3.connect(env.tmp_path / DB_NAME, isolation_level=None)
            other.execute("BEGIN IMMEDIATE")
            try:
                assert await failure(ann.request(m.CreateTable, name="t")) == "busy"
                assert await failure(ann.request(m.Chat, text="hi")) == "busy"  # a chat line is stored
                assert await ann.request(m.Ping) == {}  # what changes nothing is served
                error, bye = await refused(server.port, hello(name="new"))
                assert (error["code"], error["id"], bye["reason"]) == ("busy", 1, "busy")
            finally:
                other.execute("ROLLBACK")
                other.close()
            assert await ann.request(m.CreateTable, name="t")
            other = sqlite3.connect(env.tmp_path / DB_NAME, isolation_level=None)
            other.execute("BEGIN IMMEDIATE")
            try:  # a chat line is stored before anyone hears it
                assert await failure(ann.request(m.Chat, text="hello?")) == "busy"
            finally:
                other.execute("ROLLBACK")
                other.close()
            assert await ann.request(m.Chat, text="hello?") == {}
    finally:
        await server.close(grace=1.0)


provokes("any", "busy")(_busy)
provokes("hello", "busy")(_busy)
provokes("chat", "busy")(_busy)


@provokes("any", "internal")
async def _(env: Env) -> None:
    def broken(lobby, player, msg):
        raise RuntimeError("a bug")

    env.monkeypatch.setitem(Lobby._handlers, m.Ping, broken)
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.Ping)) == "internal"
        assert await ann.request(m.ListTables)  # the server carries on


async def _game_over(env: Env, host: ScriptedClient, *others: ScriptedClient, bots: int = 1) -> str:
    """``host`` and ``others`` at a table with ``bots`` bots whose game has been ended; its id."""
    table_id = await env.table(host, seats=1 + len(others) + bots)
    for other in others:
        await other.request(m.Join, table_id=table_id)
    for _ in range(bots):
        await host.request(m.AddBot)
    await host.request(m.Start)
    await host.request(m.EndGame)
    return table_id


@provokes("offer_rematch", "not_at_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.OfferRematch)) == "not_at_table"


@provokes("offer_rematch", "not_host")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        await _game_over(env, ann, bob)
        assert await failure(bob.request(m.OfferRematch)) == "not_host"


@provokes("offer_rematch", "no_game")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann)
        assert await failure(ann.request(m.OfferRematch)) == "no_game"


@provokes("offer_rematch", "game_running")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.playing(ann)
        assert await failure(ann.request(m.OfferRematch)) == "game_running"


@provokes("offer_rematch", "not_enough_players")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        table_id = await env.table(ann, seats=2)
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.Start)
        await bob.request(m.Leave)  # his seat is held, and played for him, until the game ends
        await ann.request(m.EndGame)
        assert await failure(ann.request(m.OfferRematch)) == "not_enough_players"


@provokes("offer_rematch", "insufficient_chips")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        await _game_over(env, ann, bob)
        env.lobby.players[bob.link.welcome.player_id].balance = 0  # as if he had lost it all
        assert await failure(ann.request(m.OfferRematch)) == "insufficient_chips"


@provokes("answer_rematch", "not_at_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.AnswerRematch, accept=True)) == "not_at_table"


@provokes("answer_rematch", "not_seated")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("sam") as sam:
        table_id = await _game_over(env, ann)
        await sam.request(m.Watch, table_id=table_id)
        assert await failure(sam.request(m.AnswerRematch, accept=True)) == "not_seated"


@provokes("answer_rematch", "no_rematch")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        await _game_over(env, ann, bob)
        assert await failure(bob.request(m.AnswerRematch, accept=True)) == "no_rematch"


@provokes("leaderboard", "no_such_game")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.Leaderboard, game="chess")) == "no_such_game"


@provokes("hello", "banned")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        token = ann.link.token
        env.lobby.ban(Ban("player", ann.link.welcome.player_id, "ann", "flooding the chat", time.time()))
        await ann.wait_for(lambda: ann.closed_with)  # at once, while connected
        assert ann.closed_with == ("banned", "you are banned from this server: flooding the chat")
    error, bye = await refused(env.server.port, hello(token=token, name="   "))  # a valid token: before the name
    assert (error["code"], error["id"], bye["reason"]) == ("banned", 1, "banned")
    assert error["message"] == "you are banned from this server: flooding the chat"
    env.lobby.ban(Ban("address", "127.0.0.0/8", "", "", time.time()))
    error, bye = await refused(env.server.port, hello())  # refused on connecting, before the hello is read
    assert (error["code"], error["id"], bye["reason"]) == ("banned", None, "banned")
    env.lobby.unban("address", "127.0.0.0/8")


async def _removed(env: Env, host: ScriptedClient, other: ScriptedClient, watch: bool = False) -> str:
    """The host removes ``other`` (seated, or watching) from a waiting table; its id."""
    table_id = await env.table(host, seats=3)
    await other.request(m.Watch if watch else m.Join, table_id=table_id)
    assert (await host.request(m.RemovePlayer, name=other.name)) == {"name": other.name, "at_round_end": False}
    await other.wait_for(lambda: any(e.get("you") for e in other.events if e["kind"] == "removed"))
    return table_id


@provokes("join", "removed")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        table_id = await _removed(env, ann, bob)
        assert await failure(bob.request(m.Join, table_id=table_id, seat=5)) == "removed"  # before the seat


@provokes("watch", "removed")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("sam") as sam:
        table_id = await _removed(env, ann, sam, watch=True)
        assert await failure(sam.request(m.Watch, table_id=table_id)) == "removed"


@provokes("chat", "removed")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        table_id = await env.table(ann, seats=2)
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.Start)  # the round under way is bob's to finish: he goes when it ends
        assert (await ann.request(m.RemovePlayer, name="bob"))["at_round_end"] is True
        assert await failure(bob.request(m.Chat, text="a" * 300)) == "removed"  # before the length


@provokes("mute", "no_such_player")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.Mute, name="nobody")) == "no_such_player"
        assert await failure(ann.request(m.Mute, name="Server")) == "no_such_player"  # the server's notices
        assert await failure(ann.request(m.Mute, name="nobody", muted=False)) == "no_such_player"


@provokes("mute", "bad_target")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.Mute, name="ANN")) == "bad_target"


@provokes("mute", "too_many_mutes")
async def _(env: Env) -> None:
    env.monkeypatch.setattr(moderation_module, "MAX_MUTES", 1)
    async with env.connect("ann") as ann, env.connect("bob") as bob, env.connect("cy") as cy:
        await ann.request(m.Mute, name="bob")
        assert await failure(ann.request(m.Mute, name="cy")) == "too_many_mutes"
        assert (await ann.request(m.Mute, name="bob")) == {"name": "bob", "muted": True}  # already: accepted


@provokes("remove_player", "not_at_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        assert await failure(ann.request(m.RemovePlayer, name="bob")) == "not_at_table"


@provokes("remove_player", "not_host")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        table_id = await env.table(ann)
        await bob.request(m.Join, table_id=table_id)
        assert await failure(bob.request(m.RemovePlayer, name="nobody")) == "not_host"  # before the name


@provokes("remove_player", "no_such_player")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob"):
        await env.table(ann, bots=1)
        for name in ("bob", "Ada (bot)"):  # online but elsewhere; a bot
            assert await failure(ann.request(m.RemovePlayer, name=name)) == "no_such_player"


@provokes("remove_player", "bad_target")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        await env.table(ann)
        assert await failure(ann.request(m.RemovePlayer, name="ann")) == "bad_target"


@provokes("invite", "not_at_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        await bob.request(m.ListOnline)
        assert await failure(ann.request(m.Invite, name="bob")) == "not_at_table"


@provokes("invite", "not_host")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob, env.connect("cy") as cy:
        table_id = await env.table(ann, seats=3)
        await bob.request(m.Join, table_id=table_id)
        await cy.request(m.ListOnline)
        assert await failure(bob.request(m.Invite, name="cy")) == "not_host"


@provokes("invite", "game_running")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        await env.table(ann, bots=1, start=True)
        await ann.request(m.EndGame)
        await bob.request(m.ListOnline)
        assert await failure(ann.request(m.Invite, name="bob")) == "game_running"


@provokes("invite", "no_such_player")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        await env.table(ann)
        assert await failure(ann.request(m.Invite, name="nobody")) == "no_such_player"
        assert await failure(ann.request(m.Invite, name="ann")) == "no_such_player"  # herself
        assert await failure(ann.request(m.Invite, name="bob")) == "no_such_player"  # his client never asked


@provokes("invite", "already_at_table")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        await env.table(ann)
        await env.table(bob)
        await bob.request(m.ListOnline)
        assert await failure(ann.request(m.Invite, name="bob")) == "already_at_table"


@provokes("invite", "table_full")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("bob") as bob:
        await env.table(ann, seats=2, bots=1)
        await bob.request(m.ListOnline)
        assert await failure(ann.request(m.Invite, name="bob")) == "table_full"


async def _one_round(env: Env, client: ScriptedClient) -> str:
    """``client`` plays one round against a bot, and the game goes on; the table's id."""
    table_id = await env.playing(client)
    while not (await client.request(m.PastRounds))["rounds"]:
        view = await client.wait_for(lambda: client.view.get("legal") and client.view)
        with contextlib.suppress(RequestFailed):
            await client.act(baseline_action(view).to_data())
        await client.wait_for(lambda: client.view is not view)
    return table_id


@provokes("replay", "no_such_round")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann, env.connect("eve") as eve:
        table_id = await _one_round(env, ann)
        assert await failure(eve.request(m.Replay, table_id=table_id, round=1)) == "no_such_round"  # not hers
        assert await failure(ann.request(m.Replay, table_id=table_id, round=2)) == "no_such_round"  # under way


@provokes("replay", "no_replay")
async def _(env: Env) -> None:
    async with env.connect("ann") as ann:
        table_id = await _one_round(env, ann)
        env.lobby.archive._records[(table_id, 1)][1]["opening"] = None  # as stored before replays were kept
        assert await failure(ann.request(m.Replay, table_id=table_id, round=1)) == "no_replay"


DOCUMENTED = sorted({(r, c) for r, codes in SPEC.request_errors.items() for c in codes} |
                    {("any", "rate_limited"), ("any", "internal"), ("any", "busy")})


@pytest.mark.parametrize("request_type, code", DOCUMENTED)
async def test_every_documented_error_code_is_what_the_server_answers(server, connect, monkeypatch, tmp_path,
                                                                    request_type, code):
    scenario = SCENARIOS.get((request_type, code))
    assert scenario is not None, f"PROTOCOL.md lists {code} for {request_type}: add a scenario that provokes it"
    await scenario(Env(server, connect, monkeypatch, tmp_path))


def test_no_scenario_tests_an_undocumented_code():
    assert set(SCENARIOS) <= set(DOCUMENTED)


# ----------------------------------------------------------------- protocol errors and bye reasons


def _frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


PROTOCOL_ERRORS = [  # (what is sent, code, the error's id)
    (b"\x00\x00\x00\x00", "bad_frame", None),
    (_frame(msgpack.packb({"type": "ping", "id": 5}) + b"\x00"), "bad_frame", None),  # an id was readable: still nil
    (struct.pack(">I", 65537), "frame_too_large", None),
    (encode_frame({"type": "ping", "id": 3}), "hello_required", 3),
    (encode_frame(hello()) + encode_frame(hello(id=2)), "already_greeted", 2),
    (encode_frame(hello()) + encode_frame({"type": "launch", "id": 4}), "unknown_type", 4),
    (encode_frame(hello()) + encode_frame({"type": "welcome", "id": 4}), "unknown_type", 4),
    (encode_frame(hello()) + encode_frame({"type": "ping", "id": 6, "extra": 1}), "bad_message", 6),
    (encode_frame(hello()) + encode_frame({"type": "ping"}), "bad_message", None),
    (encode_frame(hello()) + encode_frame({"type": "chat", "id": 7, "text": "a" * 1001}), "too_long", 7),
    # a named format over its length is too long, as its str a..b says (§3.1), before its characters are read
    (encode_frame(hello()) + encode_frame({"type": "join", "id": 8, "table_id": "t" * 33}), "too_long", 8),
    (encode_frame(hello()) + encode_frame({"type": "add_bot", "id": 9, "level": "s" * 17}), "too_long", 9),
    (encode_frame(hello()) + encode_frame({"type": "join", "id": 10, "table_id": "t!"}), "bad_message", 10),
    (encode_frame(hello(version=1)), "version_mismatch", 1),
]


@pytest.mark.parametrize("sent, code, request_id", PROTOCOL_ERRORS)
async def test_protocol_errors_are_fatal_with_the_documented_id(server, sent, code, request_id):
    error, bye = await refused(server.port, sent)
    assert (error["code"], error["id"], bye["reason"]) == (code, request_id, "protocol_error")


def test_every_protocol_error_is_provoked():
    assert {code for _, code, _ in PROTOCOL_ERRORS} == set(SPEC.protocol_errors)


async def test_connection_refusals_come_before_any_hello_with_id_nil(server, connect):
    async with connect("ann"):
        server.net.max_per_address = 1
        error, bye = await refused(server.port)
        assert (error["code"], error["id"], bye["reason"]) == ("too_many_connections", None, "too_many_connections")
        server.net.max_connections = 1
        error, bye = await refused(server.port)
        assert (error["code"], error["id"], bye["reason"]) == ("server_full", None, "server_full")


async def test_replaced_and_rate_limited_byes(server, connect):
    async with connect("ann") as ann:
        async with connect(" ", token=ann.link.token) as again:  # with a token the name is not even checked
            await ann.wait_for(lambda: ann.closed_with)
            assert ann.closed_with[0] == "replaced" and again.link.welcome.resumed
            assert again.link.welcome.token == ann.link.token  # 9: never renewed by this server
    server.net.burst, server.net.rate, server.net.max_rate_errors = 1, 0.01, 2
    raw = await Raw.open(server.port)
    raw.send(hello(), *({"type": "ping", "id": i} for i in range(2, 6)))
    replies = await raw.until_closed()
    assert [r.get("code") for r in replies if r["type"] == "error"] == ["rate_limited"] * 2
    assert replies[-1]["type"] == "bye" and replies[-1]["reason"] == "rate_limited"


async def test_timeouts_say_why_in_the_bye(table_config):
    # The watchdog then looks every 0.05 s; idleness is longer, so the dribbler's frame times out first.
    net = NetConfig(hello_timeout=0.2, idle_timeout=0.4, frame_timeout=0.2)
    server = GameServer(Lobby(LobbyConfig(table=table_config), "test"), net)
    await server.start("127.0.0.1", 0)
    try:
        silent, dribbler, idle = [await Raw.open(server.port) for _ in range(3)]
        dribbler.send(encode_frame(hello(name="d")), b"\x00\x00\x00\x10\x81")  # a frame begun, never finished
        idle.send(hello(name="i"))
        reasons = [(await conn.until_closed())[-1]["reason"] for conn in (silent, dribbler, idle)]
        assert reasons == ["hello_timeout", "frame_timeout", "idle"]
    finally:
        await server.close(grace=1.0)


async def test_shutting_down_says_bye_to_everyone(server, connect):
    async with connect("ann") as ann:
        await server.close(grace=1.0)
        await ann.wait_for(lambda: ann.closed_with)
        assert ann.closed_with[0] == "shutting_down"


# ----------------------------------------------------------------- results


async def test_every_request_succeeds_with_exactly_the_documented_result_keys(connect, server, monkeypatch):
    monkeypatch.setattr(server.lobby.config.table, "seed_window", 5.0)  # the humans seed: the deal waits for them
    results: dict[str, dict[str, Any]] = {}

    async def call(client: ScriptedClient, request: type[m.Message], **fields: Any) -> dict[str, Any]:
        results[request.type] = await client.request(request, **fields)
        return results[request.type]

    async with connect("ann") as ann, connect("bob") as bob, connect("sam") as sam:
        listed = await call(ann, m.ListTables)
        assert isinstance(listed["balance"], int) and [g["name"] for g in listed["games"]] == list(GAMES)
        for entry in listed["games"]:
            assert list(entry) == SPEC.game_entry
            assert all(list(rule) == SPEC.rule_field for rule in entry["rules"])
        assert [list(gateway) for gateway in listed["gateways"]] == [SPEC.gateway]  # the test server: its game port
        assert listed["features"] == ["mute", "notices", "remove_player", "list_online", "invite"]
        assert listed["gateways"][0]["kind"] == "game" and listed["gateways"][0]["local"] is True
        table_id = (await call(ann, m.CreateTable, name="t", settings=m.TableSettings(seats=3)))["table_id"]
        await call(ann, m.AddBot)
        await call(ann, m.RemoveBot, seat=1)
        await call(bob, m.Join, table_id=table_id)
        await call(sam, m.Watch, table_id=table_id)
        await call(sam, m.ListOnline)
        await call(ann, m.Invite, name="sam")  # a spectator may be invited to take the free seat
        await ann.request(m.AddBot)
        await call(ann, m.Start)
        for seat, client in ((0, ann), (1, bob)):  # the humans' seeds: the deal waits for both (or the window)
            view = await client.wait_for(lambda: client.view.get("fair") and client.view)
            await call(client, m.SeedCommit, commit=commit_of(view, seat, f"{seat:02x}" * 32))
        for seat, client in ((0, ann), (1, bob)):
            await client.wait_for(lambda: client.view["fair"]["phase"] != "commit")
            await call(client, m.ClientSeed, seed=f"{seat:02x}" * 32)
        await ann.wait_for(lambda: ann.view["fair"]["fixed"])
        assert ann.view["fair"]["client_seeds"] == {"0": "00" * 32, "1": "01" * 32}
        player = await ann.wait_for(lambda: next((c for c in (ann, bob) if c.view.get("legal")), None))
        results["act"] = await player.act(baseline_action(player.view).to_data())
        await call(ann, m.SitOut, away=True)
        await call(ann, m.Chat, text="hello")
        await call(ann, m.History, limit=5)
        await call(ann, m.EndGame)
        await call(ann, m.PastRounds)
        await call(ann, m.PastGames)
        await call(ann, m.Replay, table_id=table_id, round=1)
        await call(ann, m.Leaderboard)
        await call(ann, m.SetHidden, hidden=True)
        online = await sam.request(m.ListOnline)
        assert [list(p) for p in online["players"]] == [SPEC.online_player] * online["total"]
        await call(ann, m.Mute, name="sam")
        await call(ann, m.Mutes)
        await call(ann, m.Notices)
        await call(ann, m.RemovePlayer, name="sam")
    async with connect("ann2") as ann, connect("bob2") as bob:
        table_id = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.Start)
        await ann.request(m.EndGame)
        await call(ann, m.OfferRematch)
        await call(bob, m.AnswerRematch, accept=True)
        await call(bob, m.Leave)
        await call(ann, m.Ping)
        await call(bob, m.Stats)
    assert {kind: set(result) for kind, result in results.items()} == \
        {kind: set(keys) for kind, keys in SPEC.results.items()}
    assert isinstance(results["act"]["seq"], int) and results["act"]["seq"] >= 1  # 0: the first round's start
    # §5.5: the floats the server sends in results are finished_at (history, past_rounds, past_games) and stats'
    floats = {path for kind, result in results.items() for path in float_paths(result, kind)}
    assert floats and floats <= {"history.rounds[].finished_at", "past_rounds.rounds[].finished_at",
                                 "past_games.games[].finished_at"} | {f"stats.{k}" for k in results["stats"]}, floats
    assert "past_rounds.rounds[].finished_at" in floats and any(p.startswith("stats.") for p in floats)


def float_paths(value: Any, path: str) -> list[str]:
    """Where ``value`` holds a float (list items all written ``[]``)."""
    if isinstance(value, float):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in float_paths(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for v in value for p in float_paths(v, f"{path}[]")]
    return []


async def test_pipelined_requests_get_their_replies_in_order_each_before_its_own_pushes(server):
    """§4: replies come in the order of the requests, each before the pushes its own request caused; the
    pushes of one request may come before the replies of the requests sent after it."""
    raw = await Raw.open(server.port)
    raw.send(hello(name="pip"), {"type": "create_table", "id": 2, "name": "p", "settings": {"seats": 2}},
             {"type": "add_bot", "id": 3}, {"type": "chat", "id": 4, "text": "hi"}, {"type": "ping", "id": 5},
             {"type": "chat", "id": 6, "text": "again"})
    messages: list[dict[str, Any]] = []
    while not any(msg.get("id") == 6 for msg in messages) or sum(msg["type"] == "chat_message" for msg in messages) < 2:
        data = await asyncio.wait_for(raw.reader.read(65536), 10)
        assert data
        raw.decoder.feed(data)
        messages += list(raw.decoder)
    raw.writer.close()
    replies = [msg["id"] for msg in messages if msg["type"] in ("welcome", "ok", "error")]
    assert replies == [1, 2, 3, 4, 5, 6], messages
    at = {msg["id"]: i for i, msg in enumerate(messages) if msg["type"] in ("welcome", "ok", "error")}
    views = [i for i, msg in enumerate(messages) if msg["type"] == "view"]
    chats = [i for i, msg in enumerate(messages) if msg["type"] == "chat_message"]
    assert views[0] > at[2] and chats[0] > at[4] and chats[1] > at[6]  # each push after its own request's reply


async def test_a_flood_gets_100_rate_limited_replies_then_the_bye_instead_of_the_101st(server):
    """§10 word for word: the first 100 requests over the limit are answered rate_limited; the 101st gets
    the bye, and nothing after it is answered."""
    assert NetConfig().max_rate_errors == 100
    server.net.burst, server.net.rate, server.net.max_rate_errors = 1, 0.01, 100
    raw = await Raw.open(server.port)
    raw.send(hello(), *({"type": "ping", "id": i} for i in range(2, 2 + 110)))  # the hello takes the one token
    replies = await raw.until_closed()
    errors = [r for r in replies if r["type"] == "error"]
    assert [r["code"] for r in errors] == ["rate_limited"] * 100 and [r["id"] for r in errors] == list(range(2, 102))
    after = replies[replies.index(errors[-1]) + 1:]
    assert [(r["type"], r.get("reason")) for r in after] == [("bye", "rate_limited")], after


async def test_history_of_100_rounds_fits_4_at_once_in_a_full_bucket_and_3_after_the_hello(server, connect):
    """§10: history limit 100 counts 10 messages, the bucket holds 40: 4 at once, 3 right after the hello."""
    defaults = NetConfig()
    assert (defaults.burst, defaults.rate) == (40, 20)
    server.net.burst, server.net.rate = defaults.burst, defaults.rate  # for connections made from now on
    async with connect("ann") as ann:
        replies = await asyncio.gather(*(ann.request(m.History, limit=100) for _ in range(4)), return_exceptions=True)
        assert [getattr(r, "code", "ok") for r in replies] == ["ok"] * 3 + ["rate_limited"]


async def test_history_round_records_have_exactly_the_documented_fields(connect):
    async with connect("ann") as ann:
        await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await autoplay(ann, until_round=1, host=True)
        rounds = (await ann.request(m.History, limit=10))["rounds"]
    assert [r["abandoned"] for r in rounds] == [False, True]  # round 1, and round 2 ended by end_game
    for record in rounds:
        assert set(record) == set(SPEC.round_record) | set(GAME_SPEC.round_record)
        assert record["game_name"] == "down-and-back"
        assert isinstance(record["finished_at"], float) and record["finished_at"] > 1e9
        for entry in record["players"]:
            assert set(entry) == set(GAME_SPEC.round_player)
        assert (record["tie_breaks"] is None) == record["abandoned"]


# ----------------------------------------------------------------- views and events


def entry_keys(notation: str) -> frozenset[str]:
    """The keys of the entries of a ``[{seat, card}]``-style type."""
    match = re.search(r"\{([^}]*)\}", notation)
    assert match, notation
    return frozenset(k.strip() for k in match.group(1).split(","))


EVENTS = {**SPEC.events, **GAME_SPEC.events}  # the server's own kinds and the game's


def check_event(event: dict[str, Any], seat: int | None) -> None:
    """One event as ``seat`` (None: a spectator) received it, against PROTOCOL.md 5.6 and the game's event table."""
    always, optional, own = EVENTS[event["kind"]]
    mine = seat is not None and event.get("seat") == seat
    assert set(event) - optional == always | (own if mine else set()), (seat, event)


def check_view(push: m.View) -> None:
    """One view push against PROTOCOL.md 5.2/5.3 (the table's facts) and the game's document (its view)."""
    table, game, seat = push.table, push.game, push.table["seat"]
    assert set(table) == set(SPEC.table), sorted(table)
    assert list(table["settings"]) == SPEC.settings and list(table["settings"]["rules"]) == list(GAME_SPEC.rules)
    for member in table["members"]:
        assert list(member) == SPEC.member, member
        # a bot has its level (one of the game's bot_levels: §5.3, add_bot), a player none; a rematch's bots too
        assert (member["level"] in find_game(table["settings"]["game"]).bot_levels) == member["bot"], member
        assert member["bot"] or member["level"] is None, member
    assert [mb["seat"] for mb in table["members"]] == sorted(mb["seat"] for mb in table["members"])
    assert (table["chip_history"] is not None) == (table["state"] == "finished")
    members = {mb["seat"]: mb for mb in table["members"]}
    if game is None:
        assert table["state"] == "waiting" and push.decision is None and push.deadline_ms is None
        return
    assert set(game) == GAME_SPEC.view_keys(seat is not None), (seat, sorted(game))
    assert game["seat"] == seat and list(game["settings"]) == list(GAME_SPEC.rules)
    for player in game["players"]:
        assert list(player) == GAME_SPEC.players, player
    for entry in game["legal"]:
        assert set(entry) == GAME_SPEC.legal[entry["kind"]], entry
    phase = game["phase"]
    if phase in ("waiting", "over"):
        assert game["to_act"] == [] and push.deadline_ms is None and push.decision is None, push
    elif game["fair"]["phase"] in ("commit", "reveal"):  # the deal is being sealed: nobody is to act (§5.2)
        assert game["to_act"] == game["legal"] == [] and push.deadline_ms is None and push.decision is None, push
        assert phase == "cut" and game.get("hand", []) == []  # (a spectator has no hand at all)
    else:  # the decision id of the game's document: [round, phase, turn, step]
        round_no, decision_phase, _, step = push.decision
        assert (round_no, decision_phase, step) == (game["round"], phase, game["step"]), push.decision
        on_clock = [s for s in game["to_act"] if not members[s]["bot"] and not members[s]["away"]]
        assert (push.deadline_ms is None) == (not on_clock), (game["to_act"], push.deadline_ms)
    for event in game["log"]:
        check_event(event, seat)
    for entry in game["round_discards"]:
        assert set(entry) == entry_keys(GAME_SPEC.view["round_discards"].type)
    if game["showdown"] is not None:
        assert list(game["showdown"]) == GAME_SPEC.showdown
        assert all(list(r) == GAME_SPEC.reveal_entry for r in game["showdown"]["reveal"])
    assert (game["standings"] is not None) == (phase == "over")
    for entry in game["standings"] or ():
        assert set(entry) == entry_keys(GAME_SPEC.view["standings"].type)
    by_seat = {p["seat"]: p for p in game["players"]}
    if seat is None:
        assert game["split"] is None
    elif not by_seat[seat]["in_round"] and phase not in ("waiting", "over"):
        assert game["hand"] == [], "no hand in a round you were not dealt into"
    elif game["round"] == 1 and phase == "cut":
        assert game["hand"] == [], "no hand before the first deal"
    elif phase in ("waiting", "over") and by_seat[seat]["in_round"]:
        dealt = game["discard_pile"] or game["stock_count"]  # [] only if the game ended before the deal
        assert len(game["hand"]) == (7 if dealt else 0), "the last round's hand is kept between rounds"


async def test_every_view_and_event_sent_has_exactly_the_documented_fields(server, connect):
    """A five-seat game with both variants, a spectator, sitting out, a skip, a call, a timeout and a
    reshuffle: every view and event each member received, against PROTOCOL.md's tables."""
    config = server.lobby.config.table
    config.round_pause, config.turn_timeout, config.seed_window = 0.05, 0.5, 5.0  # ann and bob seed at once
    async with SeedingClient(server.port, "ann", fixed_seeds=True) as ann, \
            SeedingClient(server.port, "bob", fixed_seeds=True) as bob, connect("sam") as sam:
        settings = m.TableSettings(seats=5, rules={"turns": 7, "early_call": True, "no_take_back": True, "stack": 100})
        table_id = (await ann.request(m.CreateTable, name="all of it", settings=settings))["table_id"]
        await ann.wait_for(lambda: ann.view_pushes)
        lobby_views = len(ann.view_pushes)
        await bob.request(m.Join, table_id=table_id)
        await sam.request(m.Watch, table_id=table_id)
        for _ in range(3):
            await ann.request(m.AddBot)
        await ann.request(m.Start)
        done: set[str] = set()

        async def act(client: ScriptedClient, action: dict[str, Any]) -> None:
            try:
                await client.act(action)
            except RequestFailed as exc:  # a stale view: a deadline or a bot moved first
                assert exc.code in ("not_your_turn", "illegal_action", "no_game"), exc

        def played_enough(view: dict[str, Any]) -> bool:  # two rounds; more while a bot always called first
            return view["round"] > (2 if "call" in done else 6)  # (whose turn comes first is the deal's)

        async def ann_decides(view: dict[str, Any]) -> None:
            kinds = {entry["kind"] for entry in view["legal"]}
            if played_enough(view):
                await ann.request(m.EndGame)
            elif "call_end" in kinds and "call" not in done:  # at once, before a bot calls it; the same
                done.add("call")  # decision goes on: she skips next
                await act(ann, {"kind": "call_end"})
            elif "skip" in kinds and "skip" not in done:
                done.add("skip")
                await act(ann, {"kind": "skip"})
            elif view["phase"] == "play" and view["round"] == 2 and "timeout" not in done:
                done.add("timeout")  # let this decision's deadline pass
                await ann.wait_for(lambda: any(e["kind"] == "timeout" and e["seat"] == view["seat"]
                                               for e in ann.events))
            else:
                await act(ann, baseline_action(view).to_data())

        async def bob_decides(view: dict[str, Any]) -> None:
            me = view["players"][view["seat"]]  # the game's player map: "away" is the game's too
            if view["round"] == 1 and view["phase"] == "play" and "away" not in done:
                done.add("away")
                await bob.request(m.SitOut, away=True)  # the rest of round 1 is played for him
            elif me["away"] and view["round"] >= 2:
                await bob.request(m.SitOut, away=False)
            elif not me["away"]:
                await act(bob, baseline_action(view).to_data())

        async def drive(client: ScriptedClient, decide, host: bool) -> None:
            def ready():
                view = client.view
                if view["phase"] == "over" or view["legal"] or (host and played_enough(view)):
                    return view
                me = view["players"][view["seat"]]
                return view if not host and me["away"] and view["round"] >= 2 else None

            while (view := await client.wait_for(ready))["phase"] != "over":
                await decide(view)
                await client.wait_for(lambda: client.view is not view)

        await asyncio.wait_for(asyncio.gather(drive(ann, ann_decides, True), drive(bob, bob_decides, False)), 60)
        await sam.wait_for(lambda: sam.view["phase"] == "over")
        await bob.request(m.Leave)
        await ann.wait_for(lambda: [mb["seat"] for mb in ann.table["members"]] == [0, 2, 3, 4])
        assert ann.view["players"][1]["name"] == "bob"  # bob has left the finished table; the game's entry stays
        # Bots call the end early when they may: the stock runs out only without early call.
        await ann.request(m.Leave)
        ann.views.clear()
        ann.facts.clear()
        ann.deadlines.clear()
        # No deadline passes at this table (under load Ann could miss half a second and be played for): its
        # deal and everyone's play are then fixed by the seeds, and with them the stock running out.
        config.turn_timeout = 30.0
        long = await ann.request(m.CreateTable, name="long",
                                 settings=m.TableSettings(seats=5, rules={"turns": 7, "stack": 100}))
        for _ in range(4):  # five dealt in: this table's first stock runs out
            await ann.request(m.AddBot)
        await ann.request(m.Start)
        await autoplay(ann, until_round=1, host=True)
        assert any(e["kind"] == "reshuffle" for e in ann.events), "the long table's stock did not run out"
        config.turn_timeout = 0.5
        await ann.request(m.Leave)
        for kept in (ann.views, ann.facts, ann.deadlines):
            kept.clear()
        later = await ann.request(m.CreateTable, name="later", settings=m.TableSettings(seats=3))
        await ann.request(m.AddBot)
        await ann.request(m.Start)  # the bot cuts (this table's seed has it cut)
        dropped = connect("cat")  # sits in at the running game, dealt in from round 2; then drops and comes back
        await dropped.link.connect()
        await dropped.request(m.Join, table_id=later["table_id"])
        await ann.wait_for(lambda: any(e["kind"] == "sit_in" for e in ann.events))
        await dropped.link.close()
        await ann.wait_for(lambda: any(e["kind"] == "offline" for e in ann.events))
        async with connect("cat", dropped.link.token) as cat:
            await ann.wait_for(lambda: any(e["kind"] == "online" for e in ann.events))
            await ann.request(m.EndGame)
            await ann.wait_for(lambda: ann.view["phase"] == "over")
            await sam.request(m.Leave)  # sam watches the rematch offered at the later table's end
            await sam.request(m.Watch, table_id=later["table_id"])
            await ann.request(m.OfferRematch)
            await cat.request(m.AnswerRematch, accept=False)
            await ann.request(m.OfferRematch)
            await cat.request(m.AnswerRematch, accept=True)
            await sam.wait_for(lambda: any(e["kind"] == "rematch_started" for e in sam.events))
            # The host removes a player dealt into the round under way (they go when it ends: here the game's
            # end), then a spectator (at once).
            await ann.request(m.Leave)
            await sam.request(m.Leave)
            last = await ann.request(m.CreateTable, name="last", settings=m.TableSettings(seats=2))
            await bob.request(m.Join, table_id=last["table_id"], seat=1)
            await sam.request(m.Watch, table_id=last["table_id"])
            await ann.request(m.Start)
            tid = last["table_id"]
            cutter = await wait_any([ann, bob], lambda: next(
                (c for c in (ann, bob) if (c.views.get(tid) or {}).get("legal")), None))
            await cutter.act({"kind": "cut", "position": None})  # dealt: the hands are kept to the end
            await ann.wait_for(lambda: ann.views[tid].get("phase") == "play")
            assert (await ann.request(m.RemovePlayer, name="bob"))["at_round_end"] is True
            await ann.request(m.EndGame)
            await bob.wait_for(lambda: any(e["kind"] == "removed" and e.get("you") for e in bob.events))
            assert (await ann.request(m.RemovePlayer, name="sam"))["at_round_end"] is False
            await sam.wait_for(lambda: any(e["kind"] == "removed" and e.get("you") for e in sam.events))
            await ann.wait_for(lambda: sum(e["kind"] == "removed" for e in ann.events) == 2)

        seen: set[str] = set()
        for client, seat in ((ann, 0), (bob, 1), (sam, None)):
            for event in client.events:
                check_event(event, seat)
                seen.add(event["kind"])
            for push in client.view_pushes:
                check_view(push)
        assert seen == set(EVENTS), f"not provoked: {set(EVENTS) - seen}"
        assert {"skip", "call", "timeout", "away"} <= done
        assert len(ann.view_pushes) > lobby_views and ann.view_pushes[0].game is None  # no game yet: nil
        phases = {v["phase"] for v in ann.all_views if v}
        assert phases == {"cut", "play", "showdown", "waiting", "over"}
        assert any(v["round"] == 2 and not v["players"][1]["in_round"] and v["phase"] == "play"
                   for v in bob.all_views if v), "bob sat round 2 out"
        assert any(1 in p.game["to_act"] and p.game["legal"] and p.game["players"][1]["away"] and p.deadline_ms is None
                   for p in bob.view_pushes if p.game), "an away seat still gets its legal"


async def test_a_player_who_left_a_running_game_is_not_connected_though_online(connect):
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await bob.request(m.Leave)
        await ann.wait_for(lambda: ann.member(1)["away"])
        assert (ann.member(1)["connected"], ann.member(1)["bot"]) == (False, False)
        assert await bob.request(m.Ping) == {}  # still connected, in the lobby


# ----------------------------------------------------------------- replies (section 4)


async def test_pipelined_requests_get_exactly_one_reply_each_in_order_before_their_pushes(tmp_path):
    """A durable server groups the requests of one read into one commit: still one reply per request
    (each used to be sent once per request in the group), in order, each before the pushes it caused."""
    server = GameServer(Lobby(LobbyConfig(store=Store.open_dir(tmp_path)), "test"), NetConfig())
    await server.start("127.0.0.1", 0)
    try:
        raw = await Raw.open(server.port)
        raw.send(hello(), {"type": "create_table", "id": 2, "name": "t"}, {"type": "chat", "id": 3, "text": "hi"},
                 {"type": "ping", "id": 4}, {"type": "leave", "id": 5})
        frames = []
        while "chat_message" not in [f["type"] for f in frames]:
            frames.append(await asyncio.wait_for(_next_frame(raw), 10))
        raw.writer.close()
        replies = [(f["type"], f["id"]) for f in frames if f["type"] in ("welcome", "ok", "error")]
        assert replies == [("welcome", 1), ("ok", 2), ("ok", 3), ("ok", 4), ("ok", 5)], frames
        kinds = [f["type"] for f in frames]
        assert kinds.index("chat_message") > kinds.index("ok"), "the chat line follows the reply to the chat"
    finally:
        await server.close(grace=1.0)


async def _next_frame(raw: Raw) -> dict[str, Any]:
    while (frame := raw.decoder.next_frame()) is None:
        data = await raw.reader.read(65536)
        assert data, "the server closed the connection"
        raw.decoder.feed(data)
    return frame


# ----------------------------------------------------------------- section 12


def _example_tool():
    spec = importlib.util.spec_from_file_location("example_session", ROOT / "docs" / "tools" / "example_session.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


async def test_the_example_session_is_what_a_fresh_recording_shows():
    """PROTOCOL.md 12 is regenerated from a real session: refresh it with docs/tools/example_session.py --write."""
    tool = _example_tool()
    fresh = await tool.transcripts()
    assert tool.documented(protocol_spec.PROTOCOL_MD.read_text(encoding="utf-8")) == fresh, \
        "PROTOCOL.md 12 is stale: run python docs/tools/example_session.py --write"
    assert fresh[0].startswith(SPEC.example.splitlines()[0])


async def test_the_examples_of_which_error_wins(connect):
    """PROTOCOL.md 7.1: the first failing check in each request's Errors list is the answer."""
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3), private_code="pw")
        assert await failure(bob.request(m.Join, table_id="nope", seat=4)) == "no_such_table"
        assert await failure(bob.request(m.Join, table_id=created["table_id"], seat=4)) == "wrong_code"
        assert await failure(bob.request(m.Join, table_id=created["table_id"], private_code="pw", seat=4)) \
            == "no_such_seat"
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        assert await failure(bob.request(m.Start)) == "not_at_table"
        await bob.request(m.Watch, table_id=created["table_id"], private_code="pw")
        assert await failure(bob.request(m.Start)) == "not_host"  # before game_running
        assert await failure(bob.request(m.RemoveBot, seat=0)) == "not_host"  # before no_such_seat
        assert await failure(ann.request(m.RemoveBot, seat=0)) == "game_running"  # before no_such_seat


async def test_coming_back_mid_round_gives_the_rest_of_the_round_back_on_the_clock(connect):
    """sit_out(false) during a round you are dealt into: your next decisions in it are yours, with a deadline."""
    async with connect("ann") as ann:
        await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        if (await ann.wait_for(lambda: (ann.view["phase"] != "cut" or ann.view["legal"]) and ann.view))["phase"] == "cut":
            await ann.act({"kind": "cut", "position": None})  # the first dealer's draw has her cut
        view = await ann.wait_for(lambda: ann.view["phase"] == "play" and ann.view["legal"] and ann.view)
        await asyncio.gather(ann.request(m.SitOut, away=True), ann.request(m.SitOut, away=False))  # one write
        back = await ann.wait_for(lambda: ann.view is not view and ann.view["legal"] and ann.view)
        assert back["round"] == view["round"] and not back["players"][0]["away"]
        assert ann.deadline_ms is not None  # on the clock, not played for her
        assert not [e for e in ann.events if e["kind"] == "timeout"]


async def test_a_table_of_another_game_is_hosted_and_shown_as_its_document_says(connect):
    """The server is game-neutral: a Cribbage table is created, started and played through the same messages,
    its view's ``game`` exactly the fields of docs/games/cribbage.md, its actions parsed by Cribbage."""
    doc = protocol_spec.load_game("cribbage")
    async with connect("ann") as ann:
        created = await ann.request(m.CreateTable, name="crib", settings=m.TableSettings(game="cribbage"))
        listed = next(t for t in (await ann.request(m.ListTables))["tables"] if t["table_id"] == created["table_id"])
        assert (listed["title"], listed["seats"], listed["settings"]["rules"]) == \
            ("Cribbage", GAMES["cribbage"].max_seats, GAMES["cribbage"].settings().to_data())
        for _ in range(GAMES["cribbage"].min_seats - 1):
            await ann.request(m.AddBot)
        await ann.request(m.Start)
        view = await ann.wait_for(lambda: ann.view.get("legal") and ann.view)
        push = ann.view_pushes[-1]
        assert push.table["title"] == "Cribbage" and set(push.game) == set(doc.view), sorted(push.game)
        for entry in view["legal"]:
            assert set(entry) == doc.legal[entry["kind"]], entry
        assert await failure(ann.act({"kind": "take_stock"})) == "bad_action"  # Down and Back's, not Cribbage's
        entry = view["legal"][0]
        assert entry["kind"] == "cut"  # the draw for the first deal
        await ann.act({"kind": "cut", "position": entry["min"]})
        await ann.wait_for(lambda: ann.view is not view)
    for event in ann.events:
        assert set(event) >= {"kind"} and event["kind"] in set(doc.events) | set(SPEC.events), event
