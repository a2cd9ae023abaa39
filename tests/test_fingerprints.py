"""Fingerprints must be the same in every process: the Spark engine's executors and the driver
compare them, and traces are rebuilt by matching them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CASES = [("spec", "hw", {"replicas": 2}), ("two-phase", None, {"rms": 3}),
         ("fetch", "kip320", {"flush": "async"}), ("fetch", "hw", {"acks": "1"})]

PROGRAM = """
import json, sys
from model.registry import build_model
name, variant, bounds = json.loads(sys.argv[1])
model = build_model(name, variant, ghost=True, **bounds)
seen, frontier = {}, model.initial_states()
while frontier and len(seen) < 3000:
    nxt = []
    for s in frontier:
        for _, t in model.successors(s):
            if t not in seen:
                seen[t] = None
                nxt.append(t)
    frontier = nxt
print(json.dumps(sorted(hash(s) for s in seen)))
"""


@pytest.mark.parametrize("name, variant, bounds", CASES)
def test_fingerprints_agree_across_processes(name, variant, bounds):
    root = Path(__file__).resolve().parents[1]
    runs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps([name, variant, bounds])], cwd=root, env=env,
                             capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    assert len(runs[0]) >= 100
    assert runs[0] == runs[1]


@pytest.mark.parametrize("rows", [0, 1, 3, 4, 5, 8, 11])
def test_fingerprints_of_a_batch_are_each_rows_fingerprint(rows):
    """The search fingerprints a batch of successors four rows side by side; every row must get
    the fingerprint it gets alone, or shortest traces (ordered by fingerprint) would change."""
    import numpy as np

    from checker.kernel.fingerprint import fingerprint, fingerprints

    batch = np.random.default_rng(rows).integers(-128, 128, (rows, 37)).astype(np.int8)
    batch[:rows // 2, 20:] = 0  # rows that differ only in a prefix
    out = np.zeros(rows + 2, np.int64)  # room past m stays untouched
    fingerprints(batch, rows, out)
    assert list(out[:rows]) == [fingerprint(row) for row in batch]
    assert not out[rows:].any()
