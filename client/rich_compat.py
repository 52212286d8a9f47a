"""Every private part of Rich this client relies on, in one place (issue 29 item 11).

:mod:`client.terminal` writes each row's styles as changes, once per row painted: it reads a style's cached
SGR codes and its attribute bits, which Rich keeps private (its public ``Style.render`` writes the whole
style, text included, every time). Everything else uses Rich's public API. The names are checked by
``tests/client/test_library_compat.py``; ``pyproject.toml`` pins the version tested (:data:`TESTED`) as the
upper bound.
"""

from __future__ import annotations

from rich.color import Color, ColorSystem
from rich.style import Style
from textual.strip import Strip

TESTED = "15.0.0"  # the Rich these names were checked against (pyproject.toml's upper bound)


def cached_codes(style: Style) -> str | None:
    """The style's SGR codes as Rich cached them when it last rendered it (``None``: not yet)."""
    return style._ansi


def colors(style: Style) -> tuple[Color | None, Color | None]:
    """The style's colour and background (``Style.color`` and ``bgcolor``, read at once: the public
    properties cost a call each, four a run of text)."""
    return style._color, style._bgcolor


def style_codes(style: Style, color_system: ColorSystem) -> str:
    """The style's SGR codes (Rich's cached ones, else rendered): one call a run of text, so one function."""
    ansi = style._ansi
    return ansi if ansi is not None else Strip.render_ansi(style, color_system)


def attribute_bits(style: Style) -> int:
    """The text attributes ``style`` sets on (bold, dim, italic... one bit each, in Rich's order)."""
    return style._attributes & style._set_attributes
