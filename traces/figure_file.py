"""A matplotlib figure as the bytes of a picture file (SVG or PNG), within a size a machine can draw."""

from __future__ import annotations

import io

from .store import TraceFileError

MAX_PNG_PIXELS = 100_000_000
"""The most pixels a PNG may have: matplotlib holds 4 bytes a pixel while it draws (400 MB). A
200-step trace of 2 replicas is 85 million pixels; more replicas or longer logs make it taller
and wider."""

DPI = 150
"""Pixels per inch of a PNG picture."""


class TooLongToDraw(TraceFileError):
    """The trace has more steps than a picture draws (MAX_PICTURE_STEPS), or its PNG would have
    more than MAX_PNG_PIXELS pixels."""


def figure_bytes(fig, fmt: str) -> bytes:
    """A matplotlib figure saved as `fmt` (SVG text kept as <text>: selectable and searchable),
    then closed. Raises TooLongToDraw for a PNG of more than MAX_PNG_PIXELS pixels."""
    import matplotlib
    import matplotlib.pyplot as plt

    width, height = (round(inches * DPI) for inches in fig.get_size_inches())
    if fmt == "png" and width * height > MAX_PNG_PIXELS:
        plt.close(fig)
        raise TooLongToDraw(f"the picture would be {width:,} x {height:,} pixels, more than the {MAX_PNG_PIXELS:,} a "
                            "png may have: render it as svg")
    out = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(out, format=fmt, dpi=DPI)
    plt.close(fig)
    return out.getvalue()
