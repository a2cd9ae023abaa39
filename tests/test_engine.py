"""The local BFS engine: verdicts, shortest traces, determinism and its bookkeeping."""

from __future__ import annotations

import pytest

from checker.local import explore
from invariants.registry import invariants_for, select
from model.registry import build_model
from traces.replay import verify_trace

STRONG_ISR_VIOLATED = ("hw", "kip101", "kip279")


@pytest.fixture(scope="module")
def strong_isr_results():
    """strong-isr at the default bounds (3 replicas, log 2, 2 records, epochs 0..2)."""
    return {v: explore(build_model("spec", v), select("spec", ["strong-isr"])) for v in STRONG_ISR_VIOLATED}


@pytest.mark.parametrize("variant", STRONG_ISR_VIOLATED)
def test_strong_isr_violated_with_a_replayable_trace(strong_isr_results, variant):
    result = strong_isr_results[variant]
    assert result.verdict("strong-isr") == "violated"
    trace = result.violations["strong-isr"]
    verify_trace(trace, build_model("spec", variant))
    assert len(trace) == result.depth


@pytest.mark.parametrize("variant", STRONG_ISR_VIOLATED)
def test_strong_isr_trace_is_shortest(strong_isr_results, variant):
    k = len(strong_isr_results[variant].violations["strong-isr"])
    shallower = explore(build_model("spec", variant), select("spec", ["strong-isr"]), max_depth=k - 1)
    assert shallower.depth == k - 1
    assert not shallower.violations
    assert shallower.verdict("strong-isr") == "unknown"


def test_hw_truncation_loses_the_committed_record(strong_isr_results):
    # The shortest hw counterexample ends with a follower truncating to its lagging HW and
    # dropping a record that the leader already counts as committed.
    trace = strong_isr_results["hw"].violations["strong-isr"]
    last = trace.steps[-1]
    assert last.action[0] == "BecomeFollower"
    replica, leader = last.action[1], last.action[2]
    before = trace.states()[-2]
    assert len(last.state.replicas[replica].log) < len(before.replicas[replica].log)
    assert last.state.replicas[leader].hw > len(last.state.replicas[replica].log)


@pytest.mark.slow
def test_kip320_keeps_weak_and_strong_isr():
    result = explore(build_model("spec", "kip320"), select("spec", ["weak-isr", "strong-isr"]))
    assert result.complete
    assert result.verdict("weak-isr") == result.verdict("strong-isr") == "holds"
    assert result.distinct_states == 737_794
    assert result.depth == 25


def test_continue_reports_the_shortest_trace_of_every_invariant():
    model = build_model("spec", "hw", replicas=2, log_size=2, max_records=2, max_epoch=2)
    every = explore(model, list(invariants_for("spec").values()), stop_at_first=False)
    assert every.complete
    for name, trace in every.violations.items():
        verify_trace(trace, model)
        alone = explore(model, select("spec", [name]))
        assert alone.violations[name] == trace
    assert len(every.violations["leader-in-isr"]) == 0
    assert every.verdict("leader-in-isr-or-none") == "holds"


def test_stop_at_first_leaves_later_invariants_unknown():
    model = build_model("spec", "hw", replicas=2, log_size=2, max_records=2, max_epoch=2)
    first = explore(model, list(invariants_for("spec").values()))
    assert not first.complete
    assert list(first.violations) == ["leader-in-isr"]
    assert first.verdict("strong-isr") == "unknown"
    assert first.distinct_states == 1 and first.depth == 0


class Reversed:
    """The same model with initial states and successors listed in reverse order."""

    def __init__(self, inner):
        self.inner = inner
        self.name, self.variant = inner.name, inner.variant

    def __getattr__(self, attr):
        return getattr(self.inner, attr)

    def initial_states(self):
        return self.inner.initial_states()[::-1]

    def successors(self, state):
        return list(self.inner.successors(state))[::-1]


@pytest.mark.parametrize("variant", ("hw", "kip101"))
def test_results_do_not_depend_on_expansion_order(variant):
    model = build_model("spec", variant, replicas=3, log_size=1, max_records=1, max_epoch=2)
    invariants = select("spec", ["weak-isr", "strong-isr"])
    forward = explore(model, invariants, stop_at_first=False)
    backward = explore(Reversed(model), invariants, stop_at_first=False)
    assert (forward.distinct_states, forward.generated_states, forward.depth) == \
        (backward.distinct_states, backward.generated_states, backward.depth)
    assert forward.actions == backward.actions
    assert forward.violations == backward.violations
    assert forward.violations, "these bounds must produce a counterexample for the comparison to mean anything"


def test_bookkeeping_adds_up():
    result = explore(build_model("spec", "kip279", replicas=2, log_size=2, max_records=2, max_epoch=2), [])
    assert sum(c.fired for c in result.actions.values()) == result.generated_states
    assert sum(c.new for c in result.actions.values()) == result.distinct_states - 1
    assert sum(level.new_states for level in result.levels) == result.distinct_states
    assert [level.depth for level in result.levels] == list(range(result.depth + 1))
    assert result.levels[-1].distinct_total == result.distinct_states


def test_two_phase_trace_for_a_broken_invariant():
    # The engine is generic: a deliberately wrong invariant on two-phase commit gets a
    # shortest counterexample too (one RM prepares, TM receives it... the first commit needs
    # every RM prepared: 2 RMs prepare, TM receives both, commits, one RM commits = 6 steps).
    from checker.invariant import Invariant
    from model.two_phase.state import COMMITTED

    never_commits = Invariant("never-commits", "no RM commits", lambda s: COMMITTED not in s.rm)
    result = explore(build_model("two-phase", rms=2), [never_commits])
    trace = result.violations["never-commits"]
    assert len(trace) == 6
    assert [step.action[0] for step in trace.steps][-2:] == ["TMCommit", "RMRcvCommitMsg"]


def test_step_properties_get_shortest_traces_ending_with_the_step():
    from checker.invariant import StepProperty

    # "The TM never commits" as a property of steps: broken by the TMCommit step itself.
    never = StepProperty("tm-never-commits", "no TMCommit step", lambda s, a, t: a[0] != "TMCommit")
    model = build_model("two-phase", rms=2)
    result = explore(model, [never])
    trace = result.violations["tm-never-commits"]
    kinds = [s.action[0] for s in trace.steps]
    assert sorted(kinds[:4]) == ["RMPrepare", "RMPrepare", "TMRcvPrepared", "TMRcvPrepared"] and kinds[4] == "TMCommit"
    states = trace.states()
    assert all(t in [succ for a, succ in model.successors(s) if a == step.action]
               for s, t, step in zip(states, states[1:], trace.steps))
    shallower = explore(model, [never], max_depth=len(trace) - 1)
    assert not shallower.violations


def test_step_property_checked_on_steps_whose_target_another_step_also_reaches():
    from checker.invariant import StepProperty

    # With one RM, TMAbort then RMRcvAbortMsg breaks it; the state it reaches is also reached by
    # TMAbort then RMChooseToAbort, and only one of the two steps is recorded as its route: step
    # properties are checked on every step, not only on recorded routes.
    prop = StepProperty("no-abort-message", "no RMRcvAbortMsg step", lambda s, a, t: a[0] != "RMRcvAbortMsg")
    result = explore(build_model("two-phase", rms=1), [prop], stop_at_first=False)
    assert [s.action[0] for s in result.violations["no-abort-message"].steps] == ["TMAbort", "RMRcvAbortMsg"]
