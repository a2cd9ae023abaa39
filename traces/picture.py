"""The lanes picture of a trace, drawn with matplotlib (pip-installable; no system Graphviz).

One lane per replica and one column per step. A column's header numbers the step (white on red
where the invariant fails, on indigo where a witness is reached) and says what happened, and in
red which committed record it destroyed.
Each cell shows the replica's log (one box per offset, green below its HW, dashed when only in the
page cache), its HW as a green bar, its LEO as a blue triangle, a gold badge when it acts as leader
(and otherwise its epoch and whom it follows), grey when its broker is down, and in-flight FETCH
requests and responses as arrows between lanes. A step that truncates or overwrites a committed
record has a pink column, with the lost record drawn in red where it was.

`lanes_figure` framed (for SVG and PNG files) adds a title, the explanation (`traces.explain`)
and a legend; the HTML page draws the picture unframed and shows those as text, with
`legend_figure` for the legend.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from matplotlib.patches import Rectangle

from .explain import explain
from .lanes import Loss, losses, role
from .legend import COLOURS, legend_keys
from .marks import (CELL, FONT, LINE, arrow, canvas, chars_in, draw_legend, hw_bar, leader_badge, legend_height,
                    leo_mark, record_box, step_badge, text_width)
from .outcome import at_last_step, last_mark, outcome
from .trace import Trace

GUTTER = 0.9
"""The least room left of the first column for the lane names."""
LANE = 1.2
FRAME_INSET = 0.04
"""Inches between a column's edge and its frame (and pink background), so that the frames of two
neighbouring columns do not touch."""
HEADER_LINES = 6
PAGE_HEADER_LINES = 3
STORY_LINES = 14
LEGEND_WRAP = 46
STORY_LINE = 1.3 * (FONT + 1) / 72


def trace_title(trace: Trace) -> str:
    """`spec kip101: strong-isr violated after 10 steps`, `fetch kip320: reached acked-with-1-down in 10 steps`."""
    name = f"{trace.model} {trace.variant}" if trace.variant else trace.model
    return f"{name}: {outcome(trace)}"


def _cut(lines: list[str], most: int, wrap: int) -> list[str]:
    """At most `most` lines, the last one ending in an ellipsis when some were cut."""
    if len(lines) <= most:
        return lines
    return lines[:most - 1] + [textwrap.shorten(" ".join(lines[most - 1:]), wrap, placeholder=" …")]


def _header(action: str, lost: list[Loss], last: str | None, wrap: int, most: int) -> tuple[list[str], ...]:
    """A column header's lines: the action, wrapped and cut to `most` lines; in bold (so wrapped
    shorter) what the step destroyed and, on the last step, what happens there (`last`: the
    property fails, or is reached)."""
    alerts = [f"{loss.lane} loses committed {loss.record}" for loss in lost]
    bold = wrap * 9 // 10
    return (_cut(textwrap.wrap(action, wrap), most, wrap), [x for a in alerts for x in textwrap.wrap(a, bold)],
            textwrap.wrap(last, bold) if last else [])


@dataclass(frozen=True)
class _Grid:
    """Where the lanes picture puts things, in inches: lanes `names` in a `gutter` wide margin,
    `column` wide columns with room for `width` log offsets, headers from `top`, lanes from
    `lanes_top` to `bottom`."""

    names: list[str]
    gutter: float
    column: float
    width: int
    top: float
    lanes_top: float
    bottom: float

    def x(self, col: int) -> float:
        """The left edge of column `col`."""
        return self.gutter + col * self.column

    def y(self, row: int) -> float:
        """The top of lane `row`."""
        return self.lanes_top + row * LANE


def lanes_figure(trace: Trace, model, framed: bool = True, title: str | None = None, story: list[str] | None = None,
                 ends: bool = True):
    """The lanes picture as a matplotlib Figure. Lane backgrounds carry gid `lane-<name>` and
    an invisible frame per column gid `step-<i>` (the HTML page outlines the selected one).
    `framed` adds the title, the explanation and the legend. `title` and `story` (sentences)
    replace the trace's own; without `ends` the last step is not marked as where the property
    fails (a behaviour shown beside another, along which the property holds)."""
    states = trace.states()
    views = [model.lanes(s) for s in states]
    lost = losses(views)
    actions = ["initial state"] + [model.describe_step(step.action, states[i], step.state)
                                   for i, step in enumerate(trace.steps)]
    width = max(1, max(len(lane.cells) for view in views for lane in view.values()),
                max((loss.offset + 1 for loss in lost), default=0))
    column = max(2.1, 1.2 + width * CELL)
    mark = last_mark(trace) if ends else None
    title = title or trace_title(trace)
    last = at_last_step(trace) if ends else None
    headers = [_header(a, [x for x in lost if x.step == i], last if i == len(actions) - 1 else None,
                       chars_in(column - 0.25), HEADER_LINES if framed else PAGE_HEADER_LINES)
               for i, a in enumerate(actions)]
    gutter = max(GUTTER, text_width(max(map(len, views[0])), 13) + 0.35)
    fig_w = gutter + column * len(states) + 0.1
    if framed:  # room for the title and a legend entry
        fig_w = max(fig_w, text_width(len(title), 16) + 0.4, 6.5)
    story = _story(trace, model, fig_w, story) if framed else []
    top = 0.85 + STORY_LINE * len(story) if framed else 0.05
    lanes_top = top + 0.6 + LINE * max(sum(map(len, header)) for header in headers)
    grid = _Grid(list(views[0]), gutter, column, width, top, lanes_top, lanes_top + LANE * len(views[0]))
    legend = legend_keys(views, lost, mark)
    legend_w = min(fig_w - 0.3, 22)
    fig, ax = canvas(fig_w, grid.bottom + (0.3 + legend_height(legend, legend_w, LEGEND_WRAP) if framed else 0.1))
    if framed:
        _draw_title(ax, title, story)
        draw_legend(ax, legend, 0.15, grid.bottom + 0.3, legend_w, LEGEND_WRAP)
    for row, name in enumerate(grid.names):
        band = Rectangle((0, grid.y(row)), fig_w, LANE, facecolor=COLOURS["band"] if row % 2 == 0 else "white",
                         edgecolor="none")
        band.set_gid(f"lane-{name}")
        ax.add_patch(band)
        ax.text(0.15, grid.y(row) + LANE / 2, name, va="center", fontsize=13, fontweight="bold", color=COLOURS["ink"])
    for col, view in enumerate(views):
        _draw_column(ax, grid, col, view, headers[col], [x for x in lost if x.step == col],
                     mark if col == len(views) - 1 else None)
    return fig


def _draw_column(ax, grid: _Grid, col: int, view: dict, header, lost: list[Loss], mark: str | None) -> None:
    """One step: pink when it destroyed committed records, its (invisible) frame, header, one
    cell per lane and the messages in flight."""
    x0 = grid.x(col)
    span = (x0 + FRAME_INSET, grid.top), grid.column - 2 * FRAME_INSET, grid.bottom - grid.top
    if lost:
        ax.add_patch(Rectangle(*span, facecolor=COLOURS["loss_column"], edgecolor="none"))
    frame = Rectangle(*span, facecolor="none", edgecolor="none", linewidth=2.5)
    frame.set_gid(f"step-{col}")
    ax.add_patch(frame)
    _draw_header(ax, x0 + 0.12, grid.top, col, header, mark)
    for row, name in enumerate(grid.names):
        here = {loss.offset: loss.record for loss in lost if loss.lane == name}
        _draw_cell(ax, view[name], x0 + 0.2, grid.y(row), grid.width, grid.column, here)
    _draw_messages(ax, view, {name: grid.y(row) + LANE / 2 for row, name in enumerate(grid.names)},
                   x0 + grid.column - 0.35)


def _story(trace: Trace, model, fig_w: float, sentences: list[str] | None = None) -> list[tuple[str, str]]:
    """The explanation (or `sentences`) wrapped to the figure (at most 15 inches wide) and cut to
    STORY_LINES, as (line, kind): `lead` for the first sentence, then `bullet` or `more` (a
    bullet's next lines)."""
    wrap = chars_in(min(fig_w - 0.5, 15), FONT + 1)
    lead, *rest = (explain(trace, model) if sentences is None else sentences) or [""]
    lines = [(line, "lead") for line in textwrap.wrap(lead, wrap)]
    for sentence in rest:
        lines += [(line, "more" if i else "bullet") for i, line in enumerate(textwrap.wrap(sentence, wrap))]
    if len(lines) > STORY_LINES:
        lines = lines[:STORY_LINES - 1] + [("…", "more")]
    return lines


def _draw_title(ax, title: str, story: list[tuple[str, str]]) -> None:
    """The title, then the story: the leading sentence in bold, the others bulleted."""
    ax.text(0.15, 0.15, title, va="top", fontsize=16, fontweight="bold", color=COLOURS["ink"])
    for i, (line, kind) in enumerate(story):
        y = 0.6 + i * STORY_LINE
        if kind == "bullet":
            ax.text(0.15, y, "•", va="top", fontsize=FONT + 1, color=COLOURS["ink"])
        ax.text(0.15 if kind == "lead" else 0.32, y, line, va="top", fontsize=FONT + 1, color=COLOURS["ink"],
                fontweight="bold" if kind == "lead" else "normal")


def _draw_header(ax, x: float, y: float, step: int, header: tuple[list[str], ...], mark: str | None) -> None:
    """Step number (marked where the invariant fails or the witness is reached: `mark`), the
    action, then in red the losses, and what happens at the last step in its mark's colour."""
    action, alerts, last = header
    step_badge(ax, x, y, step, mark)
    ax.text(x, y + 0.42, "\n".join(action), va="top", fontsize=FONT, color=COLOURS["ink"], linespacing=1.3)
    for lines, colour, above in ((alerts, COLOURS["lost"], action), (last, COLOURS[mark or "lost"], action + alerts)):
        if lines:
            ax.text(x, y + 0.48 + LINE * len(above), "\n".join(lines), va="top", fontsize=FONT, fontweight="bold",
                    color=colour, linespacing=1.3)


def _draw_cell(ax, lane, x0: float, top: float, width: int, column: float, lost_here: dict[int, str]) -> None:
    """One replica at one step: log boxes, lost records, HW bar, LEO triangle, leader badge or
    epoch and role, grey when down."""
    y = top + 0.34
    if not lane.alive:
        ax.add_patch(Rectangle((x0 - 0.14, top + 0.06), column - 0.5, LANE - 0.12, facecolor=COLOURS["crashed"],
                               edgecolor="none"))
    if lane.leo is not None:
        for offset in range(width):
            x = x0 + offset * CELL
            if offset < len(lane.cells):
                committed = lane.hw is not None and offset < lane.hw
                on_disk = lane.flushed is None or offset < lane.flushed
                style = "committed" if committed else "plain" if on_disk else "unflushed"
                record_box(ax, x, y, lane.cells[offset], style)
            elif offset in lost_here:
                record_box(ax, x, y, lost_here[offset], "lost")
            else:
                record_box(ax, x, y, "", "empty")
    if lane.hw is not None:
        hw_bar(ax, x0 + lane.hw * CELL, y, lane.hw)
    if lane.leo is not None:
        leo_mark(ax, x0 + lane.leo * CELL, y, lane.leo)
    _draw_role(ax, lane, x0, top + LANE - 0.17 if lane.leo is not None else top + LANE / 2)


def _draw_role(ax, lane, x: float, y: float) -> None:
    """The leader badge, or the epoch and role in words (bold `crashed` for a down broker)."""
    lane_role = role(lane)
    if lane.leader:
        leader_badge(ax, x - 0.05, y, " ".join(filter(None, ["leader", lane_role.epoch])))
        return
    words = " ".join(filter(None, [lane_role.epoch, lane_role.text]))
    if words:
        ax.text(x, y, words, va="center", fontsize=FONT + 0.5, color=COLOURS["ink"],
                fontweight="normal" if lane.alive else "bold")


def _draw_messages(ax, view, rows: dict[str, float], x: float) -> None:
    """A column's in-flight messages as arrows at x between the lanes' middles `rows`, labelled."""
    for name, lane in view.items():
        if lane.message is None or lane.message[0] not in rows:
            continue
        peer, label, direction = lane.message
        start, end = (rows[name], rows[peer]) if direction == "to" else (rows[peer], rows[name])
        arrow(ax, x, start + (0.15 if end > start else -0.15), end, label, "fetch" if direction == "to" else "response")


def legend_figure(keys: list[str], width: float = 5.6):
    """The legend alone (for the HTML page, which titles it), one entry per row, `width` inches
    wide."""
    fig, ax = canvas(width, legend_height(keys, width, LEGEND_WRAP + 8, heading=False) + 0.1)
    draw_legend(ax, keys, 0.05, 0.05, width, LEGEND_WRAP + 8, heading=False)
    return fig
