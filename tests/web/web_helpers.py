"""What the browser tests share: a ``dab-server --web-port 0`` of their own, the page's form, a tab's screen."""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

import reaping

aiohttp = pytest.importorskip("aiohttp")  # (the [web] extra)

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium")
ESCAPES = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
URLS = re.compile(r"\b(?:https?|wss?)://[^\s\"'<>)]+")


def start_server(tmp_path: Path, *extra: str, cwd: Path = ROOT,
                 data_dir: Path | None = None) -> tuple[subprocess.Popen[bytes], int, str]:
    """``dab-server --web-port 0`` on loopback: the process, its game port and the browsers' URL; it keeps
    nothing (``--memory``) unless given a ``data_dir``."""
    log_path = tmp_path / "server.log"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    keep = ["--data-dir", str(data_dir)] if data_dir is not None else ["--memory"]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", *keep,
                                 "--web-port", "0", "--bot-delay", "0", "--turn-timeout", "300",
                                 "--seed", "ssh-tests", *extra],
                                cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while not (found := re.search(r"listening on \S+:(\d+)[\s\S]*browsers: (http://\S+)", log_path.read_text())):
        assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()
        time.sleep(0.05)
    return proc, int(found.group(1)), found.group(2)


def server_children(proc: subprocess.Popen[bytes]) -> list[int]:
    """The tabs' clients the server runs: its fork server's children, or its own exec'd ones (its history
    worker, which a large tab's table screen may start, is left out)."""
    return reaping.session_clients(proc.pid)


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server; whatever it started and left behind (its tabs' clients) is killed with it."""
    reaping.stop(proc)


def screen_text(data: bytes) -> str:
    """What a terminal fed ``data`` says, escape sequences left out (runs of text stay whole)."""
    return ESCAPES.sub(b"", data).decode("utf-8", "replace")


def loopback(url: str) -> bool:
    return urlsplit(url).hostname in ("127.0.0.1", "localhost", "::1")


SOCKET_URL = re.compile(r'data-session-websocket-url="([^"]+)"')
ERROR = re.compile(r'<p class="error"[^>]*>([^<]*)</p>')
COOKIE = "dab_session"


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def browser(url: str, **options):
    """An HTTP client as the server's page would be one: its WebSockets come from the page's origin."""
    return aiohttp.ClientSession(headers={"Origin": origin(url)}, **options)


async def sign_in(http, url: str, name: str = "", token: str = "") -> tuple[int, str]:
    """Post the page's form (and follow its redirect to the terminal page, with its session cookie): the status
    and either the tab's WebSocket address (absolute) or the form's error."""
    async with http.post(url, data={"name": name, "token": token}, allow_redirects=False) as reply:
        page, status = await reply.text(), reply.status
        cookie = reply.cookies.get(COOKIE)
        location = reply.headers.get("Location")
    if status == 303:
        return await play_page(http, url, cookie.value if cookie else "", location)
    return _outcome(url, status, page)


async def play_page(http, url: str, cookie: str, location: str = "/play") -> tuple[int, str]:
    """The terminal page a session cookie opens (a reload): its status and its WebSocket address, or its error."""
    async with http.get(urljoin(url, location), headers={"Cookie": f"{COOKIE}={cookie}"},
                        allow_redirects=False) as reply:
        return _outcome(url, reply.status, await reply.text())


def _outcome(url: str, status: int, page: str) -> tuple[int, str]:
    found = SOCKET_URL.search(page) or ERROR.search(page)
    assert found, page
    found_text = html.unescape(found.group(1))
    if found.re is SOCKET_URL and found_text.startswith("/"):
        found_text = "ws" + origin(url)[4:] + found_text
    return status, found_text


async def screen_of(socket, until: str = "lobby") -> str:
    """What a tab's terminal shows once it shows ``until`` (the lobby), or the socket closes (a refusal), or 20 s
    pass."""
    return screen_text(await painted_of(socket, until))


async def painted_of(socket, until: str = "lobby") -> bytes:
    """The bytes a tab's terminal got until it showed ``until`` (as :func:`screen_of` waits)."""
    received = bytearray()
    deadline = time.monotonic() + 20
    while until not in screen_text(bytes(received)) and time.monotonic() < deadline:
        try:
            message = await socket.receive(timeout=max(0.1, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            break
        if message.type != aiohttp.WSMsgType.BINARY:
            break
        received.extend(message.data)
    return bytes(received)


async def tab(http, socket_url: str) -> str:
    async with http.ws_connect(socket_url + "?width=100&height=30") as socket:
        return await screen_of(socket)


async def key_to_frame(socket, key: str) -> float:
    """Seconds from a key sent by a tab to the next frame of its screen (what was pending read first)."""
    while True:  # what the screen had to say already
        try:
            await socket.receive(timeout=0.3)
        except asyncio.TimeoutError:
            break
    began = time.monotonic()
    await socket.send_str(json.dumps(["stdin", key]))
    while True:
        message = await socket.receive(timeout=60)
        if message.type == aiohttp.WSMsgType.BINARY:
            return time.monotonic() - began
        if message.type != aiohttp.WSMsgType.TEXT:  # (a pong)
            raise AssertionError(f"the tab closed: {message}")
