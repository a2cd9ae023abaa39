"""Guided replays: a published failure story as a file of named steps, walked through a model.

A scenario file (JSON, `"format": "replcheck-scenario/1"`) names its source, the model,
variant and bounds, the invariants to check after every step, the steps themselves, and what
should happen. A step is a string: the action name, then its replica and epoch arguments as
people write them (`"BecomeFollower r2 r1 e0"`: r2 becomes follower of r1 in epoch 0), with
an optional note. The replay fails with a clear message at the first step that is not enabled.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from invariants.registry import select
from model.params import ModelError
from model.registry import build_model

from .store import TraceFileError

FORMAT = "replcheck-scenario/1"


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
    become N, bare numbers stay numbers."""
    kind, *args = text.split()
    values = []
    for arg in args:
        if arg[0] in "re" and arg[1:].isdigit():
            values.append(int(arg[1:]) - 1 if arg[0] == "r" else int(arg[1:]))
        elif arg.isdigit():
            values.append(int(arg))
        else:
            raise ValueError(f"cannot read argument {arg!r} in step {text!r} (use r1, e0 or a number)")
    return (kind, *values)


def load_scenario(path: Path) -> Scenario:
    """Read and validate a scenario file; TraceFileError with a one-line reason otherwise."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise TraceFileError(f"cannot read scenario file {path}: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TraceFileError(f"{path} is not a valid JSON scenario: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise TraceFileError(f"{path} is not a replcheck scenario (format must be {FORMAT!r})")
    try:
        invariants = select(doc["model"], doc.get("invariants", []))
        model = build_model(doc["model"], doc.get("variant"), ghost=any(i.needs_ghost for i in invariants),
                            **doc.get("bounds", {}))
        steps = [(parse_step(s if isinstance(s, str) else s["step"]), "" if isinstance(s, str) else s.get("note", ""))
                 for s in doc["steps"]]
        expect = doc.get("expect", {})
        return Scenario(doc.get("name", Path(path).stem), doc.get("source", ""), model, invariants, steps,
                        expect.get("violated"), expect.get("at_step"))
    except (KeyError, TypeError) as exc:
        raise TraceFileError(f"{path}: missing or malformed field ({exc})") from None
    except (ModelError, ValueError) as exc:
        raise TraceFileError(f"{path}: {exc}") from None


@dataclass(frozen=True)
class Replay:
    """The outcome of a replay: every state met, the invariants failing after each step, and
    the step that was not enabled (with the actions that were), if the story broke off."""

    states: list
    failing: list[list[str]]
    stuck_at: int | None
    enabled: list


def replay(scenario: Scenario) -> Replay:
    """Walk the scenario's steps through its model, checking the invariants after each."""
    model = scenario.model
    states = [model.initial_states()[0]]
    failing = [[i.name for i in scenario.invariants if not i.holds(states[0])]]
    for number, (action, _) in enumerate(scenario.steps, 1):
        options = list(model.successors(states[-1]))
        nxt = [after for label, after in options if label == action]
        if not nxt:
            return Replay(states, failing, number, sorted({label for label, _ in options}))
        states.append(nxt[0])
        failing.append([i.name for i in scenario.invariants if not i.holds(nxt[0])])
    return Replay(states, failing, None, [])


def first_failure(result: Replay, invariant: str) -> int | None:
    """The first step after which `invariant` fails in the replay (0: the initial state)."""
    return next((i for i, names in enumerate(result.failing) if invariant in names), None)
