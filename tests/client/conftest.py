"""Client fixtures: apps connected to the real test server, config kept in a tmp dir."""

from __future__ import annotations

import pytest

from client.app import DabApp
from client.render import Display
from client.session import Session


@pytest.fixture(autouse=True)
def config_dir(tmp_path, monkeypatch):
    """Never touch the real user config directory."""
    path = tmp_path / "config"
    monkeypatch.setenv("DAB_CONFIG_DIR", str(path))
    return path


@pytest.fixture
def make_app(server):
    """``make_app("ann")``: an app that connects to the test server on mount."""

    def make(name: str, *, ascii: bool = False, frozen_clock: bool = False) -> DabApp:
        session = Session("127.0.0.1", server.port, name)
        return DabApp(session, display=Display(ascii=ascii), player_name=name, frozen_clock=frozen_clock)

    return make
