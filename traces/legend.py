"""The marks of the lanes picture: their colours, what each means in words, and which of them a
given trace needs (a legend lists only the marks its picture draws)."""

from __future__ import annotations

from checker.model import Lane

from .lanes import Loss, role

COLOURS = {
    "ink": "#1a1a1a",
    "muted": "#444444",
    "committed": "#c8e6c9",
    "hw": "#1b6e34",
    "leo": "#1f5fbf",
    "lost": "#b3261e",
    "loss_column": "#fde4e4",
    "fails": "#b3261e",
    "reached": "#283593",
    "leader": "#ffd54f",
    "leader_edge": "#b08800",
    "crashed": "#d6d6d6",
    "empty": "#b0b0b0",
    "fetch": "#00796b",
    "response": "#8a1c8a",
    "selected": "#e0a800",
    "band": "#f2f4f8",
}

LABELS = {
    "record": "a@e1: record a, appended in leader epoch 1; one box per offset, offset 0 on the left",
    "voters": "{12}@e1: a voter set (KRaft's VotersRecord) of n1 and n2, appended in epoch 1",
    "committed": "green record: committed, i.e. below the replica's HW",
    "unflushed": "dashed record: only in the page cache, not yet flushed to disk",
    "empty": "dotted box: free offset",
    "hw": "HW n (green bar): high watermark; the records left of it are committed",
    "leo": "LEO n (blue triangle): log end offset, where the next record goes",
    "leader": "leader badge: the replica acts as leader, in the epoch shown",
    "caption": "e1 follows r2: the replica's leader epoch and its role",
    "crashed": "grey: the broker is down",
    "fetch": "arrow to the leader: FETCH request in flight (from that offset)",
    "response": "arrow back: FETCH response in flight (records, HW)",
    "lost": "red record: a committed record that this step truncated or overwrote",
    "loss_column": "pink column: the step that destroyed a committed record",
    "fails": "red step number: the step at which the invariant fails",
    "reached": "indigo step number: the step at which the witness is reached",
    "selected": "orange frame: the selected step (click a column or row, or use the arrow keys)",
}


def legend_keys(views: list[dict[str, Lane]], lost: list[Loss], last: str, selectable: bool = False) -> list[str]:
    """The LABELS keys a picture of these lanes needs, in legend order: `last` is the mark of
    the trace's last step (`fails` or `reached`); `selectable` adds the selection frame of the
    HTML page."""
    lanes = [lane for view in views for lane in view.values()]
    used = {
        "record": any(lane.cells for lane in lanes),
        "voters": any(cell.startswith("{") for lane in lanes for cell in lane.cells),
        "committed": any(lane.hw for lane in lanes if lane.cells),
        "unflushed": any(lane.flushed is not None and lane.flushed < len(lane.cells) for lane in lanes),
        "empty": any(lane.leo is not None for lane in lanes),
        "hw": any(lane.hw is not None for lane in lanes),
        "leo": any(lane.leo is not None for lane in lanes),
        "leader": any(lane.leader for lane in lanes),
        "caption": any(role(lane).epoch for lane in lanes if not lane.leader),
        "crashed": any(not lane.alive for lane in lanes),
        "fetch": any(lane.message and lane.message[2] == "to" for lane in lanes),
        "response": any(lane.message and lane.message[2] == "from" for lane in lanes),
        "lost": bool(lost),
        "loss_column": bool(lost),
        "fails": last == "fails",
        "reached": last == "reached",
        "selected": selectable,
    }
    return [key for key in LABELS if used[key]]
