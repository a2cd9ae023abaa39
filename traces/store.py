"""The trace file format `replcheck-trace/1`: versioned JSON, written atomically, loaded with
validation.

A file holds the model, variant and bounds it was found under (and whether the model kept
ghost variables), the invariant it violates,
the initial state and every step (action, the step in protocol words, the state after it).
States are written with the model's own `state_to_json`; loading rebuilds the model from the
file's metadata and decodes every state through it, so a file that does not fit its own
model is refused.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from invariants.registry import invariants_for
from model.params import ModelError
from model.registry import build_model

from .replay import ReplayError, verify_trace
from .trace import Step, Trace

FORMAT = "replcheck-trace/1"


class TraceFileError(ValueError):
    """A trace file cannot be read or is not a valid replcheck trace; the message is one line."""


def trace_to_json(trace: Trace, model) -> dict[str, Any]:
    """The trace as a JSON document of format `replcheck-trace/1`."""
    steps = []
    before = trace.initial
    for step in trace.steps:
        steps.append({"action": list(step.action), "description": model.describe_step(step.action, before, step.state),
                      "state": model.state_to_json(step.state)})
        before = step.state
    return {"format": FORMAT, "model": trace.model, "variant": trace.variant, "bounds": trace.bounds,
            "ghost": bool(getattr(model, "ghost", False)), "invariant": trace.invariant, "length": len(trace.steps),
            "initial": model.state_to_json(trace.initial), "steps": steps}


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write `content` to `path` through a temporary file in the same directory and a rename,
    so the file is either the old one or the complete new one, never half-written. Only a
    regular file is ever replaced: a device, FIFO, symlink or directory at `path` is an OSError."""
    path = Path(path)
    if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
        raise OSError(errno.EEXIST, "it exists and is not a regular file, so it is not replaced")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _umask() -> int:
    """The process umask (mkstemp creates files 0600; a saved file should get the usual mode)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_trace(trace: Trace, model, path: Path) -> None:
    """Save the trace to `path` atomically."""
    write_atomically(path, json.dumps(trace_to_json(trace, model), indent=1) + "\n")


def _field(doc: dict, key: str, kind: type | tuple, what: str) -> Any:
    value = doc.get(key)
    if not isinstance(value, kind):
        raise TraceFileError(f"{what}: field {key!r} is missing or of the wrong type")
    return value


def trace_from_json(doc: Any, what: str = "trace"):
    """Validate a `replcheck-trace/1` document and rebuild (trace, model) from it."""
    if not isinstance(doc, dict) or "format" not in doc:
        raise TraceFileError(f"{what} is not a replcheck trace (no 'format' field)")
    if doc["format"] != FORMAT:
        raise TraceFileError(f"{what} has format {doc['format']!r}; this replcheck reads {FORMAT!r}")
    name = _field(doc, "model", str, what)
    variant = doc.get("variant")
    bounds = _field(doc, "bounds", dict, what)
    invariant = _field(doc, "invariant", str, what)
    raw_steps = _field(doc, "steps", list, what)
    try:
        model = build_model(name, variant, ghost=doc.get("ghost") is True, **bounds)
    except (ModelError, TypeError) as exc:
        raise TraceFileError(f"{what}: {exc}") from None
    if invariant not in invariants_for(name):
        raise TraceFileError(f"{what}: model {name} has no invariant {invariant!r}")
    try:
        initial = model.state_from_json(doc.get("initial"))
        steps = []
        for i, raw in enumerate(raw_steps, 1):
            if not isinstance(raw, dict):
                raise ValueError(f"step {i} is not an object")
            action = raw.get("action")
            if not (isinstance(action, list) and action and isinstance(action[0], str)
                    and all(isinstance(a, int) and not isinstance(a, bool) for a in action[1:])):
                raise ValueError(f"step {i}: action must be [name, int, ...]")
            steps.append(Step(tuple(action), model.state_from_json(raw.get("state"))))
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        raise TraceFileError(f"{what}: {exc}") from None
    trace = Trace(name, variant, dict(model.parameters()), invariant, initial, tuple(steps))
    try:
        verify_trace(trace, model)
    except ReplayError as exc:
        raise TraceFileError(f"{what} is not a counterexample of its model: {exc}") from None
    return trace, model


MAX_FILE_BYTES = 64 * 2**20
"""The largest trace or scenario file read: far above any trace a search reports."""


def read_json_file(path: Path, what: str) -> Any:
    """The JSON document in the regular file `path` (a `what` file: trace, scenario), or
    TraceFileError with a one-line reason: not a regular file (a device or FIFO would be read
    forever), too large, not UTF-8, not JSON, nested too deeply or holding a number too long."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise TraceFileError(f"cannot read {what} file {path}: not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise TraceFileError(f"cannot read {what} file {path}: {info.st_size:,} bytes, more than the "
                                 f"{MAX_FILE_BYTES // 2**20} MiB a {what} file may have")
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise TraceFileError(f"cannot read {what} file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise TraceFileError(f"cannot read {what} file {path}: not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TraceFileError(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise TraceFileError(f"{path} is not a {what}: its JSON is nested too deeply") from None
    except ValueError:  # Python refuses to convert an integer of thousands of digits
        raise TraceFileError(f"{path} is not a {what}: it holds a number thousands of digits long") from None


def load_trace(path: Path):
    """Read and validate a trace file; returns (trace, model). Raises TraceFileError with a
    one-line reason for an unreadable, corrupt or foreign file."""
    return trace_from_json(read_json_file(path, "trace"), str(path))
