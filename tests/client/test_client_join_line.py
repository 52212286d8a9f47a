"""Issue 27 item 5: table ids in the lobby and the table's top bar, the join line for the gateways the server
runs (copied with j: OSC 52, and shown whole), and a --join that fails saying so where it lasts."""

from __future__ import annotations

import base64

import pytest

from client.joining import fitting, join_commands, join_host, valid_gateways
from protocol import messages as m
from scripted import ScriptedClient
from tui_helpers import screen_name, screen_text, table_ready, wait_for

ALL = [{"kind": "ssh", "port": 2222, "host": None, "local": False},
       {"kind": "game", "port": 7777, "host": None, "local": False},
       {"kind": "web", "port": 8080, "host": None, "local": False}]


def test_the_commands_name_the_table_on_each_gateway():
    assert join_commands("t3", ALL, "cards.example.org") == [
        "ssh -t -p 2222 <you>@cards.example.org t3", "dab-client cards.example.org:7777 --join t3",
        "http://cards.example.org:8080/"]
    assert join_commands("t3", [{**ALL[0], "port": 22}, {**ALL[2], "port": 80}], "fe80::1") == [
        "ssh -t <you>@fe80::1 t3", "http://[fe80::1]/"]
    ipv6 = join_commands("t3", [ALL[1]], "::1")
    assert ipv6 == ["dab-client [::1]:7777 --join t3"]


def test_a_gateway_on_loopback_only_is_for_this_machine_alone():
    local_game = [ALL[0], {**ALL[1], "local": True}]
    assert join_commands("t3", local_game, "192.168.1.20") == ["ssh -t -p 2222 <you>@192.168.1.20 t3"]
    assert join_commands("t3", local_game, "localhost")[1] == "dab-client localhost:7777 --join t3"


def test_the_host_is_the_operators_name_else_the_gateways_hint_else_the_address_connected_to():
    named = [{**ALL[0], "host": "cards.example.org"}]
    assert join_host(named, "127.0.0.1", "10.0.0.5") == "cards.example.org"
    assert join_host(ALL, "127.0.0.1", "10.0.0.5") == "10.0.0.5"
    assert join_host(ALL, "192.168.1.20", None) == "192.168.1.20"


@pytest.mark.parametrize("hostile", ["evil\x1b]2;owned\x07", "a b", "x;rm -rf", "[::1]", "", "é.example"])
def test_nothing_but_a_plain_host_name_or_address_reaches_a_command(hostile):
    gateways = valid_gateways([{"kind": "ssh", "port": 2222, "host": hostile, "local": False},
                               {"kind": "nope", "port": 1}, {"kind": "game", "port": True},
                               {"kind": "web", "port": 70000}, "junk"])
    assert gateways == [{"kind": "ssh", "port": 2222, "host": None, "local": False}]
    assert join_host(gateways, hostile, hostile) is None
    assert join_commands("t3", gateways, join_host(gateways, hostile, hostile)) == []
    assert join_commands("t3\x1b", ALL, "ok.example") == []  # not a table id either


def test_the_line_shows_what_fits_whole_and_says_j_for_the_rest():
    commands = join_commands("t3", ALL, "192.168.1.20")
    shown, whole = fitting(" Join t3: ", commands, 79, "  j copies")
    assert shown == commands[:1] and not whole
    shown, whole = fitting(" Join t3: ", commands, 159, "  j copies")
    assert shown == commands and whole
    line = " Join t3: " + "  ·  ".join(shown) + "  j copies"
    assert len(line) <= 159


async def test_the_lobby_shows_table_ids_and_the_table_its_id_and_join_line(make_app, server):
    async with ScriptedClient(server.port, "bob") as bob:
        created = await bob.request(m.CreateTable, name="Bob's", settings=m.TableSettings(seats=3))
        app = make_app("ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.lobby.is_mounted and app.tables, what="the list")
            text = await wait_for(pilot, lambda: created["table_id"] in screen_text(app) and screen_text(app))
            row = next(line for line in text.splitlines() if "Bob's" in line)
            assert row.split()[0] == created["table_id"]
            await pilot.press("j")
            await wait_for(pilot, lambda: table_ready(app), what="the table")
            port = server.port
            line = f"Join {created['table_id']}: dab-client 127.0.0.1:{port} --join {created['table_id']}"
            text = await wait_for(pilot, lambda: line in screen_text(app) and screen_text(app), what="join line")
            top = text.splitlines()[0]
            assert top.split()[:2] == [created["table_id"], "Bob's"]
            await pilot.press("j")
            await wait_for(pilot, lambda: app._clipboard, what="copied")
            assert app._clipboard == f"dab-client 127.0.0.1:{port} --join {created['table_id']}"
            said = await wait_for(pilot, lambda: [n for n in app._notifications if n.title.startswith("Copied")],
                                  what="shown whole")
            assert said[0].message == app._clipboard


async def test_a_practice_table_has_no_join_line(tmp_path):
    from client.app import DabApp
    from client.practice import PracticeOptions, start_practice

    server, session = await start_practice("Ann", PracticeOptions(bot_delay=5.0, seed=b"a"))
    try:
        app = DabApp(session, expect_table=True, practice=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: table_ready(app), what="the table")
            await pilot.pause()
            assert "Join " not in screen_text(app)
            assert not app.table_screen.check_action("copy_join", ())
            top = screen_text(app).splitlines()[0]
            assert top.startswith(" Practice") or top.startswith(" Ann's practice"), top  # no id to give friends
    finally:
        await session.close()
        await server.close(grace=0.2)


async def test_the_copy_writes_osc_52_to_the_terminal(make_app, server):
    """What the terminal receives for j (Textual's copy_to_clipboard): OSC 52 with the commands in base64."""
    app = make_app("ann")
    written: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.lobby.is_mounted, what="lobby")
        await pilot.press("n")
        await wait_for(pilot, lambda: screen_name(app) == "CreateTableScreen", what="form")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: table_ready(app) and app.gateways is not None, what="table")
        app._driver.write = written.append  # type: ignore[method-assign]
        await pilot.press("j")
        await wait_for(pilot, lambda: any(w.startswith("\x1b]52;c;") for w in written), what="OSC 52")
    osc = next(w for w in written if w.startswith("\x1b]52;c;"))
    assert base64.b64decode(osc[len("\x1b]52;c;"):-1]).decode() == f"dab-client 127.0.0.1:{server.port} --join t1"
