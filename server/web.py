"""The browser: ``dab-server --web-port 8080`` serves the real client to browser tabs with textual-serve.

The page first asks for a name and, optionally, the player's resume token (the
one ``dab-client`` keeps; ``dab-client token`` prints it). The form is posted
to this gateway, which checks it with the lobby's own rules (the name as a new
player's hello would be checked, the token as a resume), and answers with the
form again, saying why, or with the terminal page. That page's WebSocket
address carries a one-time ticket (random, unused after ``TICKET_LIFE``
seconds), never the token: the token stays in this process's memory until the
tab's ``dab-client`` starts, and reaches the client on a pipe (``--token-fd``),
not on its command line (``ps`` shows that) nor in its environment. Nothing
logs a request line, a form or a token.

Each tab runs its own ``dab-client`` (textual-serve's web driver), connected
to this server over loopback, running nicer than the server
(``CLIENT_NICENESS``); nothing is read from or written to a config file. With
a token it is that player (chips, seat); without one it is a guest, a new
player each tab whose chips do not persist, admitted unless ``guests`` is off.
The page is our own (``web_page/app_index.html``): it loads only
textual-serve's script, style sheet and fonts from this server, so it works
offline (textual-serve's page links a web font on the internet).

Limits, counted by the browser's address (the game server does not count the
tabs' loopback connections): at most ``max_sessions`` tabs in all and
``max_per_address`` from one address (a ticket not yet used counts as a tab),
and each guest takes one of the address's new-player allowance. A refused form
says why; so does a refused tab, on its screen. A tab's terminal is at most
``MAX_COLUMNS`` x ``MAX_ROWS``, whatever the browser asks for.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path

import aiohttp_jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from .limits import CLIENT_NICENESS, BucketsByKey, PeerLog, address_key
from .lobby import Lobby
from .text import clean_name

log = logging.getLogger(__name__)

PAGE_DIRECTORY = Path(__file__).with_name("web_page")
TICKET_LIFE = 60.0  # seconds between the form's answer and the tab's WebSocket
FORM_LIMIT = 4096  # bytes of a posted form: a name and a token
MAX_COLUMNS, MAX_ROWS = 500, 200  # the largest terminal a tab may ask for (its client's screen is that big)
GUESTS_OFF = ("This server admits players with a token only: give the token your dab-client keeps "
              "(dab-client token prints it).")
BAD_TOKEN = ("That token is not valid on this server. Copy it again (dab-client token prints the one your "
             "client keeps), or leave it empty to play as a guest.")
NO_TICKET = "This game was not started from the page, or too long ago: open the page again to play."


@dataclass(frozen=True)
class Ticket:
    """What a posted form won: the tab that opens the WebSocket with it plays as ``name`` (with ``token``)."""

    name: str
    token: str  # "" for a guest
    address: str  # the browser's, whose tabs it counts among until it is used
    expires: float


class TabClient(AppService):
    """textual-serve's process of one tab, started as an argument list with the token on a pipe."""

    def __init__(self, argv: list[str], token: str, **options: object) -> None:
        super().__init__(" ".join(argv), **options)  # type: ignore[arg-type]
        self.argv = argv
        self.token = token

    async def start(self, width: int, height: int) -> None:
        await super().start(*_terminal_size(width, height))

    async def set_terminal_size(self, width: int, height: int) -> None:
        await super().set_terminal_size(*_terminal_size(width, height))

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        token_r, token_w = os.pipe()
        os.write(token_w, self.token.encode())  # a few dozen bytes: the pipe holds them
        os.close(token_w)
        try:
            self._process = process = await asyncio.create_subprocess_exec(
                *self.argv, "--token-fd", str(token_r), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env=self._build_environment(width=width, height=height), pass_fds=(token_r,))
        finally:
            os.close(token_r)
        assert process.stdin is not None
        self._stdin = process.stdin
        return process


def _terminal_size(width: int, height: int) -> tuple[int, int]:
    """The size a tab asked for, within 1..MAX_COLUMNS x 1..MAX_ROWS: a browser says how big its terminal is,
    and the tab's client would otherwise allocate whatever screen it was told."""
    return max(1, min(width, MAX_COLUMNS)), max(1, min(height, MAX_ROWS))


class WebGateway(Server):
    def __init__(self, lobby: Lobby, game_address: tuple[str, int], host: str, port: int, max_sessions: int,
                 max_per_address: int, new_players_per_hour: int, guests: bool = True) -> None:
        game_host, game_port = game_address
        address = f"[{game_host}]:{game_port}" if ":" in game_host else f"{game_host}:{game_port}"
        # nice: the clients yield the CPU to the server.
        self.client_argv = ["nice", "-n", str(CLIENT_NICENESS), sys.executable, "-m", "client", address]
        super().__init__(" ".join(self.client_argv), host=host, port=port, title="Down and Back",
                         templates_path=PAGE_DIRECTORY)
        self.lobby = lobby
        self.guests = guests
        self.max_sessions = max_sessions
        self.max_per_address = max_per_address
        self.new_players = BucketsByKey(new_players_per_hour / 3600, new_players_per_hour)
        self.tickets: dict[str, Ticket] = {}
        self.peer_log = PeerLog(log)
        self.tabs = 0
        self.per_address: dict[str, int] = {}
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)  # a line per request is a peer's to cause
        app = await self._make_app()
        app.router.add_post("/", self.handle_sign_in)
        app.router.add_get("/ws/{ticket}", self.handle_websocket)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]

    # ------------------------------------------------------------ the page

    async def handle_index(self, request: web.Request) -> web.Response:  # type: ignore[override]
        """The sign-in form; ``?name=Ann`` fills in the name (a link a host can send a friend)."""
        return self._page(request, name=clean_name(request.query.get("name", "")[:FORM_LIMIT]))

    def _page(self, request: web.Request, *, ticket: str | None = None, name: str = "", error: str | None = None,
              status: int = 200) -> web.Response:
        """The sign-in form (with ``error`` saying why not, if any), or the terminal of ``ticket``'s tab."""
        # The page's links use the address the browser asked for (not 0.0.0.0, nor port 0).
        base = f"{request.scheme}://{request.host}"
        context = {
            "title": self.title, "static_url": f"{base}/static/", "font_size": 16, "name": name, "error": error,
            "guests": self.guests, "socket_url": f"ws{base[4:]}/ws/{ticket}" if ticket else None,
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context, status=status)

    async def handle_sign_in(self, request: web.Request) -> web.Response:
        """The posted form: the terminal page with a ticket for the tab, or the form again saying why not."""
        if request.content_length is None or request.content_length > FORM_LIMIT:
            return self._page(request, error="That form was too long.", status=413)
        form = await request.post()
        name, token = clean_name(str(form.get("name", ""))), str(form.get("token", "")).strip()
        address = address_key(request.remote or "?")
        name, refusal = self._sign_in(address, name, token)
        if refusal is not None:
            return self._page(request, name=name, error=refusal, status=403)
        ticket = secrets.token_urlsafe(18)
        self.tickets[ticket] = Ticket(name, token, address, asyncio.get_running_loop().time() + TICKET_LIFE)
        return self._page(request, ticket=ticket, name=name)

    def _sign_in(self, address: str, name: str, token: str) -> tuple[str, str | None]:
        """The name the tab plays under and why it may not (None: it may; a guest took a new player)."""
        self._forget_expired_tickets()
        refusal = self._full(address)
        if refusal is not None:
            return name, refusal
        if token:
            player = self.lobby.player_for_token(token)
            return (name, BAD_TOKEN) if player is None else (player.name, None)
        if not self.guests:
            return name, GUESTS_OFF
        problem = self.lobby.name_refusal(name)
        if problem is not None:
            return name, problem[0].upper() + problem[1:] + "."
        if not self.new_players.take(address):
            return name, "Too many new players from your address; try again later."
        return name, None

    def _full(self, address: str) -> str | None:
        """Why ``address`` may not open another tab now (tickets not yet used count as tabs), or None."""
        waiting = [won.address for won in self.tickets.values()]
        if self.tabs + len(waiting) >= self.max_sessions:
            return "The server has as many browser players as it takes; try again later."
        if self.per_address.get(address, 0) + waiting.count(address) >= self.max_per_address:
            return f"At most {self.max_per_address} browser tabs from one address play at once; close one first."
        return None

    def _forget_expired_tickets(self) -> None:
        now = asyncio.get_running_loop().time()
        for ticket in [t for t, won in self.tickets.items() if won.expires <= now]:
            del self.tickets[ticket]

    # ------------------------------------------------------------ a tab

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        won = self.tickets.pop(request.match_info.get("ticket", ""), None)
        if won is None or won.expires <= asyncio.get_running_loop().time():
            return await _refuse(request, NO_TICKET)
        address = address_key(request.remote or "?")
        refusal = self._full(address)
        if refusal is None and not won.token:  # the name may have been taken since the form
            refusal = self.lobby.name_refusal(won.name)
        if refusal is not None:
            return await _refuse(request, refusal)
        self.tabs += 1
        self.per_address[address] = self.per_address.get(address, 0) + 1
        try:
            return await self._play(request, won)
        finally:
            self.tabs -= 1
            left = self.per_address.pop(address) - 1
            if left:
                self.per_address[address] = left

    async def _play(self, request: web.Request, won: Ticket) -> web.WebSocketResponse:
        """textual-serve's ``handle_websocket``, with this tab's own client (its name, its token)."""
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        client: TabClient | None = None
        try:
            await websocket.prepare(request)
            client = TabClient(self.client_argv + [f"--name={won.name}"], won.token,
                               write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                               close=websocket.close, download_manager=self.download_manager, debug=self.debug)
            await client.start(width, height)
            await self._process_messages(websocket, client)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as exc:  # noqa: BLE001 (a tab's failure is that tab's, never the server's)
            self.peer_log.warning(request.remote or "?", "a browser tab failed: %s", exc)
        finally:
            if client is not None:
                await client.stop()
        return websocket

    async def on_startup(self, app: web.Application) -> None:
        """(textual-serve prints a banner here; the server logs its own line.)"""

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


async def _refuse(request: web.Request, text: str) -> web.WebSocketResponse:
    """Tell the tab why it may not play: a line on its terminal, then the socket closes."""
    websocket = web.WebSocketResponse()
    await websocket.prepare(request)
    await websocket.send_bytes(f"\r\n  {text}\r\n".encode())
    await websocket.close()
    return websocket
