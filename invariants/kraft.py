"""Invariants of the `kraft` model: the four the TLA+ specification checks, and one step
property: a voter's HW never moves back. Each is written once, over packed rows (the layout of
variant `tla`, `model.kraft.tla.layout`), so the compiled search of variant `tla` evaluates
them; on a readable state of any variant each is evaluated by packing the voters' own
variables first (`model.kraft.tla.codec.encode_voters`)."""

from __future__ import annotations

from checker.invariant import Invariant, StepProperty
from checker.kernel.jit import kernel
from checker.kernel.steps import code_actor, code_kind
from invariants.kraft_milestones import ACKED_MILESTONES
from model.kraft.state import ACKED, ILLEGAL, LEADER, NIL, KRaftState
from model.kraft.tla.codec import encode_voters, fitting_layout
from model.kraft.tla.kinds import RESTART
from model.kraft.tla.layout import EPOCH, HW, LEADER as LEADER_AT, ROLE, acked, entry_epoch, entry_value, get, \
    holds_value, log_length


@kernel
def leader_has_acked_values(s, lay):
    """The newest leader (no voter in a later epoch) has every value a client was
    acknowledged: a failure is an acknowledged write lost (the specification's
    LeaderHasAllAckedValues)."""
    newest = 0
    for i in range(lay.replicas):
        newest = max(newest, get(s, lay, i, EPOCH))
    for i in range(lay.replicas):
        if get(s, lay, i, ROLE) == LEADER and get(s, lay, i, EPOCH) == newest:
            for v in range(1, lay.values + 1):
                if acked(s, lay, v) == ACKED and not holds_value(s, lay, i, v):
                    return False
    return True


@kernel
def no_log_divergence(s, lay):
    """Any two voters' logs agree up to the lower of their two HWs: what one voter counts as
    committed is what the other has (the specification's NoLogDivergence)."""
    for a in range(lay.replicas):
        for b in range(a + 1, lay.replicas):
            length_a, length_b = log_length(s, lay, a), log_length(s, lay, b)
            for offset in range(1, min(get(s, lay, a, HW), get(s, lay, b, HW)) + 1):
                if (offset <= length_a) != (offset <= length_b):
                    return False
                if offset <= length_a and (entry_epoch(s, lay, a, offset) != entry_epoch(s, lay, b, offset) or
                                           entry_value(s, lay, a, offset) != entry_value(s, lay, b, offset)):
                    return False
    return True


@kernel
def one_leader_per_epoch(s, lay):
    """No two voters of one epoch know different leaders (the specification's
    NeverTwoLeadersInSameEpoch)."""
    for a in range(lay.replicas):
        for b in range(a + 1, lay.replicas):
            la, lb = get(s, lay, a, LEADER_AT), get(s, lay, b, LEADER_AT)
            if la != NIL and lb != NIL and la != lb and get(s, lay, a, EPOCH) == get(s, lay, b, EPOCH):
                return False
    return True


@kernel
def no_illegal_state(s, lay):
    """No voter took a transition Kafka's `QuorumState` refuses, such as following a leader
    in the epoch it already follows or leads in (the specification's NoIllegalState), or, in a
    faithful variant, a step on which Kafka's code throws (a follower told to truncate below its
    HW, or sent a lower HW than it has)."""
    for i in range(lay.replicas):
        if get(s, lay, i, ROLE) == ILLEGAL:
            return False
    return True


@kernel
def hw_never_goes_back(s, t, lay, restarted):
    """No voter's HW moves back in a step: what it counted as committed stays counted. A voter
    that restarts (index `restarted`; -1 none) forgets its HW, and a new leader has none until
    its epoch's first record is committed (Kafka's `LeaderState` starts without one); those
    steps are not moves back."""
    for i in range(lay.replicas):
        elected = get(t, lay, i, ROLE) == LEADER and get(s, lay, i, ROLE) != LEADER
        if get(t, lay, i, HW) < get(s, lay, i, HW) and i != restarted and not elected:
            return False
    return True


@kernel
def violations(s, lay, selected):
    """A bitmask of the invariants (in `INVARIANTS` order) among `selected` that `s` breaks."""
    broken = 0
    if selected & 1 and not leader_has_acked_values(s, lay):
        broken |= 1
    if selected & 2 and not no_log_divergence(s, lay):
        broken |= 2
    if selected & 4 and not one_leader_per_epoch(s, lay):
        broken |= 4
    if selected & 8 and not no_illegal_state(s, lay):
        broken |= 8
    return broken


@kernel
def broken_steps(s, code, t, lay, selected):
    """A bitmask of the step properties among `selected` that the step `code` from s to t
    breaks: bit 0, hw-never-goes-back (a step of variant `tla`; its Restart names the voter)."""
    restarted = code_actor(code) - 1 if code_kind(code) == RESTART else -1
    return 1 if selected & 1 and not hw_never_goes_back(s, t, lay, restarted) else 0


_last: list = [None, None]
"""The readable state packed last and its row: the invariants of one state pack it once."""


def _packed(state: KRaftState):
    if _last[0] is not state:
        lay = fitting_layout(state)
        _last[:] = [state, (encode_voters(state, lay), lay)]
    return _last[1]


def _on_readable(predicate):
    """`predicate` over packed rows as a predicate over readable `kraft` states of any variant."""
    def holds(state: KRaftState) -> bool:
        return bool(predicate(*_packed(state)))
    holds.__doc__ = predicate.__doc__
    return holds


def hw_never_goes_back_step(before: KRaftState, action: tuple, after: KRaftState) -> bool:
    """`hw_never_goes_back` of a readable step: a Restart, or a faithful variant's LoseDisk,
    names the voter that came back (1..n)."""
    lay = fitting_layout(before, after)
    restarted = action[1] - 1 if action[0] in ("Restart", "LoseDisk") else -1
    return bool(hw_never_goes_back(encode_voters(before, lay), encode_voters(after, lay), lay, restarted))


hw_never_goes_back_step.__doc__ = hw_never_goes_back.__doc__


def _invariant(name: str, summary: str, predicate, milestones: tuple[str, ...] = ()) -> Invariant:
    return Invariant(name, summary, _on_readable(predicate), kernel=predicate, milestones=milestones)


INVARIANTS = (
    _invariant("leader-has-acked-values", "the newest leader holds every acknowledged value", leader_has_acked_values,
               ACKED_MILESTONES),
    _invariant("no-log-divergence", "voters' logs agree below the lower of their HWs", no_log_divergence),
    _invariant("one-leader-per-epoch", "never two leaders known in one epoch", one_leader_per_epoch),
    _invariant("no-illegal-state", "no voter takes a transition QuorumState refuses", no_illegal_state),
    StepProperty("hw-never-goes-back", "no voter's HW moves back, but as it restarts or is elected (a step property)",
                 hw_never_goes_back_step),
)
