"""A server with a fixed shuffle seed is not fair: the table header says so (issue 11, item 13)."""

from __future__ import annotations

from tui_helpers import screen_text, table_ready, wait_for


async def test_the_table_header_warns_of_a_fixed_seed(make_app, server):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted, what="connected")
        await pilot.press("q")  # quick join: creates a table on the test server, which has a fixed seed
        await wait_for(pilot, lambda: table_ready(app), what="table screen")
        header = await wait_for(pilot, lambda: screen_text(app).splitlines()[0], what="header")
        assert "UNFAIR: seeded" in header, header


async def test_no_warning_without_a_fixed_seed(make_app, server):
    server.lobby.config.seed = None
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted, what="connected")
        await pilot.press("q")
        await wait_for(pilot, lambda: table_ready(app), what="table screen")
        await wait_for(pilot, lambda: "Ann" in screen_text(app), what="painted")
        assert "NOT FAIR" not in screen_text(app)
