"""Cleaning user-supplied text (names, chat, table names) before anyone sees it.

Terminals obey escape sequences and bidi controls; a name must never repaint
someone else's screen or reorder their text. We drop every control and format
character (Unicode categories Cc and Cf: C0, C1, ESC, DEL, bidi overrides,
zero-width joiners) and whole escape sequences, fold runs of whitespace to one space and cap the length.
Clients still render the result literally (never as markup).
"""

from __future__ import annotations

import re
import unicodedata

from protocol.messages import BOT_MARK, NAME_MAX, SERVER_NAME, TABLE_NAME_MAX

__all__ = ["CHAT_MAX", "NAME_MAX", "TABLE_NAME_MAX", "clean_name", "clean_table_name", "clean_text", "name_problem"]
CHAT_MAX = 200

# Whole terminal escape sequences (CSI, OSC, two-byte ESC forms, 8-bit CSI), so
# nothing of "ESC [31m" survives as visible junk once the ESC itself is gone.
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[@-Z\\-_]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)


def clean_text(text: str, limit: int) -> str:
    """Strip control/format characters, fold whitespace, cap at ``limit`` characters."""
    kept = []
    for char in _ESCAPE_SEQUENCE.sub("", text):
        category = unicodedata.category(char)
        if char in "\t\n\r" or category == "Zs":
            kept.append(" ")
        elif category not in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            kept.append(char)
    return " ".join("".join(kept).split())[:limit].strip()




def clean_name(text: str) -> str:
    """A player's name once cleaned, in full (:func:`name_problem` says whether it may be used)."""
    return clean_text(text, len(text))


def clean_table_name(text: str) -> str:
    """A table name once cleaned, in full (1..TABLE_NAME_MAX code points are accepted)."""
    return clean_text(text, len(text))


def name_problem(name: str) -> str | None:
    """Why a cleaned player name cannot be used, or None.

    1..NAME_MAX code points; the forms that mark bots and the server are
    reserved, so nobody can pass for either.
    """
    if not name:
        return "choose a name with at least one visible character"
    if len(name) > NAME_MAX:
        return f"names are limited to {NAME_MAX} characters (this one has {len(name)})"
    folded = name.casefold()
    if folded == SERVER_NAME.casefold() or folded.endswith(BOT_MARK):
        return f"{SERVER_NAME!r} and names ending in {BOT_MARK!r} are reserved (they mark the server and bots)"
    return None
