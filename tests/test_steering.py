"""Simulation steered by an invariant's milestones (`checker.simulation.splitting`): walks that start again
from the furthest milestone states reached find kip101's 19-step lost committed record, which
independent walks miss; the milestones are the stages of that story as the exhaustive search
tells it; and a group's archive is the same whoever runs it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from checker.local import explore
from checker.simulation.splitting import CAPACITY, GROUP, Archive, Milestone, walk_numbers
from conftest import run_cli, run_json
from invariants.fetch import STATE_INVARIANTS
from invariants.registry import select
from model.registry import build_model

KIP101_LOSS = ("simulate", "--engine", "local", "--model", "fetch", "--variant", "kip101", "--replicas", "3",
               "--invariant", "committed-survives", "--seed", "3")


def test_steered_walks_find_the_loss_that_independent_walks_miss_and_show_the_shortest_trace(tmp_path):
    """kip101's lost committed record at 3 replicas needs a leader crash the controller does not
    see, a new controller that has the leader lead its epoch again with the HW of its checkpoint,
    and a replica that lacks the record let into the ISR on that HW, then the leader's crash: 19
    steps, which the exhaustive search proves shortest. 120,000 independent walks miss it; as
    many steered ones find it (with this seed: the walks are random), and the trace they show is
    that shortest one, replayable."""
    plain = run_json(*KIP101_LOSS, "--walks", "120000", "--steer", "none")
    assert plain["steer"] is None and "milestones" not in plain
    assert plain["properties"]["committed-survives"]["status"] == "not found"
    steered = run_json(*KIP101_LOSS, "--walks", "120000", "--trace-dir", str(tmp_path))
    found = steered["properties"]["committed-survives"]
    assert steered["steer"] == "committed-survives"
    assert found["status"] == "violated" and found["bfs"] in ("shortest", "shorter")
    assert found["trace_length"] == 19 < found["walk_length"]
    climbs = [m["climbs"] for m in steered["milestones"]]
    assert all(c > 0 for c in climbs), climbs
    shown = run_cli("trace", "show", found["trace_file"])
    assert shown.exit_code == 0 and "committed-survives" in shown.output


def test_the_milestones_are_the_stages_of_the_loss_the_exhaustive_search_finds():
    """Along the shortest kip101 loss (found by BFS, not by the walks), the milestone level
    never falls and passes every stage before the violation: the commit, the leader's HW below
    it after the crash, the leader leading again with that HW, the ISR taking in a replica
    that lacks the record."""
    properties = select("fetch", ["committed-survives"])
    model = build_model("fetch", "kip101", ghost=True, replicas=3)
    trace = explore(model, properties, symmetry=True).violations["committed-survives"]
    assert len(trace) == 19
    kernel, bit = model.kernel, [p.name for p in STATE_INVARIANTS].index("committed-survives")
    levels = [int(kernel.search.milestone(kernel.encode(state), kernel.layout, bit)) for state in trace.states()]
    assert levels == sorted(levels), levels
    assert set(levels[:-1]) == {0, 1, 2, 3, 4}, levels


def test_a_group_starts_every_other_walk_at_its_highest_level_and_the_rest_at_each_level_in_turn():
    origin = Milestone(np.zeros(4, np.int8), 0, ())
    archive = Archive(0, origin)
    assert archive.start(0, 1) is origin and archive.start(1, 1) is origin
    deep = [Milestone(np.full(4, level, np.int8), level, (level,)) for level in (1, 3)]
    archive.keep(1, deep[0], 5)
    archive.keep(3, deep[1], 5)
    starts = [archive.start(index, index).fingerprint for index in range(2, 10)]
    assert starts[1::2] == [3, 3, 3, 3]
    assert starts[0::2] == [1, 3, 0, 1]  # walks 2, 4, 6, 8: levels (0, 1, 3)[index // 2 % 3]
    with pytest.raises(ValueError, match="run in order"):
        archive.start(11, 0)


def test_a_full_level_keeps_its_size_and_takes_in_new_states():
    archive = Archive(0, Milestone(np.zeros(1, np.int8), 0, ()))
    for k in range(CAPACITY + 50):
        archive.keep(2, Milestone(np.zeros(1, np.int8), k, ()), k)
    kept = {m.fingerprint for m in archive.levels[2]}
    assert len(archive.levels[2]) == CAPACITY
    assert kept & set(range(CAPACITY, CAPACITY + 50)), "a full level never took in a new state"


@pytest.mark.parametrize("walks", [None, 1, GROUP, 3 * GROUP + 17])
@pytest.mark.parametrize("tasks", [1, 2, 5])
def test_steered_walks_are_shared_out_in_whole_groups_each_in_order(walks, tasks):
    limit = walks if walks is not None else 7 * GROUP
    shares = [list(itertools.islice(walk_numbers(task, tasks, walks, True), limit)) for task in range(tasks)]
    if walks is not None:
        assert sorted(k for share in shares for k in share) == list(range(walks))
    for task, share in enumerate(shares):
        assert share == sorted(share)
        assert all(k // GROUP % tasks == task for k in share)


@pytest.mark.parametrize("steer, message", [
    ("no-divergence", "has no milestones"),
    ("acked", "not an invariant this run checks"),
])
def test_steering_by_an_invariant_without_milestones_is_a_one_line_error(steer, message):
    result = run_cli("simulate", "--engine", "local", "--model", "fetch", "--walks", "10", "--steer", steer)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
