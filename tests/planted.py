"""A ``client/`` package planted where a server is started: what a gateway must never run."""

from __future__ import annotations

from pathlib import Path


def plant_client(tmp_path: Path) -> tuple[Path, Path]:
    """A directory holding a fake ``client`` package, and the file it writes if anything runs it."""
    start, marker = tmp_path / "start", tmp_path / "planted-ran"
    (start / "client").mkdir(parents=True)
    (start / "client" / "__init__.py").write_text("")
    (start / "client" / "__main__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    return start, marker
