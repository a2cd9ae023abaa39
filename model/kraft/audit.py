"""A `kraft` trace judged against Kafka's code, step by step (`replcheck trace audit`).

Each step rests on the rule-table rows its action kind enacts (`model.kraft.rule_table`), each
with a status per faithful variant, which holds for every release the variant stands for. The
faithful variants' rows are as Kafka, abstractions or missing behaviour, never a deviation, so
their traces are as Kafka in all their releases, the abstractions named. Variant `tla` (the TLA+
specification's steps) and a switched rule set are no release, and are not judged.
"""

from __future__ import annotations

from traces.audit import Audit, RowStatus, StepAudit
from traces.trace import Trace

from .rule_table import rows_of
from .rules import RELEASES, RULE_BOOK

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def audit_trace(trace: Trace, model) -> Audit:
    """Judge every step of `trace` (a `kraft` trace; `model` built for its variant and bounds)."""
    rule_set = RULE_BOOK.resolve(trace.variant)
    releases = RELEASES.get(rule_set.preset, ())
    states = trace.states()
    unreplayed = trace.first_unreplayed(model)
    judged = []
    for i, step in enumerate(trace.steps, 1):
        rows = () if not releases else tuple(
            RowStatus(row.key, row.title, ((row.status(rule_set.preset).kind, releases, row.status(rule_set.preset).note),))
            for row in rows_of(step.action[0]))
        judged.append(StepAudit(i, step.action, model.describe_step(step.action, states[i - 1], step.state), rows,
                                unreplayed is None or i < unreplayed))
    not_judged = None
    if not releases:
        not_judged = "variant tla takes the steps of the TLA+ specification KRaft.tla, not a Kafka release's"
    elif rule_set.custom:
        switches = ", ".join(f"{rule}={choice}" for rule, choice in rule_set.switched.items())
        not_judged = f"rule set {rule_set.name} switches {switches}, so it is no Kafka release"
    return Audit("kraft", rule_set.name, releases, tuple(judged), () if not_judged else releases, {}, not_judged,
                 unreplayed)
