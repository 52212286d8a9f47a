"""The operator's commands (``dab-server ban``, ``unban``, ``bans``, ``say``) run as an operator runs them: this
tree's ``python -m server`` in a process of its own, on a data directory (a running server's, or its database)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``dab-server ARGS --data-dir DATA_DIR``, its output captured as text."""
    return subprocess.run([sys.executable, "-m", "server", *args, "--data-dir", str(data_dir)], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
