"""Fewer bytes per repaint: styles written as changes, not in full for every piece of text.

Textual writes each run of text as ``ESC[<full style>m text ESC[0m``. A table
at 80x24 is some 700 such runs, most of them on the same background, so a
screen that opens (the showdown, the reveal) cost ~30 KB. :func:`compact_render`
renders a strip (one row's run of segments) with the same result on screen but
switching style only where it changes, and only the colours that change when
the text attributes stay the same. Each strip still ends with a reset, so
strips stay independent of each other and of the cursor moves between them.
"""

from __future__ import annotations

from rich.color import ColorSystem
from rich.console import COLOR_SYSTEMS, Console
from rich.style import Style
from textual.strip import SGR_STYLES, Strip

from .rich_compat import attribute_bits as _attributes
from .rich_compat import colors as _colors
from .rich_compat import style_codes as _codes
from .textual_compat import render_cached


def _change(current: Style | None, new: Style, color_system: ColorSystem) -> str:
    """The SGR sequence that turns ``current`` (None: the terminal's default) into ``new``."""
    codes = _codes(new, color_system)
    if current is None:
        return f"\x1b[{codes}m" if codes else ""
    if codes == _codes(current, color_system):
        return ""
    if not codes:
        return "\x1b[0m"
    changes = _attribute_changes(_attributes(current), _attributes(new))
    if changes is None:
        return f"\x1b[0;{codes}m"
    (color, bgcolor), (was_color, was_bgcolor) = _colors(new), _colors(current)
    if color != was_color:
        changes += color.downgrade(color_system).get_ansi_codes() if color is not None else ["39"]
    if bgcolor != was_bgcolor:
        changes += bgcolor.downgrade(color_system).get_ansi_codes(False) if bgcolor is not None else ["49"]
    partial = f"\x1b[{';'.join(changes)}m" if changes else ""
    full = f"\x1b[0;{codes}m"
    return partial if len(partial) <= len(full) else full


# The SGR code that turns each Rich attribute bit off (bold and dim share one, as do the blinks...).
_OFF = ("22", "22", "23", "24", "25", "25", "27", "28", "29", "24", "54", "54", "55")


def _attribute_changes(current: int, new: int) -> list[str] | None:
    """SGR codes from one set of text attributes to another (None: attributes we cannot switch off)."""
    removed, added = current & ~new, new & ~current
    if removed >> len(_OFF):
        return None
    off = {_OFF[bit] for bit in range(removed.bit_length()) if removed & (1 << bit)}
    # Attributes kept that a shared "off" code also clears must be set again.
    again = added | sum(1 << bit for bit in range(new.bit_length()) if new & (1 << bit) and _OFF[bit] in off)
    return sorted(off) + [SGR_STYLES[bit] for bit in range(again.bit_length()) if again & (1 << bit)]


def compact_render(strip: Strip, console: Console) -> str:
    """:meth:`Strip.render` with style changes only (see the module docstring); cached the same way."""
    return render_cached(strip, lambda strip: _compact(strip, console))


def _compact(strip: Strip, console: Console) -> str:
    color_system = COLOR_SYSTEMS.get(console.color_system or "truecolor", ColorSystem.TRUECOLOR)
    out: list[str] = []
    current: Style | None = None
    for text, style, _ in strip:
        if style is not None and style.link:  # hyperlinks: written in full, as Textual does
            if current is not None:
                out.append("\x1b[0m")
                current = None
            out.append(Strip.render_style(style, text, color_system))
            continue
        if style is None or not _codes(style, color_system):
            if current is not None:
                out.append("\x1b[0m")
                current = None
            out.append(text)
            continue
        out.append(_change(current, style, color_system))
        out.append(text)
        current = style
    if current is not None:
        out.append("\x1b[0m")
    return "".join(out)


def install() -> None:
    """Use :func:`compact_render` for everything Textual writes to the terminal from now on."""
    Strip.render = compact_render  # type: ignore[method-assign]
