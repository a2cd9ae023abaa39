"""How replcheck reads the machine's memory (`checker.memory`): whether it is short, which
decides when a frontier store packs what it holds (`checker.kernel.sorted_runs`)."""

from __future__ import annotations

import pytest

from checker.memory import memory_is_short

MEMINFO = """MemTotal:       24000000 kB
MemFree:         1000000 kB
MemAvailable:   {available} kB
Buffers:          100000 kB
"""


@pytest.mark.parametrize("available, short", [(11_999_999, True), (12_000_000, False), (20_000_000, False)])
def test_memory_is_short_when_less_than_half_is_available(tmp_path, available, short):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(MEMINFO.format(available=available))
    assert memory_is_short(meminfo) is short


@pytest.mark.parametrize("text", [None, "", "MemTotal: 24000000 kB\n", "MemTotal: lots\nMemAvailable: 1 kB\n"])
def test_memory_that_cannot_be_read_counts_as_short(tmp_path, text):
    """Where the figures cannot be read (no /proc, another format) packing is the safe side."""
    meminfo = tmp_path / "meminfo"
    if text is not None:
        meminfo.write_text(text)
    assert memory_is_short(meminfo) is True
