"""Helpers for Pilot tests of the Textual client: wait on conditions, read the screen, play by keys."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, AsyncIterator, Callable

from textual.pilot import Pilot

from client.app import DabApp
from protocol import messages as m

WAIT = 10.0


async def wait_for(pilot: Pilot, predicate: Callable[[], Any], timeout: float = WAIT, what: str = "") -> Any:
    """Poll ``predicate`` between short pauses of the app until it is truthy."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}\n--- screen ---\n{screen_text(pilot.app)}")
        await asyncio.sleep(0.005)


def screen_text(app: Any) -> str:
    """What the terminal shows now, as plain text (one line per row)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def game_of(app: DabApp) -> dict[str, Any]:
    """The game's own view in the app's last view push (``{}`` before the table's game starts)."""
    return (app.view or {}).get("game") or {}


def screen_name(app: DabApp) -> str:
    """What is shown on top: the screen's class name, or at the table the board's panel's (``SplitPanel``...)."""
    screen = app.screen
    board = getattr(screen, "board", None)
    if screen is app.table_screen and board is not None and board.shown_panel is not None:
        return type(board.shown_panel).__name__
    return type(screen).__name__


def table_ready(app: DabApp) -> bool:
    screen = app.table_screen
    return screen is not None and screen.is_mounted and screen.view is not None


async def new_table_form(pilot: Pilot, app: DabApp) -> Any:
    """From the lobby, ``n``: the new-table form, once it is the screen."""
    from client.screens.lobby import CreateTableScreen

    await pilot.press("n")
    return await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen) and app.screen, what="form")


async def press_and_wait(pilot: Pilot, key: str, changed: Callable[[], Any], timeout: float = 2.0) -> None:
    """Press ``key`` (through the app's key handling) and poll until ``changed()`` holds.

    Faster than ``pilot.press``, which waits for the whole process to go idle
    after every key (the test server shares the process).
    """
    pilot.app.simulate_key(key)
    deadline = time.monotonic() + timeout
    while not changed() and time.monotonic() < deadline:
        await asyncio.sleep(0.002)


async def play_step(pilot: Pilot, app: DabApp, unless: Callable[[], Any] = lambda: False) -> bool:
    """If ``app`` has a decision, make it with keys the way a person would; True if it did.

    Nothing is pressed if ``unless()`` holds at that moment.
    """
    if unless():
        return False
    screen = app.screen
    name = screen_name(app)
    # (A reveal needs no key: the table closes it when our next decision comes.)
    if name == "CutScreen" and screen.is_mounted:
        await press_and_wait(pilot, "enter", lambda: app.screen is not screen)
        return True
    table = app.table_screen
    if name == "SplitPanel" and table is not None and table.board is not None:
        panel = table.board.panel
        await press_and_wait(pilot, "enter", lambda: table.board.panel is not panel)
        return True
    if table is None or not table.is_mounted or table.pending or screen is not table:
        return False
    sent = len(app.requests_sent)
    if "take_stock" in table.legal:
        await press_and_wait(pilot, "s", lambda: len(app.requests_sent) > sent)
        return True
    if "discard" in table.legal:
        await press_and_wait(pilot, "enter", lambda: len(app.requests_sent) > sent)
        return True
    return False


async def drive(pilot: Pilot, app: DabApp, until: Callable[[], Any], timeout: float = WAIT, what: str = "") -> Any:
    """Play ``app``'s decisions by keys (see :func:`play_step`) until ``until()`` is truthy."""
    deadline = time.monotonic() + timeout
    while True:
        result = until()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out playing until {what or until}\n--- screen ---\n{screen_text(app)}")
        if not await play_step(pilot, app, until):
            await asyncio.sleep(0.005)


async def start_two_player_game(pilot: Pilot, app: DabApp, bob: Any) -> None:
    """The app quick-joins (creating a table); scripted ``bob`` joins; the app's host starts."""
    from protocol import messages as m

    await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted, what="connected")
    await pilot.press("q")
    await wait_for(pilot, lambda: table_ready(app), what="table screen")
    await bob.request(m.Join, table_id=app.table_id)
    await wait_for(pilot, lambda: len(app.view["table"]["members"]) == 2, what="Bob seated")
    await pilot.press("g")
    await wait_for(pilot, lambda: app.view["game"] is not None, what="game started")


@contextlib.asynccontextmanager
async def opponent_playing(client: Any) -> AsyncIterator[asyncio.Task[None]]:
    """A scripted opponent plays its seat in the background while the block runs."""
    from scripted import autoplay

    task = asyncio.create_task(autoplay(client, until_round=99))
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
            await task


def view_push(table_id: str, view: dict[str, Any]) -> m.View:
    """The ``view`` push a server sends for a fixture written as one flat map (the game's view with the
    table's facts under ``table``, ``deadline_ms`` and each player's ``bot``/``connected``; ``phase: "lobby"``
    before the game), so offline tests write a view compactly and feed the app what the wire carries."""
    shown = view.get("table", {})
    players = view.get("players", [])
    settings = dict(view.get("settings") or {})
    seats = settings.pop("seats", None) or shown.get("seats") or len(players)
    game_name = settings.pop("game", None) or "down-and-back"
    table = {
        "table_id": table_id, "name": shown.get("name", ""), "title": game_name,
        "settings": {"game": game_name, "seats": seats, "rules": settings},
        "state": shown.get("state", "playing"), "host_seat": shown.get("host_seat"), "seat": view.get("seat"),
        "members": [{"seat": p["seat"], "name": p["name"], "bot": p.get("bot", False),
                     "connected": p.get("connected", True), "away": p.get("away", False)} for p in players],
        "spectators": shown.get("spectators", 0), "private": shown.get("private", False),
        "fixed_seed": shown.get("fixed_seed", False), "chip_history": view.get("chip_history"),
    }
    game = None
    if view.get("phase") != "lobby":
        game = {k: v for k, v in view.items() if k not in ("table", "deadline_ms", "chip_history")}
        game["players"] = [{k: v for k, v in p.items() if k not in ("bot", "connected")} for p in players]
    return m.View(table_id=table_id, table=table, game=game, deadline_ms=view.get("deadline_ms"))

