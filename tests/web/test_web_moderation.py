"""Issue 32 item 16 through the browser gateway: a ban by the operator (``dab-server ban``) ends the tab it
covers with its reason on the page, and refuses the player's token and the address at sign-in; a player the host
removed from a table cannot come back to it in a browser tab."""

from __future__ import annotations

import json
import time

from operator_cli import cli
from protocol import messages as m
from scripted import ScriptedClient

from server.web import _fitting, _sentence
from web_helpers import aiohttp, browser, screen_of, screen_text, sign_in, start_server, stop_server


async def test_a_banned_player_is_closed_out_of_their_tab_and_refused_at_sign_in(tmp_path):
    data = tmp_path / "data"
    proc, game_port, url = start_server(tmp_path, data_dir=data)
    try:
        async with ScriptedClient(game_port, "Dan") as dan:
            token = dan.link.token
        async with browser(url) as http:
            status, address = await sign_in(http, url, "", token)
            assert status == 200
            async with http.ws_connect(address + "?width=100&height=30") as socket:
                assert "as Dan" in await screen_of(socket)
                done = cli(data, "ban", "player", "Dan", "--reason", "cheating")
                assert done.returncode == 0, done.stderr
                while (message := await socket.receive(timeout=20)).type == aiohttp.WSMsgType.BINARY:
                    pass  # its last frames, then the gateway closes it
                assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
                assert socket.close_code == 4003
                assert message.extra == "You are banned from this server: cheating."  # what the page shows
            assert await sign_in(http, url, "", token) == (403, "You are banned from this server: cheating.")
            status, _ = await sign_in(http, url, "Newcomer")  # the player is banned, not the address
            assert status == 200
    finally:
        stop_server(proc)


async def test_a_banned_address_is_refused_at_sign_in_and_as_a_guest(tmp_path):
    data = tmp_path / "data"
    proc, game_port, url = start_server(tmp_path, data_dir=data)
    try:
        done = cli(data, "ban", "address", "127.0.0.1", "--reason", "a flood of guests")
        assert done.returncode == 0, done.stderr
        async with browser(url) as http:
            assert await sign_in(http, url, "Guest") == (403, "You are banned from this server: a flood of guests.")
        assert cli(data, "unban", "address", "127.0.0.1").returncode == 0
        async with browser(url) as http:
            status, _ = await sign_in(http, url, "Guest")
            assert status == 200
    finally:
        stop_server(proc)


async def test_a_player_removed_from_a_table_cannot_come_back_to_it_in_a_browser_tab(tmp_path):
    proc, game_port, url = start_server(tmp_path, data_dir=tmp_path / "data")
    try:
        async with ScriptedClient(game_port, "Hana") as hana:
            table_id = (await hana.request(m.CreateTable, name="Hana's", settings=m.TableSettings(seats=3)))[
                "table_id"]
            async with ScriptedClient(game_port, "Dan") as dan:
                await dan.request(m.Join, table_id=table_id)
                assert (await hana.request(m.RemovePlayer, name="Dan"))["at_round_end"] is False  # a waiting table
                token = dan.link.token
            async with browser(url) as http:
                status, address = await sign_in(http, url, "", token)  # Dan again, by his token
                assert status == 200
                async with http.ws_connect(address + "?width=160&height=40") as socket:
                    assert "Hana's" in await screen_of(socket, until="Hana's")  # the lobby lists the table
                    await socket.send_str(json.dumps(["stdin", "j"]))  # join the selected (the only) table
                    received, deadline = bytearray(), time.monotonic() + 20
                    while "the host removed you from this table" not in screen_text(bytes(received)):
                        assert time.monotonic() < deadline, screen_text(bytes(received))
                        message = await socket.receive(timeout=max(0.1, deadline - time.monotonic()))
                        assert message.type == aiohttp.WSMsgType.BINARY, message
                        received.extend(message.data)
            assert [mb["name"] for mb in hana.table["members"]] == ["Hana"]  # no Dan, seated or watching
    finally:
        stop_server(proc)


def test_a_long_reason_is_cut_on_a_character_to_fit_a_close_frame():
    reason = _sentence("you are banned from this server: " + "tricherie répétée, " * 10 + "enfin!")
    assert reason.endswith("enfin!")  # its own stop, not a second one
    cut = _fitting(reason)
    assert len(cut.encode()) <= 120 and cut.endswith("…") and reason.startswith(cut[:-1])
    assert _fitting("short.") == "short."
