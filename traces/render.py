"""`replcheck trace render`: a saved trace in any of the supported formats.

svg, png: the lanes picture (matplotlib), or with picture="graph" the trace graph (Graphviz
          `dot` when on PATH, else matplotlib);
dot, graphml, json: the trace graph through networkx's writers;
html: one self-contained page (lanes picture, step table, step slider).
"""

from __future__ import annotations

import io
from pathlib import Path

from .store import load_trace, write_atomically
from .trace import Trace

FORMATS = ("svg", "png", "dot", "graphml", "json", "html")
PICTURES = ("lanes", "graph")


def _lanes(trace: Trace, model, fmt: str) -> bytes:
    import matplotlib.pyplot as plt

    from .picture import lanes_figure

    fig = lanes_figure(trace, model)
    out = io.BytesIO()
    fig.savefig(out, format=fmt, dpi=150)
    plt.close(fig)
    return out.getvalue()


def render(trace: Trace, model, fmt: str, picture: str = "lanes") -> bytes:
    """The trace rendered as `fmt` (one of FORMATS)."""
    from .graph import to_dot, to_graphml, to_node_link_json, trace_graph  # networkx: only when drawing

    if fmt in ("svg", "png") and picture == "graph":
        from .picture import graph_figure_bytes

        graph = trace_graph(trace, model)
        return graph_figure_bytes(to_dot(graph), fmt, graph)
    if fmt in ("svg", "png"):
        return _lanes(trace, model, fmt)
    if fmt == "html":
        from .html import trace_html

        return trace_html(trace, model, _lanes(trace, model, "svg").decode("utf-8")).encode("utf-8")
    graph = trace_graph(trace, model)
    text = {"dot": to_dot, "graphml": to_graphml, "json": to_node_link_json}[fmt](graph)
    return text.encode("utf-8")


def render_file(source: Path, fmt: str, out: Path, picture: str = "lanes") -> Path:
    """Load the trace file `source`, render it as `fmt` and write `out` atomically (nothing is
    left behind on failure). Raises traces.store.TraceFileError for a bad source file and
    OSError when `out` cannot be written."""
    trace, model = load_trace(source)
    write_atomically(out, render(trace, model, fmt, picture))
    return out
