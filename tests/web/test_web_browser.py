"""``dab-server --web-port``: a real headless Chromium plays by keys in the served client."""

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

import pytest

from protocol import messages as m
from scripted import ScriptedClient

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
playwright = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium")


@pytest.fixture
def served(tmp_path):
    log_path = tmp_path / "server.log"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--memory",
                                 "--web-port", "0", "--bot-delay", "0", "--turn-timeout", "300",
                                 "--seed", "ssh-tests"],  # the guest deals: their first decision is a take
                                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while not (found := re.search(r"listening on \S+:(\d+)[\s\S]*browsers: (http://\S+)", log_path.read_text())):
        assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()
        time.sleep(0.05)
    yield int(found.group(1)), found.group(2)
    proc.send_signal(signal.SIGTERM)
    proc.wait(15)


async def test_a_browser_tab_plays_a_decision_by_keys(served, tmp_path):
    game_port, url = served
    async with ScriptedClient(game_port, "Watcher") as watcher, playwright.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = await browser.new_page(viewport={"width": 1200, "height": 800})
        await page.goto(url)

        async def press_until(key: str, check, what: str):
            """Press ``key`` in the tab until the server shows ``check()`` (the app may still be starting)."""
            for _ in range(30):
                await page.mouse.click(600, 400)  # focus the terminal
                await page.keyboard.press(key)
                try:
                    return await watcher.wait_for(check, timeout=1.0)
                except asyncio.TimeoutError:
                    continue
            await page.screenshot(path=str(tmp_path / "browser.png"))
            raise AssertionError(f"the tab never {what} (see {tmp_path})")

        def guest_table(bots: int = 0, state: str = "waiting"):
            return next((t for t in watcher.tables if t.state == state and sum(p.bot for p in t.players) >= bots
                         and any(p.name.startswith("guest-") for p in t.players)), None)

        table = await press_until("p", guest_table, "played now from its lobby")  # the lobby is up and keyed
        await press_until("b", lambda: guest_table(bots=1), "added a bot")
        table = await press_until("g", lambda: guest_table(state="playing"), "started the game")
        await watcher.request(m.Watch, table_id=table.table_id)
        (seat,) = [p.seat for p in table.players if p.name.startswith("guest-")]

        def guest_to_act() -> bool:
            view = watcher.views.get(table.table_id, {})
            return view.get("phase") == "play" and seat in (view.get("to_act") or [])

        await watcher.wait_for(guest_to_act, timeout=20)
        await press_until("s", lambda: any("take_stock" in e.values() and e.get("seat") == seat  # the decision
                                           for e in watcher.events), "took the top card of the stock")
        await page.screenshot(path=str(tmp_path / "browser.png"))
        await browser.close()


def test_web_port_names_the_missing_extra():
    code = ("import sys; sys.modules['textual_serve'] = None; from server.__main__ import main; "
            "sys.exit(main(['--memory', '--web-port', '0']))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "pip install 'down-and-back[web]'" in result.stderr, result.stderr
