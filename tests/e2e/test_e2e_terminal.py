"""The real program and its terminal: it refuses to run into a pipe and leaves when the terminal goes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_client import PtyClient  # noqa: E402  (the benchmark's pseudo-terminal runner)


def painted(client: PtyClient, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(text.startswith("paint") for _, _, text in client.poll(0.05)):
            return
    raise AssertionError("no table was painted")


def test_refuses_to_start_without_a_terminal(tmp_path):
    """``ssh host dab-client`` without ``-t``: one clear line, not a full-screen app writing into a pipe."""
    env = dict(os.environ, DAB_CONFIG_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-m", "client", "--bots", "1"], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "needs a terminal" in result.stderr and "ssh -t" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""  # no escape codes written into the pipe


def test_exits_when_the_terminal_goes_away():
    """The terminal closes (the SSH connection dropped): the client ends instead of spinning on EOF."""
    client = PtyClient(["--bot-delay", "0.5"], exit_after_paint=False)
    try:
        painted(client)
        os.close(client.master)
        client.master = -1
        assert client.proc.wait(10) is not None
    finally:
        client.close()


def test_exits_cleanly_on_sighup():
    client = PtyClient(["--bot-delay", "0.5"], exit_after_paint=False)
    try:
        painted(client)
        client.proc.send_signal(signal.SIGHUP)
        assert client.proc.wait(10) == 128 + signal.SIGHUP  # an orderly exit, not killed by the signal
    finally:
        client.close()
