"""A bare Textual app (one line of text) that reports its first paint the way ``dab-client`` does.

The floor under the client's start-up: Python, Textual's imports, its driver
and one screen's first frame. ``bench_client.py`` runs it beside the client on
the same pseudo-terminal and prints the client's time as a multiple of it.
"""

import os
import time

from textual.app import App, ComposeResult
from textual.widgets import Static


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("Down and Back")

    def on_mount(self) -> None:
        self.call_after_refresh(self.painted)

    def painted(self) -> None:
        marker = f"paint {time.perf_counter():.6f} {time.process_time():.6f}\n"
        os.write(int(os.environ["DAB_BENCH_FD"]), marker.encode())
        self.exit()


if __name__ == "__main__":
    Bare().run()
