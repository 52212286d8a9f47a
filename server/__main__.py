"""``dab-server``: host Down and Back tables on a TCP port.

    dab-server [--data-dir DIR] [options]          serve (state kept in DIR)
    dab-server export [--data-dir DIR] [--table ID] [--format json|text]
    dab-server grant [--data-dir DIR] PLAYER CHIPS  (server stopped)
    dab-server stats [--host H] [--port P] [--json]  (a running server's health)
    dab-server ban [--data-dir DIR] [--reason TEXT] player|key|address TARGET
    dab-server unban [--data-dir DIR] player|key|address TARGET
    dab-server bans [--data-dir DIR]
    dab-server say [--data-dir DIR] TEXT        (a line to everyone online)

The server keeps players, balances, tables and every action in an SQLite
database in the data directory (default: the platform's user data directory),
so a crash or restart loses nothing. A database that is corrupt, not ours, or
written by a newer version is refused with exit code 2 and a clear message.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import json
import logging
import os
import signal
import socket
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.messages import DEFAULT_PORT, is_host

from . import __version__
from . import capacity
from .gateway import SESSION_CLIENTS, GatewayThread
from .keys import BadKeyFile, ServerKey
from .lobby import Lobby, LobbyConfig, server_key
from .net import GameServer, NetConfig, warm_games
from .limits import address_key
from .ssh_config import SshConfig, loopback
from .store import DB_NAME, Store, StoreError
from .table import SEED_WINDOW_MAX, TableConfig

if TYPE_CHECKING:
    from .ssh import SshGateway

log = logging.getLogger("dab-server")
MISSING_SSH = "--ssh-port needs the SSH gateway's extra: pip install 'down-and-back[ssh]' (asyncssh)"
MISSING_WEB = "--web-port needs the browser extra: pip install 'down-and-back[web]' (textual-serve)"


def at_least(kind, low):
    def parse(text: str):
        value = kind(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {text}")
        return value

    return parse


def positive(kind):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
        return value

    return parse


def host_name(text: str) -> str:
    """A host name or an IP address (what a join line may show; IPv6 with or without brackets)."""
    host = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    if not is_host(host):
        raise argparse.ArgumentTypeError(f"not a host name or an IP address: {text!r}")
    return host


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dab-server",
        description="Host Down and Back card tables that friends join with dab-client.",
        epilog="Hand histories: dab-server export --help",
    )
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all interfaces; "
                        "use 127.0.0.1 to allow only this machine, e.g. for SSH-only play)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    parser.add_argument("--public-host", type=host_name, default=None, metavar="NAME",
                        help="the name or address friends reach this machine by (e.g. cards.example.org), for the "
                        "join line each table shows (default: each player's client shows the host it connected to)")
    parser.add_argument("--turn-timeout", type=positive(float), default=60.0, metavar="SECONDS",
                        help="time for each decision before the server plays it (default 60)")
    parser.add_argument("--bot-delay", type=float, default=0.6, metavar="SECONDS",
                        help="pause before a bot acts, so people can follow (default 0.6)")
    parser.add_argument("--absent-grace", type=float, default=TableConfig.absent_grace, metavar="SECONDS",
                        help="how long a disconnected player's decision waits for them before the server "
                        f"plays it (default {TableConfig.absent_grace:g}; a player who left or sits out is "
                        "played at once)")
    parser.add_argument("--round-pause", type=float, default=TableConfig.round_pause, metavar="SECONDS",
                        help="pause after each round (a deal and its showdown or show) before the next "
                        f"(default {TableConfig.round_pause:g})")
    parser.add_argument("--seed-window", type=at_least(float, 0), default=TableConfig.seed_window, metavar="SECONDS",
                        help="how long a round's deal waits for the players' seeds before it is fixed without "
                        "the missing ones (docs/FAIRNESS.md; at most 60; the reference client sends its seed at "
                        f"once, so friends never wait; default {TableConfig.seed_window:g})")
    parser.add_argument("--restore-grace", type=positive(float), default=LobbyConfig.restore_grace,
                        metavar="SECONDS", help="after a restart, how long a seat at a table that is not playing "
                        f"waits for its player to come back (default {LobbyConfig.restore_grace:g})")
    parser.add_argument("--max-connections", type=positive(int), default=NetConfig.max_connections,
                        help=f"connections in all (default {NetConfig.max_connections})")
    parser.add_argument("--max-tables", type=positive(int), default=LobbyConfig.max_tables, metavar="N",
                        help=f"tables held at once, of every state (default {LobbyConfig.max_tables}); one more is "
                        "refused with server_full")
    parser.add_argument("--max-per-address", type=positive(int), default=NetConfig.max_per_address, metavar="N",
                        help=f"connections from one IP address (an IPv6 /64) (default {NetConfig.max_per_address}; "
                        "raise it if players share an address, e.g. all come through an SSH gateway; the clients of "
                        "dab-server's own SSH and browser gateways are counted by their SSH or browser address instead)")
    parser.add_argument("--new-players-per-hour", type=positive(int), default=NetConfig.new_players_per_hour,
                        metavar="N", help="new identities (hellos without a token) one address may create per "
                        f"hour, all at once if it likes (default {NetConfig.new_players_per_hour}; over SSH: "
                        "guests and keys never seen, per SSH address; in a browser: each guest, per browser address)")
    parser.add_argument("--request-rate", type=positive(float), default=NetConfig.rate, metavar="PER_SECOND",
                        help=f"sustained requests per second allowed per connection, bursts of twice that "
                        f"(default {NetConfig.rate:g})")
    parser.add_argument("--data-dir", default=None, help=f"where the server keeps its database {DB_NAME} "
                        "(default: the platform's user data directory)")
    parser.add_argument("--memory", action="store_true", help="keep nothing on disk: every chip and table is "
                        "lost when the server stops (testing only)")
    parser.add_argument("--no-group-commit", action="store_true", help="commit each request on its own, "
                        "on the event loop, instead of grouped in the writer thread (slower under load; for measurements)")
    parser.add_argument("--starting-balance", type=at_least(int, 0), default=10_000, metavar="CHIPS",
                        help="chips a new player starts with (default 10000). They are free to anyone who connects "
                        "without a token; use 0, and dab-server grant, if chips should mean something")
    ssh = parser.add_argument_group("SSH gateway (friends type: ssh -t -p PORT name@host; needs the [ssh] extra)")
    ssh.add_argument("--ssh-port", type=at_least(int, 0), default=None, metavar="PORT",
                     help="also accept SSH sessions on this port, each playing in a dab-client run by the server "
                     "(default: off; 2222 is usual)")
    ssh.add_argument("--ssh-host", default=None, help="address for SSH (default: the same as --host)")
    ssh.add_argument("--no-ssh-guests", dest="ssh_guests", action="store_false",
                     help="admit only sessions with an SSH key (by default sessions without one play as guests, "
                     "whose chips do not persist)")
    ssh.add_argument("--ssh-max-sessions", type=positive(int), default=None, metavar="N",
                     help="SSH sessions in all (default: what this machine's memory and cores hold, logged at "
                     "start; README 'Sizing')")
    ssh.add_argument("--ssh-max-per-address", type=positive(int), default=SshConfig.max_per_address,
                     metavar="N", help=f"SSH sessions from one address (default {SshConfig.max_per_address})")
    ssh.add_argument("--ssh-max-per-connection", type=positive(int), default=SshConfig.max_per_connection,
                     metavar="N", help="SSH sessions open at once on one connection (default "
                     f"{SshConfig.max_per_connection}); a connection and each session beyond its first count "
                     "against --ssh-max-sessions and --ssh-max-per-address")
    ssh.add_argument("--ssh-auth-timeout", type=positive(float), default=SshConfig.auth_timeout,
                     metavar="SECONDS", help="time to authenticate, and then to open a session (default "
                     f"{SshConfig.auth_timeout:g})")
    ssh.add_argument("--ssh-login-rate", type=positive(float), default=SshConfig.login_rate, metavar="PER_SECOND",
                     help=f"new SSH connections per second from one address (default {SshConfig.login_rate:g}), in "
                     "bursts of 30 seconds' worth (at least 30); an address whose connections keep ending without "
                     "logging in waits longer each time")
    ssh.add_argument("--ssh-idle-timeout", type=positive(float), default=SshConfig.idle_timeout,
                     metavar="SECONDS", help="an SSH session without a keystroke this long is closed, unless its "
                     f"player is at a table (default {SshConfig.idle_timeout:g})")
    web = parser.add_argument_group("browser (needs the [web] extra)")
    web.add_argument("--web-port", type=at_least(int, 0), default=None, metavar="PORT",
                     help="also serve the client to browsers on this port (default: off; 8080 is usual)")
    web.add_argument("--web-host", default=None, help="address for the browser port (default: the same as --host)")
    web.add_argument("--no-web-guests", dest="web_guests", action="store_false",
                     help="admit only players who give their token (by default a tab without one plays as a "
                     "guest, whose chips do not persist)")
    web.add_argument("--web-max-sessions", type=positive(int), default=None, metavar="N",
                     help="browser tabs in all (default: what this machine's memory and cores hold, logged at "
                     "start; README 'Sizing')")
    web.add_argument("--web-max-per-address", type=positive(int), default=10, metavar="N",
                     help="browser tabs playing at once from one address (default 10)")
    web.add_argument("--web-origin", action="append", default=[], metavar="URL",
                     help="another origin whose pages may open the game's WebSocket, e.g. "
                     "https://cards.example.org behind a proxy that changes the Host (repeatable; by default only "
                     "the page's own origin may)")
    parser.add_argument("--session-clients", choices=SESSION_CLIENTS, default="fork",
                        help="how the SSH and browser sessions' clients start: forked by a fork server that has "
                             "imported the client (default: fast, memory shared; exec where fork is not "
                             "available), or each exec'd afresh")
    parser.add_argument("--server-name", default=None, metavar="NAME", help="the name players see this server by "
                        "in the SSH and browser clients' lobby and the page's title (default: this machine's host name)")
    parser.add_argument("--seed", default=None, help="fixed shuffle seed (testing and replays only)")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument("--version", action="version", version=f"dab-server {__version__}")
    return parser


def build_export_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dab-server export",
        description="Print the hand history: every finished round (deal, actions, splits, results). "
        "JSON also holds each finished game's seed, players, settings and action log, enough to replay it. "
        "Safe while the server runs.",
    )
    parser.add_argument("--data-dir", default=None, help="the server's data directory (default: the platform's "
                        "user data directory)")
    parser.add_argument("--table", default=None, metavar="ID", help="only this table (e.g. t3)")
    parser.add_argument("--format", choices=["json", "text"], default="text")
    return parser


def data_dir(args: argparse.Namespace) -> str:
    if args.data_dir:
        return args.data_dir
    from platformdirs import user_data_dir

    return user_data_dir("down-and-back")


def config_from(args: argparse.Namespace, store: Store | None = None,
                key: ServerKey | None = None) -> tuple[LobbyConfig, NetConfig]:
    table = TableConfig(turn_timeout=args.turn_timeout, bot_delay=args.bot_delay, round_pause=args.round_pause,
                        absent_grace=args.absent_grace, seed_window=min(args.seed_window, SEED_WINDOW_MAX))
    lobby = LobbyConfig(
        table=table, seed=args.seed.encode() if args.seed else None, store=store, starting_balance=args.starting_balance,
        group_commit=not args.no_group_commit, restore_grace=args.restore_grace, key=key,
        public_host=args.public_host, max_tables=args.max_tables,
    )
    net = NetConfig(max_connections=args.max_connections, max_per_address=args.max_per_address,
                    new_players_per_hour=args.new_players_per_hour, rate=args.request_rate,
                    burst=2 * args.request_rate,
                    # The gateways' clients come from here; they limit them per SSH or browser address instead.
                    gateway_addresses=frozenset({address_key(loopback(args.host))}
                                                if args.ssh_port is not None or args.web_port is not None else ()))
    return lobby, net


async def serve(args: argparse.Namespace, store: Store | None = None) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):  # first: a signal during the restore stops cleanly after it
        loop.add_signal_handler(sig, stop.set)
    if _stop_requested:  # a signal came before the event loop took over
        if store is not None:
            store.close()
        return 0
    try:
        key = server_key(store)
    except (BadKeyFile, OSError) as exc:
        log.error("cannot read the server's key: %s", exc)
        if store is not None:
            store.close()
        return 2
    log.info("fair deals are signed by this server's key %s (players' clients pin it; the SSH gateway's host "
             "key is the same)", key.fingerprint)
    lobby_config, net_config = config_from(args, store, key)
    warm_games()  # before the restore arms its timers (see warm_games)
    try:
        lobby = Lobby(lobby_config, f"dab-server {__version__}")
    except StoreError as exc:
        log.error("cannot restore from the database: %s", exc)
        if store is not None:
            store.close()
        return 2
    server = GameServer(lobby, net_config)
    try:
        await server.start(args.host, args.port, warm=False)  # warmed above
    except OSError as exc:
        log.error("cannot listen on %s:%s: %s", args.host, args.port, exc.strerror or exc)
        lobby.close()
        return 2
    operator = None
    if store is not None:  # dab-server ban, say...: before the line that says the server is up
        from .operator import OperatorChannel

        operator = OperatorChannel(lobby, data_dir(args))
        try:
            await operator.start()
        except OSError as exc:
            log.warning("no operator channel (dab-server ban, say...): cannot listen on %s: %s", operator.path,
                        exc.strerror or exc)
            operator = None
    # Everything built so far (modules, the games' tables, the restored state) lives as long as
    # the server: out of the collector's sight, a full collection then costs next to nothing instead of ~30 ms.
    gc.collect()
    gc.freeze()
    log.info("Down and Back server listening on %s", ", ".join(server.addresses))
    gateway = None
    thread = GatewayThread(args.session_clients) if args.ssh_port is not None or args.web_port is not None else None
    if thread is not None:
        limit = capacity.default_sessions(thread.forks is not None)
        for option in ("ssh_max_sessions", "web_max_sessions"):
            if getattr(args, option) is None:
                setattr(args, option, limit)
        log.info("session limits: %d SSH sessions, %d browser tabs (this machine holds ~%d %s clients: %s cores, "
                 "%s MB each)", args.ssh_max_sessions, args.web_max_sessions, limit,
                 "forked" if thread.forks is not None else "exec'd", os.cpu_count(),
                 capacity.session_cost_mb(thread.forks is not None))
        # each session also holds its SSH or WebSocket connection, its pty (or pipes) beside its game connection
        sessions = (args.ssh_max_sessions if args.ssh_port is not None else 0) + \
            (args.web_max_sessions if args.web_port is not None else 0)
        open_files_for(args.max_connections, FILES_PER_SESSION * sessions)
    if args.ssh_port is not None:
        gateway = await start_ssh(args, lobby, server.port, thread)
        if gateway is None:
            if operator is not None:
                await operator.close()
            await thread.stop()
            await server.close()
            return 2
    browser = None
    if args.web_port is not None:
        from .web import WebGateway

        web_host = args.host if args.web_host is None else args.web_host
        browser = WebGateway(lobby, (loopback(args.host), server.port), web_host, args.web_port,
                             args.web_max_sessions, args.web_max_per_address, args.new_players_per_hour,
                             thread, guests=args.web_guests, server_name=server_name(args),
                             origins=tuple(args.web_origin))
        try:
            await thread.run(browser.start())
        except OSError as exc:
            log.error("cannot listen for browsers on %s:%s: %s", web_host, args.web_port, exc.strerror or exc)
            if gateway is not None:
                await thread.run(gateway.close())
            if operator is not None:
                await operator.close()
            await thread.stop()
            await server.close()
            return 2
        log.info("browsers: http://%s:%s/", web_host, browser.port)
        lobby.gateway_started("web", browser.port, [web_host])
    if hasattr(signal, "SIGUSR1") and server.monitor is not None:  # the health line now, and a new period
        loop.add_signal_handler(signal.SIGUSR1, server.monitor.report, True)
    serving = asyncio.create_task(server.serve_forever())
    await stop.wait()
    log.info("shutting down: telling clients")
    if operator is not None:
        await operator.close()
    if browser is not None:
        await thread.run(browser.close())
    if gateway is not None:
        await thread.run(gateway.close())
    if thread is not None:
        await thread.stop()
    await server.close()
    serving.cancel()
    log.info("stopped")
    return 0


def server_name(args: argparse.Namespace) -> str:
    return args.server_name if args.server_name is not None else socket.gethostname()


async def start_ssh(args: argparse.Namespace, lobby: Lobby, game_port: int,
                    thread: GatewayThread) -> SshGateway | None:
    from .ssh import SshGateway

    host = args.host if args.ssh_host is None else args.ssh_host
    config = SshConfig(host=host, port=args.ssh_port, guests=args.ssh_guests, max_sessions=args.ssh_max_sessions,
                       max_per_address=args.ssh_max_per_address, max_per_connection=args.ssh_max_per_connection,
                       auth_timeout=args.ssh_auth_timeout, idle_timeout=args.ssh_idle_timeout,
                       new_players_per_hour=args.new_players_per_hour, login_rate=args.ssh_login_rate)
    gateway = SshGateway(lobby, (loopback(args.host), game_port), config, None if args.memory else data_dir(args),
                         thread, server_name(args))
    try:
        await thread.run(gateway.start())
    except OSError as exc:
        log.error("cannot listen for SSH on %s:%s: %s", host, args.ssh_port, exc.strerror or exc)
        return None
    log.info("SSH gateway listening on %s:%s; host key fingerprint %s", host, gateway.port, gateway.fingerprint)
    lobby.gateway_started("ssh", gateway.port, [host])
    return gateway


def build_grant_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dab-server grant",
        description="Give a player chips (added to their balance, with a ledger row). Run it while the server "
        "is stopped: the running server holds the balances.",
    )
    parser.add_argument("--data-dir", default=None, help="the server's data directory (default: the platform's "
                        "user data directory)")
    parser.add_argument("player", help="the player's id (the part of their token before the first _), or a name "
                        "only one player has")
    parser.add_argument("chips", type=positive(int))
    return parser


def grant(argv: list[str]) -> int:
    args = build_grant_parser().parse_args(argv)
    try:
        store = Store.open_dir(data_dir(args), create=False)
    except StoreError as exc:
        print(f"dab-server grant: error: {exc}", file=sys.stderr)
        return 2
    try:
        players = store.load_players()
        found = [p for p in players if p.player_id == args.player] or [p for p in players if p.name == args.player]
        if len(found) != 1:
            why = "no player has that id or name" if not found else f"{len(found)} players have that name: use an id"
            print(f"dab-server grant: error: {why}", file=sys.stderr)
            return 2
        (player,) = found
        store.grant(player.player_id, args.chips)
        store.commit()
    finally:
        store.close()
    print(f"{player.name} ({player.player_id}): {player.balance + args.chips} chips")
    return 0


def build_stats_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dab-server stats",
        description="Print a running server's health: its event loop's lag (p50, p99, max) and its actions and "
        "requests per second over the last minute or two, its connections, tables and uptime (the stats request). "
        "It connects as a new player without a token, which the server forgets within a day.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="the server's address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"its port (default {DEFAULT_PORT})")
    parser.add_argument("--json", action="store_true", help="print the stats result as JSON")
    return parser


def stats(argv: list[str]) -> int:
    """The ``stats`` command: a refusal or an unreachable server is one line on stderr, exit code 2."""
    from protocol import ProtocolError

    from .stats import StatsRefused, ask, describe
    args = build_stats_parser().parse_args(argv)
    address = f"{args.host}:{args.port}"
    try:
        result = asyncio.run(ask(args.host, args.port))
    except (OSError, asyncio.TimeoutError, ProtocolError, StatsRefused) as exc:
        print(f"dab-server stats: error: {address}: {exc or type(exc).__name__}", file=sys.stderr)
        return 2
    print(json.dumps(result, sort_keys=True) if args.json else describe(address, result))
    return 0


BAN_TARGETS = ("player: the player's id (the part of their token before the first _) or a name only one player "
               "has; key: an SSH key's fingerprint (SHA256:..., ssh-keygen -lf prints it), its public key line or "
               "the .pub file; address: an IP address or a network (203.0.113.0/24, 2001:db8::/64)")


def build_operator_parser(command: str) -> argparse.ArgumentParser:
    what = {
        "ban": "Ban a player, an SSH key or an address: stored, and applied at once if the server runs (their "
               "connections are closed, and they are told they are banned, with the reason, wherever they come "
               "back from). A banned player leaves their tables; chips in a running game come back to them when "
               "it ends, as for leaving.",
        "unban": "Lift a ban.",
        "bans": "List the bans.",
        "say": "Announce a line to everyone online (the server must be running).",
    }[command]
    parser = argparse.ArgumentParser(prog=f"dab-server {command}", description=what + " It reaches a running "
                                     "server through its operator socket in the data directory, or (ban, unban, "
                                     "bans) the database when no server runs there.")
    parser.add_argument("--data-dir", default=None, help="the server's data directory (default: the platform's "
                        "user data directory)")
    if command in ("ban", "unban"):
        parser.add_argument("kind", choices=["player", "key", "address"])
        parser.add_argument("target", help=BAN_TARGETS)
    if command == "ban":
        parser.add_argument("--reason", default="", help="told to the banned (at most 200 characters)")
    if command == "say":
        parser.add_argument("text", nargs="+", help="the line (at most 200 characters)")
    return parser


def operator(command: str, argv: list[str]) -> int:
    """``ban``, ``unban``, ``bans``, ``say``: a refusal or a problem is one line on stderr, exit code 2."""
    from .operator import NotRunning, OperatorError, ask, ban_from_map, offline

    args = build_operator_parser(command).parse_args(argv)
    request: dict[str, object] = {"command": command}
    if command in ("ban", "unban"):
        target = args.target
        if args.kind == "key" and os.path.isfile(os.path.expanduser(target)):
            try:
                target = Path(os.path.expanduser(target)).read_text().strip().splitlines()[0]
            except (OSError, UnicodeDecodeError, IndexError) as exc:
                print(f"dab-server {command}: error: cannot read the key {args.target}: {exc}", file=sys.stderr)
                return 2
        request.update(kind=args.kind, target=target, reason=getattr(args, "reason", ""))
    if command == "say":
        request["text"] = " ".join(args.text)
    directory = data_dir(args)
    running = True
    try:
        try:
            answer = asyncio.run(ask(directory, request))
        except NotRunning:
            running = False
            try:
                store = Store.open_dir(directory, create=False)
            except StoreError as exc:
                print(f"dab-server {command}: error: {exc}", file=sys.stderr)
                return 2
            try:
                answer = offline(store, request)
            finally:
                store.close()
    except (OperatorError, OSError, asyncio.TimeoutError, ValueError) as exc:
        print(f"dab-server {command}: error: {exc or type(exc).__name__}", file=sys.stderr)
        return 2
    if command == "bans":
        bans = [ban_from_map(b) for b in answer["bans"]]
        print("\n".join(b.describe() for b in bans) if bans else "no bans")
    elif command == "say":
        print(f"said to {answer['told']} player{'s' if answer['told'] != 1 else ''} online")
    else:
        ban = ban_from_map(answer["ban"])
        who = ban.value if ban.label in ("", ban.value) else f"{ban.label} ({ban.value})"
        if command == "unban":
            print(f"unbanned {ban.kind} {who}")
        else:
            done = "banned" if answer["new"] else "already banned (reason updated):"
            where = (f"{answer['closed']} connection{'s' if answer['closed'] != 1 else ''} closed" if running
                     else "no server is running: it applies from the next start")
            print(f"{done} {ban.kind} {who}; {where}")
    return 0


def export(argv: list[str]) -> int:
    """The ``export`` command: any problem is one clear line on stderr and exit code 2, never a traceback."""
    args = build_export_parser().parse_args(argv)
    try:
        store = Store.open_dir(data_dir(args), lock=False, migrate=False, create=False)
    except StoreError as exc:
        print(f"dab-server export: error: {exc}", file=sys.stderr)
        return 2
    for warning in store.warnings:
        print(f"dab-server export: warning: {warning}", file=sys.stderr)
    from .export import DamagedHistory, history_text

    try:
        history = store.export(args.table)
        text = json.dumps(history, indent=1) if args.format == "json" else history_text(history)
    except (StoreError, DamagedHistory) as exc:
        print(f"dab-server export: error: {exc}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as exc:
        print(f"dab-server export: error: {store.path} is damaged ({exc}); restore it from a backup", file=sys.stderr)
        return 2
    except Exception as exc:  # damage nothing above foresaw: still one line, never a traceback
        print(f"dab-server export: error: the stored history of {store.path} cannot be read "
              f"({type(exc).__name__}: {exc}); restore it from a backup", file=sys.stderr)
        return 2
    finally:
        store.close()
    sys.stdout.write(text if args.format == "text" else text + "\n")
    return 0


_stop_requested: list[int] = []  # signals received before the event loop handles them


FILES_BESIDE_CONNECTIONS = 200  # open files the server needs besides its connections: database, workers, logs
FILES_PER_SESSION = 3  # and each SSH session or browser tab besides its game connection


def open_files_for(max_connections: int, more: int = 0) -> None:
    """Raise the soft limit on open files (``ulimit -n``, often 1024) to what ``--max-connections`` needs,
    as far as the hard limit allows, so a full server refuses with ``server_full``, not by failing to
    accept (the event loop then stops accepting anyone for a second); if the hard limit is too low, say so."""
    try:
        import resource
    except ImportError:  # not POSIX: nothing to raise
        return
    need = max_connections + FILES_BESIDE_CONNECTIONS + more
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= need:
        return
    target = need if hard == resource.RLIM_INFINITY else min(need, hard)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("cannot raise the open files limit from %d to %d: %s", soft, target, exc)
    if soft < need:
        log.warning("--max-connections %d needs about %d open files, but this process may open only %d "
                    "(ulimit -n; hard limit %d): raise the limit (ulimit -Hn, or LimitNOFILE= in a systemd "
                    "unit) or lower --max-connections to %d", max_connections, need, soft, hard,
                    max(1, soft - FILES_BESIDE_CONNECTIONS - more))


def _note_stop(signum: int, frame: object) -> None:
    _stop_requested.append(signum)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["export"]:
        return export(argv[1:])
    if argv[:1] == ["grant"]:
        return grant(argv[1:])
    if argv[:1] == ["stats"]:
        return stats(argv[1:])
    if argv[:1] in (["ban"], ["unban"], ["bans"], ["say"]):
        return operator(argv[0], argv[1:])
    args = build_parser().parse_args(argv)
    if args.ssh_port is not None and importlib.util.find_spec("asyncssh") is None:
        print(f"dab-server: error: {MISSING_SSH}", file=sys.stderr)
        return 2
    if args.web_port is not None and importlib.util.find_spec("textual_serve") is None:
        print(f"dab-server: error: {MISSING_WEB}", file=sys.stderr)
        return 2
    for sig in (signal.SIGINT, signal.SIGTERM):  # until the event loop takes over: noted, then a clean exit 0
        signal.signal(sig, _note_stop)
    if hasattr(signal, "SIGUSR1"):  # (the health line, once the loop runs: never the default, which kills)
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    logging.basicConfig(level=args.log_level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    open_files_for(args.max_connections)
    store = None
    if not args.memory:
        try:
            store = Store.open_dir(data_dir(args))
        except StoreError as exc:
            log.error("%s", exc)
            return 2
        log.info("database: %s", store.path)
        for warning in store.warnings:
            log.warning("%s", warning)
    return asyncio.run(serve(args, store))


if __name__ == "__main__":
    sys.exit(main())
