"""Your turn, outside the terminal: the bell, the terminal's title, a desktop notification.

Each is an escape sequence written to the terminal as it is (the screen's own drawing
goes through Textual). Names in them are user text, so nothing reaches a sequence but
:func:`safe` text: no escape, no control character (C0 or C1: ``\\x9b``, ``\\x9c`` and
``\\x9d`` start or end sequences in 8-bit terminals), nothing that could end the
sequence early and start another.

* The **title** (OSC 2) says ``▶ your turn — alice's table`` while a decision is
  ours. It is put back afterwards: the terminal's own title is saved on its title
  stack first (XTWINOPS ``CSI 22;0 t``, xterm, VTE, kitty, iTerm2, WezTerm, foot) and
  restored from it (``CSI 23;0 t``); a terminal without the stack ignores both and is
  left with the neutral :data:`RESTING` title instead.
* A **desktop notification**, off by default (``N`` at the table; ``"notify": true`` in
  ``client.json``): OSC 9 (iTerm2, WezTerm, ConEmu, Windows Terminal, ghostty), OSC 99
  (kitty) or OSC 777 (VTE terminals such as GNOME Terminal, foot, urxvt), as the
  environment tells. Over SSH it usually cannot tell (only ``TERM`` and iTerm2's
  ``LC_TERMINAL`` come through): a player who turned notifications on gets OSC 9 there,
  which a terminal that does not show it ignores.
"""

from __future__ import annotations

import unicodedata
from typing import Mapping

BELL = "\a"
RESTING = "Down and Back"  # the title left where a terminal cannot restore its own
SAVE_TITLE, RESTORE_TITLE = "\x1b[22;0t", "\x1b[23;0t"  # XTWINOPS: push / pop the icon and window titles
TITLE_MAX = 80


def safe(text: str, limit: int = TITLE_MAX) -> str:
    """``text`` fit for the inside of an escape sequence: every control, format, private-use, surrogate,
    unassigned and line/paragraph-separator character dropped, runs of space made one, at most ``limit``
    characters."""
    kept = "".join(c for c in str(text) if unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
    kept = " ".join(kept.split())
    return kept if len(kept) <= limit else kept[:limit - 1].rstrip() + "…"


def title(text: str) -> str:
    """OSC 2: set the window title to ``text``."""
    return f"\x1b]2;{safe(text)}\x07"


def turn_title(table_name: str) -> str:
    """What the title says while a decision is ours: ``▶ your turn — alice's table``."""
    return f"▶ your turn — {safe(table_name, 48) or 'the table'}"


def desktop_notification(heading: str, body: str, environ: Mapping[str, str], unknown: str = "") -> str:
    """The escape sequence that raises a desktop notification in this terminal, or ``unknown`` if we do not know
    one (``""``: the bell alone; a player who asked for notifications gets OSC 9, see the module docstring).

    OSC 9 (iTerm2, WezTerm, ConEmu), OSC 99 (kitty), OSC 777 (VTE terminals such as GNOME Terminal, foot,
    urxvt). Over SSH only ``TERM`` and ``LC_TERMINAL`` (sent by iTerm2) usually come through.
    """
    heading, body = safe(heading).replace(";", ","), safe(body).replace(";", ",")
    term, program = environ.get("TERM", ""), environ.get("TERM_PROGRAM", "")
    if program in ("iTerm.app", "WezTerm") or environ.get("LC_TERMINAL") == "iTerm2" or "ConEmuANSI" in environ:
        return f"\x1b]9;{heading}: {body}\x07"
    if term == "xterm-kitty" or "KITTY_WINDOW_ID" in environ:
        return f"\x1b]99;;{heading}: {body}\x1b\\"
    if "VTE_VERSION" in environ or term.startswith(("foot", "rxvt")):
        return f"\x1b]777;notify;{heading};{body}\x07"
    if unknown == "osc9":
        return f"\x1b]9;{heading}: {body}\x07"
    return ""
