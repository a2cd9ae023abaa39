"""The coverage page (`--coverage-html FILE`): one self-contained HTML file that shows at a
glance what a search exercised. The actions table has a bar per action for its steps fired and
its new states (on one scale, the largest action's steps), with the guard that kept an action
that never fired from firing; the events table likewise; and a chart gives, level by level,
each action's share of the steps taken (matplotlib, inline SVG; each action's band carries the
id `share-<action>`)."""

from __future__ import annotations

import html
import io
from typing import Any

from .coverage_report import coverage_warnings, why_not
from .output_kinds import COVERAGE_META
from .report import bounds_text
from .result import CheckResult

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; color: #1a1a1a; margin: 16px 24px; max-width: 1600px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 20px 0 6px; }
p.summary { color: #444; margin: 0 0 8px; }
.warning { background: #fff4ce; border-left: 4px solid #e0a800; padding: 4px 8px; margin: 4px 0; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { padding: 2px 6px; border-bottom: 1px solid #e4e4e4; text-align: right; overflow-wrap: anywhere; }
th { background: #f2f4f8; position: sticky; top: 0; }
th.name, td.name { text-align: left; width: 13em; } th.why, td.why { text-align: left; } td.why { color: #444; }
th.bar, td.bar { width: 24%; text-align: left; } th.num, td.num { width: 7em; }
tr.replica td { color: #666; font-size: 12px; } tr.replica td.name { padding-left: 2em; }
tr.never td { color: #888; }
.track { position: relative; height: 14px; background: #f2f4f8; }
.fired { position: absolute; left: 0; top: 0; height: 14px; background: #1f5fbf; }
.new { position: absolute; left: 0; top: 4px; height: 6px; background: #1b6e34; }
.key { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; }
figure { margin: 8px 0; } figure svg { max-width: 100%; height: auto; }
"""


def coverage_page(result: CheckResult) -> str:
    """The coverage page of a finished search (see the module docstring)."""
    coverage = result.coverage
    title = f"Coverage: {result.model}" + (f" / {result.variant}" if result.variant else "")
    summary = (f"{bounds_text(result.bounds)}. {'Complete search' if result.complete else 'Search stopped early'}: "
               f"{result.distinct_states:,} distinct states, {result.generated_states:,} steps, depth {result.depth}, "
               f"{coverage.expanded:,} states expanded.")
    warnings = "".join(f'<p class="warning">{html.escape(w["message"])}</p>' for w in coverage_warnings(result))
    scale = max([coverage.row(k)["fired"] for k in range(len(coverage.kinds))] + [1])
    rows = "".join(_action_rows(coverage, k, scale) for k in range(len(coverage.kinds)))
    events = coverage.events()
    event_rows = "".join(_event_row(coverage, name, row, max([r["fired"] for r in events.values()] + [1]))
                         for name, row in events.items())
    event_table = (f"<h2>Events</h2><table id=\"events\"><thead><tr><th class=\"name\">event</th><th class=\"num\">steps"
                   f"</th><th class=\"bar\">steps (bar)</th><th class=\"num\">first depth</th><th class=\"why\">why not</th></tr>"
                   f"</thead><tbody>{event_rows}</tbody></table>") if events else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
{COVERAGE_META}
<title>{html.escape(title)}</title><style>{STYLE}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<p class="summary">{html.escape(summary)}</p>
{warnings}
<h2>Actions</h2>
<p class="summary"><span class="key" style="background:#1f5fbf"></span>steps fired
<span class="key" style="background:#1b6e34"></span>new states they found (bars on one scale: {scale:,} steps)</p>
<table id="actions"><thead><tr><th class="name">action</th><th class="num">enabled in</th><th class="num">fired</th>
<th class="num">new states</th><th class="bar">fired and new</th><th class="num">first depth</th><th class="why">why not</th></tr>
</thead><tbody>{rows}</tbody></table>
{event_table}
<h2>Each action's share of the steps, level by level</h2>
<figure id="shares">{_share_chart(coverage)}</figure>
</body></html>
"""


def _action_rows(coverage, k: int, scale: int) -> str:
    """The row of action kind k and those of the replicas that take it, bars against `scale`
    steps."""
    name = coverage.kinds[k]
    row = coverage.row(k)
    rows = [_action_row(name, row, "" if row["fired"] else why_not(coverage, name), "", scale)]
    rows += [_action_row(f"by r{a + 1}", coverage.row(k, a), "", "replica", scale) for a in coverage.replicas_of(k)]
    return "".join(rows)


def _action_row(name: str, row: dict[str, Any], why: str, kind: str, scale: int) -> str:
    first = row["first_depth"]
    classes = " ".join(c for c in (kind, "never" if not row["fired"] else "") if c)
    return (f'<tr class="{classes}" data-action="{html.escape(name)}"><td class="name">{html.escape(name)}</td>'
            f'<td class="num">{row["enabled"]:,}</td><td class="num">{row["fired"]:,}</td>'
            f'<td class="num">{row["new"]:,}</td><td class="bar"><div class="track">'
            f'<div class="fired" style="width:calc(100% * {row["fired"]} / {scale})"></div>'
            f'<div class="new" style="width:calc(100% * {row["new"]} / {scale})"></div></div></td>'
            f'<td class="num">{"never" if first is None else first}</td><td class="why">{html.escape(why)}</td></tr>')


def _event_row(coverage, name: str, row: dict[str, Any], scale: int) -> str:
    first = row["first_depth"]
    why = "" if row["fired"] else why_not(coverage, name)
    return (f'<tr class="{"" if row["fired"] else "never"}" data-event="{html.escape(name)}">'
            f'<td class="name">{html.escape(name)}</td><td class="num">{row["fired"]:,}</td>'
            f'<td class="bar"><div class="track"><div class="fired" style="width:calc(100% * {row["fired"]} / {scale})">'
            f'</div></div></td><td class="num">{"never" if first is None else first}</td>'
            f'<td class="why">{html.escape(why)}</td></tr>')


def _share_chart(coverage) -> str:
    """Per depth, each fired action's share of the steps that reached it: stacked bands, as an
    inline SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    series = coverage.fired_by_depth()
    if not series:
        return "<p>No step was taken.</p>"
    counts = np.array(list(series.values()), float)
    totals = counts.sum(axis=0)
    shares = 100 * counts / np.where(totals > 0, totals, 1)
    depths = np.arange(1, counts.shape[1] + 1)
    figure, axes = plt.subplots(figsize=(12, 4.2))
    colours = plt.get_cmap("tab20").colors
    bottom = np.zeros(len(depths))
    for i, (name, share) in enumerate(zip(series, shares)):
        band = axes.fill_between(depths, bottom, bottom + share, step="mid", color=colours[i % len(colours)],
                                 label=name, linewidth=0)
        band.set_gid(f"share-{name}")
        bottom += share
    axes.set_xlim(0.5, depths[-1] + 0.5)
    axes.set_ylim(0, 100)
    axes.set_xlabel("depth (steps from the initial states)")
    axes.set_ylabel("share of the steps (%)")
    axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
    figure.tight_layout()
    out = io.StringIO()
    figure.savefig(out, format="svg")
    plt.close(figure)
    text = out.getvalue()
    return text[text.index("<svg"):]
