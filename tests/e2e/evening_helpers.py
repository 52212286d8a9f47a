"""The evening harness: a real ``dab-server`` on 127.0.0.1 and real ``dab-client`` programs, each in its own
pseudo-terminal read through pyte (a VT100 emulator), typed into and read as a person would.

    with EveningServer(tmp_path) as server:
        ann = server.client("Ann", size=(80, 24))      # dab-client 127.0.0.1:PORT --name Ann
        ann.wait_for("lobby")                          # text, a regex, or a predicate on the screen text
        ann.press("n")                                 # key names as Textual writes them: "enter", "ctrl+s"
        ann.type("nice hand")                          # text, as typed
        ann.resize(70, 20)                             # the terminal window changes size (SIGWINCH)
        ann.cut_connection()                           # the network drops the client's TCP connection
        mark = ann.mark(); ...; ann.seen("Round 1 showdown", since=mark)  # a frame shown meanwhile, even briefly

Every wait has a timeout and fails with the screen as it is (and the last frames); nothing sleeps to
synchronise. Each frame the client finishes (Textual ends each update with the synchronized-output
mark) is kept, so a panel shown only for a moment can be asserted on afterwards (:meth:`Terminal.seen`),
and every byte the client wrote is kept too (:attr:`Terminal.output`: an OSC title or notification).

The server runs with no bot delay and a short pause between rounds (``round_pause``); the clients
connect through a relay the test can cut (:meth:`Terminal.cut_connection`), so a dropped connection and
the client's own reconnection are real.

``EVENING_DEBUG=1`` in the environment: a failing wait also prints the terminal's last 60 frames to stderr.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Pattern, Union

import pyte
from relay import CuttableRelay

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"Down and Back server listening on \S+:(\d+)")
WAIT = 30.0  # generous: the suite shares two cores with other tests
SYNC_END = b"\x1b[?2026l"  # Textual ends each screen update with it (synchronized output)
SYNC_QUERY, SYNC_REPLY = b"\x1b[?2026$p", b"\x1b[?2026;2$y"  # "do you do synchronized output?" "yes"
MAX_FRAMES = 4000
MAX_OUTPUT = 32 << 20
TAIL = 16 << 10

Expect = Union[str, Pattern[str], Callable[[str], object]]

KEYS = {
    "enter": "\r", "escape": "\x1b[27u", "tab": "\t", "shift+tab": "\x1b[Z", "space": " ", "backspace": "\x7f",
    "up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D", "home": "\x1b[H", "end": "\x1b[F",
    "pageup": "\x1b[5~", "pagedown": "\x1b[6~", "delete": "\x1b[3~", "f1": "\x1bOP",
    "plus": "+", "minus": "-", "question_mark": "?",
}
"""Key names (Textual's) and the bytes a terminal sends for them. Escape is sent in the kitty keyboard
protocol's unambiguous form (``CSI 27 u``), so a key right after it is not read as alt+key."""


def key_bytes(key: str) -> bytes:
    if key in KEYS:
        return KEYS[key].encode()
    if key.startswith("ctrl+") and len(key) == 6:
        return bytes([ord(key[5].lower()) & 0x1F])
    if len(key) == 1:
        return key.encode()
    raise ValueError(f"no bytes known for the key {key!r}")


def _matches(expect: Expect, text: str) -> object:
    if isinstance(expect, str):
        return expect in text
    if isinstance(expect, re.Pattern):
        return expect.search(text)
    return expect(text)


def _describe(expect: Expect) -> str:
    if isinstance(expect, str):
        return repr(expect)
    if isinstance(expect, re.Pattern):
        return f"/{expect.pattern}/"
    return getattr(expect, "__name__", "a condition")


def wait_until(check: Callable[[], object], timeout: float = WAIT, what: str = "a condition",
               interval: float = 0.02) -> object:
    """Poll ``check`` until it returns something truthy (and return that), or fail saying what."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


class Terminal:
    """A program in a pseudo-terminal of ``size`` (columns, rows), its screen kept by pyte.

    The pseudo-terminal is the program's controlling terminal (as under sshd), so a resize sends it
    SIGWINCH and closing the terminal (:meth:`hang_up`) sends it SIGHUP.
    """

    def __init__(self, command: list[str], *, size: tuple[int, int] = (80, 24), env: dict[str, str] | None = None,
                 name: str = "terminal", relay: CuttableRelay | None = None) -> None:
        self.name = name
        self.relay = relay
        self.columns, self.rows = size
        self.master, slave = pty.openpty()
        self._set_size(slave)
        self.screen = pyte.Screen(self.columns, self.rows)
        self.stream = pyte.ByteStream(self.screen)
        self._lock = threading.Lock()
        self.output = bytearray()  # every byte the program wrote (the first MAX_OUTPUT of them)
        self.tail = bytearray()  # the last TAIL bytes it wrote (a traceback, after the screen is left)
        self.frames: list[tuple[int, str]] = []  # (frame number, screen text) of each finished frame
        self.last_frame_at = time.monotonic()
        self.frame_count = 0
        self._partial = b""
        self.typed: list[tuple[int, str]] = []  # (frames shown before, key or text) of what was typed
        self.proc = subprocess.Popen(command, cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave,
                                     start_new_session=True, preexec_fn=_controlling_terminal)
        self._slave = slave  # kept open: how much typed input the program has not read yet (wait_read)
        self._reader = threading.Thread(target=self._read, daemon=True, name=f"{name}-pty")
        self._reader.start()

    # ------------------------------------------------------------ reading

    def _set_size(self, fd: int) -> None:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", self.rows, self.columns, 0, 0))

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.5)
            except (OSError, ValueError):
                return
            if not ready:
                if self.proc.poll() is not None:
                    return
                continue
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:
                return
            if not data:
                return
            if SYNC_QUERY in data:  # as modern terminals (and tmux) do: then each frame comes whole
                self.write(SYNC_REPLY)
            with self._lock:
                if len(self.output) < MAX_OUTPUT:
                    self.output += data[: MAX_OUTPUT - len(self.output)]
                self.tail = (self.tail + data)[-TAIL:]
                self._feed(data)

    def _feed(self, data: bytes) -> None:
        """Feed pyte, keeping the screen as it stood at the end of each finished frame."""
        data = self._partial + data
        self._partial = b""
        while data:
            end = data.find(SYNC_END)
            if end < 0:
                # Keep a possible start of the mark for the next read; feed the rest.
                keep = next((k for k in range(len(SYNC_END) - 1, 0, -1) if data.endswith(SYNC_END[:k])), 0)
                self.stream.feed(data[: len(data) - keep] if keep else data)
                self._partial = data[len(data) - keep:] if keep else b""
                return
            self.stream.feed(data[: end + len(SYNC_END)])
            data = data[end + len(SYNC_END):]
            self._frame()

    def _frame(self) -> None:
        self.frame_count += 1
        self.frames.append((self.frame_count, "\n".join(self.screen.display)))
        self.last_frame_at = time.monotonic()
        if len(self.frames) > MAX_FRAMES:
            del self.frames[: len(self.frames) - MAX_FRAMES]

    def text(self) -> str:
        """The screen as the last finished frame left it, one line per row (every row ``columns`` wide):
        never a frame half drawn. Before the first frame (or for a program that does not mark them), the
        screen as it is."""
        with self._lock:
            return self.frames[-1][1] if self.frames else "\n".join(self.screen.display)

    def live_text(self) -> str:
        """The screen as it is this instant, a frame being drawn included."""
        with self._lock:
            return "\n".join(self.screen.display)

    def lines(self) -> list[str]:
        return self.text().splitlines()

    def line_with(self, needle: str) -> str:
        """The first row of the screen holding ``needle`` (fails, with the screen, if none does)."""
        for line in self.lines():
            if needle in line:
                return line
        raise AssertionError(self._report(f"no row shows {needle!r}"))

    def backgrounds(self, label: str, field: str) -> tuple[str, str] | None:
        """The background colours of ``label`` and of the ``field`` after it on the first row showing both
        (``None`` if none does now)."""
        with self._lock:
            for y, row in enumerate(self.screen.display):
                x = row.find(label)
                f = row.find(field, x + len(label)) if x >= 0 else -1
                if f >= 0:
                    return self.screen.buffer[y][x].bg, self.screen.buffer[y][f].bg
        return None

    def highlighted(self, needle: str) -> bool:
        """Is ``needle`` shown now on another background than most of the screen (a cursor row, a selection)?"""
        with self._lock:
            counts: dict[str, int] = {}
            found = None
            for y, row in enumerate(self.screen.display):
                for x in range(len(row)):
                    bg = self.screen.buffer[y][x].bg
                    counts[bg] = counts.get(bg, 0) + 1
                x = row.find(needle)
                if x >= 0 and found is None:
                    found = self.screen.buffer[y][x].bg
        return found is not None and found != max(counts, key=counts.get)

    def wait_highlighted(self, needle: str, timeout: float = WAIT) -> None:
        try:
            wait_until(lambda: self.highlighted(needle), timeout, f"{needle!r} highlighted on {self.name}'s screen")
        except AssertionError as exc:
            raise AssertionError(self._report(str(exc))) from None

    def wait_focused(self, field: str, label: str, timeout: float = WAIT) -> None:
        """Wait until the field showing ``field`` after ``label`` (a form's row) has the keyboard: drawn on
        another background than its label (Textual highlights the field focused, or its selected text)."""
        def focused() -> bool:
            colours = self.backgrounds(label, field)
            return colours is not None and colours[0] != colours[1]

        try:
            wait_until(focused, timeout, f"{field!r} (beside {label!r}) to have the keyboard on {self.name}'s screen")
        except AssertionError as exc:
            raise AssertionError(self._report(str(exc))) from None

    def mark(self) -> int:
        """A point in the frames shown: :meth:`seen` and :meth:`wait_for` (``since``) look at those after it."""
        with self._lock:
            return self.frame_count

    def seen(self, expect: Expect, since: int = 0) -> str | None:
        """The first frame shown after ``since`` (a :meth:`mark`) that matches, or ``None``."""
        with self._lock:
            frames = [text for number, text in self.frames if number > since]
        return next((text for text in frames if _matches(expect, text)), None)

    def wait_for(self, expect: Expect, timeout: float = WAIT, since: int | None = None) -> str:
        """Wait until the screen matches ``expect`` (text, regex or a predicate on the text) and return the
        screen; with ``since`` (a :meth:`mark`), a frame shown after it that matched counts too."""
        def shown() -> str | None:
            if since is not None:
                return self.seen(expect, since)
            text = self.text()
            return text if _matches(expect, text) else None

        try:
            return wait_until(shown, timeout, f"{_describe(expect)} on {self.name}'s screen")  # type: ignore[return-value]
        except AssertionError as exc:
            raise AssertionError(self._report(str(exc))) from None

    def wait_gone(self, expect: Expect, timeout: float = WAIT) -> str:
        """Wait until the screen no longer matches ``expect``; return the screen."""
        def gone() -> str | None:
            text = self.text()
            return None if _matches(expect, text) else text

        try:
            return wait_until(gone, timeout, f"{_describe(expect)} to leave {self.name}'s screen")  # type: ignore[return-value]
        except AssertionError as exc:
            raise AssertionError(self._report(str(exc))) from None

    def _report(self, why: str) -> str:
        alive = "running" if self.proc.poll() is None else f"exited with {self.proc.returncode}"
        typed = " ".join(f"{key}@{frame}" for frame, key in self.typed[-30:])
        if os.environ.get("EVENING_DEBUG"):  # the frames leading up to a failure, on stderr
            for number, text in self.frames[-60:]:
                print(f"FRAME {number}\n{text}", file=sys.stderr)
        report = (f"{why}\n--- {self.name}'s screen ({self.columns}x{self.rows}, {alive}, frame {self.frame_count}) ---\n"
                  f"{self.text()}\n--- the last keys typed (@ frames shown by then): {typed}\n--- {self._state()}")
        if self.proc.poll() is not None:  # what it wrote after leaving its screen: why it ended
            with self._lock:
                after = bytes(self.tail).rpartition(b"\x1b[?1049l")[2]
            text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07", "", after.decode("utf-8", "replace"))
            report += f"\n--- what it wrote after its screen ---\n{text.strip()[-4000:]}"
        return report

    def _state(self) -> str:
        """Why a screen may not have moved: keys it has not read (its input stalled), the CPU it has had (a
        starved process had almost none), the machine's load, how long since its last frame."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rpartition(")")[2].split()
            cpu = f"{(int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK'):.2f} CPU-s"
        except (OSError, IndexError, ValueError):
            cpu = "CPU unknown"
        load = " ".join(f"{value:.1f}" for value in os.getloadavg())
        return (f"{self.unread()} typed bytes unread, {cpu} used, load {load}, "
                f"last frame {time.monotonic() - self.last_frame_at:.1f} s ago")

    def frames_with(self, expect: Expect) -> list[int]:
        """The numbers of the frames kept that match ``expect`` (for a failure's report)."""
        with self._lock:
            return [number for number, text in self.frames if _matches(expect, text)]

    def dump(self) -> str:
        """The screen, framed and named (for a failure's report)."""
        return self._report("screen")

    # ------------------------------------------------------------ typing

    def press(self, *keys: str) -> None:
        """Press keys, named as Textual names them ("enter", "escape", "ctrl+q", "f1", "a")."""
        for key in keys:
            self.typed.append((self.frame_count, key))
            self.write(key_bytes(key))

    def type(self, text: str) -> None:
        """Type ``text`` as it is (each character as its key)."""
        self.typed.append((self.frame_count, repr(text)))
        self.write(text.encode())

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def unread(self) -> int:
        """Bytes typed that the program has not read yet."""
        try:
            return struct.unpack("i", fcntl.ioctl(self._slave, termios.FIONREAD, b"\0\0\0\0"))[0]
        except OSError:
            return 0

    def wait_read(self, timeout: float = WAIT) -> None:
        """Wait until the program has read every key typed (they are then queued in it before anything that
        happens after, such as a resize): for keys whose whole point is that nothing shows."""
        try:
            wait_until(lambda: self.unread() == 0, timeout, f"{self.name} to read what was typed", interval=0.005)
        except AssertionError as exc:
            raise AssertionError(self._report(str(exc))) from None

    def resize(self, columns: int, rows: int) -> None:
        """Make the window ``columns`` x ``rows``: the kernel tells the program (SIGWINCH)."""
        with self._lock:
            self.columns, self.rows = columns, rows
            self.screen.resize(rows, columns)
            self._set_size(self.master)

    # ------------------------------------------------------------ the connection and the process

    def cut_connection(self) -> None:
        """The network drops the program's connection to the server (reset, no goodbye)."""
        assert self.relay is not None, "this terminal's program does not connect through a relay"
        self.relay.cut()

    def hang_up(self) -> None:
        """Close the terminal (an SSH session or a window going away): the program gets SIGHUP."""
        if self.master >= 0:
            os.close(self.master)
            self.master = -1
        if self._slave >= 0:
            os.close(self._slave)
            self._slave = -1

    def wait_exit(self, timeout: float = WAIT) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(self._report(f"{self.name} did not exit within {timeout:.0f} s")) from None

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(5)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait()
        self.hang_up()
        self._reader.join(2)
        if self.relay is not None:
            self.relay.close()


def _controlling_terminal() -> None:
    """In the child, after setsid: standard input (the pseudo-terminal) becomes its controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def child_env(config_dir: Path) -> dict[str, str]:
    """A terminal's environment: a UTF-8 xterm, this tree on the path, the client's config in ``config_dir``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "PYTEST", "DAB_"))}
    env.update(TERM="xterm-256color", COLORTERM="truecolor", LANG="C.UTF-8", LC_ALL="C.UTF-8",
               PYTHONIOENCODING="utf-8", DAB_CONFIG_DIR=str(config_dir),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    return env


class EveningServer:
    """``dab-server`` on 127.0.0.1 (an ephemeral port, in memory), fast: no bot delay, a short round pause.

    ``client(name, size)`` starts a ``dab-client`` for it in a new terminal (through its own cuttable relay)
    and stops it with the server.
    """

    def __init__(self, directory: Path, *, round_pause: float = 1.5, turn_timeout: float = 120.0,
                 absent_grace: float = 1.0, bot_delay: float = 0.0, extra: Iterable[str] = ()) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.log_path = directory / "server.log"
        self._log = open(self.log_path, "wb")
        env = child_env(directory / "server-config")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--memory",
             "--bot-delay", str(bot_delay), "--round-pause", str(round_pause), "--turn-timeout", str(turn_timeout),
             "--absent-grace", str(absent_grace), *extra],
            cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        self.terminals: list[Terminal] = []
        try:
            found = wait_until(lambda: LISTENING.search(self.log()) or self._died(), what="the server to listen")
        except BaseException:
            self.stop()
            raise
        self.port = int(found.group(1))  # type: ignore[union-attr]

    def _died(self) -> None:
        if self.proc.poll() is not None:
            raise AssertionError(f"the server exited:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def client(self, name: str, size: tuple[int, int] = (80, 24), *args: str, config_dir: Path | None = None,
               relay: bool = True) -> Terminal:
        """``dab-client 127.0.0.1:PORT --name NAME ARGS`` in a terminal of ``size``; ``config_dir`` (default:
        one of the name's own, kept across clients of that name: its resume token) holds ``client.json``."""
        cut = CuttableRelay(self.port) if relay else None
        port = cut.port if cut is not None else self.port
        config = config_dir or self.directory / f"config-{name}"
        command = [sys.executable, "-m", "client", f"127.0.0.1:{port}", "--name", name, *args]
        terminal = Terminal(command, size=size, env=child_env(config), name=name, relay=cut)
        self.terminals.append(terminal)
        return terminal

    def dumps(self) -> str:
        """Every terminal's screen (for a failure's report)."""
        return "\n".join(terminal.dump() for terminal in self.terminals)

    def stop(self) -> None:
        for terminal in self.terminals:
            terminal.close()
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._log.close()

    def __enter__(self) -> "EveningServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def temp_dir(prefix: str = "dab-evening-") -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix=prefix)


# ---------------------------------------------------------------------------- playing by keys, as a person


class Decision:
    """A decision a player can see on their screen (``sign``: text only it shows), the keys a person
    presses for it, and how the screen shows the keys did what they were pressed for (``done``: the row
    that showed ``sign`` is gone, unless another test is given)."""

    def __init__(self, sign: str, keys: tuple[str, ...], done: Callable[[str, str], bool] | None = None) -> None:
        self.sign, self.keys, self.done = sign, keys, done

    def make(self, terminal: Terminal, text: str) -> None:
        row = next(line for line in text.splitlines() if self.sign in line)
        mark = terminal.mark()
        terminal.press(*self.keys)
        done = self.done or (lambda before, after: before not in after)
        terminal.wait_for(lambda now: done(row, now), since=mark)


DOWN_AND_BACK = (
    Decision("Cut here", ("enter",)),  # the cut dialog's footer
    Decision("Showdown: arrange your cards", ("enter",)),
    Decision("s take from stock", ("s",)),
    Decision("Throw a card:", ("1", "enter")),
)
CRIBBAGE = (
    Decision("Cut here", ("enter",)),
    Decision("Lay away 1:", ("1", "enter")),
    Decision("Lay away 2:", ("1", "2", "enter")),
    Decision("Your turn, count", ("enter",)),  # the card under the cursor (the first one playable)
    Decision("Claim your", ("enter",)),  # muggins: claim what the prompt holds (0: short)
    Decision("short!", ("n",)),  # muggins: let the points go
)
DECISIONS = {"down-and-back": DOWN_AND_BACK, "cribbage": CRIBBAGE}


def decide(terminal: Terminal, game: str, text: str | None = None) -> bool:
    """If ``terminal``'s screen (or ``text``, a frame of it) shows one of ``game``'s decisions, make it by
    keys (and check that it was made); whether there was one."""
    text = terminal.text() if text is None else text
    for decision in DECISIONS[game]:
        if decision.sign in text:
            decision.make(terminal, text)
            return True
    return False


def play_until(players: Iterable[Terminal], game: str, until: Callable[[], object], timeout: float = 90.0,
               what: str = "the game to get there", spare: Callable[[Terminal, str], bool] | None = None) -> object:
    """Every player makes their decisions by keys until ``until()`` holds (and return what it returned).

    Each player's screen is read before ``until()`` is asked, and the decision made is the one that screen
    showed: a moment ``until`` waits for is never played past unseen. ``spare(player, text)``: leave that
    decision alone for now (another player's screen has yet to show something).
    """
    players = list(players)
    deadline = time.monotonic() + timeout
    while True:
        decided = False
        for player in players:
            text = player.text()
            result = until()
            if result:
                return result
            if spare is not None and spare(player, text):
                continue
            decided = decide(player, game, text) or decided
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out playing until {what}\n" + "\n".join(p.dump() for p in players))
        if not decided:
            time.sleep(0.02)  # polling the screens: nothing to decide yet


# ---------------------------------------------------------------------------- checks other work adds to the evening


STEPS = ("lobby", "waiting room", "playing", "result", "sitting out", "reconnected", "rejoined", "game over",
         "rematch", "history")
"""The evening's checkpoints, in the order each game's evening passes them (``test_e2e_evening.py``):

- ``lobby``: Ann and Bob in the lobby, before any table; ``waiting room``: Ann's table made in the lobby's
  form, Bob joined from the lobby, no bot yet, not started; ``playing``: the game started, Ann has a decision
  (Down and Back: her turn to draw; Cribbage: laying away); ``result``: ``who`` has the round's result in view
  (Down and Back: Ann, the last showdown's panel; Cribbage: the first to claim, the show) while the other
  decides; ``sitting out``: Ann sits out, both screens say so; ``reconnected``: Bob's connection was cut and his
  client came back by itself; ``rejoined``: Bob left for the lobby and came back to his seat; ``game over``:
  Ann ended the game, both read the standings; ``rematch``: the rematch's first round on both screens;
  ``history``: Ann in the lobby's history (her rows, the first round under the cursor).
"""


class Evening:
    """What a check is handed: the server, the game, the terminal size, the players' terminals by name
    (``ann`` hosts, ``bob`` joined; a bot sits third), the step, and ``who`` the step is about (``result``)."""

    def __init__(self, server: EveningServer, game: str, size: tuple[int, int], ann: Terminal, bob: Terminal) -> None:
        self.server, self.game, self.size = server, game, size
        self.ann, self.bob = ann, bob
        self.step = ""
        self.who: Terminal | None = None
        self.reached: list[str] = []  # the steps passed so far

    @property
    def players(self) -> tuple[Terminal, Terminal]:
        return self.ann, self.bob


Check = Callable[[Evening], None]
CHECKS: dict[str, list[Check]] = {step: [] for step in STEPS}
_loaded = False


def at(*steps: str, games: Iterable[str] = ("down-and-back", "cribbage")) -> Callable[[Check], Check]:
    """Register a check to run at each of ``steps`` (of :data:`STEPS`) in the evenings of ``games``:

        # tests/e2e/evening_checks_<yours>.py (found and imported by the evening test)
        from evening_helpers import Evening, at

        @at("waiting room", "playing")
        def the_table_id_is_shown(evening: Evening) -> None:
            evening.ann.wait_for("t1")

    A check reads the screens (wait on them: ``wait_for``, never a sleep) and may press keys, as long as it
    leaves each player where it found them (a check must not play a card or close a panel)."""
    games = tuple(games)
    unknown = [step for step in steps if step not in STEPS]
    if unknown or not steps:
        raise ValueError(f"unknown evening steps {unknown}: the steps are {STEPS}")

    def register(check: Check) -> Check:
        for step in steps:
            CHECKS[step].append(_for_games(check, games))
        return check

    return register


def _for_games(check: Check, games: tuple[str, ...]) -> Check:
    def run(evening: Evening) -> None:
        if evening.game in games:
            check(evening)

    run.__name__ = check.__name__
    return run


def load_checks() -> None:
    """Import every ``evening_checks_*.py`` beside this file (each registers its checks with :func:`at`)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    for path in sorted(Path(__file__).parent.glob("evening_checks_*.py")):
        importlib.import_module(path.stem)


def checkpoint(evening: Evening, step: str, who: Terminal | None = None) -> None:
    """The evening has reached ``step``: run every check registered for it (failing with every screen)."""
    load_checks()
    if step not in STEPS:
        raise ValueError(f"unknown evening step {step!r}")
    evening.step, evening.who = step, who
    evening.reached.append(step)
    for check in CHECKS[step]:
        try:
            check(evening)
        except AssertionError as exc:
            raise AssertionError(f"{evening.game} at {evening.size[0]}x{evening.size[1]}, step {step!r}, "
                                 f"check {check.__name__}: {exc}") from None
