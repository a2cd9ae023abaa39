"""What two searches of one model must share to count as the same result: every count, level,
coverage figure, verdict and shortest trace (the engines, partition counts and thread counts
must all give it)."""

from __future__ import annotations


def same_results(spark, local):
    """Assert that result `spark` (of any engine or setting) is the same as result `local`, state by state."""
    assert spark.distinct_states == local.distinct_states
    assert spark.generated_states == local.generated_states
    assert spark.depth == local.depth
    assert spark.complete == local.complete
    assert spark.actions == local.actions
    assert spark.coverage.to_json() == local.coverage.to_json()  # per kind and replica, first depths
    assert [(lv.depth, lv.new_states, lv.generated, lv.distinct_total) for lv in spark.levels] == \
        [(lv.depth, lv.new_states, lv.generated, lv.distinct_total) for lv in local.levels]
    assert {i: spark.verdict(i) for i in spark.invariants} == {i: local.verdict(i) for i in local.invariants}
    assert spark.violations == local.violations  # same shortest traces, state by state
