"""The session-client fork server: ``python -I client_zygote.py ROOT NICENESS FD``. Run by
:class:`server.fork_server.ForkServer`, never imported by the server.

It imports the client, Textual and Rich once (and warms what each game's board
would build in its first seconds: the hand helper's tables), then waits on
``FD``, a ``SOCK_SEQPACKET`` socket to the gateways. Each request (JSON, with
the session's standard input, output, error and token pipe attached as
``SCM_RIGHTS``) is answered by a fork: the child becomes the session's
``dab-client`` at once, its memory shared copy-on-write with this process, its
start skipping every import. The reply carries the child's pid and a pidfd;
when a child exits its status follows (``{"exit": pid, "status": n}``, the
status as ``Popen.returncode`` gives it). This process never runs a thread (it
checks before each fork), reaps its children, and leaves when its socket
closes (the server has gone) or it is told to. The interpreter is isolated
(``-I``) and ``ROOT`` the installation's own directory, as for ``client_boot.py``.
"""

import array
import json
import os
import signal
import socket
import sys

root, niceness, control_fd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
del sys.argv[1:4]
os.nice(niceness)
sys.path.insert(0, root)
os.chdir("/")

MAX_MESSAGE = 1 << 16  # a request: the client's arguments and environment
TOKEN_FD = 3  # where a child finds its token pipe (its --token-fd)


def _preload() -> None:
    """What every session's client would import and build first, done once here."""
    import importlib
    import pkgutil

    import client
    import client.__main__  # noqa: F401  (the client, Textual, Rich, msgpack, the protocol)

    for module in pkgutil.walk_packages(client.__path__, "client."):  # every screen, widget and game
        try:
            importlib.import_module(module.name)
        except Exception:  # noqa: BLE001 (a child imports what it needs itself)
            pass
    for name in ("textual.drivers.linux_driver", "textual.drivers.web_driver", "textual.drivers.headless_driver",
                 "textual.pilot", "textual.scrollbar", "textual.coordinate", "textual._two_way_dict",
                 "textual.layouts.factory", "textual.layouts.horizontal", "textual.layouts.vertical",
                 "textual.layouts.grid", "textual.layouts.stream", "textual.renderables.styled",
                 "textual.widgets._data_table", "textual.widgets._checkbox", "textual.widgets._toggle_button",
                 "textual.widgets._input", "textual.widgets._static", "textual.widgets._footer", "rich._emoji_codes"):
        try:  # what a client's first screens import as they are first shown
            importlib.import_module(name)
        except ImportError:
            pass
    from client.games import board_class, playable_games

    for name in playable_games():
        board = board_class(name)
        try:
            board.warm_up()  # the hand helper's tables: built once, shared by every child
        except Exception:  # noqa: BLE001 (a child would build them itself)
            pass
    import gc

    gc.collect()
    gc.freeze()  # what is loaded now is never collected: its pages stay shared with the children


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def _send(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:
    data = json.dumps(message).encode()
    ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds).tobytes())] if fds else []
    sock.sendmsg([data], ancillary)


def _receive(sock: socket.socket) -> tuple[dict | None, list[int]]:
    fds = array.array("i")
    data, ancillary, _flags, _ = sock.recvmsg(MAX_MESSAGE, socket.CMSG_SPACE(8 * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
    if not data:
        for fd in fds:
            os.close(fd)
        return None, []
    return json.loads(data), list(fds)


def _name_process(args: list) -> None:
    """Name the child "dab NAME" (its /proc comm, what ps and top show: its command line is the zygote's)."""
    name = next((arg.split("=", 1)[1] for arg in args if arg.startswith("--name=")), None)
    if name is None and "--name" in args[:-1]:
        name = args[args.index("--name") + 1]
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, f"dab {name or 'client'}".encode()[:15], 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


def _child(sock: socket.socket, request: dict, fds: list[int]) -> None:
    """In the forked child: become the session's client (never returns)."""
    code = 1
    try:
        sock.close()
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
            signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        signal.set_wakeup_fd(-1)  # (the zygote's; the client's event loop sets its own)
        os.setsid()
        import fcntl

        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, 16) for fd in fds]  # out of the way of 0-3
        for target, fd in zip((0, 1, 2, TOKEN_FD), moved):
            os.dup2(fd, target)  # (inheritable: a client starts no program, but its descriptors are its own)
        os.closerange(TOKEN_FD + 1, 1 << 20)  # the zygote's socket, pipes and selector: none of them the child's
        if request.get("terminal"):
            import termios

            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        os.environ.clear()
        os.environ.update(request["env"])
        import importlib

        import textual.constants

        importlib.reload(textual.constants)  # read from the environment at import: now the session's
        # As an interpreter started on them would make them (LANG=C.UTF-8; standard error line-buffered).
        sys.stdin = open(0, "r", encoding="utf-8", closefd=False)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False)
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
        _name_process(request["args"])
        import random

        random.seed()  # not the zygote's sequence, shared by every child
        from client.__main__ import main

        sys.argv = ["dab-client", *request["args"], "--token-fd", str(TOKEN_FD)]
        try:
            code = main(sys.argv[1:])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 (the session's client crashed: its session alone ends)
        import traceback

        try:
            traceback.print_exc()
        except Exception:  # noqa: BLE001
            pass
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code if isinstance(code, int) else 1)


def _reap(sock: socket.socket, children: set[int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            children.clear()
            return
        if pid == 0:
            return
        children.discard(pid)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        try:
            _send(sock, {"exit": pid, "status": code})
        except OSError:
            pass


def serve() -> int:
    sock = socket.socket(fileno=control_fd)
    children: set[int] = set()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # (the wake-up fd says a child exited)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ctrl+c at the server's terminal is the server's
    _preload()
    _send(sock, {"ready": os.getpid()})
    import selectors

    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fd == wake_r:
                try:
                    while os.read(wake_r, 256):
                        pass
                except BlockingIOError:
                    pass
                _reap(sock, children)
                continue
            try:
                request, fds = _receive(sock)
            except (OSError, ValueError):
                request, fds = None, []
            if request is None:  # the server has gone (or closed us): the sessions' clients stay theirs
                return 0
            try:
                if len(fds) != 4:
                    raise ValueError(f"{len(fds)} descriptors")
                if _threads() != 1:  # a thread at fork time would leave its locks held in the child
                    raise RuntimeError(f"{_threads()} threads in the fork server")
                pid = os.fork()
                if pid == 0:
                    _child(sock, request, fds)
                children.add(pid)
                pidfd = os.pidfd_open(pid)
                try:
                    _send(sock, {"id": request["id"], "pid": pid}, [pidfd])
                finally:
                    os.close(pidfd)
            except Exception as exc:  # noqa: BLE001 (told to the gateway, which starts that client itself)
                _send(sock, {"id": request.get("id"), "error": f"{type(exc).__name__}: {exc}"})
            finally:
                for fd in fds:
                    os.close(fd)
            _reap(sock, children)


sys.exit(serve())
