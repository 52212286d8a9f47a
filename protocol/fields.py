"""The protocol's numbers and its reusable field types (the limits docs/PROTOCOL.md tabulates).

Each limit has one owner here: the server checks against it, the clients size their input by it,
and the message modules build their fields from these :class:`~protocol.schema.Spec` objects.
"""

from .schema import Int, ListOf, Nullable, OpaqueMap, Scalar, Str

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


TABLE_STATE = Str(choices=("waiting", "playing", "finished"))
ACTION = OpaqueMap(require_kind=True, max_keys=MAX_ACTION_KEYS)
HEX = Str(1, 1000, pattern=r"[0-9a-f]+", what="lowercase hex digits")  # its length is the game's to check
DECISION = Nullable(ListOf(Scalar(), 0, 16))
DEADLINE_MS = Nullable(Int(0, 2**31 - 1))
CURSOR = Nullable(Int(0, 2**53))
"""Where a page of the past starts: the last page's ``next`` (nil: from the newest)."""
PAGE = Int(1, 50)
