"""A practice game: a server inside this process, on 127.0.0.1, with bots.

Only imported in practice mode, so connecting to a real server never loads the
server package.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.lobby import Lobby, LobbyConfig
from server.net import GameServer, NetConfig
from server.table import TableConfig

from . import __version__
from .practice_table import practice_requests
from .session import Session


@dataclass
class PracticeOptions:
    game: str = "down-and-back"
    bots: int | None = None  # None: the game's usual number (its GameType's practice_bots)
    level: str | None = None  # the bots' level, one of the game's bot_levels (None: the game's default)
    bot_delay: float = 0.8
    turn_timeout: float = 300.0
    round_pause: float = 3.0
    seed: bytes | None = None


def practice_bots(options: PracticeOptions) -> int:
    """How many bots the practice seats: the asked number, else the game's usual one."""
    if options.bots is not None:
        return options.bots
    from engine.games import find_game

    return find_game(options.game).practice_bots


async def start_server(options: PracticeOptions) -> GameServer:
    table = TableConfig(turn_timeout=options.turn_timeout, bot_delay=options.bot_delay,
                        away_delay=min(options.bot_delay, 0.3), round_pause=options.round_pause)
    # One player: replays are worked out in this process (a worker process would cost more than it saves).
    lobby = Lobby(LobbyConfig(table=table, seed=options.seed, history_worker=False),
                  f"dab-client {__version__} (practice)")
    server = GameServer(lobby, NetConfig(rate=200.0, burst=400.0))
    await server.start("127.0.0.1", 0, warm=False)  # the board warms its tables after the first paint
    return server


async def set_up_table(session: Session, bots: int, game: str = "down-and-back", level: str | None = None) -> None:
    """Create the practice table of ``game``, seat the bots (of ``level``; ``None``: the game's default) and deal."""
    for kind, fields in practice_requests(game, bots, level=level):
        await session.request(kind, **fields)


async def start_practice(name: str, options: PracticeOptions) -> tuple[GameServer, Session]:
    """A running practice server and a session seated at its started table."""
    server = await start_server(options)
    session = Session("127.0.0.1", server.port, name)
    try:
        await session.connect()
        await set_up_table(session, practice_bots(options), options.game, options.level)
    except BaseException:
        await session.close()
        await server.close(grace=0.2)
        raise
    return server, session
