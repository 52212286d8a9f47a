"""A practice table: a table of one's own against bots, dealt at once.

The requests that set it up, on any server: the practice game's own server in
this process (``dab-client`` without an address) or a real one (the lobby's
``b`` key). Imports no server code.
"""

from __future__ import annotations

from typing import Any, Iterator

from protocol import messages as m


def practice_requests(game: str, bots: int, name: str = "Practice", level: str | None = None) -> Iterator[
        tuple[type[m.Request], dict[str, Any]]]:
    """``create_table`` of ``game`` with a seat for each of ``bots`` bots, ``add_bot`` for each (of ``level``;
    ``None``: the server's usual level, asked without one), and ``start``: to be sent in order, each after the
    last one's reply."""
    yield m.CreateTable, {"name": name, "settings": m.TableSettings(game=game, seats=bots + 1)}
    for _ in range(bots):
        yield m.AddBot, {} if level is None else {"level": level}
    yield m.Start, {}
