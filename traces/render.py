"""`replcheck trace render`: a saved trace in any of the supported formats.

svg, png: the lanes picture (matplotlib) with a title, the explanation and a legend, or with
          picture="graph" the trace graph (Graphviz `dot` when on PATH, else matplotlib); SVG
          text stays text (selectable, searchable);
dot, graphml, json: the trace graph through networkx's writers;
html: one self-contained page (`traces.html`): the story, the lanes picture opened on the failing
          step, a legend, what the selected step changed, and the step table.
"""

from __future__ import annotations

from pathlib import Path

from checker.output_kinds import RENDERED, mark_picture

from .figure_file import TooLongToDraw, figure_bytes
from .store import load_trace, write_atomically
from .trace import Trace

FORMATS = ("svg", "png", "dot", "graphml", "json", "html")
PICTURES = ("lanes", "graph")
DRAWN = ("svg", "png", "html")
"""The formats that draw a picture: their time and size grow with every step drawn."""

MAX_PICTURE_STEPS = 200
"""The most steps a picture (svg, png, html) draws. Drawing takes about 15 ms a step for SVG and
HTML and 50 ms for PNG (a 200-step PNG is 63,000 pixels wide); searches report traces of a few
dozen steps. dot, graphml and json take any trace a file may hold."""


def render(trace: Trace, model, fmt: str, picture: str = "lanes") -> bytes:
    """The trace rendered as `fmt` (one of FORMATS), carrying replcheck's mark
    (`checker.output_kinds`). Raises TooLongToDraw for a picture of more than MAX_PICTURE_STEPS
    steps."""
    if fmt in DRAWN and len(trace) > MAX_PICTURE_STEPS:
        raise TooLongToDraw(f"a trace of {len(trace):,} steps is too long to draw as {fmt}: a picture shows at most "
                            f"{MAX_PICTURE_STEPS} steps (dot, graphml and json take the whole trace)")
    from .graph import to_dot, to_graphml, to_node_link_json, trace_graph  # networkx: only when drawing

    if fmt in ("svg", "png") and picture == "graph":
        from .graph_picture import dot_picture, graph_figure
        from .picture import trace_title

        graph, title = trace_graph(trace, model), trace_title(trace)
        return mark_picture(dot_picture(graph, fmt, title) or figure_bytes(graph_figure(graph, title), fmt), fmt)
    if fmt in ("svg", "png"):
        from .picture import lanes_figure

        return mark_picture(figure_bytes(lanes_figure(trace, model), fmt), fmt)
    if fmt == "html":
        from .html import trace_html

        return trace_html(trace, model).encode("utf-8")
    graph = trace_graph(trace, model)
    text = {"dot": to_dot, "graphml": to_graphml, "json": to_node_link_json}[fmt](graph)
    return text.encode("utf-8")


def render_file(source: Path, fmt: str, out: Path, picture: str = "lanes") -> Path:
    """Load the trace file `source`, render it as `fmt` and write `out` atomically (nothing is
    left behind on failure). Raises traces.store.TraceFileError for a bad source file or one too
    long to draw, and OSError when `out` cannot be written or holds anything but what `fmt`
    renders (`checker.output_kinds.RENDERED`)."""
    trace, model = load_trace(source)
    write_atomically(out, render(trace, model, fmt, picture), RENDERED[fmt])
    return out
