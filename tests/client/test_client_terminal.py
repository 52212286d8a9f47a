"""The compact style writer: the same picture on the terminal as Textual's, in fewer bytes."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from client.terminal import compact_render

SGR = re.compile(r"\x1b\[([0-9;]*)m")
OFF = {"22": {"1", "2"}, "23": {"3"}, "24": {"4", "21"}, "25": {"5", "6"}, "27": {"7"}, "28": {"8"}, "29": {"9"},
       "54": {"51", "52"}, "55": {"53"}}


def painted(output: str) -> list[tuple[str, tuple[object, ...]]]:
    """Each character written with the (attributes, foreground, background) in effect: what a terminal shows."""
    attrs: set[str] = set()
    fg: object = None
    bg: object = None
    cells: list[tuple[str, tuple[object, ...]]] = []
    position = 0
    for match in [*SGR.finditer(output), None]:
        end = match.start() if match else len(output)
        cells += [(c, (frozenset(attrs), fg, bg)) for c in output[position:end]]
        if match is None:
            break
        position = match.end()
        codes = (match.group(1) or "0").split(";")
        i = 0
        while i < len(codes):
            code = codes[i]
            if code == "0":
                attrs, fg, bg = set(), None, None
            elif code in ("38", "48"):
                width = 4 if codes[i + 1] == "2" else 2
                value = tuple(codes[i + 1:i + 1 + width])
                fg, bg = (value, bg) if code == "38" else (fg, value)
                i += width
            elif code in OFF:
                attrs -= OFF[code]
            elif code == "39":
                fg = None
            elif code == "49":
                bg = None
            elif 30 <= int(code) <= 37 or 90 <= int(code) <= 97:
                fg = code
            elif 40 <= int(code) <= 47 or 100 <= int(code) <= 107:
                bg = code
            else:
                attrs.add(code)
            i += 1
    assert (attrs, fg, bg) == (set(), None, None), "a strip must leave the terminal's style as it found it"
    return cells


COLOURS = st.sampled_from([None, "#e0e0e0", "#121212", "#ffd75f", "red", "default", "color(245)"])
STYLES = st.builds(lambda fg, bg, bold, dim, rev, it: Style(color=fg, bgcolor=bg, bold=bold, dim=dim, reverse=rev,
                                                            italic=it),
                   COLOURS, COLOURS, st.sampled_from([None, True, False]), st.booleans(), st.booleans(), st.booleans())
SEGMENTS = st.lists(st.tuples(st.text("ab ♠", min_size=1, max_size=4), st.one_of(st.none(), STYLES)), max_size=12)


@settings(max_examples=150, deadline=None)
@given(SEGMENTS, st.sampled_from([ColorSystem.TRUECOLOR, ColorSystem.EIGHT_BIT, ColorSystem.STANDARD]))
def test_compact_render_paints_what_textual_paints(segments, color_system):
    console = Console(color_system={ColorSystem.TRUECOLOR: "truecolor", ColorSystem.EIGHT_BIT: "256",
                                    ColorSystem.STANDARD: "standard"}[color_system], force_terminal=True)
    textual = Strip([Segment(text, style) for text, style in segments]).render(console)
    compact = compact_render(Strip([Segment(text, style) for text, style in segments]), console)
    assert painted(compact) == painted(textual)
    assert len(compact) <= len(textual)


def test_a_row_on_one_background_costs_one_style_change_per_colour():
    console = Console(color_system="truecolor", force_terminal=True)
    back = "#121212"
    row = [Segment("  ", Style(bgcolor=back)), Segment("Going down", Style(color="#e0e0e0", bgcolor=back, bold=True)),
           Segment("      ", Style(bgcolor=back)), Segment("  ", Style(bgcolor=back))]
    textual = Strip(row).render(console)
    compact = compact_render(Strip(row), console)
    assert len(SGR.findall(compact)) == 4 < len(SGR.findall(textual)) == 8
    assert len(compact) < 0.6 * len(textual)
