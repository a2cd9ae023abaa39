"""Record every fetch variant's results at a set of bounds: counts, depth, per-property verdicts
and shortest traces (actions), to compare a later model against (tests/test_rules.py).
variants-recorded.json was written by this script when issue 45 corrected the rules against
Kafka's code (the epoch-cache and isr-expansion rules, the shrink that marks a dropped follower's
LEO, broker epochs at registration, kip966's last known leader), and its hw, kip101 and kip279
entries again when issue 66 gave them Kafka 0.10 to 2.1's controller (a missed bounce changes
nothing, the preferred replica, controller failovers; every other entry unchanged); the recording
before it, made at commit cc9821c when the variants became presets of switchable rules, is in git
history:

    python tests/data/record_variants.py tests/data/variants-recorded.json
"""
import json
import sys

from checker.local import explore
from invariants.registry import select
from model.registry import build_model

CASES = [
    ("defaults", {}),
    ("async-minisr1-1crash", dict(flush="async", min_insync_replicas=1, max_crashes=1)),
    ("faults", dict(max_crashes=1, max_disk_losses=1, max_fencings=1, controlled_shutdown=True, max_records=1)),
    ("retries", dict(retries=True, max_in_flight=2, idempotence=True, max_crashes=1, max_records=2)),
    ("unclean-acks1", dict(unclean_leader_election=True, acks="1", max_crashes=1)),
    ("rf3-1crash-1record", dict(replicas=3, max_crashes=1, max_records=1)),
]
LRS = dict(replicas=3, min_insync_replicas=2, flush="async", log_size=2, max_records=2, max_crashes=1, max_epoch=3)
VARIANTS = ["hw", "kip101", "kip279", "kip320", "kip903", "kafka37", "kip966"]

def record(variant, bounds, invariants=(), stop_at_first=False):
    from checker.invariant import applies
    model = build_model("fetch", variant, ghost=True, **bounds)
    props = [p for p in select("fetch", list(invariants)) if applies(p, model)]
    result = explore(model, props, stop_at_first=stop_at_first, symmetry=True)
    return {"invariants": list(invariants), "stop_at_first": stop_at_first, "distinct": result.distinct_states, "generated": result.generated_states, "depth": result.depth,
            "complete": result.stopped == "complete",
            "violations": {name: [list(step.action)
                                  for step in trace.steps] for name, trace in sorted(result.violations.items())}}

out = {}
for v in VARIANTS:
    for name, bounds in CASES:
        out[f"{v} {name}"] = {"variant": v, "bounds": bounds, **record(v, bounds)}
        print(v, name, out[f"{v} {name}"]["distinct"], file=sys.stderr, flush=True)
for v in ["kip320", "kafka37"]:  # Last Replica Standing's bounds, to the first loss of a committed record
    out[f"{v} lrs"] = {"variant": v, "bounds": LRS, **record(v, LRS, ["committed-survives"], stop_at_first=True)}
out["kip320 majority"] = {"variant": "kip320", "bounds": dict(quorum="majority"), **record("kip320", dict(quorum="majority"))}
json.dump(out, open(sys.argv[1], "w"), indent=1)
