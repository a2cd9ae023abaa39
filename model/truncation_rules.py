"""The rules by which a replica becoming follower chooses where to truncate its log, named once
for both Kafka models. Each model's `variants.truncation_rule(lay)` returns an index into
`RULES` and its `truncation_point` dispatches on that index, so a trace that explains a
truncation reads the very rule the search applied."""

from __future__ import annotations

RULES = ("hw", "kip101", "kip279", "none")
HW_RULE, KIP101_RULE, KIP279_RULE, NO_TRUNCATION = range(len(RULES))
"""Own HW (before Kafka 0.11); OffsetsForLeaderEpoch for the epoch of the last record
(KIP-101); the epoch walk to the last record both logs share (KIP-279, kept by KIP-320 and
later); none on becoming follower (a majority quorum reconciles at each FETCH)."""

WORDS = {
    "hw": "its HW",
    "kip101": "the end of its last epoch in the leader's log",
    "kip279": "the first offset where its log diverges from the leader's",
    "none": "nowhere yet: it reconciles its log at its next FETCH",
}
"""How each rule chooses the truncation point, in words, for step descriptions."""
