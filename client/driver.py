"""The terminal driver: Textual's Linux driver, whose input thread sleeps until there is something to read.

Textual's input thread wakes ten times a second whether or not a key came (``select(0.1)``), so that a
lone Esc, which might begin an escape sequence, is let out after its timeout. An idle client (a lobby
nobody is touching, a table waiting on another player) so woke 600 times a minute for nothing; with
hundreds of SSH sessions on one machine, those wake-ups are a real part of its load. This one waits
without a timeout unless the parser is holding part of a sequence (then until the parser's deadline), and
is woken by a pipe when the driver stops its input.
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder
from threading import Event
from typing import Any

from textual.drivers.linux_driver import LinuxDriver

from .textual_compat import ParseError, XTermParser, get_time, parser_deadline


class _WakingEvent(Event):
    """The driver's ``exit_event``: setting it also wakes the input thread's ``select``."""

    def __init__(self, wake: int) -> None:
        super().__init__()
        self._wake = wake

    def set(self) -> None:
        super().set()
        try:
            os.write(self._wake, b"x")
        except OSError:  # (a full pipe is already a wake-up)
            pass


class QuietDriver(LinuxDriver):
    """:class:`LinuxDriver` without the input thread's polling (see the module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.exit_event = _WakingEvent(self._wake_w)

    def run_input_thread(self) -> None:
        """Wait for input (or the wake-up) and dispatch events; as Textual's, but sleeping while idle."""
        selector = selectors.DefaultSelector()
        fileno, wake = self.fileno, self._wake_r
        selector.register(fileno, selectors.EVENT_READ)
        selector.register(wake, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def timeout() -> float | None:
            due = parser_deadline(parser)  # set while a sequence's start waits for the rest (a lone Esc)
            return None if due is None else max(0.0, due - get_time())

        def process(events: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> bool:
            """Read what is ready; False when standard input has ended (or gone)."""
            going = True
            for key, _mask in events:
                if key.fd == wake:
                    try:
                        while os.read(wake, 64):
                            pass
                    except BlockingIOError:
                        pass
                    continue
                try:
                    data = os.read(fileno, 1024 * 4)
                except OSError:  # EIO: the terminal hung up (the app hears of it from its own watch)
                    data = b""
                text = decode(data, final=final)
                if not data:
                    going = False
                for event in parser.feed(text):
                    self.process_message(event)
            for event in parser.tick():
                self.process_message(event)
            return going

        try:
            while not self.exit_event.is_set():
                if not process(selector.select(timeout())):
                    # End of input: nothing more can come; wait only for the driver to stop.
                    selector.unregister(fileno)
                    while not self.exit_event.is_set():
                        selector.select()
                        try:
                            os.read(wake, 64)
                        except BlockingIOError:
                            pass
                    return
            selector.unregister(fileno)
            process(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _ in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
