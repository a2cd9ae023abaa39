"""Sentences and phrases the explanation is built from: a step with its description, the
record a step lost or kept, one culprit step, and why a truncation point came out where it
did under the variant's rule."""

from __future__ import annotations

import re

from model.fetch.words import sequence_text
from model.spec.words import record_name
from model.spec.words import replica_name as name

from .cause import Culprit, Diagnosis
from .partition import partition_views
from .trace import Trace


STEP_NAME = re.compile(r"\b[Ss]tep (\d+)\b")
"""How a sentence of the explanation names a step: `Step 8 (...)`, `at step 7 (...)`, `since step
3` (`Page.step` and the sentences built around it). The HTML page links each to its column."""


class Page:
    """What the renderers read: the trace, its partition views and every step in words."""

    def __init__(self, trace: Trace, model):
        states = trace.states()
        self.trace, self.model = trace, model
        self.views = partition_views(trace)
        self.words = [""] + [model.describe_step(s.action, states[i], s.state) for i, s in enumerate(trace.steps)]

    def step(self, k: int) -> str:
        """'step k (what it did)'."""
        return f"step {k} ({self.words[k]})"


def lost_line(d: Diagnosis, page: Page) -> str:
    """'At step k, r lost record R at offset o, which L had already committed (its HW was h): ...'"""
    dmg, c = d.damage, d.commit
    committed = f", which {name(c.replica)} had already committed (its HW was {c.hw})" if c else ""
    return (f"At step {dmg.step}, {name(dmg.replica)} lost record {record_name(dmg.record)} at offset {dmg.offset}"
            f"{committed}: {page.words[dmg.step]}.")


def kept_line(d: Diagnosis, page: Page) -> str:
    """'At step k, r truncated to offset p and kept K at offset o, where its leader has R: ...'"""
    dmg = d.damage
    return (f"At step {dmg.step}, {name(dmg.replica)} truncated its log to offset {dmg.truncation.point} and kept "
            f"{record_name(dmg.record)} at offset {dmg.offset}, where its leader {name(dmg.peer)} holds "
            f"{record_name(dmg.peer_record)}: {page.words[dmg.step]}.")


def culprit_line(c: Culprit, page: Page) -> str:
    """One culprit step in words: what it did and why it matters."""
    who, rec = name(c.replica), record_name(c.record) if c.record else None
    if c.role == "commit" and rec is None:
        return f"{who} raised its HW to {c.hw}, and consumers saw it, at {page.step(c.step)}."
    if c.role == "commit":
        return f"The record became committed at {page.step(c.step)}."
    if c.role == "write":
        return f"{who} appended {rec} at offset {c.offset} at {page.step(c.step)}."
    if c.role == "loss":
        return f"{who} lost {rec} at offset {c.offset} at {page.step(c.step)}."
    if c.role == "stale-request":
        return (f"{who} was following {name(c.peer)} in epoch {c.epoch} under an earlier stale request, acted on at "
                f"{page.step(c.step)} when the controller was already at epoch {c.peer_epoch}.")
    if c.role == "cross-epoch-fetch":
        return (f"At {page.step(c.step)}, {who}, in epoch {c.epoch}, fetched {rec} from {name(c.peer)}, the leader "
                f"of epoch {c.peer_epoch}: before KIP-320 nothing on the fetch path compares leader epochs.")
    if c.role == "cross-epoch-hw":
        return (f"{who} had its HW {c.hw} from {name(c.peer)}'s answer to its FETCH at {page.step(c.step)}: {who} "
                f"was in epoch {c.epoch}, {name(c.peer)} the leader of epoch {c.peer_epoch}, and before KIP-320 nothing "
                f"on the fetch path compares leader epochs.")
    if c.role == "election":
        return f"The controller elected {who} leader of epoch {c.epoch} at {page.step(c.step)}."
    if c.role == "left-isr":
        return f"{who} left the ISR and became an eligible leader replica at {page.step(c.step)}."
    if c.role == "reported":
        return (f"{name(c.peer)} recorded {who}'s FETCH at offset {c.offset} at {page.step(c.step)}, and kept it as "
                f"{who}'s position.")
    if c.role == "send":
        return f"The producer sent {sequence_text(c.sequence)} to {who} at {page.step(c.step)}."
    if c.role == "failure":
        return f"{sequence_text(c.sequence)} failed at {page.step(c.step)}; the producer retries a failed record."
    if c.role == "retry":
        return f"The producer sent {sequence_text(c.sequence)} again, to {who}, at {page.step(c.step)}."
    return f"The producer's write of {rec} was acknowledged by {who} at {page.step(c.step)}."


def truncation_reason(d: Diagnosis) -> str:
    """'Why offset p: ...': how the damaging truncation chose its point under the variant's rule
    (own HW, KIP-101's answer or its fallback, KIP-279's epoch walk)."""
    dmg = d.damage
    t, r, ldr = dmg.truncation, name(dmg.replica), name(dmg.peer)
    if t.rule == "hw":
        return (f"Why offset {t.point}: HW truncation keeps everything below the follower's own HW ({t.follower_hw}) "
                f"without comparing it with the leader's log.")
    if t.rule == "kip279":
        short = t.walk_cut_short()
        if short is not None:
            epochs = ", ".join(f"e{e}" for e, _ in t.follower_cache) or "none"
            return (f"Why offset {t.point}: {r} asked {ldr} about epoch {t.asked_epoch}, and {ldr} named its epoch "
                    f"{short}. {r} has no epoch at or below e{short} (its epochs: {epochs}), and Kafka 2.0 then "
                    f"truncates to where e{short} ends in the leader's log, capped at its own LEO, without walking "
                    f"further.")
        shared = "share no record" if t.point == 0 else f"agree up to offset {t.point}"
        return f"Why offset {t.point}: KIP-279's epoch walk found that {r}'s and {ldr}'s logs {shared}."
    asked = f"{r} asked {ldr} where epoch {t.asked_epoch}, the epoch of its last record, ends (KIP-101)"
    if t.answer is None:
        return (f"Why offset {t.point}: {asked}; {ldr}'s log holds nothing from that epoch on, so there is no answer "
                f"and {r} fell back to its own HW, {t.follower_hw}.")
    later = [(e, start) for e, start in t.leader_cache if e > t.asked_epoch and start == t.answer]
    answer = f"where its epoch {later[0][0]} starts, offset {t.answer}" if later else f"its LEO, {t.answer}"
    if t.leader_has_epoch:
        return f"Why offset {t.point}: {asked}; {ldr} answered {answer}."
    epochs = ", ".join(f"e{e}" for e, _ in t.leader_cache) or "none"
    return (f"Why offset {t.point}: {asked}. {ldr} never had epoch {t.asked_epoch} (its epochs: {epochs}), so it "
            f"answered {answer}, above offset {dmg.offset} where the two logs part.")


def log_words(log: tuple) -> str:
    """A log as 'empty' or '[0:a@e0, 1:b@e1]'."""
    return "empty" if not log else "[" + ", ".join(f"{o}:{record_name(x)}" for o, x in enumerate(log)) + "]"
