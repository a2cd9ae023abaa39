"""A plain-language account of a counterexample: which step broke the invariant, which earlier
steps set it up, and the record and offset affected."""

from __future__ import annotations

from invariants.registry import invariants_for

from .lanes import losses
from .trace import Trace


def explain(trace: Trace, model) -> list[str]:
    """Sentences explaining the trace, most important first."""
    states = trace.states()
    views = [model.lanes(s) for s in states]
    describe = [model.describe_step(step.action, states[i], step.state) for i, step in enumerate(trace.steps)]
    invariant = invariants_for(trace.model)[trace.invariant]
    meaning = " ".join(invariant.meaning.split("\n\n")[-1].split())
    if not trace.steps:
        return [f"The initial state already violates {trace.invariant}: {invariant.summary}.", meaning]
    k = len(trace.steps)
    lines = [f"Step {k} ({describe[-1]}) makes {trace.invariant} fail. {meaning}"]
    for loss in losses(views):
        lines.append(f"At step {loss.step}, {loss.lane} lost record {loss.record} at offset {loss.offset}, which "
                     f"{loss.leader} had already committed (its HW was {loss.hw}): {describe[loss.step - 1]}.")
        before = views[loss.step - 1][loss.lane]
        if before.hw is not None and before.hw <= loss.offset:
            lines.append(f"{loss.lane}'s own HW was {before.hw}, lagging {loss.leader}'s HW of {loss.hw}: the "
                         f"follower had not yet learned that offset {loss.offset} was committed.")
        commit = _commit_step(views, loss.leader, loss.offset, loss.step)
        if commit is not None:
            lines.append(f"The record became committed at step {commit} ({describe[commit - 1]}).")
    if len(lines) == 1:
        changed = [i + 1 for i in range(k - 1) if views[i + 1] != views[i]]
        if changed:
            lines.append(f"The state it fails in was set up by step {changed[-1]} ({describe[changed[-1] - 1]}).")
    return lines


def _commit_step(views, leader: str, offset: int, until: int) -> int | None:
    """The step at which `leader`'s HW last rose past `offset` before step `until`."""
    for step in range(until - 1, 0, -1):
        before, after = views[step - 1].get(leader), views[step].get(leader)
        if after and after.hw is not None and after.hw > offset and (before.hw is None or before.hw <= offset):
            return step
    return None
