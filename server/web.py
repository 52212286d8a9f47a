"""The browser: ``dab-server --web-port 8080`` serves the real client to browser tabs with textual-serve.

Each tab runs its own ``dab-client`` (textual-serve's web driver), connected to
this server over loopback as a guest named ``guest-<pid>`` and running nicer
than the server (``CLIENT_NICENESS``); nothing is read
from or written to a config file (an empty token pipe). The page is our own
(``web_page/app_index.html``): it loads only textual-serve's script, style sheet
and fonts from this server, so it works offline (textual-serve's page links a
web font on the internet).

Limits, counted by the browser's address (the game server does not count the
tabs' loopback connections): at most ``max_sessions`` tabs in all and
``max_per_address`` from one address, and each tab, a new guest, takes one of
the address's new-player allowance. A refused tab is told why on its screen.
"""

from __future__ import annotations

import logging
import shlex
import sys
from pathlib import Path
from typing import Any

from aiohttp import web
from textual_serve.server import Server

from .limits import CLIENT_NICENESS, BucketsByKey, address_key

PAGE_DIRECTORY = Path(__file__).with_name("web_page")


class WebGateway(Server):
    def __init__(self, game_address: tuple[str, int], host: str, port: int, max_sessions: int,
                 max_per_address: int, new_players_per_hour: int) -> None:
        game_host, game_port = game_address
        address = f"[{game_host}]:{game_port}" if ":" in game_host else f"{game_host}:{game_port}"
        # $$ is the tab's shell (the client, after exec), a different number for each tab; 3</dev/null: no
        # token, no config file; nice: the clients yield the CPU to the server.
        command = (f"exec nice -n {CLIENT_NICENESS} {shlex.quote(sys.executable)} -m client {address} "
                   f"--name guest-$$ --token-fd 3 3</dev/null")
        super().__init__(command, host=host, port=port, title="Down and Back", templates_path=PAGE_DIRECTORY)
        self.max_sessions = max_sessions
        self.max_per_address = max_per_address
        self.new_players = BucketsByKey(new_players_per_hour / 3600, new_players_per_hour)
        self.tabs = 0
        self.per_address: dict[str, int] = {}
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)  # a line per request is a peer's to cause
        self._runner = web.AppRunner(await self._make_app())
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def handle_index(self, request: web.Request) -> dict[str, Any]:
        # The page's links use the address the browser asked for (not 0.0.0.0, nor port 0).
        self.public_url = f"{request.scheme}://{request.host}"
        return await super().handle_index(request)

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        address = address_key(request.remote or "?")
        refusal = self._refusal(address)
        if refusal is not None:
            return await _refuse(request, refusal)
        self.tabs += 1
        self.per_address[address] = self.per_address.get(address, 0) + 1
        try:
            return await super().handle_websocket(request)
        finally:
            self.tabs -= 1
            left = self.per_address.pop(address) - 1
            if left:
                self.per_address[address] = left

    def _refusal(self, address: str) -> str | None:
        """Why a new tab from ``address`` may not play, or ``None``: it may (and took a new player)."""
        if self.tabs >= self.max_sessions:
            return "The server has as many browser players as it takes; try again later."
        if self.per_address.get(address, 0) >= self.max_per_address:
            return f"At most {self.max_per_address} browser tabs from one address play at once; close one first."
        if not self.new_players.take(address):
            return "Too many new players from your address; try again later."
        return None

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
