"""A controlled shutdown (`--controlled-shutdown`): the broker asks the controller to move its
leadership and drop it from the ISR, and stops cleanly once the controller has done so.

ZooKeeper (`KafkaController.doControlledShutdown` @ 3.4.0): the partitions the broker leads get a
new leader among the live ISR members that are not shutting down
(`Election.leaderForControlledShutdown`), with the broker out of the ISR; where it only follows,
it leaves the ISR (`OfflineReplica`); where it is the last ISR member it keeps leading until it
stops, and its death then leaves the partition offline. KRaft
(`ReplicationControlManager.handleBrokerInControlledShutdown` @ 3.4.0, 3.7.0) runs the same
partition changes as for a fenced broker (`generateLeaderAndIsrUpdates`), so the last ISR member
leaves the partition leaderless at once (under kip966 the ISR empties and it joins the ELR). The
broker then flushes its log, checkpoints its HW and stops, leaving the clean-shutdown marker.

The model takes both in one step: the controller handles the broker as gone (`controller.fail`:
the same outcomes, each its own step), then the broker stops cleanly. For the last ISR member
the end state is the one both controllers reach once the broker has stopped. A controlled
shutdown counts against --max-crashes, like every stop; it waits while the controller has a
bounced broker to fail first, and needs an epoch where its partition change writes one.
"""

from __future__ import annotations

from checker.kernel.jit import kernel
from checker.kernel.guards import holds

from .guards import (CONTROLLED_ISR_QUORUM, CONTROLLED_NO_BOUNCE, CONTROLLED_ON, CONTROLLED_REGISTERED,
                     CONTROLLED_STOPS_LEFT)
from .controller import bounced, fail
from .kinds import CONTROLLED_SHUTDOWN
from .elr import registered
from .layout import CLEAN_STOP, alive, controller_offline, crashes, hw, leo, member, set_checkpoint, set_flushed
from .lifecycle import go_down
from .rule_kernels import majority_quorum


@kernel
def stop_cleanly(t, lay, r):
    """Broker r flushes its log, checkpoints its HW and stops, leaving the clean-shutdown marker."""
    set_flushed(t, lay, r, leo(t, lay, r))
    set_checkpoint(t, lay, r, hw(t, lay, r))
    go_down(t, lay, r, CLEAN_STOP)


@kernel
def controlled_shutdown(s, lay, out, acts, tally, n):
    """A live broker the controller counts alive and registered shuts down in a controlled way
    (while stops remain in the bounds): one successor per outcome of the controller moving its
    leadership and ISR membership (`controller.fail`), in each of which it then stops cleanly."""
    if not (holds(tally, CONTROLLED_ON, lay.controlled_shutdown)
            and holds(tally, CONTROLLED_ISR_QUORUM, not majority_quorum(lay))
            and holds(tally, CONTROLLED_STOPS_LEFT, crashes(s, lay) < lay.max_crashes)
            and holds(tally, CONTROLLED_NO_BOUNCE, bounced(s, lay) == 0)):
        return n
    for r in range(lay.replicas):
        if not holds(tally, CONTROLLED_REGISTERED, alive(s, lay, r) and not member(controller_offline(s, lay), r)
                     and registered(s, lay, r)):
            continue
        first = n
        n = fail(s, lay, out, acts, tally, n, CONTROLLED_SHUTDOWN, r)
        for j in range(first, n):
            stop_cleanly(out[j], lay, r)
    return n
