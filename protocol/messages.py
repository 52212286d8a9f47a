"""Typed, validated protocol messages (sans-I/O).

One frozen dataclass per message type, in the style of h11's ``_events.py``. Each
class has its wire name in the class attribute ``type`` and its sender in
``sender`` (``"client"`` or ``"server"``); instances are built with keyword
arguments and validated on construction, so an invalid message cannot exist::

    >>> msg = Hello(id=1, version=PROTOCOL_VERSION, name="Ann")
    >>> msg.to_wire()
    {'type': 'hello', 'id': 1, 'version': 2, 'name': 'Ann', 'token': None, 'client': None}
    >>> from_wire(msg.to_wire()) == msg
    True

* :func:`from_wire` turns a decoded map into a message, raising
  :class:`RemoteProtocolError` (``unknown_type``, ``bad_message``, ``too_long``) for
  anything that is not exactly a valid message: unknown type, missing field,
  unexpected field, wrong type (``true`` is not an integer, ``1.0`` is not an
  integer, an integer is not a string), out-of-range number, over-long string or
  list, malformed table id, game name or token.
* Building a message with bad values raises :class:`LocalProtocolError`.
* :func:`encode` / :func:`decode` add the framing of :mod:`protocol.framing`.

Fields whose type allows nil may be omitted on the wire (omitted means nil); a
few other fields have documented defaults (``settings``, ``limit``, ``result``).
Everything else is required. Lists arrive as Python lists and are stored as
tuples. Opaque maps (``Ok.result``, a view's ``table`` and ``game``, the items of
``Event.events``, a table's ``rules``, ``Act.action``) are kept as plain dicts:
any string-keyed map within the nesting limit.

The protocol knows the lobby and the session, not the games: a table's
``rules`` and an ``act``'s action are checked here for their shape only, and
then by the game the table plays (``engine.games``: its settings and its
action parser are the one schema of each).

The rules for every field are written once, as :class:`Spec` objects in the field
metadata; ``docs/PROTOCOL.md`` documents the same rules for other implementers.

This module is the one import point (``from protocol.messages import X``, ``m.X``) and holds the
entry points; the parts live in modules with one job each:

* :mod:`protocol.schema` -- the schema language: field specs, the struct machinery, the message
  bases and the registry :data:`MESSAGE_TYPES`;
* :mod:`protocol.fields` -- the protocol's numbers and reusable field types (its limits);
* the messages by purpose: :mod:`protocol.session` (handshake, replies, heartbeat, notices),
  :mod:`protocol.lobby` (tables and their records, who is online, invitations, the leaderboard,
  mutes), :mod:`protocol.table` (the host's keys, playing, chat, rematch, views and events),
  :mod:`protocol.fairness` (client seeds) and :mod:`protocol.past` (history, past rounds and
  games, replays).
"""

from typing import Any

from .errors import BAD_FRAME, BAD_MESSAGE, UNKNOWN_TYPE, LocalProtocolError, RemoteProtocolError
from .fairness import ClientSeed, SeedCommit
from .fields import (
    ACTION,
    BOT_LEVEL,
    BOT_MARK,
    CHAT_TEXT,
    CODE,
    COUNT,
    CURSOR,
    DEADLINE_MS,
    DECISION,
    DEFAULT_GAME,
    DEFAULT_PORT,
    GAME_NAME,
    HEX,
    HOST,
    MAX_ACTION_KEYS,
    MAX_REQUEST_ID,
    MAX_SEATS,
    NAME,
    NAME_MAX,
    PAGE,
    PLAYER_ID,
    PRIVATE_CODE,
    PROTOCOL_VERSION,
    REQUEST_ID,
    SEAT,
    SEAT_COUNT,
    SENT_NAME_MAX,
    SERVER_NAME,
    SOFTWARE,
    TABLE_ID,
    TABLE_NAME,
    TABLE_NAME_MAX,
    TABLE_STATE,
    TEXT,
    TIMESTAMP,
    TITLE,
    TOKEN,
    VERSION,
    is_host,
)
from .framing import MAX_FRAME_SIZE, FrameDecoder, encode_frame
from .lobby import (
    MAX_ONLINE,
    CreateTable,
    Invitation,
    Invite,
    Join,
    Leaderboard,
    Leave,
    ListOnline,
    ListTables,
    Mute,
    Mutes,
    Online,
    OnlinePlayer,
    PlayerSummary,
    SetHidden,
    Tables,
    TableSettings,
    TableSummary,
    Watch,
)
from .past import History, PastGames, PastRounds, Replay
from .schema import (
    MESSAGE_TYPES,
    Bool,
    Int,
    ListOf,
    Message,
    Nested,
    Nullable,
    OpaqueMap,
    Push,
    Record,
    Reply,
    Request,
    Scalar,
    Spec,
    Str,
    _is_int,
    _kind,
    _quote,
    _remote_from_frame,
)
from .session import Bye, Error, Hello, Notice, Notices, Ok, Ping, Stats, Welcome
from .table import (
    Act,
    AddBot,
    AnswerRematch,
    Chat,
    ChatMessage,
    EndGame,
    Event,
    OfferRematch,
    RemoveBot,
    RemovePlayer,
    SitOut,
    Start,
    View,
)

__all__ = [
    "PROTOCOL_VERSION",
    "DEFAULT_PORT",
    "DEFAULT_GAME",
    "MAX_REQUEST_ID",
    "MAX_SEATS",
    "MAX_ACTION_KEYS",
    # bases and registries
    "Spec",
    "Message",
    "Request",
    "Reply",
    "Push",
    "Record",
    "MESSAGE_TYPES",
    "CLIENT_MESSAGE_TYPES",
    "SERVER_MESSAGE_TYPES",
    # records
    "TableSettings",
    "PlayerSummary",
    "TableSummary",
    "OnlinePlayer",
    # client -> server
    "Hello",
    "ListTables",
    "CreateTable",
    "Join",
    "Watch",
    "Leave",
    "Start",
    "AddBot",
    "RemoveBot",
    "EndGame",
    "Act",
    "SitOut",
    "ClientSeed",
    "SeedCommit",
    "Chat",
    "History",
    "PastRounds",
    "PastGames",
    "Replay",
    "Leaderboard",
    "SetHidden",
    "OfferRematch",
    "AnswerRematch",
    "Mute",
    "Mutes",
    "RemovePlayer",
    "Notices",
    "Stats",
    "ListOnline",
    "Invite",
    "Ping",
    # server -> client
    "Welcome",
    "Ok",
    "Error",
    "Tables",
    "View",
    "Event",
    "ChatMessage",
    "Notice",
    "Online",
    "Invitation",
    "Bye",
    # functions
    "from_wire",
    "peek_request_id",
    "encode",
    "decode",
]

CLIENT_MESSAGE_TYPES = frozenset(t for t, c in MESSAGE_TYPES.items() if c.sender == "client")
SERVER_MESSAGE_TYPES = frozenset(t for t, c in MESSAGE_TYPES.items() if c.sender == "server")


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def peek_request_id(obj: Any) -> int | None:
    """The map's ``id`` if it is a valid request id, else ``None`` (never raises)."""
    if isinstance(obj, dict):
        value = obj.get("id")
        if _is_int(value) and 0 <= value <= MAX_REQUEST_ID:
            return int(value)
    return None



def from_wire(obj: Any, *, frame_checked: bool = False) -> Message:
    """Validate a decoded map and return the message it is.

    Raises :class:`RemoteProtocolError` with code ``unknown_type``, ``bad_message``
    or ``too_long``; its ``request_id`` is set when the map had a usable ``id``.
    ``frame_checked=True`` is for maps straight from :class:`FrameDecoder`, whose
    structure rules were enforced while decoding.
    """
    try:
        if not isinstance(obj, dict):
            raise RemoteProtocolError(BAD_MESSAGE, f"a message must be a map, got {_kind(obj)}")
        if "type" not in obj:
            raise RemoteProtocolError(BAD_MESSAGE, "missing field 'type'", field="type")
        name = obj["type"]
        if not isinstance(name, str):
            raise RemoteProtocolError(BAD_MESSAGE, f"type must be a string, got {_kind(name)}", field="type")
        cls = MESSAGE_TYPES.get(name)
        if cls is None:
            raise RemoteProtocolError(UNKNOWN_TYPE, f"unknown message type {_quote(name)}", field="type")
        return cls._parse(obj, "", 1, _remote_from_frame if frame_checked else RemoteProtocolError)
    except RemoteProtocolError as exc:
        if exc.request_id is None:
            exc.request_id = peek_request_id(obj)
        raise


def encode(msg: Message, *, max_frame_size: int = MAX_FRAME_SIZE) -> bytes:
    """The framed bytes for ``msg`` (:class:`LocalProtocolError` if it cannot be sent)."""
    if not isinstance(msg, Message):
        raise LocalProtocolError(BAD_MESSAGE, f"not a message: {type(msg).__name__}")
    # A message is validated when it is built, so its map needs no second walk.
    return encode_frame(msg.to_wire(), max_frame_size=max_frame_size, checked=True)


def decode(data: bytes, *, max_frame_size: int = MAX_FRAME_SIZE) -> Message:
    """Decode ``data`` holding exactly one frame into a message.

    Convenience for tests and tools; streams should use :class:`FrameDecoder` or
    :class:`protocol.connection.Connection`.
    """
    decoder = FrameDecoder(max_frame_size)
    decoder.feed(data)
    frame = decoder.next_frame()
    if frame is None:
        decoder.eof()
        raise RemoteProtocolError(BAD_FRAME, "no frame in the data")
    if decoder.pending or decoder.incomplete or decoder.failed:
        raise RemoteProtocolError(BAD_FRAME, "bytes after the first frame")
    return from_wire(frame)

