"""Issue 29 item 11: the private parts of Textual, Rich and textual-serve the client and the web gateway rely on
live in one adapter module each (client/textual_compat.py, client/rich_compat.py; textual-serve's static
files in server/web.py), and these tests fail naming what moved when a library changes them. The versions
tested are the upper bounds in pyproject.toml: an upgrade is a change made on purpose, with these run."""

from __future__ import annotations

import importlib
import re
from importlib.metadata import version
from pathlib import Path

from rich.style import Style
from textual.strip import Strip
from textual.widgets import Static

from tui_helpers import wait_for

from client import rich_compat, textual_compat
from client.app import DabApp

ROOT = Path(__file__).resolve().parents[2]
TEXTUAL_SERVE_TESTED = "1.1.3"


def _named(where: str) -> type:
    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


def test_the_versions_tested_are_the_installed_ones_and_pyprojects_upper_bounds():
    pyproject = (ROOT / "pyproject.toml").read_text()
    for package, tested in (("textual", textual_compat.TESTED), ("rich", rich_compat.TESTED),
                            ("textual-serve", TEXTUAL_SERVE_TESTED)):
        assert version(package) == tested, (
            f"{package} {version(package)} is installed, the adapters were checked against {tested}: run these "
            f"tests, fix what they name, and raise TESTED and pyproject.toml's bound together")
        assert re.search(rf'"{package}>=[0-9.]+,<={re.escape(tested)}"', pyproject), (package, tested)


def test_every_private_hook_the_client_overrides_is_still_textuals_and_still_overridden():
    for textual_class, member, ours in textual_compat.OVERRIDDEN:
        base, client_class = _named(textual_class), _named(ours)
        assert any(member in vars(cls) for cls in base.__mro__), f"{textual_class} has no {member} any more"
        assert member in vars(client_class), f"{ours} no longer overrides {member}: drop it from OVERRIDDEN"


def test_the_private_reads_still_read_what_they_say():
    parser = textual_compat.XTermParser()
    assert textual_compat.parser_deadline(parser) is None  # holding nothing
    list(parser.feed("\x1b"))  # a lone Esc: held until its timeout
    due = textual_compat.parser_deadline(parser)
    assert due is not None and due >= textual_compat.get_time() - 1
    assert issubclass(textual_compat.ParseError, Exception)

    strip = Strip.blank(3)
    calls: list[Strip] = []
    assert textual_compat.render_cached(strip, lambda s: calls.append(s) or "abc") == "abc"
    assert textual_compat.render_cached(strip, lambda s: calls.append(s) or "other") == "abc" and calls == [strip]

    bold = Style(bold=True, italic=True)
    assert rich_compat.attribute_bits(bold) == 0b101 and rich_compat.attribute_bits(Style(bold=False)) == 0
    assert rich_compat.attribute_bits(Style(color="red")) == 0
    bold.render("x")  # Rich caches a style's codes once it renders it
    from rich.color import ColorSystem

    assert rich_compat.cached_codes(bold) == Strip.render_ansi(bold, ColorSystem.TRUECOLOR) == "1;3"
    assert rich_compat.style_codes(bold, ColorSystem.TRUECOLOR) == "1;3"
    coloured = Style(color="red", bgcolor="#202020")
    assert rich_compat.colors(coloured) == (coloured.color, coloured.bgcolor) and rich_compat.colors(bold) == (None, None)
    assert rich_compat.style_codes(Style(italic=True), ColorSystem.TRUECOLOR) == "3"  # not cached yet


async def test_the_private_reads_of_a_running_app_still_work():
    app = DabApp(frozen_clock=True, player_name="Ann", server_label="compat")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.lobby.is_mounted, what="lobby")
        screen = app.screen
        assert textual_compat.screen_size(screen) == app.size
        assert textual_compat.driver_of(app) is not None and not textual_compat.suspended(textual_compat.driver_of(app))
        assert textual_compat.background_screens(app) == []
        label = Static("x")
        await screen.mount(label)
        label.update("y")
        assert textual_compat.settling(label)
        await pilot.pause()
        assert not textual_compat.settling(label)
        label.refresh()
        assert isinstance(textual_compat.take_dirty_regions(screen), list)
        textual_compat.forget_dirty_widgets(screen)
        textual_compat.update_mouse_over(app, screen)
        assert isinstance(app._exit_renderables, list) and callable(app._close_messages_no_wait)


def test_textual_serves_static_files_are_where_the_web_gateway_reads_them():
    from server.web import STATIC_DIRECTORY

    assert (STATIC_DIRECTORY / "js" / "textual.js").is_file()
