"""The visited set bounded by disk (`checker.kernel.spilled_set`): the same answers as a set in
memory, whatever its budget, and searches that spill give the exact results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import checker.kernel.spilled_set as spilled_set
from checker.kernel.spilled_set import SpilledSet, smallest_budget

ROUNDS = 12
"""Batches admitted: enough for the set to spill more than MAX_RUNS times, so that runs are merged."""


def test_admit_and_contains_agree_with_a_python_set_across_spills_and_merges(tmp_path, monkeypatch):
    monkeypatch.setattr(spilled_set, "CHUNK", 1000)  # merges cut runs into many chunks
    rng = np.random.default_rng(7)
    visited = SpilledSet(16, smallest_budget(16), str(tmp_path))
    known: set[int] = set()
    for _ in range(ROUNDS):
        fps = rng.integers(1, 2**40, 20_000).astype(np.int64)
        fps = np.concatenate([fps, fps[:50], rng.choice(np.array(sorted(known) or [1], np.int64), 500)])
        expected = []
        for fp in fps.tolist():
            expected.append(fp not in known)
            known.add(fp)
        assert visited.admit(fps).tolist() == expected
        probe = np.concatenate([fps[:300], rng.integers(1, 2**40, 300).astype(np.int64)])
        assert visited.contains_all(probe).tolist() == [fp in known for fp in probe.tolist()]
    assert len(visited) == len(known)
    assert visited.files > spilled_set.MAX_RUNS and len(visited.runs) <= spilled_set.MAX_RUNS
    assert len(list(visited.directory.glob("run-*.npy"))) == len(visited.runs)  # merged runs leave the disk


def test_a_budget_below_the_least_is_refused(tmp_path):
    with pytest.raises(ValueError, match="below the least"):
        SpilledSet(16, smallest_budget(16) - 1, str(tmp_path))


def test_a_merge_is_the_sorted_union_of_its_two_runs(tmp_path, monkeypatch):
    """Merging reads both runs from their files a chunk at a time, over the whole signed range of
    fingerprints, runs of unequal lengths, and chunks that end inside the other run's."""
    monkeypatch.setattr(spilled_set, "CHUNK", 7)
    rng = np.random.default_rng(11)
    visited = SpilledSet(16, smallest_budget(16), str(tmp_path))
    both = np.unique(rng.integers(-2**63, 2**63 - 1, 300, dtype=np.int64))
    rng.shuffle(both)
    runs = []
    for part in (both[:190], both[190:]):
        path = visited._path()
        np.save(path, np.sort(part))
        runs.append(np.load(path, mmap_mode="r"))
    merged = visited._merged(*runs)
    assert merged.tolist() == sorted(both.tolist())
    assert [p.name for p in visited.directory.iterdir()] == [Path(merged.filename).name]
