"""What the browser tests share: a ``dab-server --web-port 0`` of their own, the page's form, a tab's screen."""

from __future__ import annotations

import asyncio
import html
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

aiohttp = pytest.importorskip("aiohttp")  # (the [web] extra)

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium")
ESCAPES = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
URLS = re.compile(r"\b(?:https?|wss?)://[^\s\"'<>)]+")


def start_server(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[bytes], int, str]:
    """``dab-server --web-port 0`` on loopback: the process, its game port and the browsers' URL."""
    log_path = tmp_path / "server.log"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--memory",
                                 "--web-port", "0", "--bot-delay", "0", "--turn-timeout", "300",
                                 "--seed", "ssh-tests", *extra],
                                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while not (found := re.search(r"listening on \S+:(\d+)[\s\S]*browsers: (http://\S+)", log_path.read_text())):
        assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()
        time.sleep(0.05)
    return proc, int(found.group(1)), found.group(2)


def server_children(proc: subprocess.Popen[bytes]) -> list[int]:
    """The server's child processes: the tabs' clients."""
    found = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(15)


def screen_text(data: bytes) -> str:
    """What a terminal fed ``data`` says, escape sequences left out (runs of text stay whole)."""
    return ESCAPES.sub(b"", data).decode("utf-8", "replace")


def loopback(url: str) -> bool:
    return urlsplit(url).hostname in ("127.0.0.1", "localhost", "::1")


SOCKET_URL = re.compile(r'data-session-websocket-url="([^"]+)"')
ERROR = re.compile(r'<p class="error"[^>]*>([^<]*)</p>')


async def sign_in(http, url: str, name: str = "", token: str = "") -> tuple[int, str]:
    """Post the page's form: the status and either the tab's WebSocket address (the terminal page) or the
    form's error."""
    async with http.post(url, data={"name": name, "token": token}) as reply:
        page = await reply.text()
    found = SOCKET_URL.search(page) or ERROR.search(page)
    assert found, page
    return reply.status, html.unescape(found.group(1))


async def screen_of(socket, until: str = "lobby") -> str:
    """What a tab's terminal shows once it shows ``until`` (the lobby), or the socket closes (a refusal), or 20 s
    pass."""
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
    return screen_text(bytes(received))


async def tab(http, socket_url: str) -> str:
    async with http.ws_connect(socket_url + "?width=100&height=30") as socket:
        return await screen_of(socket)
