"""``dab-server``: host Down and Back tables on a TCP port."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys

from protocol.messages import DEFAULT_PORT

from . import __version__
from .lobby import Lobby, LobbyConfig
from .net import GameServer, NetConfig
from .table import TableConfig

log = logging.getLogger("dab-server")


def positive(kind):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dab-server",
        description="Host Down and Back card tables that friends join with dab-client.",
    )
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all interfaces; "
                        "use 127.0.0.1 to allow only this machine, e.g. for SSH-only play)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    parser.add_argument("--ante", type=positive(int), default=10, help="default ante for new tables (default 10)")
    parser.add_argument("--stack", type=positive(int), default=1000, help="default starting stack (default 1000)")
    parser.add_argument("--turn-timeout", type=positive(float), default=60.0, metavar="SECONDS",
                        help="time for each decision before the server plays it (default 60)")
    parser.add_argument("--bot-delay", type=float, default=0.6, metavar="SECONDS",
                        help="pause before a bot acts, so people can follow (default 0.6)")
    parser.add_argument("--round-pause", type=float, default=6.0, metavar="SECONDS",
                        help="pause after a showdown before the next deal (default 6)")
    parser.add_argument("--max-connections", type=positive(int), default=1000)
    parser.add_argument("--data-dir", default=None, help="where the server keeps its database "
                        "(default: the platform's user data directory)")
    parser.add_argument("--seed", default=None, help="fixed shuffle seed (testing and replays only)")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument("--version", action="version", version=f"dab-server {__version__}")
    return parser


def config_from(args: argparse.Namespace) -> tuple[LobbyConfig, NetConfig]:
    table = TableConfig(turn_timeout=args.turn_timeout, bot_delay=args.bot_delay, round_pause=args.round_pause)
    lobby = LobbyConfig(
        table=table, default_ante=args.ante, default_stack=args.stack,
        seed=args.seed.encode() if args.seed else None,
    )
    return lobby, NetConfig(max_connections=args.max_connections)


async def serve(args: argparse.Namespace) -> int:
    lobby_config, net_config = config_from(args)
    server = GameServer(Lobby(lobby_config, f"dab-server {__version__}"), net_config)
    try:
        await server.start(args.host, args.port)
    except OSError as exc:
        log.error("cannot listen on %s:%s: %s", args.host, args.port, exc.strerror or exc)
        return 2
    log.info("Down and Back server listening on %s", ", ".join(server.addresses))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    serving = asyncio.create_task(server.serve_forever())
    await stop.wait()
    log.info("shutting down: telling clients")
    await server.close()
    serving.cancel()
    log.info("stopped")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    try:
        return asyncio.run(serve(args))
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
