"""What a step changed: the replica fields (log, LEO, HW, flushed, epoch, role, ISR, message in
flight) and the other state lines (controller, ghost...) that differ from the step before.

Replica fields come from the model's lanes (`traces.lanes`) and, for the ISR that only a
leader's state column shows, from its `state_columns` lines; other columns are compared line by
line. Lines are tidied first: the placeholders that only say "nothing" (`-`, `no leader`) are
dropped, so tables and graphs show leadership once instead of in every lane.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from checker.model import Lane

from .lanes import role

ISR = re.compile(r"ISR (\{[^}]*\})")
ABSENT = "—"


@dataclass(frozen=True)
class Change:
    """`field` of `subject` (a replica, or another state column such as the controller) went
    from `before` to `after` at one step; `field` is empty for a whole changed line."""

    subject: str
    field: str
    before: str
    after: str


def tidy_line(line: str) -> str:
    """A state-column line without placeholders: a leading `-` (no epoch), `no leader`, and a
    lone `-` (nothing in flight) are dropped; `- no leader` becomes the empty line."""
    line = re.sub(r"^-( |$)", "", line)
    return re.sub(r"(^| )no leader\b", "", line).strip()


def replica_fields(lane: Lane, lines: list[str]) -> dict[str, str]:
    """A replica's fields as text by name, in reading order; `lines` is its state column (for
    the ISR a leader shows)."""
    fields = {}
    if lane.leo is not None:
        fields["log"] = "[" + ", ".join(f"{offset}:{record}" for offset, record in enumerate(lane.cells)) + "]"
        fields["LEO"] = str(lane.leo)
    if lane.hw is not None:
        fields["HW"] = str(lane.hw)
    if lane.flushed is not None:
        fields["flushed"] = str(lane.flushed)
    lane_role = role(lane)
    fields["epoch"] = lane_role.epoch or "none"
    fields["role"] = lane_role.text or "no leader"
    isr = [match.group(1) for match in map(ISR.search, lines) if match]
    fields["ISR"] = isr[0] if isr else ABSENT
    if lane.message is not None:
        peer, label, direction = lane.message
        fields["in flight"] = f"{label} {direction} {peer}"
    else:
        fields["in flight"] = "nothing"
    return fields


def _line_changes(name: str, before: list[str], after: list[str]) -> list[Change]:
    """The tidied lines of one column that differ, as field-less changes."""
    size = max(len(before), len(after))
    old = [tidy_line(x) or ABSENT for x in before] + [ABSENT] * (size - len(before))
    new = [tidy_line(x) or ABSENT for x in after] + [ABSENT] * (size - len(after))
    return [Change(name, "", a, b) for a, b in zip(old, new) if a != b]


def step_changes(before_lanes: dict[str, Lane], after_lanes: dict[str, Lane],
                 before_columns: dict[str, list[str]], after_columns: dict[str, list[str]]) -> list[Change]:
    """Everything one step changed: each replica's differing fields (its changed lines when no
    field tells, e.g. a checkpoint), then the changed lines of the other columns."""
    out = []
    for name, lane in after_lanes.items():
        old = replica_fields(before_lanes[name], before_columns.get(name, []))
        new = replica_fields(lane, after_columns.get(name, []))
        found = [Change(name, field, old.get(field, ABSENT), new.get(field, ABSENT))
                 for field in dict.fromkeys([*old, *new]) if old.get(field) != new.get(field)]
        out += found or _line_changes(name, before_columns.get(name, []), after_columns.get(name, []))
    for name, lines in after_columns.items():
        if name not in after_lanes:
            out += _line_changes(name, before_columns.get(name, []), lines)
    return out


def trace_changes(views: list[dict[str, Lane]], columns: list[dict[str, list[str]]]) -> list[list[Change]]:
    """For every state of a trace (its lanes `views` and `state_columns`), what the step into it
    changed; nothing for the initial state."""
    return [[]] + [step_changes(views[i - 1], views[i], columns[i - 1], columns[i]) for i in range(1, len(views))]
