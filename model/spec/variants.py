"""The four protocol variants of the `spec` model, by name."""

from __future__ import annotations

from .hw import HighWatermarkTruncation
from .kip101 import Kip101
from .kip279 import Kip279
from .kip320 import Kip320

VARIANTS = {
    "hw": (HighWatermarkTruncation, "truncate to the high watermark (Kafka before 0.11)"),
    "kip101": (Kip101, "leader-epoch truncation, first version (KIP-101, Kafka 0.11)"),
    "kip279": (Kip279, "epoch truncation fixed for fast leader changes (KIP-279, Kafka 2.0)"),
    "kip320": (Kip320, "fenced fetch and truncation by current leader epoch (KIP-320, Kafka 2.1)"),
}
