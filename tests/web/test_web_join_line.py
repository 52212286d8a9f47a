"""A browser tab's join line (issue 27 item 5): its client connects to the game over loopback, so the host in
its commands is the one the browser reached the page by (the Host header), not the client's own address."""

from __future__ import annotations

import json
import re
import time

from protocol import messages as m
from scripted import ScriptedClient
from web_helpers import browser, screen_text, sign_in, start_server, stop_server


async def test_a_tab_shows_the_join_line_of_its_table_with_the_host_the_browser_reached(tmp_path):
    proc, game_port, url = start_server(tmp_path)
    web_port = int(re.search(r":(\d+)/", url).group(1))
    url = f"http://localhost:{web_port}/"  # the page as a friend on this box reaches it: by name, not 127.0.0.1
    try:
        async with ScriptedClient(game_port, "bob") as bob:
            table_id = (await bob.request(m.CreateTable, name="bob's table",
                                          settings=m.TableSettings(seats=3)))["table_id"]
            async with browser(url) as http:
                status, socket_url = await sign_in(http, url, "ann")
                assert status == 200, socket_url
                async with http.ws_connect(socket_url + "?width=160&height=45") as socket:
                    seen = bytearray()

                    async def until(text: str) -> str:
                        deadline = time.monotonic() + 30
                        while text not in screen_text(bytes(seen)):
                            assert time.monotonic() < deadline, f"no {text!r} in {screen_text(bytes(seen))[-800:]}"
                            message = await socket.receive(timeout=max(0.1, deadline - time.monotonic()))
                            seen.extend(message.data if isinstance(message.data, bytes) else b"")
                        return screen_text(bytes(seen))

                    await until("as ann")
                    await until(table_id)
                    await socket.send_str(json.dumps(["stdin", "j"]))  # join bob's table (the one listed)
                    shown = await until(f"Join {table_id}:")
                    await until(f"http://localhost:{web_port}/")
                    shown = screen_text(bytes(seen))
        assert f"dab-client localhost:{game_port} --join {table_id}" in shown  # (the game port listens on loopback)
        assert "127.0.0.1" not in shown.split(f"Join {table_id}:", 1)[1].split("\n", 1)[0]
    finally:
        stop_server(proc)
