"""The lobby's messages and records: the tables (their settings and summaries), creating, joining and
watching one, who is online and invitations, the leaderboard, mutes."""

from typing import Any, ClassVar

from .fields import (
    COUNT,
    DEFAULT_GAME,
    GAME_NAME,
    MAX_SEATS,
    NAME,
    PAGE,
    PRIVATE_CODE,
    SEAT,
    SEAT_COUNT,
    TABLE_ID,
    TABLE_NAME,
    TABLE_STATE,
    TITLE,
    REQUEST_ID,
)
from .schema import Bool, Int, ListOf, Nested, Nullable, OpaqueMap, Push, Record, Request, Str, _f, _message, _struct


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
class Tables(Push):
    """The lobby changed: the full current list of tables."""

    type: ClassVar[str] = "tables"
    tables: tuple[TableSummary, ...] = _f(ListOf(Nested(TableSummary), 0, 500))


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
