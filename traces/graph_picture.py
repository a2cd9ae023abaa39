"""The trace graph (`traces.graph`) as a picture with a title and a legend: through Graphviz's
`dot` when it is on PATH, else laid out as a vertical chain and drawn by matplotlib."""

from __future__ import annotations

import shutil
import subprocess
import textwrap

from matplotlib.patches import Rectangle

from .graph import last_state_colour, last_state_key, to_dot
from .legend import COLOURS
from .marks import FONT, LINE, canvas, chars_in, text_width

LEGEND = ("Each box is one state: one line per replica (log, LEO, HW, epoch and role) and per other part of the "
          "state. Each arrow is one step, labelled with what happened. ")
LAST_STATE = {"violating": "The red box is the state that violates the invariant.",
              "reached": "The indigo box is the state in which the witness is reached."}
"""The legend's last sentence, by the attribute that marks the last state (`traces.graph`)."""
EDGE_WRAP = 48


def dot_picture(graph, fmt: str, title: str) -> bytes | None:
    """The trace graph as SVG or PNG bytes drawn by Graphviz `dot`, titled `title` and explained
    by the legend; None when `dot` is not on PATH."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    text = to_dot(graph, f"{title}\n{legend(graph)}")
    return subprocess.run([dot, f"-T{fmt}"], input=text.encode(), capture_output=True, check=True).stdout


def legend(graph) -> str:
    """What the picture's marks mean, ending with what its coloured box is."""
    return LEGEND + LAST_STATE[last_state_key(graph)]


def graph_figure(graph, title: str):
    """The trace graph drawn by matplotlib: the title and legend on top, then one box per state
    from the initial one down, each arrow labelled with its step."""
    nodes = sorted(graph.nodes)
    labels = {n: graph.nodes[n]["label"].split("\n") for n in nodes}
    steps = {u: textwrap.wrap(data["label"], EDGE_WRAP) for u, _, data in graph.edges(data=True)}
    box_w = max(len(line) for lines in labels.values() for line in lines) * FONT * 0.6 / 72 + 0.6
    fig_w = max(0.8 + box_w + text_width(EDGE_WRAP), 7)
    lines = textwrap.wrap(legend(graph), chars_in(fig_w - 0.4))
    top = 0.75 + LINE * len(lines)
    heights = {n: 0.2 + LINE * len(labels[n]) for n in nodes}
    gaps = {n: max(0.6, 0.25 + LINE * len(steps.get(n, []))) for n in nodes}
    fig_h = top + sum(heights.values()) + sum(gaps[n] for n in nodes[:-1]) + 0.2
    fig, ax = canvas(fig_w, fig_h)
    ax.text(0.2, 0.15, title, va="top", fontsize=14, fontweight="bold", color=COLOURS["ink"])
    ax.text(0.2, 0.6, "\n".join(lines), va="top", fontsize=FONT, color=COLOURS["ink"], linespacing=1.3)
    y, middle, last, colour = top, 0.2 + box_w / 2, last_state_key(graph), last_state_colour(graph)
    for n in nodes:
        marked = graph.nodes[n][last]
        ax.add_patch(Rectangle((0.2, y), box_w, heights[n], facecolor=colour + "18" if marked else "white",
                               edgecolor=colour if marked else COLOURS["ink"], linewidth=2 if marked else 0.8))
        ax.text(0.35, y + 0.1, f"{n}", va="top", fontsize=FONT, fontweight="bold", color=COLOURS["muted"])
        ax.text(0.65, y + 0.1, "\n".join(labels[n]), va="top", fontsize=FONT, family="monospace",
                color=COLOURS["ink"], linespacing=1.3)
        y += heights[n]
        if n in steps:
            ax.annotate("", xy=(middle, y + gaps[n]), xytext=(middle, y),
                        arrowprops={"arrowstyle": "-|>", "color": COLOURS["ink"], "lw": 1})
            ax.text(middle + 0.1, y + gaps[n] / 2, "\n".join(steps[n]), va="center", fontsize=FONT,
                    color=COLOURS["ink"], linespacing=1.25)
            y += gaps[n]
    return fig
