"""Pictures of a trace, drawn with matplotlib (pip-installable; no system Graphviz needed).

`lanes_figure`: one lane per replica and one column per step. Each cell shows the replica's
log (record and epoch per offset; a dashed cell is only in the page cache, not flushed), its HW
as a red bar after the last committed offset, its LEO as a triangle, and its epoch and role; a
crashed broker is greyed out; an in-flight FETCH is an arrow from follower to leader and a
response an arrow back, labelled with the offset or the HW they carry. A step that truncates or
overwrites a committed record has a red column and the lost record is drawn struck through where
it was. This is the picture the HW-truncation articles draw by hand.

`graph_figure`: the trace graph (`traces.graph`), through Graphviz's `dot` when it is on PATH,
else laid out by networkx and drawn by matplotlib.
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.patches import Rectangle  # noqa: E402

from .lanes import losses  # noqa: E402
from .trace import Trace  # noqa: E402

CELL = 0.42
LANE = 1.25
HEADER = 1.1


def lanes_figure(trace: Trace, model):
    """The lanes picture as a matplotlib Figure (lane backgrounds carry gid `lane-<name>`, and
    an invisible frame per column gid `step-<i>`, which the HTML page outlines for the step it
    shows)."""
    states = trace.states()
    views = [model.lanes(s) for s in states]
    names = list(views[0])
    lost = losses(views)
    lost_at = {(loss.step, loss.lane, loss.offset): loss for loss in lost}
    width = max(1, max(len(lane.cells) for view in views for lane in view.values()),
                max((loss.offset + 1 for loss in lost), default=0))
    column = max(1.6, 0.8 + width * CELL)
    fig_w, fig_h = 1.4 + column * len(states), HEADER + LANE * len(names) + 0.3
    fig, ax = plt.subplots(figsize=(fig_w, fig_h))
    ax.set_xlim(0, fig_w)
    ax.set_ylim(fig_h, 0)
    ax.axis("off")
    for row, name in enumerate(names):
        top = HEADER + row * LANE
        band = Rectangle((0, top), fig_w, LANE, facecolor="#f4f6fa" if row % 2 == 0 else "white", edgecolor="none")
        band.set_gid(f"lane-{name}")
        ax.add_patch(band)
        ax.text(0.2, top + LANE / 2, name, va="center", fontsize=11, fontweight="bold")
    for col, (state, view) in enumerate(zip(states, views)):
        x0 = 1.4 + col * column
        if any(loss.step == col for loss in lost):
            ax.add_patch(Rectangle((x0 - 0.05, 0), column - 0.1, fig_h, facecolor="#ffd9d9", edgecolor="none"))
        marker = Rectangle((x0 - 0.05, 0), column - 0.1, fig_h, facecolor="none", edgecolor="none", linewidth=2)
        marker.set_gid(f"step-{col}")
        ax.add_patch(marker)
        title = "initial" if col == 0 else model.describe_step(trace.steps[col - 1].action, states[col - 1], state)
        ax.text(x0, 0.15, f"{col}", fontsize=9, fontweight="bold", va="top")
        ax.text(x0 + 0.25, 0.15, "\n".join(textwrap.wrap(title, int(column * 15))[:5]), fontsize=5.5, va="top")
        for row, name in enumerate(names):
            _draw_lane_cell(ax, view[name], x0, HEADER + row * LANE, width,
                            {off: loss for (step, lane, off), loss in lost_at.items() if step == col and lane == name})
        _draw_messages(ax, view, names, x0 + column - 0.45)
    fig.tight_layout(pad=0.2)
    return fig


def _draw_messages(ax, view, names, x):
    """In-flight messages of one column as arrows between lanes, labelled."""
    rows = {name: HEADER + row * LANE + LANE / 2 for row, name in enumerate(names)}
    for name, lane in view.items():
        if lane.message is None or lane.message[0] not in rows:
            continue
        peer, label, direction = lane.message
        start, end = (rows[name], rows[peer]) if direction == "to" else (rows[peer], rows[name])
        ax.annotate("", xy=(x, end), xytext=(x, start),
                    arrowprops={"arrowstyle": "->", "color": "#1f5fbf" if direction == "to" else "#8a1c8a", "lw": 1})
        ax.text(x + 0.05, (start + end) / 2, label, fontsize=5, rotation=90, va="center",
                color="#1f5fbf" if direction == "to" else "#8a1c8a")


def _draw_lane_cell(ax, lane, x0, top, width, lost_here):
    """One replica at one step: log cells, lost records, HW bar, LEO marker, caption."""
    y = top + 0.15
    if not lane.alive:
        ax.add_patch(Rectangle((x0 - 0.05, top + 0.05), width * CELL + 0.3, LANE - 0.1, facecolor="#d0d0d0",
                               edgecolor="none"))
    for offset in range(width):
        x = x0 + offset * CELL
        if offset < len(lane.cells):
            committed = lane.hw is not None and offset < lane.hw
            on_disk = lane.flushed is None or offset < lane.flushed
            ax.add_patch(Rectangle((x, y), CELL, 0.42, facecolor="#cfe8cf" if committed else "white",
                                   edgecolor="black", linewidth=0.6, linestyle="-" if on_disk else "--"))
            ax.text(x + CELL / 2, y + 0.21, lane.cells[offset], ha="center", va="center", fontsize=5.5)
        elif offset in lost_here:
            ax.add_patch(Rectangle((x, y), CELL, 0.42, facecolor="white", edgecolor="red", linewidth=1.2, linestyle="--"))
            ax.text(x + CELL / 2, y + 0.21, lost_here[offset].record, ha="center", va="center", fontsize=5.5,
                    color="red")
            ax.plot([x, x + CELL], [y, y + 0.42], color="red", linewidth=1.2)
        else:
            ax.add_patch(Rectangle((x, y), CELL, 0.42, facecolor="none", edgecolor="#cccccc", linewidth=0.4,
                                   linestyle=":"))
    if lane.hw is not None:
        ax.plot([x0 + lane.hw * CELL] * 2, [y - 0.08, y + 0.5], color="red", linewidth=1.6)
        ax.text(x0 + lane.hw * CELL, y - 0.1, f"HW {lane.hw}", color="red", fontsize=5, ha="center")
    if lane.leo is not None:
        ax.plot([x0 + lane.leo * CELL], [y + 0.55], marker="^", color="#1f5fbf", markersize=4)
        ax.text(x0 + lane.leo * CELL + 0.08, y + 0.62, f"LEO {lane.leo}", color="#1f5fbf", fontsize=5)
    ax.text(x0, top + LANE - 0.12, lane.caption, fontsize=6, fontweight="bold" if lane.leader else "normal",
            color="#8a1c1c" if lane.leader else "black")


def graph_figure_bytes(dot_text: str, fmt: str, graph) -> bytes:
    """The trace graph as SVG or PNG bytes: Graphviz `dot` when on PATH, else networkx+matplotlib."""
    dot = shutil.which("dot")
    if dot:
        return subprocess.run([dot, f"-T{fmt}"], input=dot_text.encode(), capture_output=True, check=True).stdout
    import io

    import networkx as nx

    fig, ax = plt.subplots(figsize=(6, 2.2 * graph.number_of_nodes()))
    pos = {n: (0, -i) for i, n in enumerate(graph.nodes)}
    nx.draw_networkx_edges(graph, pos, ax=ax, arrows=True)
    for n, data in graph.nodes(data=True):
        ax.text(0, -n, data["label"], ha="center", va="center", fontsize=6, family="monospace",
                bbox={"facecolor": "white", "edgecolor": "red" if data["violating"] else "black"})
    for u, v, data in graph.edges(data=True):
        ax.text(0.02, -(u + v) / 2, "\n".join(textwrap.wrap(data["label"], 60)), fontsize=5, va="center")
    ax.set_xlim(-1, 1)
    ax.axis("off")
    out = io.BytesIO()
    fig.savefig(out, format=fmt)
    plt.close(fig)
    return out.getvalue()
