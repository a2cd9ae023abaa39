"""A trace its model no longer takes, judged against Kafka's code (`replcheck trace audit`) only
as one saved before a fix, and only once every step is replayed.

Each step of such a trace must be one of three:

- a step of the model now, under the trace's variant;
- a step of the model under the variant with the rules the file does not name (rules added since
  it was saved) at another choice: one rule set for the whole trace, the model as it was before
  those rules were added (a fix that is a rule's choice, such as `epoch-cache`, left the old
  behaviour to the rule's other choice);
- a step whose action the model takes from the state before it under no rule set, and that rests
  on a row a fix in the model's code removed (`RowStatus.removed_by_a_fix`).

The trace must then rest on a deviation in every release of its variant, and the first step its
variant does not take must be one: the audit names that step. Anything else (an edited trace, a
step no fix explains, a state the model never makes, a rule set that is no release) is refused
with a one-line reason naming the first step that is not explained.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import Any

from model.params import ModelError
from model.registry import MODELS
from model.rules import switched

from .audit import DEVIATES, NOT_JUDGED, Audit, BeforeFix
from .store import TraceFileError, model_from_file
from .text import quoted
from .trace import Trace

MAX_UNNAMED_RULES = 3
"""The most rules a trace file may leave unnamed and still be replayed under their other choices:
a trace replcheck saved names every rule but those added since (two so far). A file naming fewer
is judged under its variant's choices only, rather than under every combination of them."""

NOW, SWITCHED, REMOVED = "now", "switched", "removed"
"""How a step replays: under the variant now, only under the rule set from before rules were
added, or under none (a fix removed it)."""


def judge_before_fix(trace: Trace, model, named_rules: Any, what: str) -> Audit:
    """The audit of `trace`, which `model` (built for its variant and bounds) does not take as it
    is, judged as a trace saved before a fix; TraceFileError naming `what` and the first step
    that is not explained otherwise. `named_rules` is the file's `rules` (rule -> choice, None
    when it names none): the rules it leaves out are those added since it was saved."""
    refusal = f"{what} is not a counterexample of its model:"
    if trace.initial not in model.initial_states():
        raise TraceFileError(f"{refusal} its initial state is none of the model's")
    rule_set, replays = _replay(trace, model, _before_rules(trace, model, named_rules))
    unexplained = next((i for i, how in enumerate(replays, 1) if how is None), None)
    if unexplained is not None:
        action = trace.steps[unexplained - 1].action
        if not model.is_step(action):
            raise TraceFileError(f"{refusal} step {unexplained} ({quoted(action[0])}) is none it could take")
        raise TraceFileError(f"{refusal} step {unexplained} is not a step it takes: its {quoted(action[0])} leads "
                             f"to another state there, and no fix removed it")
    audit = _audit(trace, model)
    if audit is None:
        step = next(k for k in range(1, len(trace) + 1) if _audit(replace(trace, steps=trace.steps[:k]), model) is None)
        raise TraceFileError(f"{refusal} step {step} ({quoted(trace.steps[step - 1].action[0])}) is not a step it "
                             f"takes, and its words and rules cannot read it as a step it took before a fix")
    for step in audit.steps:
        if replays[step.step - 1] == REMOVED and not any(row.removed_by_a_fix() for row in step.rows):
            raise TraceFileError(f"{refusal} step {step.step} ({quoted(step.action[0])}) is none it takes, and it "
                                 f"rests on no deviation a fix removed")
    first = next(i for i, how in enumerate(replays, 1) if how != NOW)
    if audit.verdict == NOT_JUDGED:
        raise TraceFileError(f"{refusal} step {first} is not a step it takes, and a rule set that is no release "
                             f"({audit.variant}) is judged only on the steps it takes now")
    if audit.verdict != DEVIATES:
        raise TraceFileError(f"{refusal} step {first} is not a step it takes, and the trace rests on a deviation in "
                             f"none or only some of {audit.variant}'s releases")
    if not any(first in steps for steps in audit.deviations.values()):
        raise TraceFileError(f"{refusal} step {first}, the first it does not take now, rests on no deviation")
    steps = tuple(replace(step, replays=replays[step.step - 1] == NOW) for step in audit.steps)
    return replace(audit, steps=steps, before_fix=BeforeFix(rule_set, _where(replays, SWITCHED), _where(replays, REMOVED)))


def _audit(trace: Trace, model) -> Audit | None:
    """The model's audit of `trace`, None when its words or rules cannot read a step: they are
    written for the steps the model takes, and a step a fix removed may hold a state no step of
    the model makes (a step reads only the states up to it, so the first step of a trace cut
    there that cannot be read is the first in the whole trace)."""
    try:
        return model.audit(trace)
    except (LookupError, AttributeError, TypeError, ValueError):
        return None


def _where(replays: list[str | None], how: str) -> tuple[int, ...]:
    """The steps (1-based) that replay `how`."""
    return tuple(i for i, replayed in enumerate(replays, 1) if replayed == how)


def _before_rules(trace: Trace, model, named_rules: Any) -> list[tuple[str, Any]]:
    """The rule sets the trace may have been saved under, as (name, model): its variant's first,
    then each combination of other choices for the rules the file does not name (none when it
    leaves more than MAX_UNNAMED_RULES unnamed, or its model has no rules to switch; none that
    the trace's bounds refuse)."""
    book = MODELS[trace.model].rules
    ours = [(model.variant, model)]
    if book is None or not isinstance(named_rules, dict) or trace.variant is None:
        return ours
    rule_set = book.resolve(model.variant)
    if not rule_set.choices:  # a variant no rule decides (kraft's tla)
        return ours
    unnamed = [rule for rule in book.rules if rule.name not in named_rules]
    if not unnamed or len(unnamed) > MAX_UNNAMED_RULES:
        return ours
    for choices in product(*[list(rule.choices) for rule in unnamed]):
        switches = {rule.name: choice for rule, choice in zip(unnamed, choices)}
        other = switched(book, rule_set, switches)
        if other.choices == rule_set.choices:
            continue
        try:
            ours.append((other.name, model_from_file(trace.model, other.name, getattr(model, "ghost", False),
                                                     trace.bounds)))
        except ModelError:  # a choice these bounds refuse (a majority quorum runs only kip320's): no such model
            continue
    return ours


def _successors(model, state) -> list:
    """`model`'s steps out of `state`; none where its rule set cannot hold the state (a preferred
    replica kept or missing against rule preferred-replica: a rule added since the trace was
    saved)."""
    try:
        return model.successors(state)
    except ValueError:
        return []


def _replay(trace: Trace, model, rule_sets: list[tuple[str, Any]]) -> tuple[str, list[str | None]]:
    """The rule set that explains the most steps (then removes the fewest; the variant's first)
    and how each step replays under it: NOW, SWITCHED, REMOVED or None (not explained)."""
    states = trace.states()
    now = [_successors(model, before) for before in states[:-1]]
    best = None
    for name, other in rule_sets:
        replays = []
        for i, step in enumerate(trace.steps):
            taken = now[i] if other is model else _successors(other, states[i])
            if (step.action, step.state) in now[i]:
                replays.append(NOW)
            elif (step.action, step.state) in taken:
                replays.append(SWITCHED)
            elif model.is_step(step.action) and all(label != step.action for label, _ in now[i] + taken):
                replays.append(REMOVED)
            else:
                replays.append(None)
        score = (replays.count(None), replays.count(REMOVED))
        if best is None or score < best[0]:
            best = (score, name, replays)
    return best[1], best[2]
