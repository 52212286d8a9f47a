"""The SSH tests' shared fixture: a private tmux server for the test's terminals, closed after it."""

from __future__ import annotations

import pytest

from ssh_helpers import Tmux


@pytest.fixture
def tmux(request):
    tmux = Tmux(request.node.name[:20])
    yield tmux
    tmux.close()
