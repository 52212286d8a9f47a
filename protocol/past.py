"""The messages about the past: the table's last rounds, your own rounds and games a page at a time,
one finished round's replay."""

from typing import ClassVar

from .fields import CURSOR, PAGE, REQUEST_ID, TABLE_ID
from .schema import Int, Nullable, Request, _f, _message


@_message
class History(Request):
    """Ask for the last ``limit`` finished rounds; ok result ``{rounds: [...]}``."""

    type: ClassVar[str] = "history"
    id: int = _f(REQUEST_ID)
    limit: int = _f(Int(1, 100), 10)


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
