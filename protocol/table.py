"""The messages at a table: the host's keys, playing and sitting out, chat, the rematch, removing a
player, and the table's pushes (``view``, ``event``, ``chat_message``)."""

from typing import Any, ClassVar

from .fields import ACTION, BOT_LEVEL, CHAT_TEXT, DEADLINE_MS, DECISION, NAME, REQUEST_ID, SEAT, TABLE_ID, TEXT, TIMESTAMP
from .schema import Bool, ListOf, Nullable, OpaqueMap, Push, Request, _f, _message


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
class Chat(Request):
    """Say something at your table."""

    type: ClassVar[str] = "chat"
    id: int = _f(REQUEST_ID)
    text: str = _f(CHAT_TEXT)


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
class RemovePlayer(Request):
    """Host only: remove the player of that ``name`` (seated or watching) from your table, for good.
    Ok result ``{name, at_round_end}``."""

    type: ClassVar[str] = "remove_player"
    id: int = _f(REQUEST_ID)
    name: str = _f(NAME)


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
