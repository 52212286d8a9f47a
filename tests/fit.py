"""Is any label, name or result cut off on the screen? A check of what a Textual app shows, widget by widget.

:func:`cut_off` walks the widgets the top screen shows (the compositor's visible
widgets, each with the region it is painted in) and compares what each holds
with what the terminal shows of it: every character of a label, a button, a
footer key, a seat panel, a prompt or a table cell must be on the screen, in
order (line breaks and spaces aside: wrapped text is whole). A widget that a
scrolling container shows in part is not cut off when the container can scroll
to the rest (the show's "more below"), except a table's columns: a column that
does not fit its width, or a table wider than the screen, is. Logs and clocks
are left out (a log's old lines scroll away by design).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from rich.text import Text
from textual.containers import ScrollableContainer
from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Button, DataTable, Footer, Input, Static
from textual.widgets._footer import FooterKey
from textual.widgets._toggle_button import ToggleButton

_SPACE = re.compile(r"\s+")


def _plain(value: Any) -> str | None:
    if isinstance(value, (Content, Text)):
        return value.plain
    if isinstance(value, str):
        return value
    return None


def _held_text(widget: Widget) -> str | None:
    """The text ``widget`` holds (what it would show with room enough), or None: not a label to check."""
    from client.widgets.basics import Countdown, LineLog, RowsWidget

    if isinstance(widget, (LineLog, Countdown)):
        return None
    if isinstance(widget, FooterKey):
        return f"{widget.key_display} {widget.description}" if widget.description else widget.key_display
    if isinstance(widget, ToggleButton):
        return _plain(widget.label)
    if isinstance(widget, Button):
        return _plain(widget.label)
    if isinstance(widget, RowsWidget):
        return "\n".join(row.plain for row in widget.build())
    if isinstance(widget, Static):
        return _plain(widget.visual) if hasattr(widget, "visual") else _plain(widget.render())
    if isinstance(widget, (DataTable, Input)) or type(widget).render is Widget.render:
        return None
    try:
        return _plain(widget.render())
    except Exception:  # a widget that renders only inside a paint
        return None


def _shown(lines: list[str], region: Region) -> str:
    """The text of the screen inside ``region``."""
    return "\n".join(line[region.x:region.right] for line in lines[region.y:region.bottom])


def _scrolls(widget: Widget) -> bool:
    """Inside a container that can scroll to what it does not show."""
    for node in widget.ancestors:
        if isinstance(node, ScrollableContainer) and (node.max_scroll_y > 0 or node.max_scroll_x > 0):
            return True
    return False


def _cell_width(cell: Any) -> int:
    if isinstance(cell, Text):
        return cell.cell_len
    if isinstance(cell, Content):
        return cell.cell_length
    return Text(str(cell)).cell_len


def _lines(table: DataTable[Any], cell: Any, width: int) -> int:
    """The lines a cell takes at ``width``: more than one when it wraps (a row as tall shows it whole)."""
    text = cell if isinstance(cell, Text) else Text(_plain(cell) or str(cell), no_wrap=True)  # (a str: one line)
    if text.no_wrap or text.overflow in ("ellipsis", "crop"):
        return 1 if text.cell_len <= width else 10**6
    return len(text.wrap(table.app.console, width))


def _table_problems(table: DataTable[Any], visible: Region) -> list[str]:
    problems = []
    columns = list(table.columns.values())
    rows = list(table.rows.values())
    for index, column in enumerate(columns):
        if column.auto_width:
            continue
        if column.label.cell_len > column.width:
            problems.append(f"{table!r} column {column.label.plain!r} ({column.width} wide) cuts its title")
        for row_index, row in enumerate(rows):
            cell = table.get_cell_at((row_index, index))
            if _cell_width(cell) > column.width and _lines(table, cell, column.width) > max(1, row.height):
                problems.append(f"{table!r} column {column.label.plain!r} ({column.width} wide) cuts "
                                f"{_plain(cell) if not isinstance(cell, str) else cell!r}")
    wanted = sum(column.get_render_width(table) for column in columns)
    if wanted > visible.width:
        problems.append(f"{table!r}: its columns take {wanted} cells, the screen shows {visible.width}")
    return problems


def cut_off(app: Any, ignore: Iterable[type] = ()) -> list[str]:
    """Every label, name or result the app's top screen does not show whole (empty: nothing is cut off)."""
    screen = app.screen
    lines = [
        "".join(segment.text for segment in strip)
        for strip in screen._compositor.render_strips()
    ]
    ignored = tuple(ignore)
    problems: list[str] = []
    shown = screen._compositor.visible_widgets
    for footer in screen.query(Footer):
        if not footer.display:
            continue
        for key in footer.query(FooterKey):  # a key past the footer's edge is not painted at all
            where = shown.get(key)
            if where is None or where[0].intersection(where[1]) != where[0]:
                problems.append(f"the footer does not show its key {_held_text(key)!r}")
    for widget, (region, clip) in shown.items():
        if ignored and isinstance(widget, ignored):
            continue
        visible = region.intersection(clip)
        inside = visible.intersection(widget.content_region)  # within its border and padding
        if isinstance(widget, DataTable):
            problems += _table_problems(widget, visible)
            continue
        held = _held_text(widget)
        if not held or not held.strip():
            continue
        want = _SPACE.sub("", held)
        got = _SPACE.sub("", _shown(lines, inside))
        if want in got:
            continue
        if visible != region and _scrolls(widget):
            continue  # scrolled out of sight, and the container scrolls to it
        problems.append(f"{type(widget).__name__}#{widget.id}: {held!r} shows as {_shown(lines, inside)!r}")
    return problems
