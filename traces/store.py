"""The trace file format `replcheck-trace/1`: versioned JSON, written atomically, loaded with
validation.

A file holds the model, variant (for a model with rules, the rule set's name, with every rule's
choice beside it in `rules`) and bounds it was found under (and whether the model kept ghost
variables), the invariant it violates (or the witness it reaches: `kind` says which),
the initial state and every step (action, the step in protocol words, the state after it),
and last the SHA-256 of all that (`sha256`, `checker.seal`), by which a later run tells an
edited trace from the one it wrote, and keeps the edited one.
States are written with the model's own `state_to_json`; loading rebuilds the model from the
file's metadata and decodes every state through it, so a file that does not fit its own
model is refused.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from invariants.registry import invariants_for
from model.params import ModelError
from model.registry import MODELS, build_model

from checker.atomic_file import write_atomically
from checker.file_roles import remember_read
from checker.output_kinds import TRACE, trace_run
from checker.seal import sealed

from .outcome import is_witness
from .replay import ReplayError, verify_trace
from .text import one_line, quoted
from .trace import Step, Trace

FORMAT = "replcheck-trace/1"

MAX_STEPS = 10_000
"""The most steps a trace or scenario file may have: far above any counterexample a search
reports, and low enough that checking one (a replay through the model) takes seconds."""

MAX_STATE_NUMBER = 2**16
"""The largest magnitude of a number in a saved state. States hold replica ids, epochs, offsets
and counts bounded by the model's parameters (a few dozen at most); a model may turn a replica id
into a bit mask (`1 << id`), so a huge one would take unbounded memory and time to decode."""


class TraceFileError(ValueError):
    """A trace file cannot be read or is not a valid replcheck trace; the message is one line
    (a newline or other control character quoted from the file or its path is escaped)."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


def trace_to_json(trace: Trace, model) -> dict[str, Any]:
    """The trace as a JSON document of format `replcheck-trace/1`."""
    steps = []
    before = trace.initial
    for step in trace.steps:
        steps.append({"action": list(step.action), "description": model.describe_step(step.action, before, step.state),
                      "state": model.state_to_json(step.state)})
        before = step.state
    rules = getattr(model, "rules", None)
    return {"format": FORMAT, "model": trace.model, "variant": trace.variant, **({"rules": dict(rules)} if rules else {}),
            "bounds": trace.bounds, "ghost": bool(getattr(model, "ghost", False)), "invariant": trace.invariant,
            "kind": "witness" if is_witness(trace) else "invariant", "length": len(trace.steps),
            "initial": model.state_to_json(trace.initial), "steps": steps}


def save_trace(trace: Trace, model, path: Path) -> None:
    """Save the trace to `path` atomically, sealed with the SHA-256 of its content
    (`checker.seal`); OSError where `path` holds anything but a saved trace of the same run,
    as replcheck wrote it (`checker.output_kinds`: an edited one is kept)."""
    doc = sealed(trace_to_json(trace, model))
    write_atomically(path, json.dumps(doc, indent=1) + "\n", TRACE, trace_run(doc))


def _field(doc: dict, key: str, kind: type | tuple, what: str) -> Any:
    value = doc.get(key)
    if not isinstance(value, kind):
        raise TraceFileError(f"{what}: field {key!r} is missing or of the wrong type")
    return value


def check_step_count(count: int, what: str) -> None:
    """TraceFileError when a `what` (trace, scenario) of `count` steps is longer than MAX_STEPS."""
    if count > MAX_STEPS:
        raise TraceFileError(f"{what} has {count:,} steps, more than the {MAX_STEPS:,} a trace or scenario file "
                             "may have")


def model_from_file(name: str, variant: Any, ghost: bool, bounds: dict):
    """build_model for the model, variant and bounds a trace or scenario file names; ModelError
    (one line) when it cannot be built, a variant that is not a name or a bounds key that is no
    parameter of the model included (`ghost` or `variant` there would otherwise clash with
    build_model's own arguments)."""
    if variant is not None and not isinstance(variant, str):
        raise ModelError(f"the variant must be a name or null, got {variant!r}")
    kind = MODELS.get(name)
    if kind is not None:
        known = {p.key for p in kind.params}
        unknown = [key for key in bounds if key not in known]
        if unknown:
            raise ModelError(f"bounds name {unknown[0]!r}, which is no parameter of model {name} "
                             f"(its parameters: {', '.join(sorted(known)) or 'none'})")
    return build_model(name, variant, ghost=ghost, **bounds)


def check_rules(doc: dict, model, what: str) -> None:
    """TraceFileError when the file's `rules` (every rule's choice, written for readers) are not
    those its variant's name stands for here: a trace replays only under the rules it was found
    under. A rule the file does not name is one added since it was saved; replaying tells whether
    the trace is still a behaviour of the variant. So is a choice the model has retired
    (`RuleBook.retired`, as the model's `retired_choices`)."""
    if "rules" not in doc:
        return
    theirs, ours = doc["rules"], dict(getattr(model, "rules", None) or {})
    if not isinstance(theirs, dict):
        raise TraceFileError(f"{what}: field 'rules' must map each rule to its choice")
    retired = getattr(model, "retired_choices", None) or {}
    for rule, choice in ours.items():
        if rule in theirs and isinstance(theirs[rule], str) and theirs[rule] in retired.get(rule, {}):
            continue
        if rule in theirs and theirs[rule] != choice:  # a file from before a rule existed has no entry for it
            raise TraceFileError(f"{what}: it was saved under rule {rule}={quoted(theirs.get(rule))}, and variant "
                                 f"{model.variant} has {rule}={choice} here")
    for rule in theirs:
        if rule not in ours:
            raise TraceFileError(f"{what}: it names rule {quoted(rule)}, which model {model.name} does not have")


def _state(model, data: Any, where: str):
    """The state `data` decoded by the model, once every number in it is within
    MAX_STATE_NUMBER, and only if the model's packed layout holds it as it is (a state with ghost
    variables, or a retrying producer's requests, is none of a model built without them);
    ValueError naming `where` otherwise."""
    pending = [data]
    while pending:  # a loop, not recursion: the JSON may be nested nearly as deep as Python recurses
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, int) and abs(item) > MAX_STATE_NUMBER:
            raise ValueError(f"{where} holds a number out of range (beyond ±{MAX_STATE_NUMBER:,})")
    state = model.state_from_json(data)
    try:
        fits = model.decode(model.encode(state)) == state
    except (ValueError, OverflowError, IndexError) as exc:
        raise ValueError(f"{where} is no state of model {model.name} under the file's bounds ({exc})") from None
    if not fits:
        raise ValueError(f"{where} is no state of model {model.name} under the file's bounds")
    return state


def trace_from_json(doc: Any, what: str = "trace", replay: bool = True):
    """Validate a `replcheck-trace/1` document and rebuild (trace, model) from it. With `replay`
    off the steps are read but not replayed on the model (`trace audit` judges a trace an earlier
    replcheck saved, whose steps the model may no longer take)."""
    if not isinstance(doc, dict) or "format" not in doc:
        raise TraceFileError(f"{what} is not a replcheck trace (no 'format' field)")
    if doc["format"] != FORMAT:
        raise TraceFileError(f"{what} has format {doc['format']!r}; this replcheck reads {FORMAT!r}")
    name = _field(doc, "model", str, what)
    variant = doc.get("variant")
    bounds = _field(doc, "bounds", dict, what)
    invariant = _field(doc, "invariant", str, what)
    raw_steps = _field(doc, "steps", list, what)
    ghost = _field(doc, "ghost", bool, what) if "ghost" in doc else False  # a file from before ghost was written
    check_step_count(len(raw_steps), what)
    try:
        model = model_from_file(name, variant, ghost, bounds)
    except ModelError as exc:
        raise TraceFileError(f"{what}: {exc}") from None
    check_rules(doc, model, what)
    if invariant not in invariants_for(name):
        raise TraceFileError(f"{what}: model {name} has no invariant {invariant!r}")
    try:
        initial = _state(model, doc.get("initial"), "the initial state")
        steps = []
        for i, raw in enumerate(raw_steps, 1):
            if not isinstance(raw, dict):
                raise ValueError(f"step {i} is not an object")
            action = raw.get("action")
            if not (isinstance(action, list) and action and isinstance(action[0], str)
                    and all(isinstance(a, int) and not isinstance(a, bool) for a in action[1:])):
                raise ValueError(f"step {i}: action must be [name, int, ...]")
            steps.append(Step(tuple(action), _state(model, raw.get("state"), f"the state after step {i}")))
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        raise TraceFileError(f"{what}: {exc}") from None
    trace = Trace(name, variant, dict(model.parameters()), invariant, initial, tuple(steps))
    if replay:
        check_behaviour(trace, model, what)
    return trace, model


def check_behaviour(trace: Trace, model, what: str) -> None:
    """TraceFileError naming `what` unless `trace` is a counterexample (a witness trace) of
    `model` as it is now (`replay.verify_trace`): every step a step the model takes, its property
    failing (reached) at the last and no earlier."""
    try:
        verify_trace(trace, model)
    except ReplayError as exc:
        raise TraceFileError(f"{what} is not a {'witness trace' if is_witness(trace) else 'counterexample'} of its "
                             f"model: {exc}") from None


MAX_FILE_BYTES = 64 * 2**20
"""The largest trace or scenario file read: far above any trace a search reports."""


class UnreadableFile(TraceFileError):
    """A file that cannot be read as text at all; `reason` says why, without the path."""

    def __init__(self, what: str, path: Path, reason: str):
        super().__init__(f"cannot read {what} file {path}: {reason}")
        self.reason = one_line(reason)


def read_text_file(path: Path, what: str, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file `path` (a `what` file: trace, scenario, manifest), or
    UnreadableFile with a one-line reason: unreadable, not a regular file (a device or FIFO
    would be read forever), more than `limit` bytes (by its size, or by what was read: a file
    that grows meanwhile, or one that states no size, as in /proc), or not UTF-8."""
    def too_large(size: int | None) -> UnreadableFile:
        stated = f"{size:,} bytes, " if size is not None else ""
        return UnreadableFile(what, path, f"{stated}more than the {limit / 2**20:g} MiB a {what} file may have")

    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(what, path, "not a regular file")
        if info.st_size > limit:
            raise too_large(info.st_size)
        with open(path, "rb") as file:
            data = file.read(limit + 1)
        if len(data) > limit:
            raise too_large(None)
        remember_read(path)
        return data.decode("utf-8")
    except OSError as exc:
        raise UnreadableFile(what, path, exc.strerror or str(exc)) from None
    except UnicodeDecodeError:
        raise UnreadableFile(what, path, "not UTF-8 text") from None


def read_json_file(path: Path, what: str) -> Any:
    """The JSON document in the regular file `path` (a `what` file: trace, scenario), or
    TraceFileError with a one-line reason: as `read_text_file`, or not JSON, nested too deeply
    or holding a number too long."""
    text = read_text_file(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TraceFileError(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise TraceFileError(f"{path} is not a {what}: its JSON is nested too deeply") from None
    except ValueError:  # Python refuses to convert an integer of thousands of digits
        raise TraceFileError(f"{path} is not a {what}: it holds a number thousands of digits long") from None


def load_trace(path: Path, replay: bool = True):
    """Read and validate a trace file; returns (trace, model). Raises TraceFileError with a
    one-line reason for an unreadable, corrupt or foreign file. With `replay` off the steps are
    not replayed on the model (see `trace_from_json`)."""
    return trace_from_json(read_json_file(path, "trace"), str(path), replay)
