"""A 1280x800 browser tab is a larger terminal (issue 27 item 17): the practice table it deals, of either game,
has the side panel (the game's reference and scores, the chat) and large cards, as a 120x40 terminal has."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from web_helpers import CHROMIUM, loopback, screen_text, start_server, stop_server

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


BIG, SMALL = "╭───────╮", "╭────╮"  # the top edge of a 9x7 card and of a 6x4 one

# Each game: its key in the practice question, and what its large table shows (the side panel's sections, a
# hand of large cards); Cribbage's once the draw for the first deal is cut and the hand dealt ("Lay away").
GAMES = {
    "down-and-back": ("1", ("Going down (4)", "Coming back (3)", "Rounds: each result is listed here.", BIG)),
    "cribbage": ("2", ("Scoring", "fifteen", "his nobs", "Lay away", BIG)),
}


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium")
@pytest.mark.parametrize("game", list(GAMES))
async def test_a_1280x800_tab_shows_the_side_panel_and_large_cards(tmp_path, game):
    playwright = pytest.importorskip("playwright.async_api")
    proc, _, url = start_server(tmp_path)
    try:
        async with playwright.async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            await context.route("**/*", lambda route, request: route.continue_() if loopback(request.url)
                                else route.abort())
            page = await context.new_page()
            received, sizes = bytearray(), []

            def socket(ws) -> None:
                ws.on("framereceived", lambda frame: received.extend(frame if isinstance(frame, bytes) else b""))
                ws.on("framesent", lambda frame: sizes.extend(
                    json.loads(frame)[1:] if isinstance(frame, str) and frame.startswith('["resize"') else []))

            page.on("websocket", socket)
            await page.goto(url)
            await page.fill("#name", "Wide")
            async with page.expect_navigation():
                await page.click("#play")

            async def shown(what: str, check) -> str:
                deadline, cut = time.monotonic() + 30, 0  # cut: the bytes up to our last cut
                while not check(text := screen_text(bytes(received))):
                    if "Cut here" in screen_text(bytes(received[cut:])):  # we are asked to cut (the draw)
                        cut = len(received)
                        await page.keyboard.press("Enter")
                    if time.monotonic() > deadline:
                        await page.screenshot(path=str(tmp_path / "tab.png"))
                        raise AssertionError(f"the tab never showed {what} (see {tmp_path}): {sizes}\n{text[-3000:]}")
                    await asyncio.sleep(0.05)
                return text

            await shown("the lobby", lambda text: "b practice" in text.lower())
            await page.mouse.click(640, 400)  # the terminal has the keyboard
            await page.keyboard.press("b")  # practice: which game?
            await shown("the question", lambda text: "Practise against bots at" in text)
            key, expected = GAMES[game]
            await page.keyboard.press(key)  # a practice table of that game, dealt at once
            text = await shown("the side panel and large cards", lambda text: all(part in text for part in expected))
            if game == "down-and-back":
                assert SMALL not in text  # no 6x4 card
            width, height = sizes[-1]["width"], sizes[-1]["height"]
            assert width >= 120 and height >= 36, sizes  # the tab's terminal is a large one
            await browser.close()
    finally:
        stop_server(proc)
