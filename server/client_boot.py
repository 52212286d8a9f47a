"""How a gateway's session runs its client: ``python -I client_boot.py ROOT NICENESS TERMINAL ARGS...``.

Run by :func:`server.gateway.start_client`, never imported. The interpreter is
isolated (``-I``: no current directory, script directory, ``PYTHON*``
variable or user site on ``sys.path``), so the client that runs is the one
installed beside this server (``ROOT`` holds both packages), never a
``client/`` planted in whatever directory the server was started from. It
yields the CPU to the server (``NICENESS``); with ``TERMINAL`` 1 its standard
input, a PTY, becomes its controlling terminal (SIGWINCH, SIGHUP).
"""

import os
import sys

root, niceness, terminal = sys.argv[1:4]
del sys.argv[1:4]
os.nice(int(niceness))
if terminal == "1":
    import fcntl
    import termios

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
sys.path.insert(0, root)

import runpy  # noqa: E402

runpy.run_module("client", run_name="__main__", alter_sys=True)
