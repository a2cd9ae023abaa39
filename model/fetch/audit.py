"""A `fetch` trace judged against Kafka's code, step by step (`replcheck trace audit`).

Each step rests on the rule-table rows it enacts (`model.fetch.step_rows`); each row has a
status per release (`model.fetch.rule_table`). The trace is as Kafka in the releases of its
variant where no step rests on a deviation. A switched rule set is no release, and a majority
quorum is Raft's replication rather than a release's partition replication: neither is judged.
"""

from __future__ import annotations

from traces.audit import Audit, RowStatus, StepAudit, audit_of
from traces.trace import Trace

from ..rule_table import Row
from .rule_table import BY_KEY
from .rules import RELEASES, RULE_BOOK
from .step_rows import step_rows

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def _fixing_rule(row: Row) -> str:
    """The rule whose choice fixed `row` (its `fixed` reads "rule RULE=CHOICE", a choice the rule
    book offers, so a trace saved before the fix replays under the rule's other choice); "" for a
    row fixed in the model's code, or never fixed."""
    rule, equals, choice = row.fixed.removeprefix("rule ").partition("=")
    if not (row.fixed.startswith("rule ") and equals):
        return ""
    known = {r.name: r for r in RULE_BOOK.rules}
    return rule if rule in known and choice in known[rule].choices else ""


def _row_status(key: str, releases: tuple[str, ...]) -> RowStatus:
    """Row `key` with its statuses over `releases`, releases that share a status and note grouped."""
    row = BY_KEY[key]
    groups: dict[tuple[str, str], list[str]] = {}
    for release in releases:
        status = row.status(release)
        groups.setdefault((status.kind, status.note), []).append(release)
    return RowStatus(key, row.title, tuple((kind, tuple(rel), note) for (kind, note), rel in groups.items()), row.fixed,
                     _fixing_rule(row))


def audit_trace(trace: Trace, model) -> Audit:
    """Judge every step of `trace` (a `fetch` trace; `model` built for its variant and bounds)."""
    rule_set = RULE_BOOK.resolve(trace.variant or "kip320")
    releases = RELEASES[rule_set.preset]
    states, actions = trace.states(), [step.action for step in trace.steps]
    unreplayed = trace.first_unreplayed(model)
    judged = []
    for i, step in enumerate(trace.steps, 1):
        rows = step_rows(states, actions, i, model)
        judged.append(StepAudit(i, step.action, model.describe_step(step.action, states[i - 1], step.state),
                                tuple(_row_status(key, releases) for key in rows),
                                unreplayed is None or i < unreplayed))
    not_judged = None
    if rule_set.custom:
        switches = ", ".join(f"{rule}={choice}" for rule, choice in rule_set.switched.items())
        not_judged = f"rule set {rule_set.name} switches {switches}, so it is no Kafka release"
    elif model.config.quorum != "isr":
        not_judged = (f"--quorum {model.config.quorum} is Raft's replication, not a Kafka release's partition "
                      f"replication")
    return audit_of("fetch", rule_set.name, releases, judged, not_judged, unreplayed)
