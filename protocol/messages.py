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
"""

import dataclasses
import re
from dataclasses import MISSING, dataclass, field
from typing import Any, Callable, ClassVar, TypeVar

from .errors import (
    BAD_FRAME,
    BAD_MESSAGE,
    TOO_LONG,
    UNKNOWN_TYPE,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
)
from .framing import MAX_DEPTH, MAX_FRAME_SIZE, FrameDecoder, check_structure, encode_frame

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

PROTOCOL_VERSION = 2
"""The protocol version this package speaks (sent in ``hello`` and ``welcome``; PROTOCOL.md 11 lists the changes)."""
DEFAULT_PORT = 7777
"""The server's default TCP port."""
MAX_REQUEST_ID = 2**32 - 1
MAX_SEATS = 8
"""The most seats any table may have (seats are numbered 0..7); each game's own range lies inside it."""
DEFAULT_GAME = "down-and-back"
"""The game a ``create_table`` that names none gets (the one game protocol version 1 knew)."""
MAX_ACTION_KEYS = 16
"""An ``act``'s action map holds at most this many keys, ``kind`` included."""

SERVER_NAME = "Server"  # the name on the server's own chat notices; no player may take it (PROTOCOL.md §8.1)
BOT_MARK = "(bot)"  # how bots' names end; reserved for them
NAME_MAX = 24
"""A player's name once the server cleaned it is 1 to this many code points (PROTOCOL.md §8.1): the one owner
of the limit, for the server's check and every client's input."""
TABLE_NAME_MAX = 40
"""A table's name once cleaned is 1 to this many code points (PROTOCOL.md §8.1)."""
SENT_NAME_MAX = 64
"""A name or table name as sent, before cleaning (the ``name`` type, PROTOCOL.md §3): room for what cleaning
drops, and at least the cleaned limits."""
assert SENT_NAME_MAX >= max(NAME_MAX, TABLE_NAME_MAX)

_ErrorType = Callable[..., ProtocolError]  # an error class, or _remote_from_frame


# ---------------------------------------------------------------------------
# Field specs
# ---------------------------------------------------------------------------


def _kind(value: object) -> str:
    """Name a value's wire type for an error message (never its content)."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "binary data"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "map"
    return type(value).__name__


def _quote(text: str, limit: int = 32) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Spec:
    """How one field is checked and written. Subclasses are small and public so
    tests (and docs) can introspect them: ``Int.lo``, ``Str.pattern`` ..."""

    def check(self, value: Any, path: str, depth: int, err: _ErrorType) -> Any:
        """Validate ``value`` at ``path`` (nesting ``depth``); return the stored form."""
        raise NotImplementedError

    def to_wire(self, value: Any) -> Any:
        return value

    def _wrong(self, value: Any, path: str, err: _ErrorType, expected: str) -> ProtocolError:
        return err(BAD_MESSAGE, f"{path} must be {expected}, got {_kind(value)}", field=path)


class Int(Spec):
    """An integer in ``lo..hi`` (bools and floats are not integers)."""

    def __init__(self, lo: int, hi: int, *, choices: tuple[int, ...] | None = None) -> None:
        self.lo, self.hi, self.choices = lo, hi, choices

    def check(self, value, path, depth, err):
        if not _is_int(value):
            raise self._wrong(value, path, err, "an integer")
        if self.choices is not None and value not in self.choices:
            options = " or ".join(str(c) for c in self.choices)
            raise err(BAD_MESSAGE, f"{path} must be {options}", field=path)
        if not self.lo <= value <= self.hi:
            raise err(BAD_MESSAGE, f"{path} must be between {self.lo} and {self.hi}", field=path)
        return int(value)


class Bool(Spec):
    """``true`` or ``false`` (not 0/1)."""

    def check(self, value, path, depth, err):
        if not isinstance(value, bool):
            raise self._wrong(value, path, err, "a bool")
        return value


class Str(Spec):
    """A string of ``lo..hi`` Unicode code points.

    Over ``hi`` is ``too_long`` (a format's string too: its length is checked first); shorter
    than ``lo``, or a string with a ``pattern`` (a format such as a table id) that does not
    match it, is ``bad_message``.
    """

    def __init__(
        self,
        lo: int = 0,
        hi: int = 64,
        *,
        pattern: str | None = None,
        what: str | None = None,
        choices: tuple[str, ...] | None = None,
    ) -> None:
        self.lo, self.hi, self.choices = lo, hi, choices
        self.pattern = pattern
        self._regex = re.compile(pattern) if pattern is not None else None
        self.what = what

    def check(self, value, path, depth, err):
        if not isinstance(value, str):
            raise self._wrong(value, path, err, self.what or "a string")
        size = len(value)
        if size > self.hi:  # checked first, formats too: over its length a string is too long (PROTOCOL.md 3.1)
            raise err(TOO_LONG, f"{path} is {size} characters long, the limit is {self.hi}", field=path)
        if self._regex is not None:
            if not (self.lo <= size and self._regex.fullmatch(value)):
                raise err(BAD_MESSAGE, f"{path} must be {self.what}, got {_quote(value)}", field=path)
        elif size < self.lo:
            raise err(BAD_MESSAGE, f"{path} must be at least {self.lo} characters long", field=path)
        if self.choices is not None and value not in self.choices:
            options = ", ".join(repr(c) for c in self.choices)
            raise err(BAD_MESSAGE, f"{path} must be one of {options}, got {_quote(value)}", field=path)
        return value[:]  # a plain str even for str subclasses / str enums


class Nullable(Spec):
    """``inner`` or nil."""

    def __init__(self, inner: Spec) -> None:
        self.inner = inner

    def check(self, value, path, depth, err):
        return None if value is None else self.inner.check(value, path, depth, err)

    def to_wire(self, value):
        return None if value is None else self.inner.to_wire(value)


class ListOf(Spec):
    """An array of ``lo..hi`` items, each checked by ``item``; stored as a tuple."""

    def __init__(self, item: Spec, lo: int, hi: int) -> None:
        self.item, self.lo, self.hi = item, lo, hi

    def check(self, value, path, depth, err):
        if not isinstance(value, (list, tuple)):
            raise self._wrong(value, path, err, "an array")
        size = len(value)
        if self.lo == self.hi and size != self.lo:
            raise err(BAD_MESSAGE, f"{path} must have exactly {self.lo} items, got {size}", field=path)
        if size > self.hi:
            raise err(TOO_LONG, f"{path} has {size} items, the limit is {self.hi}", field=path)
        if size < self.lo:
            raise err(BAD_MESSAGE, f"{path} must have at least {self.lo} items", field=path)
        item = self.item
        return tuple(item.check(v, f"{path}[{i}]", depth + 1, err) for i, v in enumerate(value))

    def to_wire(self, value):
        return [self.item.to_wire(v) for v in value]


class Nested(Spec):
    """A map that is one of our record classes (strict: no unknown keys)."""

    def __init__(self, cls: type["_Struct"]) -> None:
        self.cls = cls

    def check(self, value, path, depth, err):
        if isinstance(value, self.cls):
            return value
        if not isinstance(value, dict):
            raise self._wrong(value, path, err, "a map")
        return self.cls._parse(value, path, depth, err)

    def to_wire(self, value):
        return value.to_wire()


class OpaqueMap(Spec):
    """Any string-keyed map within the nesting limit (contents not interpreted).

    With ``require_kind``, the map must have a ``kind`` code (events, actions);
    ``max_keys`` bounds its number of keys (``too_long`` past it).
    """

    def __init__(self, *, require_kind: bool = False, max_keys: int | None = None) -> None:
        self.require_kind = require_kind
        self.max_keys = max_keys

    def check(self, value, path, depth, err):
        if not isinstance(value, dict):
            raise self._wrong(value, path, err, "a map")
        if self.max_keys is not None and len(value) > self.max_keys:
            raise err(TOO_LONG, f"{path} has {len(value)} keys, the limit is {self.max_keys}", field=path)
        if err is not _remote_from_frame:  # a decoded frame's whole structure is checked already
            try:
                check_structure(value, max_depth=MAX_DEPTH - depth + 1, error=err, code=BAD_MESSAGE)
            except ProtocolError as exc:
                raise err(exc.code, f"{path}: {exc.message}", field=path) from None
        if self.require_kind:
            _KIND.check(value.get("kind"), _join(path, "kind"), depth + 1, err)
        return value


class Scalar(Spec):
    """nil, a bool, an integer or a string of at most ``hi`` code points (an item of a decision id)."""

    def __init__(self, hi: int = 64) -> None:
        self.hi = hi

    def check(self, value, path, depth, err):
        if value is None or isinstance(value, bool) or _is_int(value):
            return value
        if isinstance(value, str):
            if len(value) > self.hi:
                raise err(TOO_LONG, f"{path} is {len(value)} characters long, the limit is {self.hi}", field=path)
            return value[:]
        raise self._wrong(value, path, err, "nil, a bool, an integer or a string")


# Reusable field types. The same limits are tabulated in docs/PROTOCOL.md.
REQUEST_ID = Int(0, MAX_REQUEST_ID)
VERSION = Int(0, 65535)
SEAT = Int(0, MAX_SEATS - 1)
SEAT_COUNT = Int(1, MAX_SEATS)
COUNT = Int(0, 2**31 - 1)
TIMESTAMP = Int(0, 2**63 - 1)
NAME = Str(0, SENT_NAME_MAX)
TABLE_NAME = Str(0, SENT_NAME_MAX)
SOFTWARE = Str(0, 64)
TEXT = Str(0, 1000)
CHAT_TEXT = Str(1, 1000)
PRIVATE_CODE = Str(1, 32)
_ID_PATTERN = r"[A-Za-z0-9_-]+"
TABLE_ID = Str(1, 32, pattern=_ID_PATTERN, what="a table id (1-32 of A-Z a-z 0-9 _ -)")
PLAYER_ID = Str(1, 64, pattern=_ID_PATTERN, what="a player id (1-64 of A-Z a-z 0-9 _ -)")
TOKEN = Str(1, 128, pattern=_ID_PATTERN, what="a token (1-128 of A-Z a-z 0-9 _ -)")
CODE = Str(1, 32, pattern=r"[a-z][a-z0-9_]*", what="a code (1-32 of a-z 0-9 _, starting a-z)")
GAME_NAME = Str(1, 32, pattern=r"[a-z][a-z0-9-]*", what="a game name (1-32 of a-z 0-9 -, starting a-z)")
BOT_LEVEL = Str(1, 16, pattern=r"[a-z]+", what="a bot level (1-16 of a-z)")
TITLE = Str(0, 64)
HOST = Str(1, 253, pattern=r"[A-Za-z0-9][A-Za-z0-9.-]*|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*",
           what="a host name or an IP address")
"""The ``host`` of a ``list_tables`` gateway (PROTOCOL.md 5.1): a DNS name, an IPv4 or an IPv6 address (no brackets)."""


def is_host(text: str) -> bool:
    """``text`` is a :data:`HOST`: what a join line may show as a host, nothing else (no escape, no space)."""
    return isinstance(text, str) and 1 <= len(text) <= HOST.hi and HOST._regex.fullmatch(text) is not None  # type: ignore[union-attr]
_KIND = Str(1, 32, pattern=r"[a-z][a-z0-9_]*", what="a kind (1-32 of a-z 0-9 _, starting a-z)")
TABLE_STATE = Str(choices=("waiting", "playing", "finished"))
ACTION = OpaqueMap(require_kind=True, max_keys=MAX_ACTION_KEYS)
HEX = Str(1, 1000, pattern=r"[0-9a-f]+", what="lowercase hex digits")  # its length is the game's to check
DECISION = Nullable(ListOf(Scalar(), 0, 16))
DEADLINE_MS = Nullable(Int(0, 2**31 - 1))


# ---------------------------------------------------------------------------
# Struct machinery (shared by messages, records and actions)
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _FieldInfo:
    spec: Spec
    default: Callable[[], Any] | None  # None: the field is required


def _f(spec: Spec, default: Any = MISSING, *, factory: Any = MISSING) -> Any:
    return field(default=default, default_factory=factory, metadata={"spec": spec})


class _Struct:
    """Base of every wire map with a fixed set of fields.

    Each subclass is a frozen, slotted, keyword-only dataclass (``dataclasses.fields``
    lists its fields and their specs), but its methods are these generic ones: a
    dataclass generates and compiles six methods per class, and for the ~40 message
    classes that was a third of the client's own start-up work (~25 ms).
    """

    __slots__ = ()
    _fields: ClassVar[dict[str, _FieldInfo]] = {}
    _tag_key: ClassVar[str | None] = None  # "type" for messages, "kind" for actions

    def __init__(self, **values: Any) -> None:
        fields = self._fields
        for name in values:
            if name not in fields:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {name!r}")
        for name, info in fields.items():
            if name in values:
                value = values[name]
            elif info.default is not None:
                value = info.default()
            else:
                raise TypeError(f"{type(self).__name__}() missing required keyword argument {name!r}")
            object.__setattr__(self, name, info.spec.check(value, name, 2, LocalProtocolError))

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def to_wire(self) -> dict[str, Any]:
        """The plain map to encode (tag first, then every field, nils included)."""
        out: dict[str, Any] = {}
        if self._tag_key is not None:
            out[self._tag_key] = getattr(self, self._tag_key)
        for name, info in self._fields.items():
            out[name] = info.spec.to_wire(getattr(self, name))
        return out

    @classmethod
    def from_wire(cls, obj: Any) -> Any:
        """Parse a decoded map as exactly this class (``RemoteProtocolError`` if not)."""
        if not isinstance(obj, dict):
            raise RemoteProtocolError(BAD_MESSAGE, f"expected a map, got {_kind(obj)}")
        if cls._tag_key is not None:
            tag = getattr(cls, cls._tag_key)
            if obj.get(cls._tag_key) != tag:
                raise RemoteProtocolError(BAD_MESSAGE, f"{cls._tag_key} must be {tag!r}")
        return cls._parse(obj, "", 1, RemoteProtocolError)

    @classmethod
    def _parse(cls, obj: dict[Any, Any], path: str, depth: int, err: _ErrorType) -> Any:
        fields = cls._fields
        for key in obj:
            if key == cls._tag_key:
                continue
            if not isinstance(key, str):
                raise err(BAD_MESSAGE, f"{path or 'message'}: map keys must be strings", field=path or None)
            if key not in fields:
                where = f" in {path}" if path else ""
                raise err(BAD_MESSAGE, f"unexpected field {_quote(key)}{where}", field=_join(path, key))
        values: dict[str, Any] = {}
        for name, info in fields.items():
            if name in obj:
                values[name] = info.spec.check(obj[name], _join(path, name), depth + 1, err)
            elif info.default is not None:
                values[name] = info.default()
            else:
                where = f" in {path}" if path else ""
                raise err(BAD_MESSAGE, f"missing field {name!r}{where}", field=_join(path, name))
        # Already validated: build without checking again.
        instance = object.__new__(cls)
        for name, value in values.items():
            object.__setattr__(instance, name, value)
        return instance


_S = TypeVar("_S", bound=type)


def _struct(cls: _S) -> _S:
    # Frozen and compared by _Struct's own methods (see there): the dataclass generates none.
    cls = dataclass(init=False, repr=False, eq=False, slots=True, kw_only=True)(cls)
    infos: dict[str, _FieldInfo] = {}
    for f in dataclasses.fields(cls):
        spec = f.metadata.get("spec")
        if not isinstance(spec, Spec):
            raise TypeError(f"{cls.__name__}.{f.name} has no wire spec")
        if f.default is not MISSING:
            default: Callable[[], Any] | None = (lambda v=f.default: v)
        elif f.default_factory is not MISSING:
            default = f.default_factory
        else:
            default = None
        infos[f.name] = _FieldInfo(spec, default)
    cls._fields = infos
    return cls


# ---------------------------------------------------------------------------
# Records (nested maps with a fixed shape)
# ---------------------------------------------------------------------------


class Record(_Struct):
    """A nested map with fixed fields (no tag)."""

    __slots__ = ()


@_struct
class TableSettings(Record):
    """A table's settings: which game, how many seats, and that game's rules.

    ``rules`` is the game's to check (its settings: the one owner of their
    names, defaults and limits); ``seats`` nil is the most the game seats. A
    table's settings as the server shows them (summaries, views) have every
    default filled in: ``seats`` an integer and ``rules`` complete.
    """

    game: str = _f(GAME_NAME, DEFAULT_GAME)
    seats: int | None = _f(Nullable(SEAT_COUNT), None)
    rules: dict[str, Any] = _f(OpaqueMap(), factory=dict)


@_struct
class PlayerSummary(Record):
    """One seated player in a :class:`TableSummary`."""

    seat: int = _f(SEAT)
    name: str = _f(NAME)
    bot: bool = _f(Bool())
    connected: bool = _f(Bool())


@_struct
class TableSummary(Record):
    """A lobby entry, as in ``tables`` and the ``list_tables`` result."""

    table_id: str = _f(TABLE_ID)
    name: str = _f(TABLE_NAME)
    title: str = _f(TITLE)
    host: str | None = _f(Nullable(NAME), None)
    seats: int = _f(SEAT_COUNT)
    players: tuple[PlayerSummary, ...] = _f(ListOf(Nested(PlayerSummary), 0, MAX_SEATS))
    settings: TableSettings = _f(Nested(TableSettings))
    state: str = _f(TABLE_STATE)
    private: bool = _f(Bool())
    spectators: int = _f(COUNT)


MAX_ONLINE = 50
"""The most players one ``online`` list names (the ``list_online`` result and the ``online`` push); ``total`` counts all."""


@_struct
class OnlinePlayer(Record):
    """A player online, as ``list_online`` and the ``online`` push name them (only what anyone may know)."""

    name: str = _f(NAME)
    where: str = _f(Str(choices=("lobby", "watching", "seated")))
    table_id: str | None = _f(Nullable(TABLE_ID), None)  # nil in the lobby, and watching a private table
    away: bool = _f(Bool())
    idle: bool = _f(Bool())


# ---------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------


class Message(_Struct):
    """Base of all messages; ``type`` is the wire name, ``sender`` who may send it."""

    __slots__ = ()
    _tag_key = "type"
    type: ClassVar[str]
    sender: ClassVar[str]

    @classmethod
    def prevalidated(cls, **fields: Any) -> Any:
        """Build without validating: only for values the sender built itself
        and whose shape its own tests guarantee (the server's views, sent many
        times a second). Everything else goes through the checking constructor."""
        instance = object.__new__(cls)
        for name, info in cls._fields.items():
            value = fields[name] if name in fields else info.default()
            object.__setattr__(instance, name, value)
        return instance


class Request(Message):
    """A client -> server message; carries ``id``, answered by one reply."""

    __slots__ = ()
    sender: ClassVar[str] = "client"


class Reply(Message):
    """A server -> client answer to a request (``welcome``, ``ok``, ``error``)."""

    __slots__ = ()
    sender: ClassVar[str] = "server"


class Push(Message):
    """An unsolicited server -> client message."""

    __slots__ = ()
    sender: ClassVar[str] = "server"


MESSAGE_TYPES: dict[str, type[Message]] = {}
"""Wire ``type`` -> message class, for every message in either direction."""


def _message(cls: _S) -> _S:
    cls = _struct(cls)
    if cls.type in MESSAGE_TYPES:
        raise TypeError(f"duplicate message type {cls.type!r}")
    MESSAGE_TYPES[cls.type] = cls
    return cls


# -- client -> server --------------------------------------------------------


@_message
class Hello(Request):
    """First message on every connection; answered by ``welcome`` or ``error``."""

    type: ClassVar[str] = "hello"
    id: int = _f(REQUEST_ID)
    version: int = _f(VERSION)
    name: str = _f(NAME)
    token: str | None = _f(Nullable(TOKEN), None)
    client: str | None = _f(Nullable(SOFTWARE), None)


@_message
class ListTables(Request):
    """Ask for the lobby; ok result ``{tables: [table summary]}``."""

    type: ClassVar[str] = "list_tables"
    id: int = _f(REQUEST_ID)


@_message
class CreateTable(Request):
    """Create a table (the creator is its host, seated); ok result ``{table_id}``."""

    type: ClassVar[str] = "create_table"
    id: int = _f(REQUEST_ID)
    name: str = _f(TABLE_NAME)
    settings: TableSettings = _f(Nested(TableSettings), factory=TableSettings)
    private_code: str | None = _f(Nullable(PRIVATE_CODE), None)


@_message
class Join(Request):
    """Take a seat (nil: any free seat); ok result ``{seat}``."""

    type: ClassVar[str] = "join"
    id: int = _f(REQUEST_ID)
    table_id: str = _f(TABLE_ID)
    seat: int | None = _f(Nullable(SEAT), None)
    private_code: str | None = _f(Nullable(PRIVATE_CODE), None)


@_message
class Watch(Request):
    """Watch a table as a spectator."""

    type: ClassVar[str] = "watch"
    id: int = _f(REQUEST_ID)
    table_id: str = _f(TABLE_ID)
    private_code: str | None = _f(Nullable(PRIVATE_CODE), None)


@_message
class Leave(Request):
    """Leave the current table (seat or spectator place)."""

    type: ClassVar[str] = "leave"
    id: int = _f(REQUEST_ID)


@_message
class Start(Request):
    """Host only: start the game."""

    type: ClassVar[str] = "start"
    id: int = _f(REQUEST_ID)


@_message
class AddBot(Request):
    """Host only: seat a bot of ``level`` (nil: the game's default) in the first free seat; ok result ``{seat}``."""

    type: ClassVar[str] = "add_bot"
    id: int = _f(REQUEST_ID)
    level: str | None = _f(Nullable(BOT_LEVEL), None)


@_message
class RemoveBot(Request):
    """Host only: remove the bot in ``seat``."""

    type: ClassVar[str] = "remove_bot"
    id: int = _f(REQUEST_ID)
    seat: int = _f(SEAT)


@_message
class EndGame(Request):
    """Host only: end the running game."""

    type: ClassVar[str] = "end_game"
    id: int = _f(REQUEST_ID)


@_message
class Act(Request):
    """Play an action at your table: a map with a ``kind``, parsed by the table's game."""

    type: ClassVar[str] = "act"
    id: int = _f(REQUEST_ID)
    action: dict[str, Any] = _f(ACTION)


@_message
class SitOut(Request):
    """``away=true``: sit out (auto-played); ``away=false``: back in."""

    type: ClassVar[str] = "sit_out"
    id: int = _f(REQUEST_ID)
    away: bool = _f(Bool())


@_message
class SeedCommit(Request):
    """Commit to your client seed for the round under way, before the seed set is sealed (docs/FAIRNESS.md)."""

    type: ClassVar[str] = "seed_commit"
    id: int = _f(REQUEST_ID)
    commit: str = _f(HEX)


@_message
class ClientSeed(Request):
    """Reveal your client seed, once the seed set holding your commitment is sealed (docs/FAIRNESS.md)."""

    type: ClassVar[str] = "client_seed"
    id: int = _f(REQUEST_ID)
    seed: str = _f(HEX)


@_message
class Chat(Request):
    """Say something at your table."""

    type: ClassVar[str] = "chat"
    id: int = _f(REQUEST_ID)
    text: str = _f(CHAT_TEXT)


@_message
class History(Request):
    """Ask for the last ``limit`` finished rounds; ok result ``{rounds: [...]}``."""

    type: ClassVar[str] = "history"
    id: int = _f(REQUEST_ID)
    limit: int = _f(Int(1, 100), 10)


CURSOR = Nullable(Int(0, 2**53))
PAGE = Int(1, 50)


@_message
class PastRounds(Request):
    """Your own finished rounds, newest first, a page at a time (``before``: the last page's ``next``);
    ``table_id``: at that table only. Ok result ``{rounds: [...], next}``."""

    type: ClassVar[str] = "past_rounds"
    id: int = _f(REQUEST_ID)
    table_id: str | None = _f(Nullable(TABLE_ID), None)
    before: int | None = _f(CURSOR, None)
    limit: int = _f(PAGE, 20)


@_message
class PastGames(Request):
    """Your own games over, newest first, a page at a time. Ok result ``{games: [...], next}``."""

    type: ClassVar[str] = "past_games"
    id: int = _f(REQUEST_ID)
    before: int | None = _f(CURSOR, None)
    limit: int = _f(PAGE, 20)


@_message
class Replay(Request):
    """The steps of one finished round as you could see them, from step ``from_step`` on, as many as
    fit one reply. Ok result ``{game_name, table_id, round, seat, total, steps, next}``."""

    type: ClassVar[str] = "replay"
    id: int = _f(REQUEST_ID)
    table_id: str = _f(TABLE_ID)
    round: int = _f(Int(1, 2**31 - 1))
    from_step: int = _f(Int(0, 2**31 - 1), 0)


@_message
class Leaderboard(Request):
    """The server's players by chip balance or by games won (``game``: of that game only)."""

    type: ClassVar[str] = "leaderboard"
    id: int = _f(REQUEST_ID)
    by: str = _f(Str(choices=("chips", "wins")), "chips")
    game: str | None = _f(Nullable(GAME_NAME), None)
    limit: int = _f(PAGE, 20)


@_message
class SetHidden(Request):
    """``hidden=true``: leave me out of the leaderboard (kept across connections and restarts)."""

    type: ClassVar[str] = "set_hidden"
    id: int = _f(REQUEST_ID)
    hidden: bool = _f(Bool())


@_message
class OfferRematch(Request):
    """Host only, at game over: offer the table's players a new game, same seats, same settings."""

    type: ClassVar[str] = "offer_rematch"
    id: int = _f(REQUEST_ID)


@_message
class AnswerRematch(Request):
    """Accept or decline the rematch offered at your table."""

    type: ClassVar[str] = "answer_rematch"
    id: int = _f(REQUEST_ID)
    accept: bool = _f(Bool())


@_message
class Mute(Request):
    """Hide (``muted=false``: show again) the chat of the player of that ``name``, for you only; kept with
    your player. Ok result ``{name, muted}``."""

    type: ClassVar[str] = "mute"
    id: int = _f(REQUEST_ID)
    name: str = _f(NAME)
    muted: bool = _f(Bool(), True)


@_message
class Mutes(Request):
    """The players you have muted. Ok result ``{names: [name]}``."""

    type: ClassVar[str] = "mutes"
    id: int = _f(REQUEST_ID)


@_message
class RemovePlayer(Request):
    """Host only: remove the player of that ``name`` (seated or watching) from your table, for good.
    Ok result ``{name, at_round_end}``."""

    type: ClassVar[str] = "remove_player"
    id: int = _f(REQUEST_ID)
    name: str = _f(NAME)


@_message
class Notices(Request):
    """``on=true``: this connection receives ``notice`` pushes (the operator's announcements, a removal)."""

    type: ClassVar[str] = "notices"
    id: int = _f(REQUEST_ID)
    on: bool = _f(Bool(), True)


@_message
class Stats(Request):
    """The server's health figures (PROTOCOL.md ``stats``): loop lag, traffic, counts; nothing private."""

    type: ClassVar[str] = "stats"
    id: int = _f(REQUEST_ID)


@_message
class ListOnline(Request):
    """Who is online; from then on this connection also gets ``online`` pushes (in the lobby) and invitations."""

    type: ClassVar[str] = "list_online"
    id: int = _f(REQUEST_ID)


@_message
class Invite(Request):
    """Host only: invite the player online called ``name`` to your table (an ``invitation`` push for them)."""

    type: ClassVar[str] = "invite"
    id: int = _f(REQUEST_ID)
    name: str = _f(NAME)


@_message
class Ping(Request):
    """Heartbeat; answered by ``ok``."""

    type: ClassVar[str] = "ping"
    id: int = _f(REQUEST_ID)


# -- server -> client --------------------------------------------------------


@_message
class Welcome(Reply):
    """The reply to an accepted ``hello``."""

    type: ClassVar[str] = "welcome"
    id: int = _f(REQUEST_ID)
    version: int = _f(VERSION)
    server: str = _f(SOFTWARE)
    player_id: str = _f(PLAYER_ID)
    token: str = _f(TOKEN)
    resumed: bool = _f(Bool())
    table_id: str | None = _f(Nullable(TABLE_ID), None)
    seat: int | None = _f(Nullable(SEAT), None)


@_message
class Ok(Reply):
    """Success reply to request ``id``; ``result`` depends on the request."""

    type: ClassVar[str] = "ok"
    id: int = _f(REQUEST_ID)
    result: dict[str, Any] = _f(OpaqueMap(), factory=dict)


@_message
class Error(Reply):
    """Failure reply to request ``id`` (nil when not tied to a request)."""

    type: ClassVar[str] = "error"
    id: int | None = _f(Nullable(REQUEST_ID), None)
    code: str = _f(CODE)
    message: str = _f(TEXT)

    @classmethod
    def from_exception(cls, exc: ProtocolError, *, id: int | None = None) -> "Error":
        """The ``error`` to send for a :class:`ProtocolError` (id: ``exc.request_id``)."""
        request_id = id if id is not None else exc.request_id
        message = exc.message if len(exc.message) <= 1000 else exc.message[:997] + "..."
        return cls(id=request_id, code=exc.code, message=message)


@_message
class Tables(Push):
    """The lobby changed: the full current list of tables."""

    type: ClassVar[str] = "tables"
    tables: tuple[TableSummary, ...] = _f(ListOf(Nested(TableSummary), 0, 500))


@_message
class View(Push):
    """Your complete current view of your table.

    ``table``: the server's facts (members, host, state...); ``game``: the
    game's own view for you, exactly as the game made it (nil before a game);
    ``decision``: the id of the decision the game awaits (nil when none), which
    changes exactly when a new decision is awaited; ``deadline_ms``: the time
    left for it (nil when no clock runs).
    """

    type: ClassVar[str] = "view"
    table_id: str = _f(TABLE_ID)
    table: dict[str, Any] = _f(OpaqueMap())
    game: dict[str, Any] | None = _f(Nullable(OpaqueMap()), None)
    decision: tuple[Any, ...] | None = _f(DECISION, None)
    deadline_ms: int | None = _f(DEADLINE_MS, None)


@_message
class Event(Push):
    """Things that just happened at your table, oldest first."""

    type: ClassVar[str] = "event"
    table_id: str = _f(TABLE_ID)
    events: tuple[dict[str, Any], ...] = _f(ListOf(OpaqueMap(require_kind=True), 1, 200))


@_message
class ChatMessage(Push):
    """A chat line at your table (``seat`` nil: a spectator or the server)."""

    type: ClassVar[str] = "chat_message"
    table_id: str = _f(TABLE_ID)
    seat: int | None = _f(Nullable(SEAT), None)
    name: str = _f(NAME)
    text: str = _f(TEXT)
    ts: int = _f(TIMESTAMP)


@_message
class Notice(Push):
    """Something the server tells you wherever you are (only after you asked with ``notices``): ``kind``
    ``announcement`` (the operator's), ``removed`` (the host removed you from a table)."""

    type: ClassVar[str] = "notice"
    kind: str = _f(CODE)
    text: str = _f(TEXT)
    ts: int = _f(TIMESTAMP)


@_message
class Online(Push):
    """The players online changed (to a connection in the lobby that asked ``list_online``)."""

    type: ClassVar[str] = "online"
    players: tuple[OnlinePlayer, ...] = _f(ListOf(Nested(OnlinePlayer), 0, MAX_ONLINE))
    total: int = _f(COUNT)


@_message
class Invitation(Push):
    """A host invites you to their table: ``join`` it (without its private code) within ``expires_ms``."""

    type: ClassVar[str] = "invitation"
    table_id: str = _f(TABLE_ID)
    table_name: str = _f(TABLE_NAME)
    title: str = _f(TITLE)
    host: str = _f(NAME)
    private: bool = _f(Bool())
    expires_ms: int = _f(Int(0, 2**31 - 1))


@_message
class Bye(Push):
    """The server is closing the connection."""

    type: ClassVar[str] = "bye"
    reason: str = _f(CODE)
    message: str = _f(TEXT)


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


def _remote_from_frame(*args: Any, **kwargs: Any) -> RemoteProtocolError:
    """Makes the same errors as :class:`RemoteProtocolError`; passed as ``err`` it
    also tells opaque maps that :func:`~protocol.framing.decode_body` has already
    walked the whole frame (keys, depth, types), so they need not walk it again."""
    return RemoteProtocolError(*args, **kwargs)


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

