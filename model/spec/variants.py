"""The four protocol variants of the `spec` model: what each one means, and, for every rule a
variant may change, which variant's version applies.

    rule                          hw    kip101  kip279  kip320
    truncation point              hw    kip101  kip279  kip279
    HW advance, ISR shrink/join   hw    hw      hw      kip320
    fetch and truncation fencing  none  none    none    kip320
"""

from __future__ import annotations

from checker.kernel.jit import kernel

from ..truncation_rules import HW_RULE, KIP101_RULE, KIP279_RULE
from . import hw, kip101, kip279, kip320
from .layout import HW_TRUNCATION, KIP101, KIP320, VARIANT_NAMES

MEANINGS = {
    "hw": "truncate to the high watermark (Kafka before 0.11)",
    "kip101": "leader-epoch truncation, first version (KIP-101, Kafka 0.11)",
    "kip279": "epoch truncation fixed for fast leader changes (KIP-279, Kafka 2.0)",
    "kip320": "fenced fetch and truncation by current leader epoch (KIP-320, Kafka 2.1)",
}
assert tuple(MEANINGS) == VARIANT_NAMES

@kernel
def truncation_rule(lay):
    """The rule by which a replica becoming follower truncates (an index into
    `model.truncation_rules.RULES`): its HW under hw, KIP-101's answer under kip101, KIP-279's
    epoch walk under kip279 and kip320."""
    if lay.variant == HW_TRUNCATION:
        return HW_RULE
    if lay.variant == KIP101:
        return KIP101_RULE
    return KIP279_RULE


@kernel
def truncation_point(s, lay, r, ldr):
    """Where replica r truncates its log when it becomes follower of `ldr`, by its variant's
    rule (`truncation_rule`)."""
    rule = truncation_rule(lay)
    if rule == HW_RULE:
        return hw.truncation_point(s, lay, r, ldr)
    if rule == KIP101_RULE:
        return kip101.truncation_point(s, lay, r, ldr)
    return kip279.truncation_point(s, lay, r, ldr)


@kernel
def can_advance_hw(s, lay, ldr):
    """Whether `ldr` may advance its HW by one offset."""
    if lay.variant == KIP320:
        return kip320.can_advance_hw(s, lay, ldr)
    return hw.can_advance_hw(s, lay, ldr)


@kernel
def is_lagging(s, lay, ldr, f):
    """Whether the leader may drop ISR member f."""
    if lay.variant == KIP320:
        return kip320.is_lagging(s, lay, ldr, f)
    return hw.is_lagging(s, lay, ldr, f)


@kernel
def may_join_isr(s, lay, ldr, f):
    """Whether the leader may add replica f to its ISR."""
    if lay.variant == KIP320:
        return kip320.may_join_isr(s, lay, ldr, f)
    return hw.may_join_isr(s, lay, ldr, f)


@kernel
def accepts_fetch(s, lay, ldr, f):
    """Whether the leader serves f's fetch: always, until KIP-320's epoch fencing."""
    if lay.variant == KIP320:
        return kip320.accepts_fetch(s, lay, ldr, f)
    return True


@kernel
def may_become_follower(s, lay, ldr, e):
    """Whether a replica may act on epoch e's request naming `ldr` (beyond the epoch being new
    to it): always, until KIP-320 asks for a leader already in that epoch."""
    if lay.variant == KIP320:
        return kip320.may_become_follower(s, lay, ldr, e)
    return True
