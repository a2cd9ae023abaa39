"""The marks of the lanes picture drawn with matplotlib (record boxes, HW bar, LEO triangle,
leader badge, step number, message arrow) and the legend that explains them with the same marks.

Coordinates are inches on an axes that spans the whole figure with y growing downwards, so font
sizes are absolute: FONT points is 12 px on a page at 100% zoom (the floor is 11 px).
"""

from __future__ import annotations

import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.patches import Rectangle  # noqa: E402

from .legend import COLOURS, LABELS  # noqa: E402

FONT = 9
CELL = 0.5
BOX = 0.38
LINE = 1.3 * FONT / 72
SWATCH = 1.15


def canvas(width: float, height: float):
    """A figure of `width` x `height` inches and one axes over all of it, in inches, y down."""
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.axis("off")
    return fig, ax


def text_width(chars: int, size: float = FONT) -> float:
    """About how many inches `chars` characters of DejaVu Sans take at `size` points."""
    return chars * size * 0.56 / 72


def chars_in(inches: float, size: float = FONT) -> int:
    """About how many characters of DejaVu Sans fit in `inches` at `size` points."""
    return max(8, int(inches * 72 / (size * 0.56)))


def record_box(ax, x: float, y: float, text: str, style: str) -> None:
    """One log offset at (x, y) (top left): style `plain`, `committed`, `unflushed` (dashed),
    `lost` (red, white bold text) or `empty` (dotted outline)."""
    face = {"committed": COLOURS["committed"], "lost": COLOURS["lost"], "empty": "none"}.get(style, "white")
    edge = {"lost": "#7a1a14", "empty": COLOURS["empty"]}.get(style, COLOURS["ink"])
    dash = {"unflushed": "--", "empty": ":"}.get(style, "-")
    ax.add_patch(Rectangle((x, y), CELL, BOX, facecolor=face, edgecolor=edge, linestyle=dash,
                           linewidth=1.4 if style in ("lost", "unflushed") else 0.8))
    if text:
        size = min(FONT, 0.85 * CELL * 72 / (len(text) * 0.62))  # a long label shrinks to fit its box
        ax.text(x + CELL / 2, y + BOX / 2, text, ha="center", va="center", fontsize=size,
                color="white" if style == "lost" else COLOURS["ink"], fontweight="bold" if style == "lost" else None)


def hw_bar(ax, x: float, y: float, hw: int | None) -> None:
    """The HW bar at x across a record row whose top is y, labelled `HW n` above when hw is given."""
    ax.plot([x, x], [y - 0.07, y + BOX + 0.07], color=COLOURS["hw"], linewidth=2.2, solid_capstyle="butt")
    if hw is not None:
        ax.text(x, y - 0.09, f"HW {hw}", ha="center", va="bottom", fontsize=FONT, color=COLOURS["hw"],
                fontweight="bold")


def leo_mark(ax, x: float, y: float, leo: int | None) -> None:
    """The LEO triangle under a record row whose top is y, labelled `LEO n` to its right."""
    ax.plot([x], [y + BOX + 0.12], marker="^", color=COLOURS["leo"], markersize=7)
    if leo is not None:
        ax.text(x + 0.09, y + BOX + 0.13, f"LEO {leo}", va="center", fontsize=FONT, color=COLOURS["leo"])


def leader_badge(ax, x: float, y: float, text: str) -> None:
    """A gold badge with `text` (e.g. `leader e2`), its left edge at x and centred on y."""
    ax.text(x + 0.05, y, text, va="center", fontsize=FONT + 0.5, fontweight="bold", color="#3d2e00",
            bbox={"boxstyle": "round,pad=0.3", "facecolor": COLOURS["leader"], "edgecolor": COLOURS["leader_edge"]})


def step_badge(ax, x: float, y: float, number: int, mark: str | None) -> None:
    """A step number, its top left at (x, y): white on red where the invariant fails (`mark`
    "fails"), white on indigo where the witness is reached ("reached"), plain otherwise."""
    style = {"color": "white", "bbox": {"boxstyle": "round,pad=0.2", "facecolor": COLOURS[mark],
                                        "edgecolor": "none"}} if mark else {"color": COLOURS["ink"]}
    ax.text(x + 0.04, y + 0.04, str(number), va="top", fontsize=12, fontweight="bold", **style)


def arrow(ax, x: float, start: float, end: float, label: str | None, kind: str) -> None:
    """A message in flight from y=start to y=end at x (`fetch` or `response` colour), its label
    written along it."""
    colour = COLOURS[kind]
    ax.annotate("", xy=(x, end), xytext=(x, start), arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 1.6})
    if label:
        ax.text(x + 0.07, (start + end) / 2, label, fontsize=FONT, rotation=90, va="center", ha="left",
                color=colour)


def _swatch(ax, key: str, x: float, y: float) -> None:
    """The mark a legend entry explains, drawn in a SWATCH-wide slot whose left edge is x,
    centred on y."""
    top = y - BOX / 2
    if key in ("record", "voters", "committed", "unflushed", "lost", "empty"):
        record_box(ax, x + 0.1, top, {"record": "a@e1", "voters": "{12}@e1", "empty": ""}.get(key, "a@e0"),
                   {"record": "plain", "voters": "plain", "committed": "committed"}.get(key, key))
    elif key == "hw":
        hw_bar(ax, x + 0.35, top, None)
    elif key == "leo":
        leo_mark(ax, x + 0.35, y - BOX - 0.12, None)
    elif key == "leader":
        leader_badge(ax, x + 0.05, y, "leader e1")
    elif key == "caption":
        ax.text(x + 0.05, y, "e1 follows r2", va="center", fontsize=FONT, color=COLOURS["muted"])
    elif key in ("crashed", "loss_column"):
        ax.add_patch(Rectangle((x + 0.1, top), 0.8, BOX, facecolor=COLOURS[key], edgecolor="none"))
    elif key in ("fetch", "response"):
        ax.annotate("", xy=(x + 0.9, y), xytext=(x + 0.1, y),
                    arrowprops={"arrowstyle": "-|>", "color": COLOURS[key], "lw": 1.6})
    elif key in ("fails", "reached"):
        step_badge(ax, x + 0.1, top, 10, key)
    elif key == "selected":
        ax.add_patch(Rectangle((x + 0.1, top), 0.8, BOX, facecolor="#fff6d6", edgecolor=COLOURS["selected"],
                               linewidth=2.5))


def legend_layout(keys: list[str], width: float, wrap: int) -> tuple[int, float, dict[str, list[str]]]:
    """How a legend of `keys` fits `width` inches with labels wrapped at `wrap` characters:
    (entries per row, row height in inches, each label's lines)."""
    lines = {key: textwrap.wrap(LABELS[key], wrap) for key in keys}
    per_row = max(1, int(width // (SWATCH + text_width(wrap) + 0.3)))
    return per_row, 0.16 + LINE * max((len(x) for x in lines.values()), default=1), lines


def legend_height(keys: list[str], width: float, wrap: int, heading: bool = True) -> float:
    """The inches draw_legend takes for these arguments."""
    per_row, row, _ = legend_layout(keys, width, wrap)
    return (0.35 if heading else 0) + row * -(-len(keys) // per_row)


def draw_legend(ax, keys: list[str], x: float, y: float, width: float, wrap: int, heading: bool = True) -> None:
    """A `Legend` heading (unless not `heading`) and one entry per key (its mark, then what it
    means), in rows that fit `width` inches, from (x, y) downwards."""
    per_row, row, lines = legend_layout(keys, width, wrap)
    if heading:
        ax.text(x, y, "Legend", va="top", fontsize=FONT + 2, fontweight="bold", color=COLOURS["ink"])
    for i, key in enumerate(keys):
        left = x + (i % per_row) * (SWATCH + text_width(wrap) + 0.3)
        middle = y + (0.35 if heading else 0) + (i // per_row) * row + row / 2
        _swatch(ax, key, left, middle)
        ax.text(left + SWATCH, middle, "\n".join(lines[key]), va="center", fontsize=FONT, color=COLOURS["ink"],
                linespacing=1.25)
