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
