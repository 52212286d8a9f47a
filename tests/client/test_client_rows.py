"""The shared rows widget (client.widgets.basics.RowsWidget) repaints only the rows that changed; a row
that wraps (or holds a line break) takes more than one line on screen, so it must never leave the old
text of its other lines behind (issue 29, item 6)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.content import Content

from client.widgets.basics import RowsWidget
from tui_helpers import screen_text, wait_for


class Rows(RowsWidget):
    DEFAULT_CSS = "Rows { width: 20; height: auto; }"

    def __init__(self, rows: list[str]) -> None:
        super().__init__(id="rows")
        self.rows = rows

    def build(self) -> list[Content]:
        return [Content(row) for row in self.rows]

    def set(self, rows: list[str]) -> None:
        self.rows = rows
        self.changed()


class RowsApp(App[None]):
    def __init__(self, rows: list[str]) -> None:
        super().__init__()
        self.first = rows

    def compose(self) -> ComposeResult:
        yield Rows(self.first)


def shown(app: RowsApp) -> list[str]:
    return [line[:20].rstrip() for line in screen_text(app).splitlines()[:5]]


async def settle(pilot, app: RowsApp, expected: list[str]) -> None:
    await pilot.pause()
    await wait_for(pilot, lambda: shown(app) == expected, timeout=3, what=f"the rows {expected}")


WIDE = "aaaa bbbb cccc dddd eeee"  # 24 columns: two lines in 20


@pytest.mark.parametrize("before, after, expected", [
    # a wrapped row changes: both of its lines are new
    ([WIDE, "x"], ["ffff gggg hhhh iiii jj", "x"], ["ffff gggg hhhh iiii", "jj", "x", "", ""]),
    # the row above a wrapped one changes to a row that wraps no longer: the rows below move up
    ([WIDE, "x", "y"], ["short", "x", "y"], ["short", "x", "y", "", ""]),
    # a row that did not wrap now wraps: the rows below move down
    (["one", "two", "six"], ["one", WIDE, "six"], ["one", "aaaa bbbb cccc dddd", "eeee", "six", ""]),
    # a row holding a line break (two lines of one row) changes its second line only
    (["top\nfirst", "end"], ["top\nsecond", "end"], ["top", "second", "end", "", ""]),
])
async def test_a_row_that_wraps_leaves_no_stale_text(before, after, expected):
    app = RowsApp(before)
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        rows = app.query_one(Rows)
        await wait_for(pilot, lambda: shown(app)[0] == before[0].split("\n")[0][:19].rstrip(), timeout=3)
        rows.set(after)
        await settle(pilot, app, expected)
