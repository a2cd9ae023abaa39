"""How many distinct states a simulation met, estimated: a HyperLogLog sketch of their 64-bit
fingerprints (Flajolet et al. 2007), a few kilobytes whatever the number of states, and
mergeable, so each Spark task keeps its own and the driver takes the registers' maximum."""

from __future__ import annotations

import numpy as np

BITS = 14
"""log2 of the number of registers: 16,384 registers, a standard error of about 0.8%."""


class DistinctSketch:
    """The registers of a HyperLogLog sketch over fingerprints."""

    def __init__(self, registers: np.ndarray | None = None):
        self.registers = np.zeros(1 << BITS, np.uint8) if registers is None else registers

    def add(self, fps: np.ndarray) -> None:
        """Count these fingerprints (int64, any order, repeats allowed)."""
        if not len(fps):
            return
        h = fps.astype(np.int64).view(np.uint64)
        index = (h >> np.uint64(64 - BITS)).astype(np.int64)
        rest = (h << np.uint64(BITS)) | np.uint64(1 << (BITS - 1))
        _, exponent = np.frexp(rest.astype(np.float64))
        rank = (65 - exponent).astype(np.uint8)
        np.maximum.at(self.registers, index, rank)

    def merge(self, other: "DistinctSketch") -> None:
        """Count what `other` counted too."""
        np.maximum(self.registers, other.registers, out=self.registers)

    def estimate(self) -> int:
        """The estimated number of distinct fingerprints added (linear counting while few
        registers are set)."""
        m = len(self.registers)
        raw = 0.7213 / (1 + 1.079 / m) * m * m / np.sum(np.ldexp(1.0, -self.registers.astype(np.int64)))
        zeros = int(np.count_nonzero(self.registers == 0))
        if raw <= 2.5 * m and zeros:
            return round(m * np.log(m / zeros))
        return round(raw)
