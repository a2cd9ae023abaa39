"""Layouts handed to compiled kernels by reference.

A model's layout is a named tuple of ints (bounds, rule choices, where things are in a row).
numba passes a tuple to a compiled function field by field: every call of one kernel from
another that LLVM does not inline copies all of them (forty for `fetch`), and a state's
expansion makes dozens of such calls. A numpy record of the same fields is passed as one
pointer and read with the same `lay.field`. So a layout given to a kernel from Python reaches
the compiled code as its record (`as_record`); plain Python (the interpreted search) keeps the
tuple. Where compiled code needs the layout's class (constants it declares, read while the
caller is compiled), `layout_class` finds it from the record's fields.
"""

from __future__ import annotations

import numpy as np

_records: dict[tuple[type, tuple], np.void] = {}
"""Each layout's record, made once (by class and values: equal tuples of two classes differ)."""
_classes: dict[tuple[str, ...], type] = {}
"""Each layout class met, by its fields."""
_is_layout: dict[type, bool] = {}
"""Whether a class is a layout class, decided once."""


def is_layout(value) -> bool:
    """`value` is a layout: a typed named tuple (`typing.NamedTuple`) whose fields are all
    declared `int`."""
    kind = type(value)
    known = _is_layout.get(kind)
    if known is None:
        declared = getattr(kind, "__annotations__", {}) if hasattr(kind, "_fields") else {}
        known = _is_layout[kind] = bool(declared) and all(_is_int(t) for t in declared.values())
    return known


def _is_int(annotation) -> bool:
    """A field's declared type is int (under `from __future__ import annotations` the name of
    it, which typing.NamedTuple keeps as a forward reference)."""
    return annotation in (int, "int") or getattr(annotation, "__forward_arg__", None) == "int"


def record_dtype(fields: tuple[str, ...]) -> np.dtype:
    """The dtype of the record of a layout with these fields: an aligned int64 each."""
    return np.dtype([(name, np.int64) for name in fields], align=True)


def as_record(layout) -> np.void:
    """The layout's fields as one numpy record (a structured scalar of `record_dtype`), made
    once per layout."""
    kind = type(layout)
    record = _records.get((kind, layout))
    if record is None:
        _classes.setdefault(kind._fields, kind)
        record = _records[kind, layout] = np.array([tuple(layout)], record_dtype(kind._fields))[0]
    return record


def layout_class(fields: tuple[str, ...]) -> type:
    """The named-tuple class of the layouts whose records have these fields."""
    return _classes[tuple(fields)]
