"""The `spec` model against facts we did not write: TLC's figures on the public specification
(listed in docs/models/spec.md) and the published two-phase commit counts (listed in
docs/models/two-phase.md)."""

from __future__ import annotations

import pytest

from checker.local import explore
from conftest import VARIANTS, run_json
from model.registry import build_model

# TLC, breadth-first, no symmetry, Replicas=2, LogSize=2, MaxRecords=2, MaxLeaderEpoch=3.
# TLC's depth counts states on the longest shortest path; ours counts transitions (one less).
TLC = {"hw": (62_855, 23), "kip101": (53_413, 21), "kip279": (53_099, 21), "kip320": (28_939, 22)}


# TLC with SYMMETRY Permutations(Replicas): one state per orbit (bounds R/L/M/E).
TLC_SYMMETRY = [("hw", (2, 2, 2, 3), 31_428), ("kip101", (2, 2, 2, 3), 26_707), ("kip279", (2, 2, 2, 3), 26_550),
                ("kip320", (2, 2, 2, 3), 14_470), ("kip320", (3, 1, 1, 1), 1_165), ("kip320", (3, 1, 1, 2), 16_345)]
# TLC without symmetry at the 3-replica bounds of that table.
TLC_THREE_REPLICAS = {(3, 1, 1, 1): 6_787, (3, 1, 1, 2): 97_531}


def bound_args(replicas, log_size, max_records, max_epoch) -> list[str]:
    return ["--replicas", str(replicas), "--log-size", str(log_size), "--max-records", str(max_records),
            "--max-epoch", str(max_epoch)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_cli_matches_tlc_distinct_states_and_depth(variant):
    out = run_json("check", "--engine", "local", "--model", "spec", "--variant", variant, *bound_args(2, 2, 2, 3),
                   "--invariant", "leader-in-isr-or-none", "--no-symmetry")
    distinct, tlc_depth = TLC[variant]
    assert out["symmetry"] is False
    assert out["distinct_states"] == distinct
    assert out["depth"] == tlc_depth - 1
    assert out["invariants"]["leader-in-isr-or-none"] == {"kind": "invariant", "holds": True, "status": "holds",
                                                          "trace_length": None, "trace_file": None}


@pytest.mark.parametrize("variant, bounds, orbits", TLC_SYMMETRY)
def test_symmetry_matches_tlc_orbit_counts(variant, bounds, orbits):
    # Symmetry is on by default: every spec invariant is symmetric under renaming replicas.
    out = run_json("check", "--engine", "local", "--model", "spec", "--variant", variant, *bound_args(*bounds),
                   "--invariant", "leader-in-isr-or-none")
    assert out["symmetry"] is True
    assert out["distinct_states"] == orbits
    assert out["invariants"]["leader-in-isr-or-none"]["status"] == "holds"
    if bounds in TLC_THREE_REPLICAS:
        assert _count(variant, **dict(zip(("replicas", "log_size", "max_records", "max_epoch"), bounds))) == \
            TLC_THREE_REPLICAS[bounds]


@pytest.mark.parametrize("rms, states", [(3, 288), (5, 8_832), (7, 296_448)])
def test_two_phase_reaches_published_counts(rms, states):
    out = run_json("check", "--engine", "local", "--model", "two-phase", "--rms", str(rms), "--no-symmetry")
    assert out["distinct_states"] == states
    assert out["invariants"]["consistent"]["holds"] is True


def _count(variant, **bounds):
    return explore(build_model("spec", variant, **bounds), []).distinct_states


# For each bound, a starting point (replicas, log-size, max-records, max-epoch) at which that
# bound is the one that limits the search, so raising it by one must add states.
GROWTH = {"replicas": (1, 2, 2, 2), "log_size": (2, 1, 2, 1), "max_records": (2, 2, 2, 1), "max_epoch": (2, 1, 2, 1)}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("bound", GROWTH)
def test_state_space_grows_with_every_bound(variant, bound):
    small = dict(zip(("replicas", "log_size", "max_records", "max_epoch"), GROWTH[bound]))
    larger = dict(small, **{bound: small[bound] + 1})
    assert _count(variant, **larger) > _count(variant, **small)


@pytest.mark.parametrize("bounds", [dict(replicas=1, log_size=2, max_records=2, max_epoch=3),
                                    dict(replicas=1, log_size=3, max_records=3, max_epoch=2)])
def test_truncation_variants_agree_without_followers(bounds):
    # With one replica nobody ever becomes a follower, and the truncation point is the only
    # thing hw, kip101 and kip279 change: their state spaces must be the same.
    counts = {v: _count(v, **bounds) for v in ("hw", "kip101", "kip279")}
    assert len(set(counts.values())) == 1, counts


def test_fencing_only_removes_behaviour():
    # kip320 adds guards to kip279's actions (and drops the HW advance's leadership test,
    # which only matters for leaders), so its states are a subset: fewer of them.
    bounds = dict(replicas=2, log_size=2, max_records=2, max_epoch=2)
    assert _count("kip320", **bounds) < _count("kip279", **bounds)
