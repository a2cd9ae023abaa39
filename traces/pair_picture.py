"""One story told twice, drawn: the lanes picture of a behaviour under variant A (where the
property fails) above the lanes picture of the same events under variant B (where it holds at
every step), in one SVG."""

from __future__ import annotations

import re

from checker.output_kinds import PAIR_COMMENT

from .picture import lanes_figure
from .figure_file import figure_bytes
from .trace import Trace

_SIZE = re.compile(rb'<svg[^>]*?\bwidth="([\d.]+)pt"[^>]*?\bheight="([\d.]+)pt"', re.S)


def pair_svg(first: Trace, first_model, second: Trace, second_model, story: list[str]) -> bytes:
    """A's counterexample, framed as usual, above B's behaviour titled and explained by
    `story` (the sentences saying where the two part), as one SVG document marked as replcheck's
    (`checker.output_kinds.PAIR_COMMENT`)."""
    top = figure_bytes(lanes_figure(first, first_model), "svg")
    title = f"{second.model} {second.variant}: the same {len(second)} events, {second.invariant} holds at every step"
    bottom = figure_bytes(lanes_figure(second, second_model, title=title, story=story, ends=False), "svg")
    parts, width, height = [], 0.0, 0.0
    for svg in (top, bottom):
        w, h = (float(x) for x in _SIZE.search(svg).groups())
        body = svg[svg.index(b"<svg"):]
        root_end = body.index(b">")  # nested, sized in the outer picture's units (points) and placed below
        root = re.sub(rb'\b(width|height)="([\d.]+)pt"', rb'\1="\2"', body[:root_end])
        parts.append(root.replace(b"<svg", f'<svg y="{height}"'.encode(), 1) + body[root_end:])
        width, height = max(width, w), height + h
    head = (f'<?xml version="1.0" encoding="utf-8" standalone="no"?>\n{PAIR_COMMENT}\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" '
            f'xmlns:xlink="http://www.w3.org/1999/xlink" width="{width}pt" height="{height}pt" '
            f'viewBox="0 0 {width} {height}" version="1.1">\n').encode()
    return head + b"\n".join(parts) + b"\n</svg>\n"
