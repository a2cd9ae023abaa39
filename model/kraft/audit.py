"""A `kraft` trace judged against Kafka's code, step by step (`replcheck trace audit`).

Each step rests on the rule-table rows of its action kind and of the branch it takes, read from
the states before and after it (`model.kraft.step_rows`); each row has a status per faithful
variant (`model.kraft.rule_table`), which holds for every release the variant stands for. The
trace is as Kafka in those releases where no step rests on a deviation: a step the model does
not take (a trace edited by hand) or took before a fix. Variant `tla` (the TLA+ specification's
steps) and a switched rule set are no release, and are not judged.
"""

from __future__ import annotations

from traces.audit import Audit, RowStatus, StepAudit, audit_of
from traces.trace import Trace

from .rule_table import BY_KEY
from .rules import RELEASES, RULE_BOOK
from .step_rows import step_rows

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def _row_status(key: str, variant: str, releases: tuple[str, ...]) -> RowStatus:
    """Row `key` with its status under faithful `variant`, which holds for all its `releases`."""
    row = BY_KEY[key]
    status = row.status(variant)
    return RowStatus(key, row.title, ((status.kind, releases, status.note),), row.fixed)


def audit_trace(trace: Trace, model) -> Audit:
    """Judge every step of `trace` (a `kraft` trace; `model` built for its variant and bounds)."""
    rule_set = RULE_BOOK.resolve(trace.variant)
    releases = RELEASES.get(rule_set.preset, ())
    states, actions = trace.states(), [step.action for step in trace.steps]
    unreplayed = trace.first_unreplayed(model)
    judged = []
    for i, step in enumerate(trace.steps, 1):
        rows = step_rows(states, actions, i, model.rules) if releases else ()
        judged.append(StepAudit(i, step.action, model.describe_step(step.action, states[i - 1], step.state),
                                tuple(_row_status(key, rule_set.preset, releases) for key in rows),
                                unreplayed is None or i < unreplayed))
    not_judged = None
    if not releases:
        not_judged = "variant tla takes the steps of the TLA+ specification KRaft.tla, not a Kafka release's"
    elif rule_set.custom:
        switches = ", ".join(f"{rule}={choice}" for rule, choice in rule_set.switched.items())
        not_judged = f"rule set {rule_set.name} switches {switches}, so it is no Kafka release"
    return audit_of("kraft", rule_set.name, releases, judged, not_judged, unreplayed)
