"""Every private part of Textual this client relies on, in one place (issue 29 item 11).

Textual has no public API for these; each is used for a reason its caller states (fewer bytes painted, no
idle wake-ups, a crash logged plainly). Everything else in ``client/`` uses Textual's public API only. The
names are checked by ``tests/client/test_library_compat.py``, which fails naming the one that moved when
Textual changes; ``pyproject.toml`` pins the versions tested (:data:`TESTED`) as the upper bound.

Two kinds of use:

* reads and calls, wrapped here as functions: the client calls these, never the private name;
* hooks the client overrides (a private method of a Textual class, extended with ``super()``): they
  cannot live here, so :data:`OVERRIDDEN` lists each, and the test checks that Textual still has it and
  that the client's class still overrides it (an override of a name Textual no longer calls would
  silently do nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from textual._parser import ParseError  # noqa: F401  (the driver's input parser)
from textual._time import get_time  # noqa: F401  (the parser's clock: its deadlines are on it)
from textual._xterm_parser import XTermParser  # noqa: F401  (no public parser of terminal input)

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen
    from textual.strip import Strip
    from textual.widget import Widget

TESTED = "8.2.8"  # the Textual these names were checked against (pyproject.toml's upper bound)

OVERRIDDEN: tuple[tuple[str, str, str], ...] = (
    # (Textual class, its private member, the client's class that overrides it)
    ("textual.app:App", "_background_screens", "client.app:DabApp"),
    ("textual.app:App", "_fatal_error", "client.app:DabApp"),
    ("textual.screen:Screen", "_compositor_refresh", "client.widgets.basics:QuietBackground"),
    ("textual.screen:Screen", "_compositor_refresh", "client.screens.table:TableScreen"),
    ("textual.screen:Screen", "_on_resize", "client.widgets.basics:SteadyScreen"),
    ("textual.screen:Screen", "_on_screen_resume", "client.widgets.basics:SteadyScreen"),
    ("textual.widgets:Input", "_on_blur", "client.screens.table:ChatInput"),
)


def parser_deadline(parser: XTermParser) -> float | None:
    """When the input parser lets out what it holds (a lone Esc that may begin a sequence), on
    :func:`get_time`'s clock; ``None`` while it holds nothing."""
    return parser._timeout_time


def settling(widget: Widget) -> bool:
    """``widget`` has a repaint or a layout on its way to the screen."""
    return widget._repaint_required or widget._layout_required


def screen_size(screen: Screen[Any]) -> Any:
    """The size the screen's compositor last laid it out at."""
    return screen._compositor.size


def background_screens(app: App[Any]) -> list[Screen[Any]]:
    """The screens Textual paints under the top one (they show through it)."""
    return app._background_screens


def take_dirty_regions(screen: Screen[Any]) -> list[Any]:
    """The regions of ``screen`` marked to repaint, cleared (the caller repaints them); its dirty widgets
    are cleared with them."""
    dirty = screen._compositor._dirty_regions
    regions = list(dirty)
    dirty.clear()
    screen._dirty_widgets.clear()
    return regions


def forget_dirty_widgets(screen: Screen[Any]) -> None:
    """Drop the widgets ``screen`` would repaint at its next refresh (their regions stay dirty)."""
    screen._dirty_widgets.clear()


def update_mouse_over(app: App[Any], screen: Screen[Any]) -> None:
    """What Textual does after a screen's refresh: the widget under the mouse again."""
    app._update_mouse_over(screen)


def driver_of(app: App[Any]) -> Any:
    """The app's terminal driver (``None`` until it runs)."""
    return app._driver


def suspended(driver: Any) -> bool:
    """The driver suspended the app (SIGTSTP) and is to resume it at SIGCONT (Linux driver)."""
    return bool(getattr(driver, "_must_signal_resume", False))


def exit_showing(app: App[Any], renderable: Any) -> None:
    """Close the app now, printing ``renderable`` once it has left the screen (as a crash does)."""
    app._exit_renderables.append(renderable)
    app._close_messages_no_wait()


def render_cached(strip: Strip, render: Callable[[Strip], str]) -> str:
    """``render(strip)``, kept in the strip's own render cache (as :meth:`Strip.render` keeps its own)."""
    cached = strip._render_cache
    if cached is None:
        cached = strip._render_cache = render(strip)
    return cached
