"""Which rows of the rule table (`model.fetch.rule_table`) each step of a `fetch` trace enacts.

Every step enacts the rows that name its action kind; a step that takes one of the branches
below enacts that row too. Each branch is recognised from the readable states before and after
the step (and, for an ISR expansion, from the FETCH that reported the follower's LEO), never from
the kernel: a trace saved by an earlier replcheck, whose steps the model no longer takes, is
judged the same way.
"""

from __future__ import annotations

from .kinds import ACTION_KINDS
from .layout import UNCLEAN_STOP
from .rule_table import ROWS
from .state import NONE, FetchRequest, FetchResponse, FetchState, members

ELECTING = ("ControllerNoticeFailure", "ControllerNoticeRestart", "FenceLiveBroker", "ControlledShutdown")
"""The controller's steps that may elect a leader."""

BY_ACTION = {kind: tuple(row.key for row in ROWS if kind in row.steps) for kind in ACTION_KINDS}
"""The rows every step of a kind enacts."""

KERNEL_SOURCE = False
"""No kernel compiles from this module (`checker.kernel.cache`)."""


def _reporting_fetch(states, actions, i: int, ldr: int, follower: int) -> int | None:
    """The step (1-based) at which leader `ldr` last recorded `follower`'s LEO by serving its
    FETCH, before step i; None if none did."""
    for j in range(i - 1, 0, -1):
        action = actions[j - 1]
        if action[0] == "LeaderServeFetch" and tuple(action[1:3]) == (ldr, follower):
            answer = states[j].brokers[follower].fetch
            if isinstance(answer, FetchResponse) and not answer.fenced:
                return j
    return None


def _expansion_rows(states, actions, i: int) -> list[str]:
    """The branches an ISR expansion at step i takes: not right after the FETCH that reported the
    follower's LEO (before 2.7 Kafka expands while it handles that FETCH), on a FETCH served while
    the follower was in the ISR, or with a broker the controller counts dead."""
    ldr, follower = actions[i - 1][1:3]
    before = states[i - 1]
    rows = []
    j = _reporting_fetch(states, actions, i, ldr, follower)
    if j != i - 1:  # before 2.7 the expansion is part of handling that FETCH: the step right after it
        rows.append("expand-outside-fetch")
    if j is not None and follower in members(states[j - 1].brokers[ldr].isr):
        rows.append("expand-on-fetch-inside-isr")
    if follower in members(before.controller.offline):
        rows.append("expand-dead-broker")
    return rows


def _target_elr(model, before: FetchState, action: tuple) -> tuple[int, int]:
    """(ISR, ELR) the controller's change at this step aims at before it elects: the broker the
    step removes (or, registering after an unclean shutdown, drops) leaves the ISR, and the ELR is
    the model's own rule for it (`FetchModel.elr_after`: `PartitionChangeBuilder.maybePopulateTargetElr`)."""
    b = action[1]
    unclean = 1 << b if action[0] == "ControllerNoticeRestart" and before.brokers[b].last_stop == UNCLEAN_STOP else 0
    isr = before.controller.isr & ~(unclean if action[0] == "ControllerNoticeRestart" else 1 << b)
    return isr, model.elr_after(before, isr, unclean)


def _election_rows(model, before: FetchState, after: FetchState, action: tuple) -> list[str]:
    """The branches a controller step's election takes: the last known leader while the target
    ELR is not empty, or an unclean election."""
    rules, config = model.rules, model.config
    chosen, c = after.controller.leader, before.controller
    if chosen == NONE or chosen == c.leader:
        return []
    isr, elr = _target_elr(model, before, action)
    if chosen in members(isr) or (rules["elr"] == "on" and not isr and chosen in members(elr)):
        return []
    if rules["elr"] == "on" and chosen == c.last_leader:
        return ["last-known-leader-with-elr"] if not isr and elr else []
    return ["unclean-election"] if config.unclean_leader_election else []


def step_rows(states: list[FetchState], actions: list[tuple], i: int, model) -> tuple[str, ...]:
    """The rows (keys of `rule_table.BY_KEY`) step i (1-based) of a trace enacts: those of its
    action kind, then the branches it takes. `states` holds the initial state first; `model` is
    the trace's (its rules, bounds, and the rules it is asked about)."""
    rules, config = model.rules, model.config
    action, before, after = actions[i - 1], states[i - 1], states[i]
    kind = action[0]
    rows = list(BY_ACTION.get(kind, ()))
    if kind == "BecomeFollower":
        r, ldr = action[1:3]
        if rules["truncation"] != "hw" and before.brokers[ldr].leader != ldr:
            rows.append("answer-before-leading")
        epochs = [epoch for epoch, _ in before.brokers[r].cache]
        if rules["truncation"] != "hw" and epochs != sorted(set(epochs)):
            rows.append("request-epoch")
        if before.brokers[r].leader == ldr and after.brokers[r].leo < before.brokers[r].leo:
            rows.append("same-leader-truncation")
    elif kind == "BecomeLeader":
        r, epoch = action[1:3]
        was, now = before.brokers[r], after.brokers[r]
        if (epoch, now.leo) in now.cache and (epoch, now.leo) not in was.cache and rules["truncation"] != "hw":
            rows.append("cache-entry-at-become-leader")
        if was.leader == r and any(old != -1 and new == -1 for f, (old, new) in enumerate(zip(was.remote, now.remote))
                                   if f != r):
            rows.append("remote-leos-on-reelection")
    elif kind == "LeaderServeFetch":
        ldr, follower = action[1:3]
        if after.brokers[ldr].isr != before.brokers[ldr].isr:  # rule isr-expansion=in-fetch
            rows.append("isr-expand")
        request = before.brokers[follower].fetch
        answer = after.brokers[follower].fetch
        if (isinstance(request, FetchRequest) and isinstance(answer, FetchResponse) and not answer.fenced
                and request.offset > before.brokers[ldr].leo):
            rows.append("offset-out-of-range")
    elif kind == "LeaderExpandIsr":
        rows += _expansion_rows(states, actions, i)
    elif kind == "ControllerNoticeRestart" and config.quorum == "isr" and action[1] not in members(before.controller.offline):
        rows.append("bounce-taken-back")  # a restart the controller never saw as a failure
    elif kind == "ControllerFailover" and after.controller.leader not in (NONE, before.controller.leader) \
            and after.controller.leader not in members(before.controller.isr):
        rows.append("unclean-election")  # the new controller elects outside the ISR
    if kind in ELECTING:
        b = action[1]
        if kind == "ControllerNoticeFailure" and config.unclean_leader_election and before.controller.isr == 1 << b:
            rows.append("last-isr-member-unclean")
        rows += _election_rows(model, before, after, action)
        if after.controller.elr != before.controller.elr:
            rows.append("elr-upkeep")
    return tuple(dict.fromkeys(rows))
