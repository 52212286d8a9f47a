"""The browser page's sign-in form, over plain HTTP: names are checked by the server's own rules, a tab's
WebSocket needs the one-time ticket the form's answer gives, and ``--no-web-guests`` admits tokens only."""

from __future__ import annotations

import re

from types import SimpleNamespace

import pytest

from scripted import ScriptedClient
from server.web import BAD_TOKEN, GUESTS_OFF, NO_TICKET

from web_helpers import (aiohttp, browser, painted_of, screen_of, screen_text, sign_in, start_server,
                         stop_server, tab)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    directory = tmp_path_factory.mktemp("web")
    proc, game_port, url = start_server(directory)
    yield SimpleNamespace(game_port=game_port, url=url, proc=proc, log=directory / "server.log")
    stop_server(proc)


@pytest.mark.parametrize(("name", "refusal"), [
    ("", "Choose a name with at least one visible character."),
    ("\u200b \x1b[31m", "Choose a name with at least one visible character."),  # nothing left once cleaned
    ("x" * 25, "Names are limited to 24 characters (this one has 25)."),
    ("server", "'Server' and names ending in '(bot)' are reserved (they mark the server and bots)."),
    ("Bender (bot)", "'Server' and names ending in '(bot)' are reserved (they mark the server and bots)."),
])
async def test_a_name_the_server_would_refuse_is_refused_on_the_page(served, name, refusal):
    url = served.url
    async with browser(served.url) as http:
        assert await sign_in(http, url, name) == (403, refusal)


async def test_a_link_may_fill_in_the_name(served):
    url = served.url
    async with browser(served.url) as http:
        async with http.get(url, params={"name": "<b>Zoë</b>\u202e"}) as reply:
            assert 'value="&lt;b&gt;Zoë&lt;/b&gt;"' in await reply.text()  # cleaned, and shown as text


async def test_a_name_in_use_and_a_wrong_token_are_refused_and_the_form_is_kept_short(served):
    game_port, url = served.game_port, served.url
    async with ScriptedClient(game_port, "Ann") as ann, browser(served.url) as http:
        assert await sign_in(http, url, "ANN") == (
            403, "'ANN' is in use by another player on this server now; choose another name.")
        assert await sign_in(http, url, "Bob", ann.link.token + "x") == (403, BAD_TOKEN)
        async with http.post(url, data={"name": "Bob", "token": "x" * 5000}) as reply:
            assert reply.status == 413
        assert (await sign_in(http, url, "Bob", ann.link.token))[0] == 200  # (another name: the token's rules)


async def test_a_tab_needs_the_ticket_of_a_signed_in_form_and_uses_it_once(served):
    url = served.url
    async with browser(served.url) as http:
        status, socket = await sign_in(http, url, "Carol")
        assert status == 200 and socket.startswith("ws://127.0.0.1:") and "/ws/" in socket
        bare = socket.rsplit("/", 1)[0]
        assert NO_TICKET in await tab(http, bare)  # textual-serve's own address: no game without the page
        assert NO_TICKET in await tab(http, bare + "/not-a-ticket")
        assert "as Carol" in await tab(http, socket)
        assert NO_TICKET in await tab(http, socket)  # once


async def test_a_tab_gets_a_terminal_no_larger_than_500_by_200(served):
    """The browser says how big its terminal is; a tab's client is never told more than 500x200."""
    url, proc = served.url, served.proc
    async with browser(served.url) as http:
        _, address = await sign_in(http, url, "Huge")
        async with http.ws_connect(address + "?width=100000&height=100000") as socket:
            painted = await painted_of(socket)
            assert "lobby" in screen_text(painted)
            # The client paints a 500x200 screen: its cursor goes to row 200 (the footer), never further,
            # and its lines are 500 wide (a forked client's /proc environ is its fork server's: not read).
            rows = [int(row) for row in re.findall(rb"\x1b\[(\d+);\d+H", painted)]
            widths = [len(screen_text(line).rstrip("\r\n")) for line in re.split(rb"\x1b\[\d+;\d+H", painted)]
            assert max(rows) == 200 and max(widths) == 500, (max(rows), max(widths))
            await socket.send_json(["resize", {"width": 10 ** 9, "height": 10 ** 9}])
            await socket.send_json(["stdin", "r"])  # refresh: the client still answers
            assert "lobby" in await screen_of(socket)


async def test_a_tab_sending_garbage_ends_only_its_own_session(served):
    """A tab that breaks textual-serve's messages loses its own session: one log line, no traceback."""
    url = served.url
    async with browser(served.url) as http:
        _, address = await sign_in(http, url, "Ivy")
        async with http.ws_connect(address) as socket:
            assert "lobby" in await screen_of(socket)
            await socket.send_str("{not json")
            while (await socket.receive(timeout=20)).type == aiohttp.WSMsgType.BINARY:
                pass
            assert socket.closed
        assert (await sign_in(http, url, "Jo"))[0] == 200  # the gateway serves on
    log = served.log.read_text()
    assert "Traceback" not in log and log.count("a browser tab sent a bad message (not JSON): closed") == 1


async def test_without_guests_only_a_token_plays(tmp_path):
    proc, game_port, url = start_server(tmp_path, "--no-web-guests")
    try:
        async with browser(url) as http:
            async with ScriptedClient(game_port, "Dan") as dan:
                token = dan.link.token
            async with http.get(url) as reply:
                assert 'name="token"' in (form := await reply.text()) and 'name="name"' not in form
            assert await sign_in(http, url, "Eve") == (403, GUESTS_OFF)
            status, socket = await sign_in(http, url, "", token)
            assert status == 200 and "as Dan" in await tab(http, socket)
    finally:
        stop_server(proc)


async def test_a_tab_whose_client_the_game_refuses_shows_why(tmp_path):
    """A refusal the page could not foresee (here the game server is full) is on the tab's screen, not only in
    the client's standard error, which reaches nobody in a browser; a key closes the tab's session."""
    proc, game_port, url = start_server(tmp_path, "--max-connections", "1")
    try:
        async with ScriptedClient(game_port, "Gus"), browser(url) as http:
            status, address = await sign_in(http, url, "Fay")
            assert status == 200
            async with http.ws_connect(address + "?width=160&height=24") as socket:  # the line whole
                assert "Cannot play: 127.0.0.1:{} refused the connection: the server has too many connections " \
                       "(server_full)".format(game_port) in await screen_of(socket, until="Press a key to close.")
                await socket.send_json(["stdin", "x"])
                while (await socket.receive(timeout=20)).type == aiohttp.WSMsgType.BINARY:
                    pass  # the screen's last bytes, then the session ends
                assert socket.closed
    finally:
        stop_server(proc)
    # The client's standard error reached the log through the gateway's peer log, line by line.
    assert "127.0.0.1: a browser tab's client: dab-client: 127.0.0.1:{} refused the connection".format(game_port) \
        in (tmp_path / "server.log").read_text()
