"""``dab-client [host[:port]]``: play Down and Back in the terminal; ``dab-client verify FILE``: check every
deal of an exported history (``dab-server export --format json``) offline; ``dab-client token [host[:port]]``:
print the resume token kept for a server (to play as the same player in a browser).

With an address it connects to that server; without one it starts a practice
game (a server and three bots inside this process). Connection problems are
reported in one line on stderr with a non-zero exit code, before the terminal
switches to full screen.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from . import __version__
from .address import DEFAULT_PORT, AddressError, parse_address
from .config import ClientConfig, config_dir, login_name
from .games import DEFAULT_GAME, playable_games

if TYPE_CHECKING:
    from .app import DabApp, JoinNote

PROG = "dab-client"
EXIT_USAGE, EXIT_CONNECT = 2, 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Play Down and Back (the Lancashire pub card game) or Cribbage in your terminal. "
                    "Give a server address to join friends; give none for a practice game against bots.",
        epilog="Keys: F1 or ? shows the rules and keys; ctrl+q quits. Checking an exported history's deals: "
               f"{PROG} verify --help. Your token for a server, to play as yourself in a browser: {PROG} token --help",
    )
    parser.add_argument("address", nargs="?", metavar="HOST[:PORT]",
                        help=f"server to join (port {DEFAULT_PORT} if omitted; IPv6 as [::1]:{DEFAULT_PORT}); "
                             "leave out for a practice game")
    parser.add_argument("--name", help="your name at the table (default: remembered, else your login name)")
    parser.add_argument("--ascii", action="store_true", help="no Unicode suit symbols or box drawing for cards")
    parser.add_argument("--four-colour", "--four-color", dest="four_colour", action="store_true",
                        help="four-colour deck: clubs green, diamonds blue, hearts red, spades plain")
    practice = parser.add_argument_group("practice game (no address)")
    practice.add_argument("--game", choices=playable_games(), default=None,
                          help=f"the game to practise (default: the last one practised, else {DEFAULT_GAME}; "
                               "remembered)")
    practice.add_argument("--bots", type=int, default=None, metavar="N",
                          help="number of bots, 1 to one fewer than the game seats (default: the game's usual "
                               "number)")
    practice.add_argument("--level", default=None, metavar="LEVEL",
                          help="how well the bots play, one of the game's bot levels (default: the last one "
                               "asked for, else the game's usual; remembered)")
    practice.add_argument("--bot-delay", type=float, default=0.8, metavar="SECONDS",
                          help="pause before each bot move (default 0.8)")
    practice.add_argument("--turn-timeout", type=float, default=300.0, metavar="SECONDS",
                          help="time for each of your decisions before it is played for you (default 300)")
    parser.add_argument("--join", metavar="TABLE", help="take a seat at this table (e.g. t3) once connected")
    parser.add_argument("--config-dir", default=None, help=argparse.SUPPRESS)
    # dab-server's SSH and browser gateways: the host the player's own connection reached, for the join line.
    parser.add_argument("--public-host", default=None, help=argparse.SUPPRESS)
    # dab-server's SSH gateway: the token arrives on this pipe and nothing is remembered on disk.
    parser.add_argument("--token-fd", type=int, default=None, help=argparse.SUPPRESS)
    # dab-server's gateways: the name the player knows the server by (its clients reach it over loopback).
    parser.add_argument("--server-label", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--seed", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return parser


def error(text: str) -> None:
    print(f"{PROG}: {text}", file=sys.stderr)


def bench_hooks() -> dict[str, Any]:
    """Benchmark support: markers on the file descriptor in ``DAB_BENCH_FD``."""
    fd_text = os.environ.get("DAB_BENCH_FD")
    if not fd_text:
        return {}
    fd = int(fd_text)
    exit_after_paint = os.environ.get("DAB_BENCH_EXIT") == "1"
    app_ref: list[DabApp] = []

    def painted() -> None:
        os.write(fd, f"paint {time.perf_counter():.6f} {time.process_time():.6f}\n".encode())
        if exit_after_paint and app_ref:
            app_ref[0].exit()

    def on_view(view: dict[str, Any]) -> None:
        me = view["table"].get("seat")
        game = view.get("game") or {}
        mine = int(me in (game.get("to_act") or []))
        os.write(fd, f"view {time.perf_counter():.6f} {me} {mine} {game.get('phase')} {game.get('turn')} "
                     f"{game.get('step')} {game.get('round')}\n".encode())

    return {"on_table_painted": painted, "on_view": on_view, "_app_ref": app_ref}


async def run(args: argparse.Namespace, config: ClientConfig) -> int:
    from protocol.messages import NAME_MAX

    from .link import LinkError
    from .render import Display
    from .session import Session

    name = (args.name or config.name or login_name()).strip()[:NAME_MAX].rstrip() or "player"  # no "Ann 's table"
    display = Display(ascii=args.ascii, four_colour=args.four_colour)
    hooks = bench_hooks()
    app_ref = hooks.pop("_app_ref", [])
    server = None
    expect_table = False
    note = None
    if args.address is None:
        from .practice import PracticeOptions, start_practice

        game = args.game or (config.practice_game if config.practice_game in playable_games() else DEFAULT_GAME)
        from engine.games import find_game

        game_type = find_game(game)  # the game says how many it seats and how its bots play
        most = game_type.max_seats - 1
        if args.bots is not None and not 1 <= args.bots <= most:
            error(f"{game_type.title} seats at most {game_type.max_seats}: give --bots 1 to {most}")
            return EXIT_USAGE
        levels = game_type.bot_levels
        if args.level is not None and args.level not in levels:
            error(f"{game} bots play at {', '.join(levels)}: give --level one of them")
            return EXIT_USAGE
        level = args.level or (config.practice_level if config.practice_level in levels else None)
        options = PracticeOptions(game=game, bots=args.bots, level=level, bot_delay=max(0.0, args.bot_delay),
                                  turn_timeout=max(1.0, args.turn_timeout),
                                  seed=args.seed.encode() if args.seed else None)
        try:
            server, session = await start_practice(name, options)
        except (LinkError, OSError) as exc:
            error(f"cannot start the practice game: {getattr(exc, 'message', exc)}")
            return EXIT_CONNECT
        label = "practice"
        config.name, config.practice_game = name, game
        config.practice_level = args.level or config.practice_level
    else:
        try:
            address = parse_address(args.address)
        except AddressError as exc:
            error(str(exc))
            return EXIT_USAGE
        key = str(address)
        token = config.tokens.get(key)
        if args.name and config.name and args.name.strip() != config.name:
            token = None  # a new name is a new player
        session = Session(address.host, address.port, name, token)
        try:
            await session.connect()
        except LinkError as exc:
            if exc.code in ("unreachable", "disconnected", "timeout", "not_dab"):
                refusal = exc.message
            else:
                refusal = f"{address} refused the connection: {exc.message} ({exc.code})"
            error(refusal)
            await tell_browser(refusal)
            return EXIT_CONNECT
        config.name, config.last_server = name, key
        if session.token:
            config.tokens[key] = session.token
        label = args.server_label or key
        if args.join and session.welcome is not None and session.welcome.table_id is None:
            note = await join(session, args.join)
            expect_table = note.code is None
    config.save()

    from protocol.messages import is_host

    from .app import DabApp

    app = DabApp(session, display=display, server_label=label, player_name=name, config=config,
                 expect_table=expect_table or server is not None, on_started=started, practice=server is not None,
                 pin_as=None if server is not None else label,
                 public_host=args.public_host if args.public_host and is_host(args.public_host) else None,
                 join_note=note, **hooks)
    app_ref.append(app)
    try:
        await app.run_async()
    finally:
        await session.close()
        if server is not None:
            await server.close(grace=0.5)
    if app.fatal_error:
        error(app.fatal_error)
        await tell_browser(app.fatal_error)  # (a ban, say, while playing in a tab)
        return app.return_code or 1
    return app.return_code or 0


async def tell_browser(text: str) -> None:
    """In a browser tab (dab-server --web-port) standard error reaches nobody: the tab shows why, until a key."""
    if "TEXTUAL_DRIVER" not in os.environ:  # (a terminal: the line on stderr says it)
        return
    from .app import WEB_DRIVER, NoticeApp

    if os.environ["TEXTUAL_DRIVER"] == WEB_DRIVER:
        await NoticeApp(f"Cannot play: {text}").run_async()


async def join(session: Any, table_id: str) -> "JoinNote":
    """``--join``: take a seat before the app starts. Where every seat is taken (or the game takes nobody new),
    watch instead, as the lobby does; any other refusal is said in the lobby, where it stays (a line on stderr
    would vanish behind the full-screen app)."""
    from protocol import LocalProtocolError
    from protocol import messages as m

    from .app import JoinNote
    from .link import LinkError

    try:
        await session.request(m.Join, table_id=table_id)
    except LocalProtocolError:  # not a table id at all (the SSH command "t 3", say)
        return JoinNote(table_id, "no_such_table", f"There is no table {table_id!r}: table ids look like t3.")
    except LinkError as exc:
        if exc.code not in ("table_full", "game_running"):
            return JoinNote(table_id, exc.code, join_refusal(table_id, exc.code, exc.message))
        why = "Every seat is taken" if exc.code == "table_full" else exc.message.removesuffix("; you can watch instead")
        try:
            await session.request(m.Watch, table_id=table_id)
        except LinkError as again:
            return JoinNote(table_id, again.code, f"Could not join {table_id} ({why.lower()}) nor watch it: "
                                                  f"{again.message}.")
        return JoinNote(table_id, None, f"{why} at {table_id}: you are watching it instead.")
    return JoinNote(table_id, None, "")


def join_refusal(table_id: str, code: str, message: str) -> str:
    """What the lobby says of a ``--join`` the server refused."""
    if code == "wrong_code":
        return f"{table_id} is private: give its code (Enter on it in the list)."
    if code == "no_such_table":
        return f"No table {table_id} here (any more): pick one below, or n for a new one."
    return f"Could not join {table_id}: {message}."


def build_verify_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} verify",
        description="Check every deal of an exported history offline (docs/FAIRNESS.md): each round's "
                    "signatures (all by one server key), its binding to its table, its seed phases and window, "
                    "its revealed seed against its commitment, and every card each seat and a spectator saw "
                    "against the deck made from the seed, the client seeds and the cut. Each round's line says "
                    "what it proves. Exit code 0: every round verified; 1: one did not (or there was none); 2: "
                    "the file cannot be read.",
    )
    parser.add_argument("file", metavar="FILE", help="the output of dab-server export --format json ('-': stdin)")
    pin = parser.add_mutually_exclusive_group()
    pin.add_argument("--key", metavar="FINGERPRINT", default=None,
                     help="the server key the rounds must be signed by (SHA256:..., as dab-server prints it)")
    pin.add_argument("--server", metavar="HOST[:PORT]", default=None,
                     help="the server whose key this client pinned (its known_servers) must have signed them")
    parser.add_argument("--config-dir", default=None, help=argparse.SUPPRESS)
    return parser


def verify(argv: list[str]) -> int:
    """``dab-client verify FILE``: one line per round, the exit code saying whether all verified."""
    import json

    from .fairness import verify_export

    args = build_verify_parser().parse_args(argv)
    try:
        if args.file == "-":
            history = json.load(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as source:
                history = json.load(source)
    except (OSError, ValueError) as exc:
        error(f"verify: cannot read {args.file}: {exc}")
        return EXIT_USAGE
    pinned = args.key
    if args.server is not None:
        from engine.fairness import fingerprint

        from .fairness import KNOWN_SERVERS, KnownServers

        try:
            where = str(parse_address(args.server))
        except AddressError as exc:
            error(f"verify: {exc}")
            return EXIT_USAGE
        key = KnownServers(config_dir(args.config_dir) / KNOWN_SERVERS).keys.get(where)
        if key is None:
            error(f"verify: this client has pinned no key for {where} (play there once first, or give --key)")
            return EXIT_USAGE
        pinned = fingerprint(bytes.fromhex(key))
    lines, ok = verify_export(history, pinned)
    for line in lines:
        print(line)
    print("every deal verified" if ok else "NOT every deal verified", file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


def build_token_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} token",
        description="Print the resume token this client keeps for a server (default: the last one played on), "
                    "to play as the same player in a browser: the page of dab-server --web-port asks for it. "
                    "Whoever has the token plays as you: give it only to that server's page.",
    )
    parser.add_argument("address", nargs="?", metavar="HOST[:PORT]", help="the server, as you gave it to "
                        f"{PROG} (default: the last one)")
    parser.add_argument("--config-dir", default=None, help=argparse.SUPPRESS)
    # dab-server's SSH and browser gateways: the host the player's own connection reached, for the join line.
    parser.add_argument("--public-host", default=None, help=argparse.SUPPRESS)
    return parser


def show_token(argv: list[str]) -> int:
    """``dab-client token [HOST[:PORT]]``: the kept token on stdout; exit code 1 if there is none."""
    args = build_token_parser().parse_args(argv)
    config = ClientConfig.load(args.config_dir)
    wanted = args.address or config.last_server
    if not wanted:
        error("token: no server played on yet: give HOST[:PORT]")
        return 1
    try:
        key = str(parse_address(wanted))
    except AddressError as exc:
        error(f"token: {exc}")
        return EXIT_USAGE
    token = config.tokens.get(key)
    if not token:
        error(f"token: this client keeps no token for {key} (play there once first)")
        return 1
    print(token)
    return 0


def build_forget_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} forget-key",
        description="Forget the key this client pinned for a server (like removing its line from SSH's "
                    "known_hosts): do it only when the server's operator says they changed the key; the next "
                    "key it shows is pinned then.",
    )
    parser.add_argument("address", metavar="HOST[:PORT]", help="the server, as you gave it to " + PROG)
    parser.add_argument("--config-dir", default=None, help=argparse.SUPPRESS)
    return parser


def forget_key(argv: list[str]) -> int:
    from .fairness import KNOWN_SERVERS, KnownServers

    args = build_forget_parser().parse_args(argv)
    try:
        where = str(parse_address(args.address))
    except AddressError as exc:
        error(f"forget-key: {exc}")
        return EXIT_USAGE
    if not KnownServers(config_dir(args.config_dir) / KNOWN_SERVERS).forget(where):
        error(f"forget-key: this client has pinned no key for {where}")
        return 1
    print(f"forgot the key pinned for {where}")
    return 0


def start_up_without_collecting() -> None:
    """Pause the cyclic garbage collector until the first screen is painted (:func:`started`).

    Start-up builds ~60,000 long-lived objects (Textual, the protocol's
    classes, the table's widgets) and frees few: the ~150 collections they
    trigger found ~3,000 unreachable objects and cost 40-100 ms of CPU on a
    2-core VM, a tenth to a fifth of the time to the first painted table.
    """
    gc.disable()


def started() -> None:
    """The first screen is painted: collect from now on, never rescanning what start-up built.

    ``gc.freeze`` moves the objects alive now (and start-up's few thousand
    unreachable ones) to the permanent generation, so the next full collection
    does not traverse them (~40 ms on a busy 2-core VM: a stutter mid-game).
    """
    gc.freeze()
    gc.enable()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["verify"]:
        return verify(argv[1:])
    if argv[:1] == ["token"]:
        return show_token(argv[1:])
    if argv[:1] == ["forget-key"]:
        return forget_key(argv[1:])
    start_up_without_collecting()
    try:
        return play(argv)
    finally:
        gc.enable()  # main() returns (and tests call it in-process) without a first paint, too


def play(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.token_fd is not None:
        with os.fdopen(args.token_fd, encoding="ascii") as pipe:
            token = pipe.read().strip()
        try:
            key = str(parse_address(args.address or ""))
        except AddressError:
            key = ""
        config = ClientConfig(name=args.name, tokens={key: token} if token and key else {})
    else:
        config = ClientConfig.load(args.config_dir)
    try:
        return asyncio.run(run(args, config))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
