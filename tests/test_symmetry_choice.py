"""When symmetry reduction is used: on by default only where it is sound."""

from __future__ import annotations

import pytest

from checker.invariant import Invariant
from checker.symmetry_choice import choose_symmetry
from invariants.registry import select
from model.params import ModelError
from model.registry import build_model

SPEC = build_model("spec", "kip320", replicas=2)
NAMED = Invariant("r1-never-leads", "replica r1 never leads", lambda s: True, symmetric=False)


class NoSymmetry:
    name = "plain"


def test_on_by_default_when_model_and_properties_allow_it():
    assert choose_symmetry([SPEC], select("spec", []), None) == (True, None)


def test_an_asymmetric_property_turns_it_off_with_a_notice():
    chosen, notice = choose_symmetry([SPEC], [*select("spec", []), NAMED], None)
    assert chosen is False and "r1-never-leads" in notice


def test_asking_for_it_where_it_is_unsound_is_an_error():
    with pytest.raises(ModelError, match="r1-never-leads"):
        choose_symmetry([SPEC], [NAMED], True)
    with pytest.raises(ModelError, match="plain"):
        choose_symmetry([NoSymmetry()], [], True)


def test_off_when_asked_or_when_the_model_cannot_rename():
    assert choose_symmetry([SPEC], select("spec", []), False) == (False, None)
    assert choose_symmetry([NoSymmetry()], [], None) == (False, None)
