"""Small widgets shared by several screens."""

from __future__ import annotations

from typing import Any, Callable

from rich.cells import cell_len
from textual import events
from textual.app import RenderResult
from textual.content import Content
from textual.geometry import Region
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer

from ..render import Display
from ..textual_compat import background_screens, screen_size, take_dirty_regions, update_mouse_over

MIN_WIDTH, MIN_HEIGHT = 80, 24
# From this size up (both), the app has the ``-large`` class: larger cards and the table's side panel
# (docs/CLIENT.md "Larger terminals"); 120x40 and a 1280x800 browser tab get it, 100x30 does not.
LARGE_WIDTH, LARGE_HEIGHT = 120, 36


def is_large(width: int, height: int) -> bool:
    return width >= LARGE_WIDTH and height >= LARGE_HEIGHT


def on_stack(screen: Widget) -> bool:
    """Is ``screen`` on the screen stack of an app still running? A screen popped (we left the table, a
    rematch opened the next one) or one of an app shutting down is still "mounted" for Textual while its
    widgets are removed one by one: what still arrives for it must not reach a widget that has left
    (``NoMatches``) or a board with no screen any more (``NoScreen``)."""
    app = screen.app
    return app.is_running and screen.is_attached and screen in app.screen_stack


def display_of(widget: Widget) -> Display:
    """The user's display choices (``--ascii``...) as the app holds them; the defaults outside one."""
    return getattr(widget.app, "display_options", Display())


class SteadyScreen:
    """For a screen: lay it out again only when its size has changed, and do not style it again when first shown.

    Textual lays a screen out again on every resize event it gets, and it gets
    two at start-up whose size is the one just laid out (the screen's own first
    layout, and the terminal's size from the driver), each ~5 ms of CPU before
    the first table is up: its handler now runs only for a new size. And it
    works out the style of every widget again when a screen is first shown,
    just after styling each as it was mounted (~10 ms for the table): now only
    when the screen is shown again, as Textual does then.
    (A mixin, first among the screen's bases: ``class S(SteadyScreen, Screen)``.)
    """

    def _on_resize(self, event: events.Resize) -> None:
        if event.size == screen_size(self):  # type: ignore[arg-type]
            event.prevent_default()

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not getattr(self, "_shown_before", False):
            self._shown_before = True
            event.refresh_styles = False


class QuietBackground:
    """For a screen that others open over (a dialog, a panel's screen): under one, it sends the top screen just the
    regions that changed, once.

    Textual (8.x) has a background screen mark what changed dirty on itself as well as on the top screen, and
    then, at its next update, hands the top screen every region so marked again, itself included: once its
    whole region is among them (it is, from the first refresh after the dialog opened), every later change
    under a dialog (the countdown's second, each second) repainted the whole terminal, ~7 KB a second.
    (A mixin, before ``Screen`` among the screen's bases.)
    """

    def _compositor_refresh(self) -> None:
        app = self.app  # type: ignore[attr-defined]
        if app.is_inline or self is app.screen or self not in background_screens(app):
            super()._compositor_refresh()  # type: ignore[misc]
            return
        dirty = take_dirty_regions(self)  # type: ignore[arg-type]
        if dirty:
            app.screen.refresh(*dirty)
        update_mouse_over(app, self)  # type: ignore[arg-type]


class KeysFooter(Footer):
    """Textual's compact footer, recomposed only when the keys it shows change.

    Textual's rebuilds its keys on every change of the bindings (a focus move, a
    view that may change them), and each rebuild repaints the footer (~0.4 KB
    at 80x24), twice when a panel opens.
    """

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._shown: tuple[Any, ...] | None = None

    def _keys(self) -> tuple[Any, ...]:
        """What :meth:`Footer.compose` draws the keys from."""
        return tuple((binding.key, binding.action, binding.description, self.app.get_key_display(binding),
                      binding.group, enabled, tooltip)
                     for _, binding, enabled, tooltip in self.screen.active_bindings.values() if binding.show)

    async def recompose(self) -> None:
        keys = self._keys() if self._bindings_ready and self.is_attached else None
        if keys is not None and keys == self._shown:
            return
        self._shown = keys
        await super().recompose()


class TooSmall(Widget):
    """Shown instead of the screen's layout when the terminal is below 80x24.

    The app sets the ``-too-small`` class on itself; CSS then hides every other
    child of the screen and shows this one (see ``app.tcss``).
    """

    DEFAULT_CSS = """
    TooSmall { display: none; width: 100%; height: 100%; content-align: center middle; text-align: center; }
    """

    def render(self) -> RenderResult:
        width, height = self.app.size
        ignored = getattr(self.app, "keys_ignored", 0)  # keys pressed meanwhile: they did nothing
        return Content.assemble(
            ("Terminal too small", "bold"),
            f"\n{width}x{height}: Down and Back needs at least {MIN_WIDTH}x{MIN_HEIGHT}.\nMake the window larger.",
            (f"\n\nKeys do nothing until then ({ignored} ignored); ctrl+q quits." if ignored else "", "dim"),
        )


class Countdown(Widget):
    """The time left for the current decision, counted down locally.

    The server sends ``deadline_ms`` with every view; we turn it into a point
    on the app's clock and wake only when the seconds shown change (a timer
    set for that moment, each time), repainting just this widget's cells. With
    ``app.frozen_clock`` (for snapshots) it shows the time as received and never
    ticks.
    """

    DEFAULT_CSS = "Countdown { width: auto; height: 1; }"

    # Repainted when they change; the screen is laid out again only when the width changes
    # (_lay_out_if_width_changed): a layout for every view (the deadline is new in each) cost ~5 ms of CPU.
    deadline: reactive[float | None] = reactive(None, repaint=False)
    label: reactive[str] = reactive("")
    mine: reactive[bool] = reactive(False)
    seconds: reactive[int | None] = reactive(None)

    def __init__(self, *, clock: Callable[[], float] | None = None, ascii: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock
        self._ascii = ascii
        self._timer: Timer | None = None
        self._width = 0  # of the text last laid out

    def set_deadline(self, deadline_ms: int | None, label: str = "", mine: bool = False) -> None:
        self.label, self.mine = label, mine
        if deadline_ms is None:
            self.deadline = None
            self.seconds = None
        else:
            clock = self._clock or self.app.clock
            self.deadline = clock() + deadline_ms / 1000
            self.seconds = _ceil_seconds(deadline_ms / 1000)
        self._lay_out_if_width_changed()
        self._schedule()

    def _lay_out_if_width_changed(self) -> None:
        """Have the screen laid out again if the text's width has changed (the widget's width is its text's)."""
        width = self.render().cell_length
        if width != self._width:
            self._width = width
            self.refresh(layout=True)

    def on_mount(self) -> None:
        self._schedule()

    def _schedule(self) -> None:
        """Wake when the seconds shown are next to change (none: no deadline, or the clock is frozen)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.deadline is None or not self.seconds or not self.is_mounted or getattr(self.app, "frozen_clock", False):
            return
        clock = self._clock or self.app.clock
        # ceil(left) drops to seconds - 1 once left <= seconds - 1: at deadline - (seconds - 1).
        wait = self.deadline - (self.seconds - 1) - clock()
        self._timer = self.set_timer(max(0.0, wait) + 0.001, self._tick)

    def _tick(self) -> None:
        self._timer = None
        if self.deadline is None:
            return
        clock = self._clock or self.app.clock
        seconds = max(0, _ceil_seconds(self.deadline - clock()))
        if seconds != self.seconds:
            # Only the time's own cells are painted again (not the label before it): ~40 bytes less a second.
            self.set_reactive(Countdown.seconds, seconds)
            label = cell_len(self.label) + 1 if self.label else 0
            self.refresh(Region(label, 0, max(1, self.size.width - label), 1))
        self._lay_out_if_width_changed()
        self._schedule()

    def render(self) -> Content:
        if self.seconds is None:
            return Content("")
        minutes, secs = divmod(self.seconds, 60)
        urgent = self.seconds <= 10
        style = "bold #ff5f5f" if urgent and self.mine else ("bold #ffd75f" if self.mine else "")
        icon = "T-" if self._ascii else "⏱ "
        return Content.assemble((self.label + " " if self.label else "", "dim"), (f"{icon}{minutes}:{secs:02d}", style))


def _ceil_seconds(value: float) -> int:
    whole = int(value)
    return whole + (1 if value > whole else 0)


class RowsWidget(Widget):
    """A widget drawn as rows of ``Content`` that repaints only the rows that changed.

    Subclasses implement :meth:`build` (the rows, from their own attributes)
    and call :meth:`changed` when an attribute changes. Textual repaints a
    whole widget on ``refresh()``; marking just the changed rows dirty keeps
    the bytes sent to the terminal per opponent turn small.
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: list[Content] = []

    def build(self) -> list[Content]:
        raise NotImplementedError

    @property
    def grows_with_rows(self) -> bool:
        """Is this widget's height its number of rows (``height: auto``)? Then a change in that number
        needs a layout; a fixed height (a seat panel, the prompt) only a repaint."""
        height = self.styles.height
        return height is None or height.is_auto

    def changed(self) -> None:
        rows = self.build()
        old, self._rows = self._rows, rows
        if not self.is_mounted:
            return
        if len(old) != len(rows):
            # A widget as tall as its rows (height: auto, and so its container) must be laid out again:
            # a repaint alone keeps the height it had (a pegboard stuck at its waiting room's one row).
            self.refresh(layout=self.grows_with_rows)
            return
        width = self.size.width
        if not self._one_line_each(old, width) or not self._one_line_each(rows, width):
            # A row wider than the widget wraps (or one holds a line break): its lines on screen are no
            # longer its index, and the rows below it move when its line count changes. Repainting only
            # row y there left the old text of the other lines behind (issue 29, item 6).
            self.refresh(layout=self.grows_with_rows)
            return
        dirty = [_changed_span(a, b, y, width) for y, (a, b) in enumerate(zip(old, rows)) if not a.is_same(b)]
        if dirty:
            self.refresh(*dirty)

    @staticmethod
    def _one_line_each(rows: list[Content], width: int) -> bool:
        """Does each row take exactly one line of the screen (row y is line y)?"""
        return all(row.cell_length <= width and "\n" not in row.plain for row in rows)

    def on_resize(self) -> None:
        self._rows = self.build()
        self.refresh()

    def render(self) -> RenderResult:
        self._rows = self.build()
        return Content("\n").join(self._rows)


def _changed_span(old: Content, new: Content, y: int, width: int) -> Region:
    """The part of row ``y`` that differs (text or style), or the whole row if unsure."""
    a, b = old.plain, new.plain
    if len(a) != len(b) or old.cell_length != len(a) or new.cell_length != len(b):
        return Region(0, y, width, 1)
    cells_a, cells_b = _cells(old), _cells(new)
    changed = [i for i in range(len(a)) if a[i] != b[i] or cells_a[i] != cells_b[i]]
    if not changed:
        return Region(0, y, width, 1)
    return Region(changed[0], y, changed[-1] - changed[0] + 1, 1)


def _cells(content: Content) -> list[tuple[object, ...]]:
    """The styles applying to each character of a one-line ``Content``."""
    cells: list[tuple[object, ...]] = [()] * len(content.plain)
    for span in content.spans:
        for i in range(span.start, min(span.end, len(cells))):
            cells[i] = cells[i] + (span.style,)
    return cells


class LineLog(Widget):
    """The newest lines of a log, wrapped to the width, newest at the bottom.

    Lines are ``Content`` (user text inside them is never markup). Only the
    tail that fits is drawn, so a long game costs nothing to repaint.
    """

    DEFAULT_CSS = "LineLog { height: 1fr; }"
    MAX_LINES = 300

    def __init__(self, *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[Content] = []
        self.placeholder = placeholder

    def write(self, line: Content | str) -> None:
        self.lines.append(line if isinstance(line, Content) else Content(line))
        if len(self.lines) > self.MAX_LINES:
            del self.lines[: len(self.lines) - self.MAX_LINES]
        self.refresh()

    def replace_last(self, line: Content) -> None:
        """Change the newest line; when it keeps its height only its rows are repainted."""
        if not self.lines:
            self.write(line)
            return
        width = max(1, self.content_region.width)
        old_rows = len(self.lines[-1].wrap(width))
        self.lines[-1] = line
        new_rows = len(line.wrap(width))
        height = self.content_region.height
        if old_rows != new_rows or not height:
            self.refresh()
            return
        drawn = min(height, self._rows(height, width))
        self.refresh(Region(0, drawn - new_rows, self.size.width, new_rows))

    def _rows(self, limit: int, width: int) -> int:
        """Rows the newest lines take, counting up to ``limit``."""
        rows = 0
        for line in reversed(self.lines):
            rows += len(line.wrap(width))
            if rows >= limit:
                break
        return rows

    def clear(self) -> None:
        self.lines.clear()
        self.refresh()

    @property
    def plain(self) -> str:
        return "\n".join(line.plain for line in self.lines)

    def render(self) -> RenderResult:
        width = max(1, self.content_region.width)
        height = max(1, self.content_region.height)
        if not self.lines:
            return Content.styled(self.placeholder, "dim")
        out: list[Content] = []
        for line in reversed(self.lines):
            wrapped = line.wrap(width)
            out[:0] = wrapped
            if len(out) >= height:
                break
        return Content("\n").join(out[-height:])
