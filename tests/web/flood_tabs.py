"""Crafted browser tabs flooding a dab-server's gateway, in a process of their own (so that a test's or a
benchmark's own measurements do not share an event loop with the flood):

    python tests/web/flood_tabs.py URL TABS SECONDS [WIDTHxHEIGHT]

Each tab signs in as a guest, opens its terminal at the size (default 500x200) and sends, as fast as the
gateway takes them, resizes alternating between two sizes and cursor keys. It prints ``flooding`` once every
tab's client has started, and stops after SECONDS.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from web_helpers import browser, sign_in  # noqa: E402


async def flood(http, url: str, name: str, size: tuple[int, int], started: asyncio.Queue, until: asyncio.Event):
    status, address = await sign_in(http, url, name)
    assert status == 200, address
    width, height = size
    async with http.ws_connect(f"{address}?width={width}&height={height}") as socket:
        await socket.receive(timeout=60)  # its client has started
        await started.put(name)
        await until.wait()

        async def send() -> None:
            for i in itertools.count():
                await socket.send_str(json.dumps(["resize", {"width": width - i % 2, "height": height - i % 3}]))
                await socket.send_str(json.dumps(["stdin", "\x1b[B\x1b[A"]))
                if i % 20 == 0:
                    await asyncio.sleep(0)

        try:  # (a gateway that holds the tab back blocks the sending: the time bounds it)
            await asyncio.wait_for(send(), float(sys.argv[3]))
        except asyncio.TimeoutError:
            pass


async def main() -> None:
    url, tabs = sys.argv[1], int(sys.argv[2])
    size = tuple(int(n) for n in (sys.argv[4] if len(sys.argv) > 4 else "500x200").split("x"))
    started: asyncio.Queue[str] = asyncio.Queue()
    go = asyncio.Event()
    async with browser(url) as http:
        floods = [asyncio.create_task(flood(http, url, f"Flood{i}", size, started, go)) for i in range(tabs)]
        for _ in range(tabs):
            await started.get()
        print("flooding", flush=True)
        go.set()
        await asyncio.gather(*floods)


if __name__ == "__main__":
    asyncio.run(main())
