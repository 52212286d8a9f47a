"""What the client says about a hostile world (issue 11): a fixed seed is not fair
(item 13); a private code's strength, and a strong one generated (item 5)."""

from __future__ import annotations

from textual.widgets import Input

from client.screens.lobby import code_strength, generate_code
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


def test_code_strength_is_judged_at_the_servers_guessing_limits():
    assert code_strength("")[0] == "none"
    assert code_strength("1234")[0] == "weak"  # 10,000 codes: days at one guess a minute
    assert code_strength("12345")[0] == "fair"  # a month or so
    assert code_strength(generate_code())[0] == "strong"
    assert len({generate_code() for _ in range(20)}) == 20


async def test_the_create_dialog_rates_the_code_and_generates_a_strong_one(make_app):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted, what="connected")
        await pilot.press("n")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "CreateTableScreen", what="create dialog")
        app.screen.query_one("#code", Input).value = "1234"
        await wait_for(pilot, lambda: "Code: weak" in screen_text(app), what="weak")
        await pilot.press("ctrl+g")
        code = app.screen.query_one("#code", Input).value
        assert code != "1234" and code_strength(code)[0] == "strong"
        await wait_for(pilot, lambda: "Code: strong" in screen_text(app), what="strong")
