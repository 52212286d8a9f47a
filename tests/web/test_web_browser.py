"""``dab-server --web-port``: in a real headless Chromium a tab signs in under the name it chooses, opens the
lobby, deals a practice table and plays by keys; a tab with a player's token is that player; nothing is
fetched from beyond this machine."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from protocol import messages as m
from scripted import ScriptedClient
from server.limits import CLIENT_NICENESS
from web_helpers import (CHROMIUM, COOKIE, ROOT, URLS, browser, loopback, screen_of, screen_text,
                         server_children, sign_in, start_server, stop_server, tab)

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture
def served(tmp_path):
    proc, game_port, url = start_server(tmp_path)
    yield game_port, url
    stop_server(proc)


async def test_the_page_loads_nothing_from_beyond_this_server(served):
    """Offline on a LAN: every address on the sign-in page, the terminal page and their style sheets is relative
    (this server's, whatever name the browser reached it by: never the request's Host), and each one they
    load is there."""
    _, url = served
    async with browser(url) as http:
        async with http.get(url, headers={"Host": "rebound.example:80"}) as reply:
            assert reply.status == 200
            form = await reply.text()
        async with http.post(url, data={"name": "Offline"}, allow_redirects=False) as reply:
            assert reply.status == 303 and reply.headers["Location"] == "/play"
            cookie = reply.cookies[COOKIE].value
        async with http.get(url + "play", headers={"Cookie": f"{COOKIE}={cookie}", "Host": "rebound.example:80"}) \
                as reply:
            assert reply.status == 200
            terminal = await reply.text()
        assert "/ws/" in terminal
        for page in (form, terminal):
            assert not URLS.findall(page) and "rebound" not in page, URLS.findall(page)
            for loaded in re.findall(r'(?:href|src)="([^"]+)"', page):
                assert loaded.startswith("/"), loaded
                async with http.get(url.rstrip("/") + loaded) as reply:
                    assert reply.status == 200, loaded
                    if loaded.endswith(".css"):
                        for inner in re.findall(r'url\("([^"]+)"\)', await reply.text()):
                            assert inner.startswith("/"), inner
                            async with http.get(url.rstrip("/") + inner) as font:
                                assert font.status == 200, inner


class Tab:
    """A page in a real headless Chromium: every request it makes is recorded, one beyond loopback refused,
    and ``screen`` holds what its terminal was sent (the served client's screen)."""

    def __init__(self, page, tmp_path: Path) -> None:
        self.page, self.tmp_path = page, tmp_path
        self.requested: list[str] = []
        self.screen = bytearray()
        self.refused: list[str] = []  # what the page's Content-Security-Policy blocked

    @classmethod
    async def open(cls, browser, url: str, tmp_path: Path) -> "Tab":
        context = await browser.new_context(viewport={"width": 1200, "height": 800})
        tab = cls(await context.new_page(), tmp_path)

        async def only_this_machine(route, request) -> None:
            tab.requested.append(request.url)
            await (route.continue_() if loopback(request.url) else route.abort())

        await context.route("**/*", only_this_machine)
        tab.page.on("console", lambda message: tab.refused.append(message.text)
                    if "Content Security Policy" in message.text else None)
        tab.page.on("websocket", lambda ws: (tab.requested.append(ws.url), ws.on(
            "framereceived", lambda frame: tab.screen.extend(frame if isinstance(frame, bytes) else b""))))
        await tab.page.goto(url)
        return tab

    async def sign_in(self, name: str = "", token: str = "") -> None:
        """Fill the page's form and press Play (the terminal page, or the form again, follows)."""
        await self.page.fill("#name", name)
        await self.page.fill("#token", token)
        async with self.page.expect_navigation():
            await self.page.click("#play")

    @property
    def text(self) -> str:
        return screen_text(bytes(self.screen))

    async def shown(self, what: str, check) -> None:
        deadline = time.monotonic() + 20
        while not check(self.text):
            if time.monotonic() > deadline:
                await self.page.screenshot(path=str(self.tmp_path / "browser.png"))
                raise AssertionError(f"the tab never showed {what} (see {self.tmp_path}):\n{self.text}")
            await asyncio.sleep(0.05)  # frames arrive on Playwright's connection

    async def keys(self, *keys: str) -> None:
        await self.page.mouse.click(600, 400)  # the terminal has the keyboard
        for key in keys:
            await self.page.keyboard.press(key)


@needs_chromium
async def test_a_browser_tab_chooses_its_name_opens_the_lobby_deals_a_practice_table_and_plays_by_keys(
        served, tmp_path):
    playwright = pytest.importorskip("playwright.async_api")
    game_port, url = served
    async with ScriptedClient(game_port, "Watcher") as watcher, playwright.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        tab = await Tab.open(browser, url, tmp_path)
        page, requested = tab.page, tab.requested
        await tab.sign_in("Watcher")  # taken: the form says so, and no game starts
        assert "in use by another player" in await page.inner_text("#error")
        assert await page.locator("#terminal").count() == 0
        await tab.sign_in("  Zoë\u200b  ")  # cleaned as the server cleans names
        await tab.shown("the lobby under the chosen name",
                        lambda text: "lobby" in text and "b practice" in text.lower() and "as Zoë" in text)
        await tab.keys("b")  # practice: which game?
        await tab.shown("the question", lambda text: "Practise against bots at" in text)
        await page.keyboard.press("b")  # the game offered first: a table of the guest's own with bots, dealt at once

        def practice(summary_state: str = "playing"):
            return next((t for t in watcher.tables if t.state == summary_state and t.name == "Zoë's practice"),
                        None)

        table = await watcher.wait_for(practice, timeout=20)
        assert [p.name for p in table.players if not p.bot] == ["Zoë"]
        assert [p.bot for p in table.players] == [False, True, True, True]  # the game's usual three bots
        await watcher.request(m.Watch, table_id=table.table_id)
        (seat,) = [p.seat for p in table.players if not p.bot]

        def guest_to_act() -> bool:
            view = watcher.views.get(table.table_id, {})
            return view.get("phase") == "play" and seat in (view.get("to_act") or [])

        def guest_to_cut() -> bool:  # the cutter is drawn once the deck is fixed: the guest may be it
            view = watcher.views.get(table.table_id, {})
            return view.get("phase") == "cut" and view.get("cutter") == seat and seat in (view.get("to_act") or [])

        await watcher.wait_for(lambda: guest_to_act() or guest_to_cut(), timeout=20)
        if guest_to_cut():
            await page.keyboard.press("r")  # the cut dialog: cut at random
            await watcher.wait_for(guest_to_act, timeout=20)
        await page.keyboard.press("s")  # the decision: take the top card of the stock
        await watcher.wait_for(lambda: any(e.get("kind") == "take_stock" and e.get("seat") == seat
                                           for e in watcher.events), timeout=20)
        await page.screenshot(path=str(tmp_path / "browser.png"))
        await browser.close()
    assert requested and all(loopback(u) for u in requested), [u for u in requested if not loopback(u)]
    assert not tab.refused  # the page keeps to its own Content-Security-Policy


@needs_chromium
async def test_a_tab_with_the_terminal_clients_token_is_that_player_and_a_wrong_token_is_refused(tmp_path):
    """Ann plays from a terminal client (here a protocol client whose token sits in dab-client's config file,
    where ``dab-client token`` finds it), at a running game that bought in 500 of her chips, and drops. In a
    browser, a wrong token is refused on the page; hers brings the tab back to her held seat, and her lobby
    shows her chips. The token is on no client's command line or environment, on no page and in no log."""
    playwright = pytest.importorskip("playwright.async_api")
    proc, game_port, url = start_server(tmp_path)
    try:
        async with ScriptedClient(game_port, "Watcher") as watcher, ScriptedClient(game_port, "Ann") as ann:
            created = await ann.request(m.CreateTable, name="Ann's game",
                                        settings=m.TableSettings(seats=2, rules={"stack": 500}))
            table_id = created["table_id"]
            await ann.request(m.AddBot)
            await ann.request(m.Start)
            balance = (await ann.request(m.ListTables))["balance"]
            token = ann.link.token
            seat = (await ann.wait_for(lambda: ann.facts.get(table_id)))["seat"]
            await watcher.request(m.Watch, table_id=table_id)
            await ann.link.close()  # dropped: the seat is held, played for her
            await watcher.wait_for(lambda: table_id in watcher.facts and not watcher.member(seat)["connected"])

            config = tmp_path / "config"
            config.mkdir()
            (config / "client.json").write_text(json.dumps({"name": "Ann", "last_server": f"127.0.0.1:{game_port}",
                                                            "tokens": {f"127.0.0.1:{game_port}": token}}))
            kept = subprocess.run([sys.executable, "-m", "client", "token", "--config-dir", str(config)], cwd=ROOT,
                                  capture_output=True, text=True, timeout=30)
            assert kept.returncode == 0 and kept.stdout.strip() == token, kept

            async with playwright.async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                tab = await Tab.open(browser, url, tmp_path)
                wrong = token[:-1] + ("A" if token[-1] != "A" else "B")
                await tab.sign_in("Ann", wrong)
                assert "That token is not valid on this server" in await tab.page.inner_text("#error")
                assert await tab.page.locator("#terminal").count() == 0 and wrong not in await tab.page.content()

                await tab.sign_in("", kept.stdout.strip())  # no name needed: the token's player has one
                await watcher.wait_for(lambda: watcher.member(seat)["connected"], timeout=20)
                await tab.shown("Ann's table", lambda text: "Ann's game" in text)
                assert token not in await tab.page.content()
                for pid in server_children(proc):  # the tab's client: not on its command line, nor in its environment
                    for part in ("cmdline", "environ"):
                        assert token.encode() not in Path(f"/proc/{pid}/{part}").read_bytes()

                await tab.keys("l", "y")  # leave the running game (the seat is kept): the lobby, with her chips
                await tab.shown("Ann's chips in the lobby", lambda text: "as Ann" in text and f"{balance:,} chips" in text)
                assert balance == 10_000 - 500
                await browser.close()
            assert all(loopback(u) for u in tab.requested) and not any(token in u for u in tab.requested)
    finally:
        stop_server(proc)
    assert token not in (tmp_path / "server.log").read_text()


async def test_tabs_are_limited_per_browser_address_not_as_loopback(tmp_path):
    """Every tab's client reaches the game server from loopback: the server lets them be (one connection
    and one new player allowed per address there), the gateway counts the browsers' address instead."""
    proc, _, url = start_server(tmp_path, "--max-per-address", "1", "--new-players-per-hour", "3",
                                "--web-max-per-address", "2")
    try:
        async with browser(url) as http:
            (_, first), (_, second) = await sign_in(http, url, "One"), await sign_in(http, url, "Two")
            assert await sign_in(http, url, "Three") == (  # two tickets not yet used count as two tabs
                403, "At most 2 browser tabs from one address play at once; close one first.")
            async with http.ws_connect(first) as one, http.ws_connect(second) as two:
                screens = await asyncio.gather(screen_of(one), screen_of(two))
                assert all("lobby" in text for text in screens), screens  # two loopback connections, both in
                clients = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout
                # each tab's client yields the CPU to the server (niceness stops at 19)
                nicer = min(os.getpriority(os.PRIO_PROCESS, proc.pid) + CLIENT_NICENESS, 19)
                assert {os.getpriority(os.PRIO_PROCESS, int(pid)) for pid in clients.split()} == {nicer}
                assert (await sign_in(http, url, "Three"))[0] == 403  # not a third at once
            deadline = time.monotonic() + 10
            while (third := await sign_in(http, url, "Three"))[0] == 403 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)  # the two tabs' clients are still quitting
            assert third[0] == 200 and "lobby" in await tab(http, third[1])  # the address's third new player
            assert await sign_in(http, url, "Four") == (429, "Too many new players from your address; try again later.")
    finally:
        stop_server(proc)


def test_web_port_names_the_missing_extra():
    code = ("import sys; sys.modules['textual_serve'] = None; from server.__main__ import main; "
            "sys.exit(main(['--memory', '--web-port', '0']))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "pip install 'down-and-back[web]'" in result.stderr, result.stderr


@needs_chromium
async def test_a_guest_plays_by_keys_at_once_and_a_reload_comes_back_to_the_same_seat(tmp_path):
    """After Play the keyboard is the terminal's (no click); the page's title and the lobby name the server, not
    the loopback address its client uses; F5 mid-game comes back to the guest's own seat, not a new player."""
    playwright = pytest.importorskip("playwright.async_api")
    proc, game_port, url = start_server(tmp_path, "--server-name", "The Crown")
    try:
        async with ScriptedClient(game_port, "Watcher") as watcher, playwright.async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            tab = await Tab.open(browser, url, tmp_path)
            assert await tab.page.title() == "The Crown · Down and Back"
            await tab.sign_in("Zoë")
            await tab.shown("the lobby", lambda text: "as Zoë" in text and "b practice" in text.lower())
            assert "The Crown" in tab.text and f"127.0.0.1:{game_port}" not in tab.text
            await tab.page.keyboard.press("b")  # no click first: the terminal has the keyboard already
            await tab.shown("the question", lambda text: "Practise against bots at" in text)
            await tab.page.keyboard.press("b")

            def practice():
                return next((t for t in watcher.tables if t.state == "playing" and t.name == "Zoë's practice"), None)

            table = await watcher.wait_for(practice, timeout=30)
            await watcher.request(m.Watch, table_id=table.table_id)
            (seat,) = [p.seat for p in table.players if not p.bot]
            await watcher.wait_for(lambda: table.table_id in watcher.facts and watcher.member(seat)["connected"])
            tab.screen.clear()
            await tab.page.reload()  # F5: the same session, a new ticket, the same player
            # The new tab's client may take the seat over before the old one's connection is closed, so the
            # seat need not be seen offline in between; what counts is that the new tab is at that table.
            await tab.shown("the practice table again",
                            lambda text: "Zoë's practice" in text and "b practice" not in text.lower())
            await watcher.wait_for(lambda: watcher.member(seat)["connected"], timeout=30)
            assert watcher.member(seat)["name"] == "Zoë"  # (a new guest would be "Zoë 2", at no seat)
            assert await tab.page.title() == "The Crown · Down and Back" and not tab.refused
            await browser.close()
    finally:
        stop_server(proc)


@needs_chromium
async def test_a_tab_displaced_by_another_tab_of_its_player_says_why(tmp_path):
    playwright = pytest.importorskip("playwright.async_api")
    proc, game_port, url = start_server(tmp_path)
    try:
        async with ScriptedClient(game_port, "Ann") as ann:
            token = ann.link.token
        async with playwright.async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            first = await Tab.open(browser, url, tmp_path)
            await first.sign_in("", token)
            await first.shown("Ann's lobby", lambda text: "as Ann" in text)
            second = await Tab.open(browser, url, tmp_path)
            await second.sign_in("", token)
            await second.shown("Ann's lobby in the second tab", lambda text: "as Ann" in text)
            reason = first.page.locator("#reason")
            await reason.wait_for(state="visible", timeout=20_000)
            assert await reason.inner_text() == "You opened the game in another tab: it plays there now."
            await browser.close()
    finally:
        stop_server(proc)
