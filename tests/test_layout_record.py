"""Layouts reach compiled kernels as records (`checker.kernel.layout_record`): the same fields,
read the same way, one pointer instead of a field per argument."""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np

from checker.kernel.jit import kernel
from checker.kernel.layout_record import as_record, is_layout, layout_class
from model.registry import build_model

class Bounds(NamedTuple):
    """A layout: every field an int."""

    replicas: int
    stride: int


class Twin(NamedTuple):
    """Another layout with the same values as a Bounds."""

    count: int
    width: int


class Named(NamedTuple):
    """Not a layout: a field that is not an int."""

    replicas: int
    name: str


@kernel
def _block_end(lay, r):
    """Where replica r's block ends, read off the layout as compiled code reads it."""
    return (r + 1) * lay.stride


def test_a_named_tuple_of_ints_is_a_layout_and_nothing_else_is():
    assert is_layout(Bounds(3, 40)) and is_layout(Twin(3, 40))
    assert not is_layout((3, 40)) and not is_layout(Named(3, "x")) and not is_layout(np.zeros(2))
    assert not is_layout(namedtuple("Plain", "a b")(1, 2))  # untyped: nothing says it holds ints


def test_equal_layouts_of_two_classes_get_records_of_their_own_fields():
    assert Bounds(3, 40) == Twin(3, 40)
    assert as_record(Bounds(3, 40)).dtype.names == ("replicas", "stride")
    assert as_record(Twin(3, 40)).dtype.names == ("count", "width")


def test_the_record_holds_the_layouts_fields_and_names_its_class():
    for name in ("spec", "fetch", "kraft"):
        lay = build_model(name).kernel.layout
        record = as_record(lay)
        assert record.dtype.names == lay._fields and tuple(int(v) for v in record.item()) == tuple(lay)
        assert as_record(lay) is record and layout_class(record.dtype.names) is type(lay)


def test_a_kernel_given_a_layout_reads_its_fields_compiled_and_plain():
    lay = Bounds(3, 40)
    assert _block_end(lay, 2) == _block_end.py_func(lay, 2) == 120
    assert _block_end(Bounds(3, 41), 2) == 123  # a second layout of the class: its own record



def test_compiled_code_handed_the_layout_as_a_tuple_runs_the_kernels_too():
    """A numba function of one's own (a benchmark's timing loop) may hand the search's kernels
    the layout tuple as it is: the block places are then read off the tuple's class, not taken
    for a record's fields."""
    from numba import njit

    @njit
    def first_violations(violations, rows, lay):
        return violations(rows[0], lay, -1)

    for name in ("spec", "fetch"):
        model = build_model(name)
        kernel = model.kernel
        rows = np.array([kernel.encode(model.initial_states()[0])])
        search = kernel.search
        assert first_violations(search.violations, rows, kernel.layout) == \
            first_violations(search.violations, rows, as_record(kernel.layout)) == \
            search.violations(rows[0], kernel.layout, -1)
