"""Helpers for Pilot tests of the Textual client: wait on conditions, read the screen, play by keys."""

from __future__ import annotations

import time
from typing import Any, Callable

from textual.pilot import Pilot

from client.app import DabApp

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
        await pilot.pause(0.01)


def screen_text(app: Any) -> str:
    """What the terminal shows now, as plain text (one line per row)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def screen_name(app: DabApp) -> str:
    return type(app.screen).__name__


def table_ready(app: DabApp) -> bool:
    screen = app.table_screen
    return screen is not None and screen.is_mounted and screen.view is not None


async def play_step(pilot: Pilot, app: DabApp) -> bool:
    """If ``app`` has a decision, make it with keys the way a person would; True if it did."""
    name = screen_name(app)
    if name == "CutScreen":
        await pilot.press("enter")
        return True
    if name == "ShowdownScreen":
        await pilot.press("enter")
        return True
    if name == "RevealScreen" and app.table_screen is not None and app.table_screen.legal:
        await pilot.press("enter")
        return True
    screen = app.table_screen
    if screen is None or not screen.is_mounted or screen.pending or app.screen is not screen:
        return False
    if "take_stock" in screen.legal:
        await pilot.press("s")
        return True
    if "discard" in screen.legal:
        await pilot.press("enter")
        return True
    return False
