"""Every action of the `spec` model, variant by variant, on small hand-built states.

Each test states, from the actions as docs/models/spec.md describes them (numbered 1-9 there,
with kip320's 5'-9'), when an action is enabled and exactly which state it leads to, and where
it must not be enabled. The quirks docs/models/spec.md lists as kept on purpose (the ones that
make the reachable state set match TLC's) are tested by name: a "cleaner" action would fail
these tests.

Bounds used throughout: 3 replicas (r0, r1, r2 here, 0-based like the code), log size 2,
3 producer writes, epochs 0..3.
"""

from __future__ import annotations

import pytest

from model.registry import build_model
from model.spec.state import NO_EPOCH, NONE, LeaderAndIsr, Record, Replica, SpecState, replica_set

N, L, M, E = 3, 2, 3, 3
VARIANTS = ("hw", "kip101", "kip279", "kip320")
UNFENCED = ("hw", "kip101", "kip279")  # the variants that share actions 5-8 of `hw`
MODELS = {v: build_model("spec", v, replicas=N, log_size=L, max_records=M, max_epoch=E) for v in VARIANTS}

SHARED_KINDS = ("ControllerElectLeader", "ControllerShrinkIsr", "BecomeLeader", "LeaderWrite")
REPLICATION_KINDS = ("LeaderIncHighWatermark", "LeaderShrinkIsr", "LeaderExpandIsr", "FollowerReplicate")


# ----- helpers ----------------------------------------------------------------------------------


def rep(log=(), hw=0, epoch=NO_EPOCH, leader=NONE, isr=()) -> Replica:
    """A replica; `log` is a list of (id, epoch) pairs, `isr` a list of replica ids."""
    return Replica(tuple(Record(i, e) for i, e in log), hw, epoch, leader, replica_set(isr))


BLANK = rep()


def q(epoch: int, leader: int, isr) -> LeaderAndIsr:
    """A quorum state or LeaderAndIsr request."""
    return LeaderAndIsr(epoch, leader, replica_set(isr))


def mk(*replicas: Replica, quorum: LeaderAndIsr | None = None, requests=(), next_record_id: int = 0) -> SpecState:
    """A state; replicas not given are blank (as in the initial state)."""
    reps = tuple(replicas) + (BLANK,) * (N - len(replicas))
    if quorum is None:
        quorum = q(NO_EPOCH, NONE, range(N))
    return SpecState(reps, next_record_id, tuple(requests), quorum)


def put(state: SpecState, r: int, replica: Replica) -> SpecState:
    """`state` with replica r replaced (written here so expectations do not use model code)."""
    reps = list(state.replicas)
    reps[r] = replica
    return state._replace(replicas=tuple(reps))


def steps(variant: str, state: SpecState, kind: str) -> dict:
    """The enabled steps of one action kind: action tuple -> next state. Also checks that no
    action tuple is produced twice."""
    out = {}
    for action, after in MODELS[variant].successors(state):
        if action[0] == kind:
            assert action not in out, f"{action} produced twice"
            out[action] = after
    return out


def kinds_of(variant: str, state: SpecState, kinds) -> set:
    """The (action, next state) pairs of the given kinds."""
    return {(a, s) for a, s in MODELS[variant].successors(state) if a[0] in kinds}


def true_leader_state(leader_log, hw=0, isr=(0, 1, 2), epoch=0, followers=None, **kw) -> SpecState:
    """r0 is the true leader in `epoch` with ISR view `isr` (the quorum agrees); `followers`
    maps replica id -> Replica for the others."""
    request = q(epoch, 0, isr)
    reps = [rep(leader_log, hw, epoch, 0, isr), BLANK, BLANK]
    for r, replica in (followers or {}).items():
        reps[r] = replica
    return mk(*reps, quorum=kw.pop("quorum", request), requests=kw.pop("requests", (request,)), **kw)


# ----- 1. controller elects a leader --------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_elect_from_initial_state_any_isr_member(variant):
    s = mk()
    everyone = q(0, NONE, range(N)).isr
    expected = {
        ("ControllerElectLeader", n): s._replace(quorum=LeaderAndIsr(0, n, everyone), requests=(LeaderAndIsr(0, n, everyone),))
        for n in range(N)
    }
    assert steps(variant, s, "ControllerElectLeader") == expected


@pytest.mark.parametrize("variant", VARIANTS)
def test_elect_skips_current_leader_and_non_members(variant):
    first, second = q(0, 0, (0, 1, 2)), q(1, 0, (0, 1))
    s = mk(quorum=second, requests=(first, second))
    new = q(2, 1, (0, 1))
    assert steps(variant, s, "ControllerElectLeader") == {
        ("ControllerElectLeader", 1): s._replace(quorum=new, requests=(first, second, new)),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_elect_from_leaderless_quorum_keeps_isr(variant):
    s = mk(quorum=q(1, NONE, (1,)), requests=(q(0, 0, (0, 1)), q(1, NONE, (1,))))
    new = q(2, 1, (1,))
    assert steps(variant, s, "ControllerElectLeader") == {
        ("ControllerElectLeader", 1): s._replace(quorum=new, requests=s.requests + (new,)),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_elect_needs_an_isr_member(variant):
    s = mk(quorum=q(1, NONE, ()), requests=(q(0, NONE, (0,)), q(1, NONE, ())))
    assert steps(variant, s, "ControllerElectLeader") == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_controller_may_use_the_last_epoch(variant):
    s = mk(quorum=q(E - 1, 0, (0, 1)))
    new = q(E, 1, (0, 1))
    assert steps(variant, s, "ControllerElectLeader") == {
        ("ControllerElectLeader", 1): s._replace(quorum=new, requests=(new,)),
    }


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("kind", ["ControllerElectLeader", "ControllerShrinkIsr"])
def test_controller_updates_refused_after_max_epoch(variant, kind):
    # next_epoch would be E+1: every epoch 0..E is used up.
    for quorum in (q(E, 0, (0, 1, 2)), q(E, NONE, (0, 1, 2)), q(E, 1, (1,))):
        assert steps(variant, mk(quorum=quorum), kind) == {}


# ----- 2. controller shrinks the ISR --------------------------------------------------------------

SHRINK_CASES = [
    # quorum before, {failed replica: (leader, isr) of the next quorum}
    pytest.param(q(0, 0, (0,)), {0: (NONE, (0,))}, id="sole-leader-stays-in-isr"),
    pytest.param(q(0, 0, (0, 1)), {0: (NONE, (1,)), 1: (0, (0,))}, id="leader-with-others"),
    pytest.param(q(1, 2, (0, 1, 2)), {0: (2, (1, 2)), 1: (2, (0, 2)), 2: (NONE, (0, 1))}, id="full-isr"),
    pytest.param(q(1, NONE, (1, 2)), {1: (NONE, (2,)), 2: (NONE, (1,))}, id="leaderless"),
    pytest.param(q(1, NONE, (1,)), {1: (NONE, ())}, id="leaderless-sole-member-leaves-empty-isr"),
    pytest.param(q(0, 0, (1,)), {0: (NONE, (1,)), 1: (0, ())}, id="leader-outside-isr"),
]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("quorum, expected", SHRINK_CASES)
def test_controller_shrink_isr(variant, quorum, expected):
    s = mk(quorum=quorum, requests=(quorum,))
    want = {}
    for r, (leader, isr) in expected.items():
        new = q(quorum.epoch + 1, leader, isr)
        want[("ControllerShrinkIsr", r)] = s._replace(quorum=new, requests=(quorum, new))
    assert steps(variant, s, "ControllerShrinkIsr") == want


@pytest.mark.parametrize("variant", VARIANTS)
def test_controller_shrink_from_initial_state(variant):
    s = mk()
    want = {}
    for r in range(N):
        new = q(0, NONE, [x for x in range(N) if x != r])
        want[("ControllerShrinkIsr", r)] = s._replace(quorum=new, requests=(new,))
    assert steps(variant, s, "ControllerShrinkIsr") == want


# ----- 3. become leader ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_become_leader_keeps_log_and_hw(variant):
    old, new = q(0, 0, (0, 1)), q(1, 1, (1, 2))
    r0 = rep([(0, 0)], hw=1, epoch=0, leader=0, isr=(0, 1))
    r1 = rep([(0, 0), (1, 0)], hw=1, epoch=0, leader=0, isr=(0, 1))
    s = mk(r0, r1, quorum=new, requests=(old, new), next_record_id=2)
    # r0 is already in epoch 0, so the epoch-0 request does nothing for it.
    assert steps(variant, s, "BecomeLeader") == {
        ("BecomeLeader", 1, 1): put(s, 1, rep([(0, 0), (1, 0)], hw=1, epoch=1, leader=1, isr=(1, 2))),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_become_leader_on_stale_requests_in_any_order(variant):
    # Requests are never consumed: a replica still in epoch -1 may act on an old one.
    reqs = (q(0, 0, (0, 1)), q(1, 1, (0, 1)), q(2, 0, (0,)))
    s = mk(quorum=reqs[-1], requests=reqs)
    assert steps(variant, s, "BecomeLeader") == {
        ("BecomeLeader", 0, 0): put(s, 0, rep(epoch=0, leader=0, isr=(0, 1))),
        ("BecomeLeader", 1, 1): put(s, 1, rep(epoch=1, leader=1, isr=(0, 1))),
        ("BecomeLeader", 0, 2): put(s, 0, rep(epoch=2, leader=0, isr=(0,))),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_become_leader_needs_a_newer_epoch(variant):
    reqs = (q(0, 0, (0, 1)), q(1, 1, (0, 1)))
    r0 = rep(epoch=0, leader=0, isr=(0, 1))  # same epoch as its request
    r1 = rep(epoch=2, leader=NONE)  # already past its request's epoch
    assert steps(variant, mk(r0, r1, quorum=reqs[-1], requests=reqs), "BecomeLeader") == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_become_leader_ignores_leaderless_requests(variant):
    reqs = (q(0, NONE, (0, 1)), q(1, NONE, (1,)))
    assert steps(variant, mk(quorum=reqs[-1], requests=reqs), "BecomeLeader") == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_become_leader_from_follower_keeps_lagging_hw(variant):
    req = q(2, 1, (1,))
    r1 = rep([(0, 0), (1, 0)], hw=0, epoch=1, leader=0, isr=(0, 1))
    s = mk(BLANK, r1, quorum=req, requests=(req,), next_record_id=2)
    assert steps(variant, s, "BecomeLeader") == {
        ("BecomeLeader", 1, 2): put(s, 1, rep([(0, 0), (1, 0)], hw=0, epoch=2, leader=1, isr=(1,))),
    }


# ----- 4. leader write ----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_leader_write_appends_with_own_epoch(variant):
    s = true_leader_state([(0, 0)], epoch=1, isr=(0, 1), next_record_id=1,
                          followers={1: rep(epoch=1, leader=0, isr=(0, 1)), 2: rep(epoch=1, leader=NONE)})
    after = put(s, 0, s.replicas[0]._replace(log=(Record(0, 0), Record(1, 1))))._replace(next_record_id=2)
    assert steps(variant, s, "LeaderWrite") == {("LeaderWrite", 0): after}


@pytest.mark.parametrize("variant", VARIANTS)
def test_zombie_leader_still_writes(variant):
    # r0 presumes leadership in epoch 0, but the controller has moved on to r1 in epoch 1.
    r0 = rep(epoch=0, leader=0, isr=(0, 1))
    r1 = rep(epoch=1, leader=1, isr=(1,))
    s = mk(r0, r1, quorum=q(1, 1, (1,)), requests=(q(0, 0, (0, 1)), q(1, 1, (1,))))
    assert steps(variant, s, "LeaderWrite") == {
        ("LeaderWrite", 0): put(s, 0, r0._replace(log=(Record(0, 0),)))._replace(next_record_id=1),
        ("LeaderWrite", 1): put(s, 1, r1._replace(log=(Record(0, 1),)))._replace(next_record_id=1),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_leader_write_stops_at_max_records(variant):
    s = true_leader_state([(2, 0)], next_record_id=M)
    assert steps(variant, s, "LeaderWrite") == {}
    assert ("LeaderWrite", 0) in steps(variant, s._replace(next_record_id=M - 1), "LeaderWrite")


@pytest.mark.parametrize("variant", VARIANTS)
def test_leader_write_stops_at_log_size(variant):
    r0 = rep([(0, 0), (1, 0)], epoch=0, leader=0, isr=(0,))  # full
    r1 = rep([(0, 0)], epoch=1, leader=1, isr=(1,))  # room for one more
    s = mk(r0, r1, quorum=q(1, 1, (1,)), next_record_id=2)
    assert steps(variant, s, "LeaderWrite") == {
        ("LeaderWrite", 1): put(s, 1, r1._replace(log=(Record(0, 0), Record(2, 1))))._replace(next_record_id=3),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_only_presumed_leaders_write(variant):
    # r0 follows r1 and r1 follows nobody; r2 is blank. The quorum naming r1 does not matter.
    r0 = rep(epoch=0, leader=1, isr=(0, 1))
    r1 = rep(epoch=0, leader=NONE)
    assert steps(variant, mk(r0, r1, quorum=q(0, 1, (0, 1))), "LeaderWrite") == {}


# ----- 5. leader advances HW (hw, kip101, kip279) --------------------------------------------------


def _hw_base(follower_log=((0, 0),), follower_epoch=0, follower_leader=0, leader_epoch=0, hw=0):
    """r0 leads (truly) with log [a@e0, b@e0] and ISR {r0, r1}; r1 follows."""
    s = true_leader_state([(0, 0), (1, 0)], hw=hw, isr=(0, 1), epoch=leader_epoch, next_record_id=2,
                          followers={1: rep(follower_log, epoch=follower_epoch, leader=follower_leader, isr=(0, 1))})
    return s


@pytest.mark.parametrize("variant", VARIANTS)
def test_hw_advances_when_isr_has_the_record(variant):
    s = _hw_base()
    assert steps(variant, s, "LeaderIncHighWatermark") == {
        ("LeaderIncHighWatermark", 0): put(s, 0, s.replicas[0]._replace(hw=1)),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_hw_does_not_pass_a_follower_log_end(variant):
    assert steps(variant, _hw_base(hw=1), "LeaderIncHighWatermark") == {}
    assert steps(variant, _hw_base(follower_log=()), "LeaderIncHighWatermark") == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_hw_needs_isr_members_to_follow_the_leader(variant):
    assert steps(variant, _hw_base(follower_leader=NONE), "LeaderIncHighWatermark") == {}
    assert steps(variant, _hw_base(follower_leader=2), "LeaderIncHighWatermark") == {}


@pytest.mark.parametrize("variant", UNFENCED)
def test_hw_advance_checks_no_epoch(variant):
    # r1 follows r0 from epoch 0 while r0 leads in epoch 1: still counted.
    s = _hw_base(follower_epoch=0, leader_epoch=1)
    assert steps(variant, s, "LeaderIncHighWatermark") == {
        ("LeaderIncHighWatermark", 0): put(s, 0, s.replicas[0]._replace(hw=1)),
    }


def test_kip320_hw_advance_needs_followers_in_leader_epoch():
    assert steps("kip320", _hw_base(follower_epoch=0, leader_epoch=1), "LeaderIncHighWatermark") == {}


@pytest.mark.parametrize("variant", UNFENCED)
def test_hw_quirk_leader_outside_own_isr_view_can_pass_its_leo(variant):
    # Quirk: the leader's own log is checked only if it is in its own ISR view. r0 has an
    # empty log and ISR view {r1}; r1 holds a record, so r0's HW moves to 1, past its LEO 0.
    r0 = rep((), hw=0, epoch=0, leader=0, isr=(1,))
    r1 = rep([(0, 0)], epoch=0, leader=0, isr=(0, 1))
    s = mk(r0, r1, quorum=q(0, 0, (1,)), next_record_id=1)
    assert steps(variant, s, "LeaderIncHighWatermark") == {
        ("LeaderIncHighWatermark", 0): put(s, 0, r0._replace(hw=1)),
    }


def test_kip320_hw_never_passes_leader_leo():
    r0 = rep((), hw=0, epoch=0, leader=0, isr=(1,))
    r1 = rep([(0, 0)], epoch=0, leader=0, isr=(0, 1))
    assert steps("kip320", mk(r0, r1, quorum=q(0, 0, (1,)), next_record_id=1), "LeaderIncHighWatermark") == {}


@pytest.mark.parametrize("variant", UNFENCED)
def test_hw_advance_with_empty_isr_view_stops_at_log_size(variant):
    # With an empty ISR view nothing is checked but h < L (and presumed leadership).
    below = mk(rep((), hw=L - 1, epoch=0, leader=0, isr=()), quorum=q(0, 0, ()))
    assert steps(variant, below, "LeaderIncHighWatermark") == {
        ("LeaderIncHighWatermark", 0): put(below, 0, below.replicas[0]._replace(hw=L)),
    }
    at_limit = mk(rep((), hw=L, epoch=0, leader=0, isr=()), quorum=q(0, 0, ()))
    assert steps(variant, at_limit, "LeaderIncHighWatermark") == {}


@pytest.mark.parametrize("variant", UNFENCED)
def test_hw_advance_needs_presumed_leadership(variant):
    # r2 follows r0 with an empty ISR view and a record above its HW: not a leader, no step.
    r2 = rep([(0, 0)], hw=0, epoch=0, leader=0, isr=())
    r0 = rep([(0, 0)], hw=0, epoch=0, leader=0, isr=(0, 1))  # r1 (blank) does not follow r0
    assert steps(variant, mk(r0, BLANK, r2, quorum=q(0, 0, (0, 1))), "LeaderIncHighWatermark") == {}


def test_kip320_hw_advance_has_no_leadership_test_of_its_own():
    # 5': any replica l qualifies; with an empty ISR view only len(log) > hw is checked, so a
    # follower (r2) moves its own HW.
    r2 = rep([(0, 0)], hw=0, epoch=0, leader=0, isr=())
    r0 = rep([(0, 0)], hw=0, epoch=0, leader=0, isr=(0, 1))
    s = mk(r0, BLANK, r2, quorum=q(0, 0, (0, 1)), next_record_id=1)
    assert steps("kip320", s, "LeaderIncHighWatermark") == {
        ("LeaderIncHighWatermark", 2): put(s, 2, r2._replace(hw=1)),
    }


def test_kip320_hw_advance_needs_own_log_past_hw():
    s = mk(rep([(0, 0)], hw=1, epoch=0, leader=0, isr=()), quorum=q(0, 0, (0,)), next_record_id=1)
    assert steps("kip320", s, "LeaderIncHighWatermark") == {}
    lower = put(s, 0, s.replicas[0]._replace(hw=0))
    assert steps("kip320", lower, "LeaderIncHighWatermark") == {
        ("LeaderIncHighWatermark", 0): s,
    }


# ----- 6. leader shrinks the ISR ----------------------------------------------------------------


def _shrink_base(r1=None, r2=None, leader_log=((0, 0), (1, 0))):
    """r0 is the true leader in epoch 0 with ISR {r0, r1, r2}; by default r1 lags (one record
    of two) and r2 is level with it."""
    followers = {
        1: r1 if r1 is not None else rep([(0, 0)], epoch=0, leader=0, isr=(0, 1, 2)),
        2: r2 if r2 is not None else rep(leader_log, epoch=0, leader=0, isr=(0, 1, 2)),
    }
    return true_leader_state(leader_log, isr=(0, 1, 2), followers=followers, next_record_id=2)


def _isr_update(s: SpecState, leader: int, isr) -> SpecState:
    """The expected quorum ISR update: leader's view and quorum ISR change, nothing else."""
    mask = replica_set(isr)
    return put(s, leader, s.replicas[leader]._replace(isr=mask))._replace(quorum=s.quorum._replace(isr=mask))


@pytest.mark.parametrize("variant", VARIANTS)
def test_shrink_drops_a_follower_behind_the_leader_leo(variant):
    s = _shrink_base()
    # Epoch unchanged and no request sent: `_isr_update` touches only the ISR.
    assert steps(variant, s, "LeaderShrinkIsr") == {("LeaderShrinkIsr", 0, 1): _isr_update(s, 0, (0, 2))}


@pytest.mark.parametrize("variant", VARIANTS)
def test_shrink_drops_a_member_that_does_not_follow(variant):
    s = _shrink_base(r1=rep([(0, 0), (1, 0)], epoch=0, leader=0), r2=rep([(0, 0), (1, 0)], epoch=0, leader=NONE))
    assert steps(variant, s, "LeaderShrinkIsr") == {("LeaderShrinkIsr", 0, 2): _isr_update(s, 0, (0, 1))}


@pytest.mark.parametrize("variant", VARIANTS)
def test_shrink_compares_lengths_only(variant):
    # r1 has a different record at offset 1 but as many records: it is caught up.
    s = _shrink_base(r1=rep([(0, 0), (2, 1)], epoch=0, leader=0))
    assert steps(variant, s, "LeaderShrinkIsr") == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_shrink_with_empty_leader_log(variant):
    # end == 0: following the leader is enough to be caught up.
    following = rep((), epoch=0, leader=0)
    s = _shrink_base(r1=following, r2=following, leader_log=())
    assert steps(variant, s, "LeaderShrinkIsr") == {}
    s = _shrink_base(r1=following, r2=rep((), epoch=0, leader=NONE), leader_log=())
    assert steps(variant, s, "LeaderShrinkIsr") == {("LeaderShrinkIsr", 0, 2): _isr_update(s, 0, (0, 1))}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("why", ["quorum-leader-elsewhere", "older-epoch", "not-presuming"])
def test_shrink_only_by_true_leader(variant, why):
    s = _shrink_base()
    if why == "quorum-leader-elsewhere":
        s = s._replace(quorum=q(0, 1, (0, 1, 2)))
    elif why == "older-epoch":
        s = s._replace(quorum=q(1, 0, (0, 1, 2)), requests=s.requests + (q(1, 0, (0, 1, 2)),))
    else:
        s = put(s, 0, s.replicas[0]._replace(leader=NONE))
    assert steps(variant, s, "LeaderShrinkIsr") == {}


@pytest.mark.parametrize("variant", UNFENCED)
def test_shrink_ignores_follower_epoch(variant):
    s = _shrink_base(r1=rep([(0, 0), (1, 0)], epoch=NO_EPOCH, leader=0))
    assert steps(variant, s, "LeaderShrinkIsr") == {}


def test_kip320_shrink_drops_follower_in_another_epoch():
    # Same length, follows r0, but in epoch -1 while r0 is in epoch 0: not following epoch.
    s = _shrink_base(r1=rep([(0, 0), (1, 0)], epoch=NO_EPOCH, leader=0))
    assert steps("kip320", s, "LeaderShrinkIsr") == {("LeaderShrinkIsr", 0, 1): _isr_update(s, 0, (0, 2))}


# ----- 7. leader expands the ISR ----------------------------------------------------------------


def _expand_base(r1, r2=BLANK, leader_log=((0, 0), (1, 0)), hw=1, epoch=0, isr=(0,)):
    return true_leader_state(leader_log, hw=hw, isr=isr, epoch=epoch, followers={1: r1, 2: r2}, next_record_id=2)


@pytest.mark.parametrize("variant", VARIANTS)
def test_expand_adds_follower_caught_up_to_hw(variant):
    s = _expand_base(rep([(0, 0)], epoch=0, leader=0), rep((), epoch=0, leader=0))
    # r1 holds offset 0 (< HW 1); r2 holds nothing: only r1 may join.
    assert steps(variant, s, "LeaderExpandIsr") == {("LeaderExpandIsr", 0, 1): _isr_update(s, 0, (0, 1))}


@pytest.mark.parametrize("variant", VARIANTS)
def test_expand_at_hw_zero_needs_only_following(variant):
    # (kip320's 7' also needs the record at the HW to be in the leader's epoch: offset 0
    # holds a@e0 and the leader is in epoch 0, so that holds too.)
    s = _expand_base(rep((), epoch=0, leader=0), rep((), epoch=0, leader=NONE), leader_log=((0, 0),), hw=0)
    assert steps(variant, s, "LeaderExpandIsr") == {("LeaderExpandIsr", 0, 1): _isr_update(s, 0, (0, 1))}


@pytest.mark.parametrize("variant", VARIANTS)
def test_expand_lengths_only(variant):
    # r1 holds a different record below the HW: it still joins (lengths only).
    s = _expand_base(rep([(2, 1)], epoch=0, leader=0))
    assert steps(variant, s, "LeaderExpandIsr") == {("LeaderExpandIsr", 0, 1): _isr_update(s, 0, (0, 1))}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("why", ["quorum-leader-elsewhere", "older-epoch", "not-presuming"])
def test_expand_only_by_true_leader(variant, why):
    s = _expand_base(rep([(0, 0)], epoch=0, leader=0))
    if why == "quorum-leader-elsewhere":
        s = s._replace(quorum=q(0, 1, (0,)))
    elif why == "older-epoch":
        s = s._replace(quorum=q(1, 0, (0,)))
    else:
        s = put(s, 0, s.replicas[0]._replace(leader=NONE))
    assert steps(variant, s, "LeaderExpandIsr") == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_leader_outside_own_isr_view_may_add_itself(variant):
    s = _expand_base(rep((), epoch=0, leader=NONE), leader_log=((0, 0),), hw=1, isr=(1,))
    assert steps(variant, s, "LeaderExpandIsr") == {("LeaderExpandIsr", 0, 0): _isr_update(s, 0, (0, 1))}


@pytest.mark.parametrize("variant", UNFENCED)
def test_expand_ignores_epochs(variant):
    # r1 follows r0 from epoch 0 while r0 leads in epoch 1, and r0 has not written in epoch 1.
    s = _expand_base(rep([(0, 0)], epoch=0, leader=0), epoch=1)
    assert steps(variant, s, "LeaderExpandIsr") == {("LeaderExpandIsr", 0, 1): _isr_update(s, 0, (0, 1))}


KIP320_EXPAND = [
    # leader log, leader hw, follower log, follower epoch, enabled  (leader in epoch 1)
    pytest.param([(0, 0), (1, 1)], 1, [(0, 0)], 1, True, id="record-at-hw-in-leader-epoch"),
    pytest.param([(0, 0), (1, 0)], 1, [(0, 0)], 1, False, id="record-at-hw-from-older-epoch"),
    pytest.param([(0, 0)], 1, [(0, 0)], 1, True, id="hw-at-leader-leo"),
    pytest.param([(0, 0)], 0, [], 1, False, id="hw-zero-still-needs-epoch-start"),
    pytest.param([(0, 1)], 0, [], 1, True, id="hw-zero-record-in-epoch"),
    pytest.param([], 0, [], 1, True, id="empty-leader-log"),
    pytest.param([(0, 0), (1, 1)], 1, [], 1, False, id="follower-below-hw"),
    pytest.param([(0, 0), (1, 1)], 1, [(0, 0)], 0, False, id="follower-in-older-epoch"),
]


@pytest.mark.parametrize("leader_log, hw, follower_log, follower_epoch, enabled", KIP320_EXPAND)
def test_kip320_expand_conditions(leader_log, hw, follower_log, follower_epoch, enabled):
    s = _expand_base(rep(follower_log, epoch=follower_epoch, leader=0), leader_log=leader_log, hw=hw, epoch=1)
    want = {("LeaderExpandIsr", 0, 1): _isr_update(s, 0, (0, 1))} if enabled else {}
    assert steps("kip320", s, "LeaderExpandIsr") == want


# ----- 8. follower replicates ---------------------------------------------------------------------


def _fetch_base(r1, r2=BLANK, leader_hw=1, leader_epoch=0, leader_log=((0, 0), (1, 0)), leader_leader=0):
    r0 = rep(leader_log, hw=leader_hw, epoch=leader_epoch, leader=leader_leader, isr=(0, 1, 2))
    req = q(leader_epoch, 0, (0, 1, 2))
    return mk(r0, r1, r2, quorum=req, requests=(req,), next_record_id=2)


@pytest.mark.parametrize("variant", VARIANTS)
def test_follower_copies_record_at_its_leo_and_caps_hw(variant):
    r1 = rep((), hw=0, epoch=0, leader=0)
    r2 = rep([(0, 0)], hw=0, epoch=0, leader=0)
    s = _fetch_base(r1, r2)
    assert steps(variant, s, "FollowerReplicate") == {
        ("FollowerReplicate", 1, 0): put(s, 1, r1._replace(log=(Record(0, 0),), hw=1)),
        ("FollowerReplicate", 2, 0): put(s, 2, r2._replace(log=(Record(0, 0), Record(1, 0)), hw=1)),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_follower_hw_capped_by_its_new_leo(variant):
    r1 = rep((), hw=0, epoch=0, leader=0)
    s = _fetch_base(r1, leader_hw=2)
    assert steps(variant, s, "FollowerReplicate") == {
        ("FollowerReplicate", 1, 0): put(s, 1, r1._replace(log=(Record(0, 0),), hw=1)),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_follower_hw_follows_leader_hw_down(variant):
    # The follower takes min(leader HW, new LEO) even when that is below its own HW.
    r1 = rep([(0, 0)], hw=1, epoch=0, leader=0)
    s = _fetch_base(r1, leader_hw=0)
    assert steps(variant, s, "FollowerReplicate") == {
        ("FollowerReplicate", 1, 0): put(s, 1, r1._replace(log=(Record(0, 0), Record(1, 0)), hw=0)),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_fetch_when_level_or_not_following(variant):
    level = rep([(0, 0), (1, 0)], epoch=0, leader=0)
    nobody = rep((), epoch=0, leader=NONE)
    assert steps(variant, _fetch_base(level, nobody), "FollowerReplicate") == {}
    follows_r2 = rep((), epoch=0, leader=2)
    assert steps(variant, _fetch_base(follows_r2), "FollowerReplicate") == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_fetch_from_a_replica_that_does_not_presume_leadership(variant):
    s = _fetch_base(rep((), epoch=0, leader=0), leader_leader=NONE)
    assert steps(variant, s, "FollowerReplicate") == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_fetch_stops_at_log_size(variant):
    # Artificial: a leader log longer than L, so only the `len(f) < L` condition blocks.
    r1 = rep([(0, 0), (1, 0)], epoch=0, leader=0)
    s = _fetch_base(r1, leader_log=((0, 0), (1, 0), (2, 0)))
    assert steps(variant, s, "FollowerReplicate") == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_fetch_does_not_check_the_follower_prefix(variant):
    # r1's offset 0 differs from the leader's; it still appends the leader's offset-1 record.
    r1 = rep([(2, 0)], epoch=0, leader=0)
    s = _fetch_base(r1)
    assert steps(variant, s, "FollowerReplicate") == {
        ("FollowerReplicate", 1, 0): put(s, 1, r1._replace(log=(Record(2, 0), Record(1, 0)), hw=1)),
    }


@pytest.mark.parametrize("variant", UNFENCED)
def test_fetch_has_no_epoch_fencing(variant):
    # The missing fencing: r1 follows r0 from epoch 0 while r0 is in epoch 2.
    r1 = rep((), epoch=0, leader=0)
    s = _fetch_base(r1, leader_epoch=2)
    assert steps(variant, s, "FollowerReplicate") == {
        ("FollowerReplicate", 1, 0): put(s, 1, r1._replace(log=(Record(0, 0),), hw=1)),
    }


def test_kip320_fetch_needs_same_epoch():
    assert steps("kip320", _fetch_base(rep((), epoch=0, leader=0), leader_epoch=2), "FollowerReplicate") == {}
    assert steps("kip320", _fetch_base(rep((), epoch=3, leader=0), leader_epoch=2), "FollowerReplicate") == {}


# ----- 9. become follower -------------------------------------------------------------------------

REQ = q(3, 0, (0, 1))


def _follower_state(replica_log, replica_hw, leader_log, replica_epoch=2, leader_epoch=3, leader_leader=0,
                    requests=(REQ,)):
    """r0 presumes leadership (by default already in the request's epoch 3); r1 is the replica
    receiving the request naming r0; r2 is absent from the picture (epoch 3, follows nobody)."""
    r0 = rep(leader_log, hw=0, epoch=leader_epoch, leader=leader_leader, isr=(0, 1))
    r1 = rep(replica_log, hw=replica_hw, epoch=replica_epoch, leader=NONE, isr=())
    r2 = rep((), epoch=3, leader=NONE)
    return mk(r0, r1, r2, quorum=requests[-1], requests=requests, next_record_id=M)


def _followed(s: SpecState, k: int, request=REQ) -> SpecState:
    """The expected result of r1 becoming follower of the request's leader with point k."""
    r1 = s.replicas[1]
    return put(s, 1, Replica(r1.log[:k], min(k, r1.hw), request.epoch, request.leader, request.isr))


def _follower_steps(variant, s, replica=1):
    return {a: t for a, t in steps(variant, s, "BecomeFollower").items() if a[1] == replica}


# (replica log, replica hw, leader log) -> truncation point per variant; None: not enabled.
TRUNCATION = [
    # id                           replica log          hw  leader log             hw   kip101 kip279/320
    ("replica-empty",              [],                  0,  [(0, 0)],              0,   0,     0),
    ("leader-empty",               [(0, 0), (1, 0)],    1,  [],                    1,   1,     0),
    ("leader-empty-hw0",           [(0, 0)],            0,  [],                    0,   0,     0),
    ("same-last-epoch",            [(0, 0), (1, 0)],    0,  [(0, 0)],              0,   1,     1),
    ("same-last-epoch-divergent",  [(0, 0), (2, 1)],    0,  [(0, 0), (1, 1)],      0,   2,     1),
    ("leader-ahead-same-epoch",    [(0, 0)],            1,  [(0, 0), (1, 0)],      1,   None,  1),
    ("later-epoch-in-leader",      [(0, 0), (1, 0)],    1,  [(0, 0), (2, 1)],      1,   1,     1),
    ("later-epoch-at-offset-0",    [(1, 0)],            1,  [(0, 1)],              1,   0,     0),
    ("no-later-epoch",             [(0, 0), (1, 2)],    0,  [(0, 0), (2, 1)],      0,   0,     1),
    ("no-later-epoch-hw",          [(0, 0), (1, 2)],    1,  [(0, 0), (2, 1)],      1,   1,     1),
    ("same-id-other-epoch",        [(0, 0)],            0,  [(0, 1)],              0,   0,     0),
    ("highest-common-not-first",   [(0, 0), (1, 1)],    0,  [(2, 0), (1, 1)],      0,   2,     2),
    ("identical",                  [(0, 0), (1, 0)],    2,  [(0, 0), (1, 0)],      2,   2,     2),
    ("hw-at-leo",                  [(0, 0), (1, 0)],    2,  [(0, 1)],              2,   0,     0),
]


def _truncation_cases():
    for name, rlog, rhw, llog, k_hw, k_101, k_279 in TRUNCATION:
        for variant, k in (("hw", k_hw), ("kip101", k_101), ("kip279", k_279), ("kip320", k_279)):
            yield pytest.param(variant, rlog, rhw, llog, k, id=f"{variant}-{name}")


@pytest.mark.parametrize("variant, replica_log, replica_hw, leader_log, k", list(_truncation_cases()))
def test_become_follower_truncation_point(variant, replica_log, replica_hw, leader_log, k):
    s = _follower_state(replica_log, replica_hw, leader_log)
    got = _follower_steps(variant, s)
    if k is None:
        # kip101 quirk: the point lies beyond the replica's log, so the step is simply not
        # enabled (the leader is further ahead in the same epoch).
        assert got == {}
    else:
        assert got == {("BecomeFollower", 1, 0, 3): _followed(s, k)}


@pytest.mark.parametrize("variant", VARIANTS)
def test_become_follower_needs_newer_epoch(variant):
    assert _follower_steps(variant, _follower_state([(0, 0)], 0, [(0, 0)], replica_epoch=3)) == {}
    assert _follower_steps(variant, _follower_state([], 0, [], replica_epoch=3)) == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_become_follower_never_for_the_leader_itself_nor_leaderless_requests(variant):
    # r0 in epoch 2 receives the epoch-3 request naming itself: BecomeLeader, not BecomeFollower.
    s = _follower_state([], 0, [], replica_epoch=3, leader_epoch=2)
    assert steps(variant, s, "BecomeFollower") == {}
    blank = mk(quorum=q(1, NONE, (0, 1)), requests=(q(0, NONE, (0, 1, 2)), q(1, NONE, (0, 1))))
    assert steps(variant, blank, "BecomeFollower") == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_become_follower_for_every_replica_and_request(variant):
    # From the initial state after two elections every non-leader may follow each request.
    reqs = (q(0, 0, (0, 1, 2)), q(1, 1, (0, 1, 2)))
    s = mk(quorum=reqs[-1], requests=reqs)
    got = steps(variant, s, "BecomeFollower")
    if variant == "kip320":
        # 9': neither named leader presumes leadership in its request's epoch yet.
        assert got == {}
        return
    expected = {}
    for req in reqs:
        for r in range(N):
            if r != req.leader:
                expected[("BecomeFollower", r, req.leader, req.epoch)] = put(
                    s, r, Replica((), 0, req.epoch, req.leader, req.isr))
    assert got == expected


@pytest.mark.parametrize("variant", UNFENCED)
def test_unfenced_become_follower_ignores_the_leader_state(variant):
    # r0 is still in epoch 2 and does not even presume leadership: r1 follows it anyway.
    s = _follower_state([], 0, [], leader_epoch=2, leader_leader=NONE)
    assert _follower_steps(variant, s) == {("BecomeFollower", 1, 0, 3): _followed(s, 0)}


@pytest.mark.parametrize("leader_epoch, leader_leader, enabled", [
    pytest.param(3, 0, True, id="leader-in-request-epoch"),
    pytest.param(2, 0, False, id="leader-not-yet-in-epoch"),
    pytest.param(3, NONE, False, id="leader-not-presuming"),
    pytest.param(3, 2, False, id="leader-follows-another"),
])
def test_kip320_become_follower_fencing(leader_epoch, leader_leader, enabled):
    s = _follower_state([(0, 0)], 0, [(0, 0)], leader_epoch=leader_epoch, leader_leader=leader_leader)
    want = {("BecomeFollower", 1, 0, 3): _followed(s, 1)} if enabled else {}
    assert _follower_steps("kip320", s) == want


def test_kip320_become_follower_refuses_stale_request_once_leader_moved_on():
    # r0 has taken epoch 3; the older epoch-2 request naming r0 can no longer be followed in
    # kip320, though kip279 (same truncation, no fencing) still allows it.
    old, new = q(2, 0, (0, 1)), REQ
    s = _follower_state([(0, 0)], 0, [(0, 0)], replica_epoch=1, requests=(old, new))
    assert _follower_steps("kip320", s) == {("BecomeFollower", 1, 0, 3): _followed(s, 1)}
    assert _follower_steps("kip279", s) == {
        ("BecomeFollower", 1, 0, 2): _followed(s, 1, old),
        ("BecomeFollower", 1, 0, 3): _followed(s, 1),
    }


# ----- variant sharing ------------------------------------------------------------------------------


def _sample_states(variant: str, depth: int) -> set:
    """Every state reachable within `depth` steps of the initial state."""
    model = MODELS[variant]
    seen = set(model.initial_states())
    frontier = list(seen)
    for _ in range(depth):
        nxt = []
        for s in frontier:
            for _, t in model.successors(s):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
    return seen


def _hand_built_states() -> list:
    return [
        _hw_base(), _hw_base(follower_epoch=0, leader_epoch=1), _shrink_base(),
        _shrink_base(r1=rep([(0, 0), (1, 0)], epoch=NO_EPOCH, leader=0)),
        _expand_base(rep([(0, 0)], epoch=0, leader=0), epoch=1),
        _fetch_base(rep((), epoch=0, leader=0), leader_epoch=2),
        _follower_state([(0, 0), (2, 1)], 0, [(0, 0), (1, 1)]),
        _follower_state([(0, 0)], 1, [(0, 0), (1, 0)], leader_epoch=2),
        mk(rep((), hw=0, epoch=0, leader=0, isr=(1,)), rep([(0, 0)], epoch=0, leader=0), quorum=q(0, 0, (1,))),
    ]


@pytest.fixture(scope="module")
def sample_states():
    states = _sample_states("hw", 5) | _sample_states("kip320", 5)
    states.update(_hand_built_states())
    assert len(states) > 1000  # a real sample, not a handful
    return states


def test_actions_1_to_4_agree_across_variants(sample_states):
    for s in sample_states:
        reference = kinds_of("hw", s, SHARED_KINDS)
        for variant in ("kip101", "kip279", "kip320"):
            assert kinds_of(variant, s, SHARED_KINDS) == reference, (variant, s)


def test_actions_5_to_8_agree_across_unfenced_variants(sample_states):
    differs_from_kip320 = 0
    for s in sample_states:
        reference = kinds_of("hw", s, REPLICATION_KINDS)
        for variant in ("kip101", "kip279"):
            assert kinds_of(variant, s, REPLICATION_KINDS) == reference, (variant, s)
        differs_from_kip320 += kinds_of("kip320", s, REPLICATION_KINDS) != reference
    # Sanity: the sample does exercise states where kip320's fencing changes actions 5-8.
    assert differs_from_kip320 > 0


def test_kip320_truncates_like_kip279_when_leader_is_in_request_epoch(sample_states):
    compared = 0
    for s in sample_states:
        unfenced = kinds_of("kip279", s, ("BecomeFollower",))
        fenced = kinds_of("kip320", s, ("BecomeFollower",))
        assert fenced <= unfenced, s
        for action, after in unfenced:
            _, r, leader, epoch = action
            fenced_ok = s.replicas[leader].leader == leader and s.replicas[leader].epoch == epoch
            assert ((action, after) in fenced) == fenced_ok, (action, s)
            compared += fenced_ok
    assert compared > 0
