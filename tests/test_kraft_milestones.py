"""The milestones simulation steers by toward a lost acknowledged value in the `kraft` model
(`invariants.kraft_milestones`), on states of both kinds of variant, and a steered walk that
climbs them."""

from __future__ import annotations

import pytest

from conftest import run_json
from invariants.kraft_milestones import ACKED_MILESTONES, acked_milestone
from model.kraft.state import ACKED, CANDIDATE, CONTROL, FOLLOWER, LEADER, UNATTACHED, WRITTEN
from model.registry import build_model


def _level(variant, **fields):
    model = build_model("kraft", variant, replicas=3, max_records=1, max_elections=3, max_restarts=1)
    s = model.initial_states()[0]._replace(**fields)
    return acked_milestone(model.kernel.encode(s), model.kernel.layout)


def _logs(variant, holders):
    """Each voter's log in epoch 1: value 1 at the `holders` (indices), after the epoch's
    LeaderChange record in a faithful variant (the specification's logs have client values only)."""
    start = ((1, CONTROL),) if variant != "tla" else ()
    return tuple(start + (((1, 1),) if i in holders else ()) for i in range(3))


@pytest.mark.parametrize("variant", ["kip853", "tla"])
def test_each_stage_of_a_lost_acknowledged_value_is_its_level(variant):
    """Nothing acknowledged is level 0; acknowledged and held by a majority, 1; a majority
    lacking it, 2; one of those standing or leading in the newest epoch, 3."""
    held, lost = _logs(variant, (0, 1)), _logs(variant, (0,))
    flushed = {"flushed": tuple(len(log) for log in lost)} if variant != "tla" else {}
    base = dict(epoch=(1, 1, 1), role=(LEADER, FOLLOWER, FOLLOWER), leader=(1, 1, 1), **flushed)
    assert _level(variant, log=held, acked=(WRITTEN,), **base) == 0
    assert _level(variant, log=held, acked=(ACKED,), **base) == 1
    assert _level(variant, log=lost, acked=(ACKED,), **base) == 2
    standing = {**base, "epoch": (1, 1, 2), "role": (LEADER, FOLLOWER, CANDIDATE), "leader": (1, 1, 0)}
    assert _level(variant, log=lost, acked=(ACKED,), **standing) == len(ACKED_MILESTONES)
    behind = {**standing, "epoch": (1, 1, 1), "role": (LEADER, FOLLOWER, UNATTACHED)}
    assert _level(variant, log=lost, acked=(ACKED,), **behind) == 2


def test_walks_steered_toward_a_lost_value_climb_every_milestone():
    """Under voter changes without the guard (no release), walks steered by the milestones climb
    to the last stage and find the loss."""
    out = run_json("simulate", "--model", "kraft", "--variant", "kip853+voter-change-guard=none", "--engine", "local",
                   "--replicas", "3", "--max-records", "1", "--max-elections", "2", "--max-voter-changes", "2",
                   "--invariant", "leader-has-acked-values", "--walks", "20000", "--seed", "1")
    climbed = {row["level"]: row["climbs"] for row in out["milestones"]}
    assert all(climbed[level] > 0 for level in range(1, len(ACKED_MILESTONES) + 1)), climbed
    assert out["properties"]["leader-has-acked-values"]["status"] == "violated"
