"""The browser: ``dab-server --web-port 8080`` serves the real client to browser tabs with textual-serve.

Each tab runs its own ``dab-client`` (textual-serve's web driver), connected to
this server over loopback as a guest named ``guest-<pid>``; nothing is read
from or written to a config file (an empty token pipe). textual-serve's pages,
script and fonts are in the package, so it works offline. At most
``max_sessions`` tabs play at once; more get HTTP 503.
"""

from __future__ import annotations

import logging
import shlex
import sys
from typing import Any

from aiohttp import web
from textual_serve.server import Server


class WebGateway(Server):
    def __init__(self, game_address: tuple[str, int], host: str, port: int, max_sessions: int) -> None:
        game_host, game_port = game_address
        address = f"[{game_host}]:{game_port}" if ":" in game_host else f"{game_host}:{game_port}"
        # $$ is the tab's shell, a different number for each tab; 3</dev/null: no token, no config file.
        command = f"{shlex.quote(sys.executable)} -m client {address} --name guest-$$ --token-fd 3 3</dev/null"
        super().__init__(command, host=host, port=port, title="Down and Back")
        self.max_sessions = max_sessions
        self.tabs = 0
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
        if self.tabs >= self.max_sessions:
            return web.Response(status=503, text="the server has as many browser players as it takes")
        self.tabs += 1
        try:
            return await super().handle_websocket(request)
        finally:
            self.tabs -= 1

    async def on_startup(self, app: web.Application) -> None:
        """(textual-serve prints a banner here; the server logs its own line.)"""

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
