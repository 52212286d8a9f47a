"""Issue 29 item 8: the name limits have one owner each (``protocol.messages``), and the documents say them.

The server's check, the client's inputs and the protocol's schema read the
same constants; PROTOCOL.md states the same numbers where a stranger's
client reads them (the ``name`` type, §8.1 and the ``bad_name`` code).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from protocol import messages as m
from server import text

PROTOCOL_MD = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


def test_the_server_and_the_schema_read_the_protocols_limits():
    assert (text.NAME_MAX, text.TABLE_NAME_MAX) == (m.NAME_MAX, m.TABLE_NAME_MAX)
    assert m.NAME.hi == m.TABLE_NAME.hi == m.SENT_NAME_MAX >= max(m.NAME_MAX, m.TABLE_NAME_MAX)
    assert text.name_problem("x" * m.NAME_MAX) is None and text.name_problem("x" * (m.NAME_MAX + 1))


@pytest.mark.parametrize("sentence", [
    rf"`name` \| `str 0\.\.{m.SENT_NAME_MAX}` — a display name as sent\. .* at most {m.NAME_MAX} code points",
    rf"Player names must then be 1\.\.{m.NAME_MAX} code points and table names 1\.\.{m.TABLE_NAME_MAX}",
    rf"longer than {m.NAME_MAX} code points after cleaning.* longer than {m.TABLE_NAME_MAX} code points",
])
def test_protocol_md_states_the_same_limits(sentence):
    assert re.search(sentence, PROTOCOL_MD), sentence


def test_no_module_writes_the_name_limits_again():
    """The client's and the server's code name the constants, not the numbers (a grep, so it can fail)."""
    root = Path(__file__).resolve().parents[2]
    copies = []
    for path in [*root.glob("client/**/*.py"), *root.glob("server/*.py")]:
        source = path.read_text(encoding="utf-8")
        copies += [f"{path.relative_to(root)}: {hit}" for hit in re.findall(
            r"(?:NAME_MAX\s*=\s*\d+|\[:\s*24\]|max_length\s*=\s*(?:24|40)\b)", source)]
    assert copies == []
