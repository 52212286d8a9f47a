"""The browser: ``dab-server --web-port 8080`` serves the real client to browser tabs.

**Signing in.** The page (``/``) asks for a name and, optionally, the player's
resume token (the one ``dab-client`` keeps; ``dab-client token`` prints it).
The form is posted to this gateway, which checks it with the lobby's own rules
(the name as a new player's would be checked, the token as a resume) and
answers with the form again, saying why, or with a short-lived session: an
HttpOnly, SameSite=Strict cookie naming a player held in this process's memory
(a guest is a new player the gateway makes, whose token only it knows) and a
redirect to ``/play``. Each ``/play`` (a reload too) is the terminal page with
a one-time ticket for its tab's WebSocket: a reload comes back to the same
player and seat. A player has at most one ticket and one session at a time (a
new one replaces the old), a ticket lasts ``TICKET_LIFE`` seconds, a session
``SESSION_GRACE`` seconds after its last tab closed. The token never appears
in an address, a page, a log or a command line: the tab's ``dab-client`` gets
it on a pipe. Wrong tokens are limited per address (a back-off, logged once).

**A tab** runs its own ``dab-client`` (textual-serve's web driver), started
and ended as :mod:`server.gateway` says: when the tab's socket goes, its client
is hung up and killed after a grace, and its output is read until it exits.
Every message the tab sends is validated before it reaches the client (a bad
one closes the tab, with one log line), is at most ``MAX_MESSAGE`` bytes, and
spends the tab's :class:`~server.gateway.InputBudget` (a tab over it is not
read from until it is back within it); sizes are clamped and coalesced. A
second tab of the same player displaces the first, which says why. The
client's standard error goes to the log through the rate-limited peer log.

**Headers.** Every answer carries a strict Content-Security-Policy (only this
server's scripts, styles, fonts and WebSocket; no framing), X-Frame-Options
DENY, nosniff and no referrer; pages are not cached. Static files are served
without directory listings. The page's addresses are relative (the WebSocket's
is made absolute by the page's script from the page's own location), never
built from the request's Host; a WebSocket whose Origin is not the page's
(or one of ``--web-origin``) is refused.

**Limits**, counted by the browser's address (the game server does not count
the tabs' loopback connections): at most ``max_sessions`` tabs in all and
``max_per_address`` from one address (a ticket not yet used counts for its
address only), and each guest takes one of the address's new-player
allowance. The gateway runs on the gateways' own thread
(:class:`~server.gateway.GatewayThread`); what it needs of the lobby it asks on
the game's loop.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jinja2
import textual_serve
from aiohttp import WSCloseCode, WSMsgType, web

from protocol.messages import is_host

from .errors import RequestError
from .gateway import (GatewayThread, InputBudget, MachineFull, Resizes, client_environment, clamp_size, end_client,
                      game_address_text, lower_priority, start_client)
from .limits import Backoff, BucketsByKey, PeerLog, address_key
from .lobby import Lobby
from .moderation import Ban
from .text import clean_name

log = logging.getLogger(__name__)

PAGE_DIRECTORY = Path(__file__).with_name("web_page")
STATIC_DIRECTORY = Path(textual_serve.__file__).with_name("static")  # textual-serve's script, styles, fonts
TICKET_LIFE = 10.0  # seconds between a terminal page and its tab's WebSocket
SESSION_GRACE = 600.0  # seconds a session (its cookie) outlives its last tab, or its sign-in if no tab opened
COOKIE = "dab_session"
FORM_LIMIT = 4096  # bytes of a posted form: a name and a token
MAX_MESSAGE = 16 * 1024  # bytes of one message from a tab (a paste of keys is the largest)
MAX_PACKET = 16 * 1024 * 1024  # bytes of one packet of a client's output (a 500x200 screen is far less)
STDERR_LINES = 20  # lines of one client's standard error that reach the log (the rest are counted)
STDERR_WIDTH = 300  # characters of one such line
WRONG_TOKENS_FREE = 5  # wrong tokens from one address before each further one must wait (1 s, doubling)
DISPLACED = "You opened the game in another tab: it plays there now."
BANNED_CLOSE = 4003  # the close code of a tab whose player or address the operator banned (its page says why)
SHUTTING_DOWN = "The server is shutting down."
BAD_MESSAGE = "This tab sent a message the game does not understand."
GUESTS_OFF = ("This server admits players with a token only: give the token your dab-client keeps "
              "(dab-client token prints it).")
BAD_TOKEN = ("That token is not valid on this server. Copy it again (dab-client token prints the one your "
             "client keeps), or leave it empty to play as a guest.")
NO_TICKET = "This game was not started from the page, or too long ago: open the page again to play."
TOO_MANY_TOKENS = "Too many wrong tokens from your address; try again in {:.0f} s."


def injected_styles() -> str:
    """CSP sources for the style sheets textual-serve's script inserts (its webpack style-loader's; an empty one
    first): their SHA-256 hashes, so the page needs no 'unsafe-inline' and blocks nothing it uses."""
    script = (STATIC_DIRECTORY / "js" / "textual.js").read_text(encoding="utf-8", errors="replace")
    sheets = [""] + [json.loads(f'"{css}"') for css in re.findall(r'\.push\(\[e\.id,"((?:[^"\\]|\\.)*)",""\]\)',
                                                                  script)]
    return " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()}'" for css in sheets)


CSP = ("default-src 'none'; script-src 'self'; style-src 'self' {styles}; font-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Cross-Origin-Opener-Policy": "same-origin"}


class Refused(Exception):
    """Why a sign-in is refused: what the form says, and the answer's HTTP status."""

    def __init__(self, text: str, status: int = 403) -> None:
        super().__init__(text)
        self.text, self.status = text, status


def _fitting(text: str, limit: int = 120) -> str:
    """``text`` cut, on a character, to what a WebSocket's close reason holds (``limit`` bytes: its frame
    holds 123 after the code; a reason cut inside a character would be no UTF-8, and the close refused)."""
    if len(text.encode()) <= limit:
        return text
    while len(text.encode()) > limit - 3:
        text = text[:-1]
    return text + "…"


def _sentence(text: str) -> str:
    """The lobby's clause as the page's sentence ("'Ann' is in use ..." -> "'Ann' is in use ...."; a clause
    that ends in its own stop, as an operator's reason may, keeps it)."""
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?", "…")) else ".")


class BadMessage(Exception):
    """A tab's message that is not one of textual-serve's, well formed."""


@dataclass(eq=False)
class WebSession:
    """What a session cookie stands for: a player (a guest the gateway made, or a token's), for a while."""

    key: str  # the cookie's value
    player_id: str
    name: str
    token: str
    guest: bool
    address: str
    expires: float  # loop time; pushed on while a tab of it is open
    tabs: int = 0


@dataclass(frozen=True)
class Ticket:
    """A terminal page's: the tab that opens the WebSocket with it plays as ``session``'s player."""

    key: str
    session: WebSession
    address: str  # the browser's, whose tabs it counts among until it is used
    expires: float


@dataclass(eq=False)
class Tab:
    """One tab's client and its socket."""

    gateway: "WebGateway"
    websocket: web.WebSocketResponse
    session: WebSession
    peer: str  # the browser's IP address
    address: str  # what per-address limits count it by
    size: tuple[int, int]
    proc: asyncio.subprocess.Process | None = None
    reason: str | None = None  # why the gateway closed the tab, said on its page
    resizes: Resizes | None = None
    budget: InputBudget = field(default_factory=InputBudget)
    flooding: bool = False  # went over its budget: its client has the lowest priority
    reached: str | None = None  # the host the browser reached this page by (its Host header), for the join line
    _output: asyncio.Task[None] | None = None
    _errors: asyncio.Task[None] | None = None
    _ended: asyncio.Task[None] | None = None

    @property
    def player_id(self) -> str:
        return self.session.player_id

    # ------------------------------------------------------------ the client

    async def start(self) -> None:
        gateway = self.gateway
        args = [f"--name={self.session.name}", "--server-label", gateway.server_name,
                game_address_text(gateway.game_address), *(["--public-host", self.reached] if self.reached else [])]
        width, height = self.size
        env = client_environment(TEXTUAL_DRIVER="textual.drivers.web_driver:WebDriver", TEXTUAL_FPS="60",
                                 TEXTUAL_COLOR_SYSTEM="truecolor", TERM_PROGRAM="textual",
                                 COLUMNS=str(width), ROWS=str(height))
        self.proc = await start_client(args, self.session.token, env=env, stdin=asyncio.subprocess.PIPE,
                                       stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        self.resizes = Resizes(self._resize, self.size)
        self._output = asyncio.create_task(self._forward_output())
        self._errors = asyncio.create_task(self._log_errors())

    def _to_client(self, kind: bytes, payload: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        if not self.proc.stdin.is_closing():
            self.proc.stdin.write(b"%s%s%s" % (kind, len(payload).to_bytes(4, "big"), payload))

    def _meta(self, meta: dict[str, Any]) -> None:
        self._to_client(b"M", json.dumps(meta).encode())

    def _resize(self, width: int, height: int) -> None:
        self._meta({"type": "resize", "width": width, "height": height})

    async def _forward_output(self) -> None:
        """The client's screen to the tab (textual-serve's packets); its exit closes the tab."""
        assert self.proc is not None and self.proc.stdout is not None
        stdout = self.proc.stdout
        try:
            for _ in range(10):  # the web driver's prelude comes first
                if await stdout.readline() in (b"__GANGLION__\n", b""):
                    break
            while True:
                header = await stdout.readexactly(5)
                size = int.from_bytes(header[1:], "big")
                if size > MAX_PACKET:
                    self.gateway.peer_log.warning(self.address, "a browser tab's client wrote a %d-byte packet: "
                                                  "ended", size)
                    break
                payload = await stdout.readexactly(size)
                if header[:1] == b"D":
                    await self.websocket.send_bytes(payload)
                elif header[:1] == b"M" and _meta_type(payload) == "exit":
                    if not await self._close_if_banned():
                        await self.websocket.close()
        except (asyncio.IncompleteReadError, ConnectionError, RuntimeError):
            pass  # the client's output ended, or the tab's socket did
        finally:
            self.end()

    async def _log_errors(self) -> None:
        """The client's standard error, into the log through the peer log (a few lines, each cut short)."""
        assert self.proc is not None and self.proc.stderr is not None
        stderr, said, more = self.proc.stderr, 0, 0
        while True:
            try:
                line = await stderr.readline()
            except ValueError:  # a line longer than the stream's limit: its rest comes as further lines
                line = b"?"
            if not line:
                break
            text = line.decode("utf-8", "replace").rstrip()
            if not text:
                continue
            if said < STDERR_LINES:
                said += 1
                self.gateway.peer_log.warning(self.address, "a browser tab's client: %s", text[:STDERR_WIDTH])
            else:
                more += 1
        if more:
            self.gateway.peer_log.warning(self.address, "a browser tab's client: %d more lines left out", more)

    # ------------------------------------------------------------ the tab

    async def read_tab(self) -> None:
        """The tab's messages, validated, to the client, within the tab's budget; until its socket goes."""
        websocket = self.websocket
        while True:
            message = await websocket.receive()
            if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                return
            try:
                if message.type == WSMsgType.ERROR:  # (too large, or not a WebSocket frame)
                    raise BadMessage(f"{message.data}")
                if message.type != WSMsgType.TEXT:
                    raise BadMessage(f"a {message.type.name.lower()} message")
                wait = self.budget.spend(len(message.data))
                await self._handle(parse_tab_message(message.data))
            except BadMessage as exc:
                self.gateway.peer_log.warning(self.address, "a browser tab sent a bad message (%s): closed", exc)
                await self.close(BAD_MESSAGE, WSCloseCode.UNSUPPORTED_DATA)
                return
            if wait > 0:  # over its budget: the tab is not read from until it is back within it
                if not self.flooding:
                    self.flooding = True
                    lower_priority(self.proc)
                    self.gateway.peer_log.warning(self.address, "a browser tab sends more than its budget: held "
                                                  "back, its client at the lowest priority")
                await asyncio.sleep(wait)

    async def _handle(self, message: tuple[str, Any]) -> None:
        kind, data = message
        if kind == "stdin":
            self._to_client(b"D", data.encode())
            assert self.proc is not None and self.proc.stdin is not None
            await self.proc.stdin.drain()  # a client not reading its keys holds the tab back
        elif kind == "resize":
            assert self.resizes is not None
            self.resizes.ask(*data)
        elif kind == "ping":
            await self.websocket.send_json(["pong", data])
        else:  # focus, blur
            self._meta({"type": kind})

    async def close(self, reason: str, code: int = WSCloseCode.GOING_AWAY) -> None:
        """Close the tab's socket, saying why (its page shows it)."""
        self.reason = self.reason or reason
        try:
            await self.websocket.close(code=code, message=_fitting(self.reason).encode())
        except (ConnectionError, RuntimeError):
            pass

    async def _close_if_banned(self) -> bool:
        """If the operator banned the tab's player or address, close it saying so, and True: its client, told
        by the game server, may end before the gateway hears of the ban (WebGateway._banned), and the tab is to
        close with the ban's code and reason whichever comes first."""
        banned = self.gateway.lobby.moderation.refusal(host=self.peer, player_id=self.player_id)  # (a snapshot)
        if banned is None:
            return False
        await self.close(_sentence(banned), BANNED_CLOSE)
        return True

    def end(self) -> asyncio.Task[None]:
        """End the tab (once): its socket closed, its client hung up and gone, its output read to the end."""
        if self._ended is None:
            self._ended = asyncio.get_running_loop().create_task(self._end())
        return self._ended

    async def _end(self) -> None:
        gateway = self.gateway
        try:
            if not self.websocket.closed and not await asyncio.wait_for(self._close_if_banned(), 2):
                await asyncio.wait_for(self.close("Session ended.", WSCloseCode.OK), 2)
        except asyncio.TimeoutError:
            pass
        finally:
            if self.resizes is not None:
                self.resizes.close()
            proc = self.proc
            if proc is not None:
                if self._output is not None and not self._output.done():
                    self._output.cancel()  # (it may wait on a socket that is gone)
                    await asyncio.gather(self._output, return_exceptions=True)
                discard = asyncio.create_task(_discard(proc.stdout))
                if proc.stdin is not None:
                    proc.stdin.close()
                await end_client(proc)
                for reader in (discard, self._errors):
                    if reader is not None:
                        try:
                            await asyncio.wait_for(reader, 2)
                        except asyncio.TimeoutError:
                            pass
            gateway.tab_ended(self)


async def _discard(stream: asyncio.StreamReader | None) -> None:
    """Read a client's output to its end, keeping none of it (a client blocked on a full pipe cannot leave)."""
    if stream is None:
        return
    while await stream.read(1 << 16):
        pass


def _meta_type(payload: bytes) -> str | None:
    try:
        meta = json.loads(payload)
    except ValueError:
        return None
    return meta.get("type") if isinstance(meta, dict) else None


def parse_tab_message(text: str) -> tuple[str, Any]:
    """A tab's message (textual-serve's: ``["stdin", keys]``, ``["resize", {"width": W, "height": H}]``,
    ``["ping", text]``, ``["focus"]``, ``["blur"]``), checked: its kind and its data (a size clamped).
    Raises BadMessage for anything else."""
    try:
        envelope = json.loads(text)
    except ValueError:
        raise BadMessage("not JSON") from None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        raise BadMessage("not a [kind, data] list")
    kind, data = envelope[0], envelope[1:]
    if kind == "stdin" and len(data) == 1 and isinstance(data[0], str):
        return kind, data[0]
    if kind == "resize" and len(data) == 1 and isinstance(data[0], dict):
        width, height = data[0].get("width"), data[0].get("height")
        if type(width) is int and type(height) is int:  # (not a bool, not 100.5)
            return kind, clamp_size(width, height)
        raise BadMessage("a size that is not two whole numbers")
    if kind == "ping" and len(data) == 1 and isinstance(data[0], str) and len(data[0]) <= 64:
        return kind, data[0]
    if kind in ("focus", "blur") and not data:
        return kind, None
    raise BadMessage(f"kind {kind[:20]!r} with {len(data)} values" if kind else "no kind")


def _query_size(request: web.Request) -> tuple[int, int]:
    def number(key: str, default: int) -> int:
        try:
            return int(request.query.get(key, default))
        except ValueError:
            return default

    return clamp_size(number("width", 80), number("height", 24))


def security_headers(csp: str) -> Any:
    """A middleware giving every answer the security headers (see the module's docstring); pages are not kept in
    any cache."""

    @web.middleware
    async def add_headers(request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            response = exc
        response.headers.update(HEADERS)
        response.headers["Content-Security-Policy"] = csp
        if not request.path.startswith(("/static/", "/assets/")):
            response.headers["Cache-Control"] = "no-store"
        if isinstance(response, web.HTTPException):
            raise response
        return response

    return add_headers


class WebGateway:
    def __init__(self, lobby: Lobby, game_address: tuple[str, int], host: str, port: int, max_sessions: int,
                 max_per_address: int, new_players_per_hour: int, thread: GatewayThread, guests: bool = True,
                 server_name: str = "", origins: tuple[str, ...] = ()) -> None:
        self.lobby = lobby  # touched only on the game's loop (thread.game)
        self.game_address = game_address
        self.host, self.port = host, port
        self.thread = thread
        self.guests = guests
        self.server_name = server_name
        self.title = f"{server_name} · Down and Back" if server_name else "Down and Back"
        self.origins = frozenset(urlsplit(o).netloc.lower() for o in origins)  # besides the page's own
        self.max_sessions = max_sessions
        self.max_per_address = max_per_address
        self.new_players = BucketsByKey(new_players_per_hour / 3600, new_players_per_hour)
        self.wrong_tokens: dict[str, Backoff] = {}
        self.sessions: dict[str, WebSession] = {}  # by cookie
        self.session_of: dict[str, str] = {}  # player id -> its session's cookie
        self.tickets: dict[str, Ticket] = {}
        self.ticket_of: dict[str, str] = {}  # player id -> its ticket
        self.tabs: set[Tab] = set()
        self.peer_log = PeerLog(log)
        self.ticket_log = PeerLog(log, rate=1.0, burst=10.0)
        self.templates = jinja2.Environment(loader=jinja2.FileSystemLoader(PAGE_DIRECTORY), autoescape=True)
        self._runner: web.AppRunner | None = None
        # (On the game's loop.) A new ban of the operator's ends the tabs it covers, saying why.
        lobby.moderation.watch(lambda ban: thread.loop.call_soon_threadsafe(self._banned, ban))

    def _banned(self, ban: Ban) -> None:
        """(On the gateways' loop.) Close the tabs of the players and addresses now banned, with the reason."""
        moderation = self.lobby.moderation  # (its bans are snapshots: safe to read from this thread)
        for tab in list(self.tabs):
            refusal = moderation.refusal(host=tab.peer, player_id=tab.player_id)
            if refusal is not None:
                asyncio.create_task(tab.close(_sentence(refusal), BANNED_CLOSE))

    async def start(self) -> None:
        """(On the gateways' loop.)"""
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)  # a line per request is a peer's to cause
        app = web.Application(middlewares=[security_headers(CSP.format(styles=injected_styles()))],
                              client_max_size=FORM_LIMIT)
        app.router.add_get("/", self.handle_index)
        app.router.add_post("/", self.handle_sign_in)
        app.router.add_get("/play", self.handle_play)
        app.router.add_get("/favicon.ico", _no_content)
        app.router.add_get("/ws", self.handle_websocket)  # (textual-serve's own address: no ticket, no game)
        app.router.add_get("/ws/{ticket}", self.handle_websocket)
        app.router.add_static("/static/", STATIC_DIRECTORY, show_index=False, follow_symlinks=False)
        app.router.add_static("/assets/", PAGE_DIRECTORY / "assets", show_index=False, follow_symlinks=False)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def close(self) -> None:
        """(On the gateways' loop.) Every tab is told and ended, then the port closes."""
        for tab in list(self.tabs):
            asyncio.create_task(tab.close(SHUTTING_DOWN))
            tab.end()
        await asyncio.gather(*(tab.end() for tab in list(self.tabs)), return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()

    # ------------------------------------------------------------ pages

    def _page(self, *, ticket: Ticket | None = None, name: str = "", error: str | None = None,
              status: int = 200) -> web.Response:
        """The sign-in form (with ``error`` saying why not, if any), or the terminal of ``ticket``'s tab."""
        page = self.templates.get_template("app_index.html").render(
            title=self.title, name=name, error=error, guests=self.guests, font_size=16,
            socket_path=f"/ws/{ticket.key}" if ticket is not None else None)
        return web.Response(text=page, content_type="text/html", status=status)

    async def handle_index(self, request: web.Request) -> web.Response:
        """The sign-in form; ``?name=Ann`` fills in the name (a link a host can send a friend)."""
        session = self._session(request)
        name = request.query.get("name", "")[:FORM_LIMIT] or (session.name if session and session.guest else "")
        return self._page(name=clean_name(name))

    async def handle_sign_in(self, request: web.Request) -> web.Response:
        """The posted form: a session and a redirect to its terminal page, or the form again saying why not."""
        if request.content_length is None or request.content_length > FORM_LIMIT:
            return self._page(error="That form was too long.", status=413)
        form = await request.post()
        name, token = clean_name(str(form.get("name", ""))), str(form.get("token", "")).strip()
        try:
            session = await self._sign_in(request.remote or "?", name, token, self._session(request))
        except Refused as exc:
            return self._page(name=name, error=exc.text, status=exc.status)
        response = web.Response(status=303, headers={"Location": "/play"})
        response.set_cookie(COOKIE, session.key, path="/", httponly=True, samesite="Strict")
        return response

    async def handle_play(self, request: web.Request) -> web.Response:
        """The terminal page of the session's player, with a fresh ticket (a reload comes back here)."""
        session = self._session(request)
        if session is None:
            raise web.HTTPSeeOther("/")
        refusal = self.refusal(request.remote or "?", session.player_id)
        if refusal is not None:
            return self._page(name=session.name if session.guest else "", error=refusal, status=403)
        return self._page(ticket=self._ticket(session, address_key(request.remote or "?")), name=session.name)

    # ------------------------------------------------------------ sessions and tickets

    def _session(self, request: web.Request) -> WebSession | None:
        self._forget_expired()
        session = self.sessions.get(request.cookies.get(COOKIE, ""))
        return session

    async def _sign_in(self, peer: str, name: str, token: str, current: WebSession | None) -> WebSession:
        """The session the form of ``peer`` (an IP address) wins: a token's player, or a guest (the cookie's own if
        it has that name, else a new player); raises Refused saying why not."""
        address = address_key(peer)
        refusal = self.refusal(peer, None)
        if refusal is not None:
            raise Refused(refusal)
        now = asyncio.get_running_loop().time()
        if token:
            backoff = self.wrong_tokens.get(address)
            if backoff is not None and (wait := backoff.wait(now)) > 0:
                raise Refused(TOO_MANY_TOKENS.format(max(1.0, wait)), 429)
            player = await self.thread.game(self.lobby.player_for_token, token)
            if player is None:
                self._wrong_token(address, now)
                raise Refused(BAD_TOKEN)
            banned = self.lobby.moderation.refusal(player_id=player.player_id)  # (a snapshot: safe here)
            if banned is not None:
                raise Refused(_sentence(banned))
            return self._new_session(player.player_id, player.name, token, False, address)
        if not self.guests:
            raise Refused(GUESTS_OFF)
        if current is not None and current.guest and current.name.casefold() == name.casefold():
            current.expires = now + SESSION_GRACE
            return current  # the same guest again ("Play again", a second tab)
        problem = await self.thread.game(self.lobby.name_refusal, name)
        if problem is not None:
            raise Refused(_sentence(problem))
        if not self.new_players.take(address):
            raise Refused("Too many new players from your address; try again later.", 429)
        player_id, secret = secrets.token_hex(8), secrets.token_urlsafe(24)
        try:
            await self.thread.game(self.lobby.adopt, player_id, name, secret)
        except RequestError as exc:  # (a name taken meanwhile, a busy database)
            raise Refused(_sentence(exc.message)) from None
        return self._new_session(player_id, name, f"{player_id}_{secret}", True, address)

    def _wrong_token(self, address: str, now: float) -> None:
        """Count a wrong token of ``address``; the first to start its back-off is logged (once a burst)."""
        backoff = self.wrong_tokens.get(address)
        if backoff is None:
            if len(self.wrong_tokens) >= 4096:
                self.wrong_tokens = {a: b for a, b in self.wrong_tokens.items() if b.wait(now) > 0}
            backoff = self.wrong_tokens[address] = Backoff(WRONG_TOKENS_FREE, base=1.0, cap=60.0, forget=600.0)
        backoff.failed(now)
        if backoff.failures == WRONG_TOKENS_FREE:
            self.peer_log.warning(address, "%d wrong tokens on the browser page: each further one waits",
                                  backoff.failures)

    def _new_session(self, player_id: str, name: str, token: str, guest: bool, address: str) -> WebSession:
        """A session for the player (its previous one no longer opens a page; its tabs play on)."""
        self.sessions.pop(self.session_of.get(player_id, ""), None)
        session = WebSession(secrets.token_urlsafe(24), player_id, name, token, guest, address,
                             asyncio.get_running_loop().time() + SESSION_GRACE)
        self.sessions[session.key] = session
        self.session_of[player_id] = session.key
        return session

    def _ticket(self, session: WebSession, address: str) -> Ticket:
        """A ticket for ``session``'s tab: its player's only one (the one before, if any, no longer works)."""
        self.tickets.pop(self.ticket_of.get(session.player_id, ""), None)
        ticket = Ticket(secrets.token_urlsafe(18), session, address, asyncio.get_running_loop().time() + TICKET_LIFE)
        self.tickets[ticket.key] = ticket
        self.ticket_of[session.player_id] = ticket.key
        self.ticket_log.info(address, "a browser ticket for %s (%s)", session.player_id,
                             "a guest" if session.guest else "by token")
        return ticket

    def _forget_expired(self) -> None:
        now = asyncio.get_running_loop().time()
        for key in [k for k, t in self.tickets.items() if t.expires <= now]:
            ticket = self.tickets.pop(key)
            if self.ticket_of.get(ticket.session.player_id) == key:
                del self.ticket_of[ticket.session.player_id]
        for key in [k for k, s in self.sessions.items() if s.tabs == 0 and s.expires <= now]:
            session = self.sessions.pop(key)
            if self.session_of.get(session.player_id) == key:
                del self.session_of[session.player_id]

    def refusal(self, peer: str, player_id: str | None) -> str | None:
        """Why ``peer`` (the browser's IP address) may not open a tab (for ``player_id``, whose own tab and ticket
        would be replaced) now, or None: the one place tabs are admitted, at sign-in, at each terminal page and
        at each WebSocket (a ban by address or player belongs here). Tickets not yet used count among their
        address's tabs, not among all."""
        banned = self.lobby.moderation.refusal(host=peer, player_id=player_id)  # (a snapshot: safe here)
        if banned is not None:
            return _sentence(banned)
        address = address_key(peer)
        self._forget_expired()
        others = [t for t in self.tabs if t.player_id != player_id and t.reason is None]
        if len(others) >= self.max_sessions:
            return "The server has as many browser players as it takes; try again later."
        waiting = [t for t in self.tickets.values() if t.address == address and t.session.player_id != player_id]
        if sum(t.address == address for t in others) + len(waiting) >= self.max_per_address:
            return f"At most {self.max_per_address} browser tabs from one address play at once; close one first."
        return None

    # ------------------------------------------------------------ a tab

    def _origin_refusal(self, request: web.Request) -> str | None:
        """None if the WebSocket comes from this server's own page (its Origin is the page's), else why not."""
        origin = request.headers.get("Origin")
        if origin is None:
            return "no Origin"
        netloc = urlsplit(origin).netloc.lower()
        if netloc and (netloc == request.host.lower() or netloc in self.origins):
            return None
        return f"Origin {origin[:80]!r}"

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        address = address_key(request.remote or "?")
        refused_origin = self._origin_refusal(request)
        if refused_origin is not None:
            self.peer_log.warning(address, "a browser tab's WebSocket was refused: %s is not this page's",
                                  refused_origin)
            return web.Response(status=403, text="This game's page is on its own server.")
        self._forget_expired()
        won = self.tickets.pop(request.match_info.get("ticket", ""), None)
        if won is None:
            return await _refuse(request, NO_TICKET)
        player_id = won.session.player_id
        if self.ticket_of.get(player_id) == won.key:
            del self.ticket_of[player_id]
        if self.sessions.get(won.session.key) is not won.session:  # signed in again since: that session plays
            return await _refuse(request, NO_TICKET)
        refusal = self.refusal(request.remote or "?", player_id)
        if refusal is not None:
            return await _refuse(request, refusal)
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        tab = Tab(self, websocket, won.session, request.remote or "?", address, _query_size(request),
                  reached=reached_host(request))
        for other in [t for t in self.tabs if t.player_id == player_id]:
            asyncio.create_task(other.close(DISPLACED, 4000))  # (a code of our own: its page says why)
        self.tabs.add(tab)
        won.session.tabs += 1
        try:
            await websocket.prepare(request)
            await tab.start()
            await tab.read_tab()
        except asyncio.CancelledError:
            raise
        except MachineFull as exc:  # (the gateway has logged it) the tab says why
            await tab.close(str(exc), WSCloseCode.TRY_AGAIN_LATER)
        except Exception as exc:  # noqa: BLE001 (a tab's failure is that tab's, never the server's)
            self.peer_log.warning(address, "a browser tab failed: %s: %s", type(exc).__name__, exc)
        finally:
            await asyncio.shield(tab.end())
        return websocket

    def tab_ended(self, tab: Tab) -> None:
        if tab in self.tabs:
            self.tabs.discard(tab)
            tab.session.tabs -= 1
            tab.session.expires = asyncio.get_running_loop().time() + SESSION_GRACE


async def _no_content(request: web.Request) -> web.Response:
    return web.Response(status=204)


def reached_host(request: web.Request) -> str | None:
    """The host the browser reached this page by (its Host header, for the client's join line, client.joining),
    if it is a plain name or address."""
    host = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else request.host
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    return host if is_host(host) else None


async def _refuse(request: web.Request, text: str) -> web.WebSocketResponse:
    """Tell the tab why it may not play: a line on its terminal, then the socket closes, saying it again."""
    websocket = web.WebSocketResponse()
    await websocket.prepare(request)
    await websocket.send_bytes(f"\r\n  {text}\r\n".encode())
    await websocket.close(code=4001, message=text.encode()[:120])
    return websocket
