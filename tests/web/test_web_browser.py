"""``dab-server --web-port``: a real headless Chromium opens the lobby, deals a practice table and plays by keys,
with nothing fetched from beyond this machine."""

from __future__ import annotations

import asyncio
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

from protocol import messages as m
from scripted import ScriptedClient
from server.limits import CLIENT_NICENESS

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
ESCAPES = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
URLS = re.compile(r"\b(?:https?|wss?)://[^\s\"'<>)]+")
aiohttp = pytest.importorskip("aiohttp")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium")


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


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(15)


@pytest.fixture
def served(tmp_path):
    proc, game_port, url = start_server(tmp_path)
    yield game_port, url
    stop_server(proc)


def screen_text(data: bytes) -> str:
    """What a terminal fed ``data`` says, escape sequences left out (runs of text stay whole)."""
    return ESCAPES.sub(b"", data).decode("utf-8", "replace")


def loopback(url: str) -> bool:
    return urlsplit(url).hostname in ("127.0.0.1", "localhost", "::1")


async def test_the_page_loads_nothing_from_beyond_this_server(served):
    """Offline on a LAN: every address on the page is this server's, and each one it loads is there."""
    _, url = served
    async with aiohttp.ClientSession() as http:
        async with http.get(url) as reply:
            assert reply.status == 200
            page = await reply.text()
        found = URLS.findall(page)
        assert found and all(u.startswith(url.rstrip("/") + "/") or u.startswith("ws" + url[4:].rstrip("/") + "/")
                             for u in found), found
        for loaded in re.findall(r'(?:href|src)="([^"]+)"', page) + re.findall(r'url\("([^"]+)"\)', page):
            async with http.get(loaded) as reply:
                assert reply.status == 200, loaded


@needs_chromium
async def test_a_browser_tab_opens_the_lobby_deals_a_practice_table_and_plays_by_keys(served, tmp_path):
    playwright = pytest.importorskip("playwright.async_api")
    game_port, url = served
    async with ScriptedClient(game_port, "Watcher") as watcher, playwright.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = await browser.new_context(viewport={"width": 1200, "height": 800})
        requested: list[str] = []

        async def only_this_machine(route, request) -> None:
            """Every request the page makes is recorded; one beyond loopback is refused."""
            requested.append(request.url)
            await (route.continue_() if loopback(request.url) else route.abort())

        await context.route("**/*", only_this_machine)
        page = await context.new_page()
        screen = bytearray()  # what the tab's terminal was sent: the served client's screen
        page.on("websocket", lambda ws: (requested.append(ws.url), ws.on(
            "framereceived", lambda frame: screen.extend(frame if isinstance(frame, bytes) else b""))))
        await page.goto(url)

        async def shown(what: str, check) -> None:
            deadline = time.monotonic() + 20
            while not check(screen_text(bytes(screen))):
                if time.monotonic() > deadline:
                    await page.screenshot(path=str(tmp_path / "browser.png"))
                    raise AssertionError(f"the tab never showed {what} (see {tmp_path}):\n{screen_text(screen)}")
                await asyncio.sleep(0.05)  # frames arrive on Playwright's connection

        await shown("the lobby", lambda text: "lobby" in text and "b practice" in text.lower())
        await page.mouse.click(600, 400)  # the terminal has the keyboard
        await page.keyboard.press("b")  # practice: a table of the guest's own with bots, dealt at once

        def practice(summary_state: str = "playing"):
            return next((t for t in watcher.tables if t.state == summary_state and t.name.endswith("'s practice")
                         and t.name.startswith("guest-")), None)

        table = await watcher.wait_for(practice, timeout=20)
        assert [p.bot for p in table.players] == [False, True, True, True]  # the game's usual three bots
        await watcher.request(m.Watch, table_id=table.table_id)
        (seat,) = [p.seat for p in table.players if not p.bot]

        def guest_to_act() -> bool:
            view = watcher.views.get(table.table_id, {})
            return view.get("phase") == "play" and seat in (view.get("to_act") or [])

        await watcher.wait_for(guest_to_act, timeout=20)
        await page.keyboard.press("s")  # the decision: take the top card of the stock
        await watcher.wait_for(lambda: any(e.get("kind") == "take_stock" and e.get("seat") == seat
                                           for e in watcher.events), timeout=20)
        await page.screenshot(path=str(tmp_path / "browser.png"))
        await browser.close()
    assert requested and all(loopback(u) for u in requested), [u for u in requested if not loopback(u)]


def socket_url(url: str) -> str:
    """The address textual-serve's page opens for a tab's session."""
    return "ws" + url[4:].rstrip("/") + "/ws?width=100&height=30"


async def screen_of(socket) -> str:
    """What a tab's terminal shows once the lobby is painted, or the socket closes (a refusal), or 20 s pass."""
    received = bytearray()
    deadline = time.monotonic() + 20
    while "lobby" not in screen_text(bytes(received)) and time.monotonic() < deadline:
        try:
            message = await socket.receive(timeout=max(0.1, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            break
        if message.type != aiohttp.WSMsgType.BINARY:
            break
        received.extend(message.data)
    return screen_text(bytes(received))


async def tab(url: str, http) -> str:
    async with http.ws_connect(socket_url(url)) as socket:
        return await screen_of(socket)


async def test_tabs_are_limited_per_browser_address_not_as_loopback(tmp_path):
    """Every tab's client reaches the game server from loopback: the server lets them be (one connection
    and one new player allowed per address there), the gateway counts the browsers' address instead."""
    proc, _, url = start_server(tmp_path, "--max-per-address", "1", "--new-players-per-hour", "3",
                                "--web-max-per-address", "2")
    try:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(socket_url(url)) as one, http.ws_connect(socket_url(url)) as two:
                screens = await asyncio.gather(screen_of(one), screen_of(two))
                assert all("lobby" in text for text in screens), screens  # two loopback connections, both in
                clients = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout
                base = os.getpriority(os.PRIO_PROCESS, proc.pid)  # each tab's client yields the CPU to the server
                assert {os.getpriority(os.PRIO_PROCESS, int(pid)) for pid in clients.split()} == {base + CLIENT_NICENESS}
                assert "At most 2 browser tabs from one address" in await tab(url, http)  # not a third at once
            deadline = time.monotonic() + 10
            while "At most 2" in (third := await tab(url, http)) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)  # the two tabs' clients are still quitting
            assert "lobby" in third  # the third new player of the address this hour
            assert "Too many new players from your address" in await tab(url, http)  # not a fourth
    finally:
        stop_server(proc)


def test_web_port_names_the_missing_extra():
    code = ("import sys; sys.modules['textual_serve'] = None; from server.__main__ import main; "
            "sys.exit(main(['--memory', '--web-port', '0']))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "pip install 'down-and-back[web]'" in result.stderr, result.stderr
