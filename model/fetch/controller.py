"""The controller: notices dead and restarted brokers, elects leaders, sends LeaderAndIsr.

Every election bumps the leader epoch (up to `max_epoch`) and sends LeaderAndIsr to the
brokers the controller counts alive (`counted_alive`), which may handle their requests late and
in any order (a broker ignores one whose epoch is not above its own; a crash loses the requests
not yet handled, but for Kafka 0.10 to 2.1's controller, which resends them to the broker's next
incarnation: `rule_kernels.bounce_missed`). A broker that comes back is sent the current
LeaderAndIsr when the controller notices it.

Kafka elects the first live ISR member in the partition's replica assignment order, which
differs from partition to partition; so an election here is a choice among every live ISR
member (each choice is its own step), which covers every assignment order and prefers no
replica id; under rule preferred-replica=rebalanced the first replica of the assignment, the
preferred one, is modelled (`layout.preferred`): an election takes it whenever it is a candidate,
and the controller moves leadership back to it on its own (`preferred_replica_election`).

Under kip966 the controller also keeps the eligible leader replicas (`model.fetch.elr`): a dead
broker leaves the ISR even when it is the last member, elections may pick from the ELR, and a
broker's registration after a restart tells the controller whether it shut down cleanly.

From kip320 on (`rule_kernels.bounce_failed_first`), a broker that restarted before the controller
saw it die is seen as failed first, then as back (ZooKeeper from Kafka 2.2:
`KafkaController.processBrokerChange` runs `onBrokerFailure` for a bounced broker before
`onBrokerStartup`; KRaft: `ClusterControlManager.registerBroker` refuses the new incarnation until
the old one is fenced). So a restarted leader loses leadership to another live ISR member, and is
elected again only as the ISR's last member. Kafka 0.10 to 2.1 could miss a bounce altogether
(KAFKA-1120, `rule_kernels.bounce_missed`): nothing happens, and the broker, back without
LeaderAndIsr, waits for the controller's next change of the partition.

Handling a broker as gone (`fail`) is one rule, used for a dead or bounced broker, a live broker
the controller fences (`--max-fencings`: it runs on as a zombie until it registers again) and a
controlled shutdown (`model.fetch.shutdown`). How a change is written follows each release: a new
leader epoch for every controller write up to kip320 (ZooKeeper), also for every ISR shrink under
kip903 (KRaft before metadata version 3.6), and from kafka37 a new leader epoch only when the
leader changes (`rule_kernels.isr_change_keeps_leader_epoch`).
"""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.guards import holds, note
from checker.kernel.steps import action_code, emit

from .guards import (ANY_REPLICA_UP, CLEAN_ELECTION, ELECTION_EPOCH, ELR_ELECTION, ELR_ON, FAILURE_GONE,
                     FAILURE_ISR_QUORUM, FENCE_ISR_QUORUM, FENCE_NO_BOUNCE, FENCE_REGISTERED, FENCINGS_LEFT,
                     FAILOVER_CHANGES, FAILOVER_MISSED, LAST_LEADER_ELECTION, NO_CLEAN_CANDIDATE, PARTITION_OFFLINE, PREFERRED_CANDIDATE, PREFERRED_EPOCH,
                     PREFERRED_NO_BOUNCE, PREFERRED_NOT_LEADER, PREFERRED_ON, RESTART_BACK, RESTART_NO_BOUNCE,
                     UNCLEAN_ELECTION, UNCLEAN_ON)
from .elr import elr_after, elr_after_election, elr_candidates, record_elr, registered
from .hw import advance_hw, leads_epoch
from .kinds import (CONTROLLER_FAILOVER, CONTROLLER_NOTICE_FAILURE, CONTROLLER_NOTICE_RESTART, FENCE_LIVE_BROKER,
                    NO_LEADER, PREFERRED_REPLICA_ELECTION)
from .layout import (RUNNING, UNCLEAN_STOP, alive, controller_epoch, controller_isr, controller_leader,
                     controller_offline, count_fencing, crashes, deliver, drop_requests_up_to, elr, epoch, fencings,
                     has_request, last_known_leader, last_stop, mark_remote_stale, member, preferred, set_controller,
                     set_controller_offline, set_isr, set_last_stop)
from .state import NO_EPOCH, NONE
from .rule_kernels import (bounce_failed_first, bounce_missed, broker_epochs, eligible_leaders,
                           isr_change_keeps_leader_epoch, majority_quorum, prefers_replica)


@kernel
def leader_arg(ldr):
    """The controller's leader as an action argument (`NO_LEADER` when offline)."""
    return NO_LEADER if ldr == NONE else ldr


@kernel
def waiting(s, lay, r):
    """Broker r has a LeaderAndIsr request it has not handled yet."""
    for e in range(lay.max_epoch + 1):
        if has_request(s, lay, r, e):
            return True
    return False


@kernel
def restarted_unregistered(s, lay, r):
    """Broker r is up again after a stop and has not registered with the controller yet: it knows
    no epoch and has no LeaderAndIsr to handle."""
    return alive(s, lay, r) and epoch(s, lay, r) == NO_EPOCH and crashes(s, lay) > 0 and not waiting(s, lay, r)


@kernel
def bounced(s, lay):
    """The brokers that restarted before the controller saw them die and that it has yet to fail
    (from kip320 on; none before). Kafka handles them first: `processBrokerChange` fails the
    bounced brokers before it handles any other broker that came or went."""
    if not bounce_failed_first(lay):
        return 0
    found = 0
    for r in range(lay.replicas):
        if restarted_unregistered(s, lay, r) and not member(controller_offline(s, lay), r):
            found |= 1 << r
    return found


@kernel
def counted_alive(s, lay, r, excluded):
    """The controller counts broker r alive, `excluded` being the brokers it counts dead or has
    yet to fail as bounced (a bounced broker is sent nothing until it is taken back, as
    `KafkaController.processBrokerChange` removes it from the live brokers first): r is not
    excluded, has registered since its last stop (kip966), and is up, or, under Kafka 0.10 to
    2.1's controller (`rule_kernels.bounce_missed`), whether or not it is up: that controller
    learns of a stop only when it sees the broker gone from ZooKeeper."""
    if member(excluded, r) or not registered(s, lay, r):
        return False
    return bounce_missed(lay) or alive(s, lay, r)


@kernel
def controller_update(s, t, lay, ldr, new_isr, new_elr, offline):
    """A new leader epoch with this leader and ISR (and under kip966 this ELR) is recorded and
    sent to every broker the controller counts alive (`counted_alive`), `offline` being the
    brokers it counts dead after the step. Callers check that epochs remain."""
    e = controller_epoch(t, lay) + 1
    set_controller(t, lay, e, ldr, new_isr, offline)
    record_elr(s, t, lay, new_elr)
    pending = bounced(s, lay)
    for r in range(lay.replicas):
        if counted_alive(t, lay, r, offline | pending):
            deliver(t, lay, r, e, ldr, new_isr)


@kernel
def controller_isr_update(s, t, lay, new_isr, new_elr, offline):
    """The controller's record gets this ISR (and under kip966 this ELR) with the same leader and
    leader epoch (`rule_kernels.isr_change_keeps_leader_epoch`: KRaft's new partition epoch): every
    live registered broker that has yet to handle this epoch's LeaderAndIsr will find the new
    ISR in it, and a leader already in this epoch takes the new ISR at once and recomputes its
    HW (`Partition.makeLeader` with the same leader epoch @ 3.7.0). Followers are not asked to
    truncate: their leader epoch did not change."""
    e, ldr = controller_epoch(s, lay), controller_leader(s, lay)
    set_controller(t, lay, e, ldr, new_isr, offline)
    record_elr(s, t, lay, new_elr)
    pending = bounced(s, lay)
    for r in range(lay.replicas):
        if counted_alive(t, lay, r, offline | pending) and has_request(t, lay, r, e):
            deliver(t, lay, r, e, ldr, new_isr)
    if ldr != NONE and leads_epoch(t, lay, ldr, e):
        set_isr(t, lay, ldr, new_isr)
        advance_hw(t, lay, ldr)


@kernel
def controller_change(s, t, lay, new_isr, new_elr, offline):
    """The controller changes the ISR (or ELR) and keeps the leader: in the same leader epoch
    from kafka37 on (`controller_isr_update`), in a new one before (`controller_update`)."""
    if isr_change_keeps_leader_epoch(lay):
        controller_isr_update(s, t, lay, new_isr, new_elr, offline)
    else:
        controller_update(s, t, lay, controller_leader(s, lay), new_isr, new_elr, offline)


@kernel
def live(s, lay, offline):
    """The replicas the controller counts alive (`counted_alive`), `offline` being those it
    counts dead: the unfenced ones."""
    replicas = 0
    pending = bounced(s, lay)
    for r in range(lay.replicas):
        if counted_alive(s, lay, r, offline | pending):
            replicas |= 1 << r
    return replicas


@kernel
def candidates(s, lay, tally, isr, new_elr, offline):
    """Whom an election may pick: the live ISR members (under kip966, if the ISR is empty, an
    unfenced ELR member or the last known leader: `elr.elr_candidates`); if none, with unclean
    election on, the live replicas; else nobody (the partition goes offline). Under rule
    preferred-replica=rebalanced the preferred replica alone when it is among them: it is the
    first of the assignment, where every selector looks first."""
    up = live(s, lay, offline)
    if holds(tally, ELR_ON, eligible_leaders(lay)):
        choice = elr_candidates(s, lay, tally, isr, new_elr, up)
    else:
        choice = isr & up
    if holds(tally, NO_CLEAN_CANDIDATE, choice == 0):
        choice = up if holds(tally, UNCLEAN_ON, lay.unclean) and holds(tally, ANY_REPLICA_UP, up != 0) else 0
    return first_in_assignment(s, lay, choice)


@kernel
def first_in_assignment(s, lay, choice):
    """The candidates an election picks from among `choice`: under rule
    preferred-replica=rebalanced the preferred replica alone when it is one of them, otherwise
    all of them (any assignment order after it)."""
    p = preferred(s, lay)
    if prefers_replica(lay) and member(choice, p):
        return 1 << p
    return choice


@kernel
def election_event(s, lay, r, isr, new_elr):
    """Which election electing replica r is, with the ISR `isr` and the ELR `new_elr` before it:
    an ISR member (clean), an ELR member, the last known leader, or anyone else (unclean)."""
    if member(isr, r):
        return CLEAN_ELECTION
    if eligible_leaders(lay) and member(new_elr, r):
        return ELR_ELECTION
    if eligible_leaders(lay) and last_known_leader(s, lay) == r:
        return LAST_LEADER_ELECTION
    return UNCLEAN_ELECTION


@kernel
def elect(s, lay, out, acts, tally, n, kind, noticed, isr, new_elr, offline):
    """One successor per election outcome, each taken by action (kind, noticed broker, new
    leader): every candidate (a replica elected from outside the ISR becomes the whole ISR),
    or, with no candidate, the partition offline with the ISR unchanged. `isr` and `new_elr`
    are the controller's ISR and ELR before the election."""
    choice = candidates(s, lay, tally, isr, new_elr, offline)
    if choice == 0:
        t = emit(s, out, acts, n, action_code(kind, noticed, NO_LEADER, 0))
        note(tally, PARTITION_OFFLINE)
        controller_update(s, t, lay, NONE, isr, new_elr, offline)
        return n + 1
    for r in range(lay.replicas):
        if member(choice, r):
            t = emit(s, out, acts, n, action_code(kind, noticed, r, 0))
            note(tally, election_event(s, lay, r, isr, new_elr))
            controller_update(s, t, lay, r, isr if member(isr, r) else 1 << r,
                              elr_after_election(lay, r, isr, new_elr), offline)
            n += 1
    return n


@kernel
def fail(s, lay, out, acts, tally, n, kind, r):
    """One successor per outcome of the controller handling broker r as gone (as action `kind`,
    with r and the leader after as arguments): r leaves the ISR (unless it is the last member, as
    Kafka keeps it; under kip966 even then, and it joins the ELR if the ISR is now below
    min.insync.replicas), and if it led, or the partition was offline, a leader is elected among
    the others. A new epoch is written only when the partition's record changes, as every Kafka
    controller does (`KafkaController.removeReplicaFromIsr` @ 0.10.2.0 writes only when the
    broker was in the ISR; an offline partition with no candidate stays as it is); none when the
    epochs are spent and one would be needed."""
    ldr, isr, offline = controller_leader(s, lay), controller_isr(s, lay), controller_offline(s, lay)
    spare = controller_epoch(s, lay) < lay.max_epoch
    me = 1 << r
    shrunk = isr & ~me if isr & ~me or eligible_leaders(lay) else isr
    new_elr = elr_after(s, lay, shrunk, 0)
    electing = ldr == r or ldr == NONE and candidates(s, lay, tally, shrunk, new_elr, offline | me) != 0
    if electing:
        if holds(tally, ELECTION_EPOCH, spare):
            n = elect(s, lay, out, acts, tally, n, kind, r, shrunk, new_elr, offline | me)
    elif shrunk != isr or (eligible_leaders(lay) and new_elr != elr(s, lay)):
        if spare or isr_change_keeps_leader_epoch(lay):
            t = emit(s, out, acts, n, action_code(kind, r, leader_arg(ldr), 0))
            controller_change(s, t, lay, shrunk, new_elr, offline | me)
            n += 1
    else:  # nothing in the partition's record changes: no new epoch, nothing sent
        t = emit(s, out, acts, n, action_code(kind, r, leader_arg(ldr), 0))
        set_controller_offline(t, lay, offline | me)
        n += 1
    return n


@kernel
def controller_notice_failure(s, lay, out, acts, tally, n):
    """The controller notices that broker r died, or that r restarted before it saw the death (a
    bounced broker is failed first, and before any other broker: `bounced`), and handles it as
    gone (`fail`). Under Kafka 0.10 to 2.1's controller it also drops the requests it had queued
    for r (`ControllerChannelManager.removeBroker` @ 0.10.2.0, 2.1.0), which r would otherwise have
    been sent once back. (Not under a majority quorum, which has no ISR and elects by votes.)"""
    if not holds(tally, FAILURE_ISR_QUORUM, not majority_quorum(lay)):
        return n
    offline, first = controller_offline(s, lay), bounced(s, lay)
    for r in range(lay.replicas):
        gone = member(first, r) if first else not alive(s, lay, r) and not member(offline, r)
        if holds(tally, FAILURE_GONE, gone):
            done = n
            n = fail(s, lay, out, acts, tally, n, CONTROLLER_NOTICE_FAILURE, r)
            if bounce_missed(lay):  # `ControllerChannelManager.removeBroker`: its queue is dropped
                for j in range(done, n):
                    drop_requests_up_to(out[j], lay, r, lay.max_epoch)
    return n


@kernel
def fenced_alive(s, lay, r):
    """Broker r still runs, with the epoch and view it had, though the controller fenced it
    (`fence_live_broker`): it has yet to register again."""
    return alive(s, lay, r) and member(controller_offline(s, lay), r) and epoch(s, lay, r) != NO_EPOCH


@kernel
def fence_live_broker(s, lay, out, acts, tally, n):
    """The controller fences a live broker (while fencings remain in the bounds): its session
    expired or it missed its heartbeats (`KafkaController.processBrokerChange` @ 3.4.0 on ZooKeeper
    session expiry; `ReplicationControlManager.maybeFenceOneStaleBroker` @ 3.4.0, 3.7.0). The
    controller handles it as gone (`fail`), while the broker keeps running with its log and the
    view it had, and may still believe it leads: a zombie, which KIP-320's epoch fencing keeps
    its followers away from. It is taken back when it registers again (`controller_notice_restart`).
    (Not under a majority quorum, which elects by votes.)"""
    if not (holds(tally, FENCE_ISR_QUORUM, not majority_quorum(lay))
            and holds(tally, FENCINGS_LEFT, fencings(s, lay) < lay.max_fencings)
            and holds(tally, FENCE_NO_BOUNCE, bounced(s, lay) == 0)):
        return n
    for r in range(lay.replicas):
        if not holds(tally, FENCE_REGISTERED, alive(s, lay, r) and not member(controller_offline(s, lay), r)
                     and registered(s, lay, r) and epoch(s, lay, r) != NO_EPOCH):
            continue
        first = n
        n = fail(s, lay, out, acts, tally, n, FENCE_LIVE_BROKER, r)
        for j in range(first, n):
            count_fencing(out[j], lay)
    return n


@kernel
def back(s, lay, r):
    """Broker r is back for the controller to take in: fenced while it ran, it registers again
    (`fenced_alive`), or it restarted and has yet to register (`restarted_unregistered`); under
    Kafka 0.10 to 2.1's controller only once the controller saw it dead (`bounce_missed`: a
    bounce it missed is no news to it)."""
    if fenced_alive(s, lay, r):
        return True
    return restarted_unregistered(s, lay, r) and (member(controller_offline(s, lay), r) or not bounce_missed(lay))


@kernel
def controller_notice_restart(s, lay, out, acts, tally, n):
    """The controller notices that broker r is back (`back`): r restarted (it knows no epoch and
    has no request to handle), or r, fenced while it ran, registers again. Under kip966
    the registration says whether r shut down cleanly; if not, r leaves the ISR and the ELR. If
    the partition is offline, a leader is elected in a new epoch (r, if it is the last ISR
    member: Last Replica Standing). Otherwise, or when nobody can be elected, r is sent the
    current LeaderAndIsr (in a new epoch if r left the ISR). Under a majority quorum nobody is elected here (elections are
    votes, `election.win_election`): r is sent the current leader, unless r was that leader,
    which waits for the next election; and a restart needs no failure noticed first."""
    ldr, e = controller_leader(s, lay), controller_epoch(s, lay)
    if not holds(tally, RESTART_NO_BOUNCE, bounced(s, lay) == 0):
        return n  # a bounced broker is failed before any broker is taken back
    for r in range(lay.replicas):
        if not holds(tally, RESTART_BACK, back(s, lay, r)):
            continue
        me = 1 << r
        offline = controller_offline(s, lay) & ~me
        unclean = me if last_stop(s, lay, r) == UNCLEAN_STOP else 0
        isr = controller_isr(s, lay) & ~unclean
        new_elr = elr_after(s, lay, isr, unclean) if unclean else elr(s, lay) if eligible_leaders(lay) else 0
        u = registering(s, lay, r)
        if majority_quorum(lay):
            if ldr == r:
                continue
        elif (ldr == r or ldr == NONE) and candidates(u, lay, tally, isr, new_elr, offline):
            if holds(tally, ELECTION_EPOCH, e < lay.max_epoch):
                n = elect(u, lay, out, acts, tally, n, CONTROLLER_NOTICE_RESTART, r, isr, new_elr, offline)
            continue
        elif isr != controller_isr(s, lay):
            if e < lay.max_epoch or isr_change_keeps_leader_epoch(lay):
                t = emit(u, out, acts, n, action_code(CONTROLLER_NOTICE_RESTART, r, leader_arg(ldr), 0))
                controller_change(u, t, lay, isr, new_elr, offline)
                if isr_change_keeps_leader_epoch(lay):
                    deliver(t, lay, r, e, ldr, isr)
                n += 1
            continue
        t = emit(u, out, acts, n, action_code(CONTROLLER_NOTICE_RESTART, r, leader_arg(ldr), 0))
        set_controller_offline(t, lay, offline)
        record_elr(u, t, lay, new_elr)
        deliver(t, lay, r, e, ldr, controller_isr(s, lay))
        n += 1
    return n


@kernel
def registering(s, lay, r):
    """A copy of s in which the controller has registered broker r's new incarnation: under kip966
    it no longer waits to learn how r stopped, and from kip903 on r has a new broker epoch, so
    every leader's remote LEO of r now comes from an old one (`ClusterControlManager.registerBroker`
    @ 3.5.0 writes a new broker epoch at every registration it accepts, and
    `ReplicationControlManager.ineligibleReplicasForIsr` refuses any other); s itself when the
    rule set keeps neither record."""
    if not eligible_leaders(lay) and not broker_epochs(lay):
        return s
    u = s.copy()
    if eligible_leaders(lay):
        set_last_stop(u, lay, r, RUNNING)
    if broker_epochs(lay):
        mark_remote_stale(u, lay, r)
    return u


@kernel
def preferred_replica_election(s, lay, out, acts, tally, n):
    """Under rule preferred-replica=rebalanced (auto.leader.rebalance.enable, on by default), the
    controller moves leadership to the partition's preferred replica p when p does not lead, is
    counted alive and is in the ISR: a new leader epoch with p as leader and the same ISR, sent
    like every election (`checkAndTriggerPartitionRebalance`, `PreferredReplicaPartitionLeaderSelector`
    @ 0.10.2.0; `checkAndTriggerAutoLeaderRebalance` @ 0.11.0.0, 2.1.0,
    `PartitionStateMachine.leaderForPreferredReplica` @ 2.1.0). Kafka checks every
    leader.imbalance.check.interval.seconds and moves a partition only while its preferred
    replica's brokers are imbalanced enough, which other partitions decide: here it may happen
    at any moment. It waits, like every controller step, while a bounced broker waits to be
    failed first."""
    if not (holds(tally, PREFERRED_ON, prefers_replica(lay))
            and holds(tally, PREFERRED_NO_BOUNCE, bounced(s, lay) == 0)):
        return n
    p, offline = preferred(s, lay), controller_offline(s, lay)
    if not (holds(tally, PREFERRED_NOT_LEADER, controller_leader(s, lay) != p)
            and holds(tally, PREFERRED_CANDIDATE, member(controller_isr(s, lay) & live(s, lay, offline), p))
            and holds(tally, PREFERRED_EPOCH, controller_epoch(s, lay) < lay.max_epoch)):
        return n
    t = emit(s, out, acts, n, action_code(PREFERRED_REPLICA_ELECTION, p, 0, 0))
    controller_update(s, t, lay, p, controller_isr(s, lay), elr(s, lay) if eligible_leaders(lay) else 0, offline)
    return n + 1


@kernel
def controller_failover(s, lay, out, acts, tally, n):
    """Under Kafka 0.10 to 2.1's controller (`rule_kernels.bounce_missed`), another broker becomes
    controller (`KafkaController.onControllerFailover` @ 0.10.2.0, 2.1.0): it reads the live
    brokers from ZooKeeper, where a broker the old controller saw dead and that is back is
    registered again (a broker down whose session has not expired yet is still there), and
    starts its replica state machine, which sends every replica it counts alive the partition's
    current LeaderAndIsr (`ReplicaStateMachine.startup`, `handleStateChange` to OnlineReplica @
    0.10.2.0, 2.1.0): a broker back without one (a bounce missed) takes it up in the current
    epoch. If the partition has no leader, its partition state machine elects one among the
    live ISR members, which become the ISR (or, with unclean election on, any live replica):
    one successor per candidate, each in a new epoch. The step is taken only where it changes
    something; the queues the old controller kept for brokers that are down are lost with it.
    (What a controller failover sends from 2.2 on is what the broker has: left out.)"""
    if not holds(tally, FAILOVER_MISSED, bounce_missed(lay)):
        return n
    up = 0
    for r in range(lay.replicas):
        if alive(s, lay, r):
            up |= 1 << r
    ldr, isr, e = controller_leader(s, lay), controller_isr(s, lay), controller_epoch(s, lay)
    offline = controller_offline(s, lay) & ~up
    if ldr == NONE and e < lay.max_epoch:
        clean = isr & live(s, lay, offline)
        choice = candidates(s, lay, tally, isr, 0, offline)
        for r in range(lay.replicas):
            if member(choice, r):
                t = emit(s, out, acts, n, action_code(CONTROLLER_FAILOVER, r, 0, 0))
                note(tally, election_event(s, lay, r, isr, 0))
                forget_down_queues(t, lay, up)
                controller_update(s, t, lay, r, clean if member(clean, r) else 1 << r, 0, offline)
                n += 1
        if choice:
            return n
    t = emit(s, out, acts, n, action_code(CONTROLLER_FAILOVER, leader_arg(ldr), 0, 0))
    forget_down_queues(t, lay, up)
    set_controller_offline(t, lay, offline)
    if ldr != NONE:
        for r in range(lay.replicas):
            if counted_alive(t, lay, r, offline) and epoch(s, lay, r) < e:
                deliver(t, lay, r, e, ldr, isr)
    changed = False
    for i in range(s.shape[0]):
        if t[i] != s[i]:
            changed = True
    if holds(tally, FAILOVER_CHANGES, changed):
        n += 1
    return n


@kernel
def forget_down_queues(t, lay, up):
    """The requests queued for the brokers not in `up` are lost with the controller that queued
    them."""
    for r in range(lay.replicas):
        if not member(up, r):
            drop_requests_up_to(t, lay, r, lay.max_epoch)
