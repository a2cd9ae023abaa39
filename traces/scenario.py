"""Guided replays: a published failure story as a file of named steps, walked through a model.

A scenario file (JSON, `"format": "replcheck-scenario/1"`) names its source, the model,
variant and bounds, the invariants to check after every step, the steps themselves, and what
should happen. A step is a string: the action name, then its replica and epoch arguments as
people write them (`"BecomeFollower r2 r1 e0"`: r2 becomes follower of r1 in epoch 0), with
an optional note. The replay fails with a clear message at the first step that is not enabled.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checker.invariant import StepProperty
from invariants.registry import select
from model.fetch.kinds import NO_LEADER
from model.params import ModelError

from .store import FORMAT as TRACE_FORMAT
from .store import TraceFileError, check_step_count, model_from_file, read_json_file, trace_from_json

FORMAT = "replcheck-scenario/1"

MAX_DIGITS = 9
"""The most digits a step's argument may have: replica ids and epochs are small numbers."""


@dataclass(frozen=True)
class Scenario:
    """A story to replay: where it comes from, under which model, its steps (action tuples with
    notes), the invariants to check, and the invariant expected to fail at which step (None: the
    story ends with every invariant holding)."""

    name: str
    source: str
    model: Any
    invariants: list
    steps: list[tuple[tuple, str]]
    expect_violation: str | None
    expect_step: int | None


def parse_step(text: str) -> tuple:
    """'BecomeFollower r2 r1 e0' -> ('BecomeFollower', 1, 0, 0): replicas rN become N-1, epochs eN
    become N, bare numbers stay numbers, and `none` (no leader: the partition goes offline)
    becomes the action argument that says so."""
    words = text.split()
    if not words:
        raise ValueError(f"step {text!r} names no action")
    kind, *args = words
    return (kind, *(_argument(arg, text) for arg in args))


def _argument(arg: str, step: str) -> int:
    """One argument of `step`: rN -> N-1, eN -> N, a bare number as it is (at most MAX_DIGITS
    decimal digits), `none` -> NO_LEADER; ValueError otherwise."""
    if arg == "none":
        return NO_LEADER
    prefix, digits = (arg[0], arg[1:]) if arg[0] in "re" else ("", arg)
    if not (digits.isdecimal() and len(digits) <= MAX_DIGITS):
        raise ValueError(f"cannot read argument {arg!r} in step {step!r} (use r1, e0, none or a number)")
    return int(digits) - 1 if prefix == "r" else int(digits)


def load_scenario(path: Path) -> Scenario:
    """Read and validate a scenario file, or a saved trace (`replcheck-trace/1`) told as one: its
    steps, checked for its invariant, expected to fail at its last step; TraceFileError with a
    one-line reason otherwise."""
    doc = read_json_file(path, "scenario")
    if isinstance(doc, dict) and doc.get("format") == TRACE_FORMAT:
        return _saved_trace(doc, path)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise TraceFileError(f"{path} is not a replcheck scenario (format must be {FORMAT!r}) or trace "
                             f"({TRACE_FORMAT!r})")
    try:
        _check_shape(doc)
        invariants = select(doc["model"], doc.get("invariants", []))
        model = model_from_file(doc["model"], doc.get("variant"), any(i.needs_ghost for i in invariants),
                                doc.get("bounds", {}))
        steps = [(parse_step(s if isinstance(s, str) else s["step"]), "" if isinstance(s, str) else s.get("note", ""))
                 for s in doc["steps"]]
        expect = doc.get("expect", {})
        if expect.get("violated") is not None and expect["violated"] not in {i.name for i in invariants}:
            raise ValueError(f"expect.violated names {expect['violated']!r}, which the scenario does not check")
        return Scenario(doc.get("name", Path(path).stem), doc.get("source", ""), model, invariants, steps,
                        expect.get("violated"), expect.get("at_step"))
    except (ModelError, ValueError) as exc:
        raise TraceFileError(f"{path}: {exc}") from None


def _saved_trace(doc: dict, path: Path) -> Scenario:
    """A saved counterexample as a scenario: its steps, its property checked, failing at its last
    step (a witness: reached there). The file is validated as
    `trace show` would (it must replay under its own rule set)."""
    trace, model = trace_from_json(doc, str(path))
    (prop,) = select(trace.model, [trace.invariant])
    return Scenario(f"{trace.model} {trace.variant or ''}: {trace.invariant}, a saved trace".replace("  ", " "),
                    str(path), model, [prop], [(step.action, "") for step in trace.steps], trace.invariant,
                    len(trace.steps))


def _check_shape(doc: dict) -> None:
    """ValueError naming the first field of a scenario document with the wrong type."""
    def wrong(field: str, what: str):
        raise ValueError(f"field {field!r} must be {what}")

    if not isinstance(doc.get("model"), str):
        wrong("model", "a string")
    for field in ("name", "source", "variant"):
        if field in doc and not isinstance(doc[field], str):
            wrong(field, "a string")
    if not isinstance(doc.get("bounds", {}), dict):
        wrong("bounds", "an object")
    invariants = doc.get("invariants", [])
    if not isinstance(invariants, list) or not all(isinstance(x, str) for x in invariants):
        wrong("invariants", "a list of invariant names")
    steps = doc.get("steps")
    if not isinstance(steps, list):
        wrong("steps", "a list")
    check_step_count(len(steps), "the scenario")
    for number, step in enumerate(steps, 1):
        if not (isinstance(step, str) or (isinstance(step, dict) and isinstance(step.get("step"), str)
                                          and isinstance(step.get("note", ""), str))):
            wrong(f"steps[{number}]", 'a string or {"step": "...", "note": "..."}')
    expect = doc.get("expect", {})
    if not isinstance(expect, dict):
        wrong("expect", "an object")
    if not isinstance(expect.get("violated", ""), (str, type(None))):
        wrong("expect.violated", "an invariant name")
    at_step = expect.get("at_step")
    if at_step is not None and (type(at_step) is not int or not 0 <= at_step <= len(steps)):
        wrong("expect.at_step", f"a step number from 0 to {len(steps)}")


@dataclass(frozen=True)
class Replay:
    """The outcome of a replay: every state met, the invariants failing after each step, and
    the step that was not enabled (with the actions that were), if the story broke off."""

    states: list
    failing: list[list[str]]
    stuck_at: int | None
    enabled: list


def replay(scenario: Scenario) -> Replay:
    """Walk the scenario's steps through its model, checking the invariants after each step
    (and each step property on the step itself)."""
    model = scenario.model
    states = [model.initial_states()[0]]
    failing = [[i.name for i in scenario.invariants if not isinstance(i, StepProperty) and not i.holds(states[0])]]
    for number, (action, _) in enumerate(scenario.steps, 1):
        options = list(model.successors(states[-1]))
        nxt = [after for label, after in options if label == action]
        if not nxt:
            return Replay(states, failing, number, sorted({label for label, _ in options}))
        before, after = states[-1], nxt[0]
        states.append(after)
        failing.append([p.name for p in scenario.invariants
                        if not (p.holds(before, action, after) if isinstance(p, StepProperty) else p.holds(after))])
    return Replay(states, failing, None, [])


def first_failure(result: Replay, invariant: str) -> int | None:
    """The first step after which `invariant` fails in the replay (0: the initial state)."""
    return next((i for i, names in enumerate(result.failing) if invariant in names), None)
