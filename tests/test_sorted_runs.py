"""The frontier's store on disk (`checker.kernel.sorted_runs`): what goes in comes back once, in
key order, stable among equal keys, a bounded slice at a time, and its files go when it closes."""

from __future__ import annotations

import numpy as np
import pytest

from checker.kernel import sorted_runs
from checker.kernel.sorted_runs import KEY, SortedRuns

WIDTH = 24
"""Bytes of a row in these tests (a packed state's stand-in)."""
RECORD = 8 + WIDTH + 2


def blocks(seed: int, count: int, size: int, duplicates: bool = False):
    """`count` blocks of `size` records with random fingerprints (some repeated across blocks
    when `duplicates`), each row a function of its record's place in the stream."""
    rng = np.random.default_rng(seed)
    place = 0
    for b in range(count):
        keys = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size, dtype=np.int64, endpoint=True)
        if duplicates and b:
            keys[: size // 4] = rng.choice(keys[size // 2:], size // 4)
        rows = np.zeros((size, WIDTH), np.int8)
        order = np.arange(place, place + size)
        rows[:, :8] = order.view(np.int8).reshape(size, 8)
        yield {KEY: keys, "rows": rows, "codes": (order % 65521).astype(np.uint16)}
        place += size


def stream(store: SortedRuns, chunk: int | None = None):
    slices = list(store.in_key_order(chunk))
    assert chunk is None or max(len(s[KEY]) for s in slices) <= chunk
    return slices, {name: np.concatenate([s[name] for s in slices]) for name in slices[0]}


@pytest.mark.parametrize("window, chunk", [(None, None), (None, 7), (10**9, 7), (4000, None), (4000, 33), (RECORD * 7, None)])
def test_every_record_comes_back_once_in_key_order(tmp_path, window, chunk):
    store = SortedRuns(window, str(tmp_path))
    added = list(blocks(1, 12, 250))
    for block in added:
        store.add(block)
    assert len(store) == 3000
    assert store.spilled == (window is not None and window < 3000 * RECORD)
    _, out = stream(store, chunk)
    everything = {name: np.concatenate([b[name] for b in added]) for name in added[0]}
    order = np.argsort(everything[KEY], kind="stable")
    for name in everything:
        assert np.array_equal(out[name], everything[name][order]), name


@pytest.mark.parametrize("window, chunk", [(RECORD * 100, None), (None, 5), (RECORD * 500, 9)])
def test_equal_keys_keep_the_order_they_came_in(tmp_path, window, chunk):
    store = SortedRuns(window, str(tmp_path))
    added = list(blocks(2, 10, 200, duplicates=True))
    for block in added:
        store.add(block)
    _, out = stream(store, chunk)
    keys = out[KEY]
    assert (np.diff(keys) >= 0).all()
    places = out["rows"][:, :8].copy().view(np.int64).ravel()
    repeated = keys[1:] == keys[:-1]
    assert repeated.any()
    assert (places[1:][repeated] > places[:-1][repeated]).all()


@pytest.mark.parametrize("window, bucketed", [(None, True), (2 * 3000 * (RECORD + 8), True),
                                              (2 * 3000 * (RECORD + 8) - 1, False)])
def test_a_large_read_is_dealt_into_buckets_and_lets_go_of_its_blocks(tmp_path, monkeypatch, window, bucketed):
    """Past `BUCKETED_FROM` chunks a slice that fits in the window twice (its copy) is read by
    key buckets (`Blocks.bucketed`): the same records in the same order as a sort of everything,
    with every block let go once read. One that does not is gathered chunk by chunk."""
    store = SortedRuns(window, str(tmp_path))
    added = list(blocks(3, 6, 500, duplicates=True))
    for block in added:
        store.add({**block, "pairs": np.stack([block["codes"], block["codes"] + 1], axis=1).astype(np.int32)})
    read = []
    real = sorted_runs.Blocks.bucketed

    def watched(records, chunk):
        read.append(records)
        yield from real(records, chunk)

    monkeypatch.setattr(sorted_runs.Blocks, "bucketed", watched)
    slices, out = stream(store, 40)
    assert len(read) == bucketed and all(records.blocks == [] for records in read)
    everything = {name: np.concatenate([b[name] for b in added]) for name in added[0]}
    order = np.argsort(everything[KEY], kind="stable")
    for name in everything:
        assert np.array_equal(out[name], everything[name][order]), name
    assert np.array_equal(out["pairs"][:, 1], out["codes"].astype(np.int32) + 1)


def test_slices_hold_about_a_window(tmp_path):
    window = RECORD * 500
    store = SortedRuns(window, str(tmp_path))
    for block in blocks(3, 40, 500):
        store.add(block)
    slices, _ = stream(store)
    assert store.slices() == 40
    sizes = [len(s[KEY]) for s in slices]
    assert len(sizes) == 40
    assert max(sizes) < 1.5 * 500  # uniform keys: each slice about a window (20,000 records in 40)


def test_extreme_keys_and_an_empty_store(tmp_path):
    store = SortedRuns(RECORD, str(tmp_path))
    assert list(store.in_key_order()) == []
    lowest, highest = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    for key in (highest, 0, lowest, highest, -1):
        store.add({KEY: np.array([key], np.int64), "rows": np.zeros((1, WIDTH), np.int8)})
    _, out = stream(store)
    assert out[KEY].tolist() == [lowest, -1, 0, highest, highest]


def test_close_removes_the_runs(tmp_path):
    store = SortedRuns(RECORD * 10, str(tmp_path))
    for block in blocks(4, 5, 100):
        store.add(block)
    assert store.spilled and any(tmp_path.iterdir())
    store.close()
    assert not any(tmp_path.iterdir())
    assert len(store) == 0 and list(store.in_key_order()) == []


@pytest.mark.parametrize("chunk, duplicates, slice_records, slices", [
    (None, False, 900, 256), (7, True, 900, 256), (40, True, 900, 256),
    (None, True, 1, 4096)])  # more slices than buckets: a slice reads part of one
def test_without_a_window_a_large_store_is_packed_in_memory_and_read_back_whole(tmp_path, monkeypatch, chunk,
                                                                                duplicates, slice_records, slices):
    """Past `PACKED_FROM` bytes the records are packed into compressed runs in memory (nothing on
    disk): they come back once each, in key order, stable among equal keys, a bucket at a
    time (or a power-of-two part of one, where a bucket would pass `PACKED_SLICE` bytes), and a
    consuming read lets go of each bucket it has read whole."""
    monkeypatch.setattr(sorted_runs, "PACKED_FROM", RECORD * 700)
    monkeypatch.setattr(sorted_runs, "PACKED_SLICE", RECORD * slice_records)
    monkeypatch.setattr(sorted_runs, "memory_is_short", lambda: True)
    monkeypatch.setattr(sorted_runs, "PIECE", 4)
    store = SortedRuns(None, str(tmp_path))
    added = list(blocks(5, 13, 250, duplicates))
    for block in added:
        store.add(block)
    assert store.packed and not store.spilled and not any(tmp_path.iterdir())
    assert len(store.runs) == 4 and len(store.memory) == 1  # a run each time 750 records pass 700; 250 left
    assert store.slices() == slices
    runs = list(store.runs)
    read = list(store.in_key_order(chunk, consume=True))
    assert all(bucket == [] for run in runs for bucket in run.pieces) == (slices <= 2 ** sorted_runs.PACKED_BITS)
    out = {name: np.concatenate([s[name] for s in read]) for name in read[0]}
    everything = {name: np.concatenate([b[name] for b in added]) for name in added[0]}
    order = np.argsort(everything[KEY], kind="stable")
    for name in everything:
        assert np.array_equal(out[name], everything[name][order]), name
        assert all(s[name].flags.writeable for s in read)


def test_a_packed_row_takes_a_fraction_of_its_bytes(tmp_path, monkeypatch):
    """Rows much alike from state to state (as packed states are) pack into a fraction of their
    size: the point of packing."""
    monkeypatch.setattr(sorted_runs, "PACKED_FROM", 0)
    monkeypatch.setattr(sorted_runs, "memory_is_short", lambda: True)
    store = SortedRuns(None, str(tmp_path))
    rng = np.random.default_rng(6)
    rows = np.zeros((20_000, 200), np.int8)
    rows[:, :40] = rng.integers(0, 3, (20_000, 40))
    store.add({KEY: rng.integers(-2**63, 2**63 - 1, 20_000, dtype=np.int64), "rows": rows})
    (run,) = store.runs
    packed = sum(len(piece["rows"]) for bucket in run.pieces for piece in bucket)
    assert packed < rows.nbytes / 3
    _, out = stream(store)
    assert np.array_equal(np.sort(out["rows"].view(np.dtype((np.void, 200))).ravel()),
                          np.sort(rows.view(np.dtype((np.void, 200))).ravel()))


def test_a_large_store_stays_unpacked_while_memory_is_plentiful(tmp_path, monkeypatch):
    """Packing costs time: a store past `PACKED_FROM` packs only once the machine is short of
    memory, and then everything it holds."""
    monkeypatch.setattr(sorted_runs, "PACKED_FROM", RECORD * 100)
    short = []
    monkeypatch.setattr(sorted_runs, "memory_is_short", lambda: bool(short))
    store = SortedRuns(None, str(tmp_path))
    added = list(blocks(7, 6, 250))
    for block in added[:5]:
        store.add(block)
    assert not store.packed and len(store.memory) == 5
    short.append(True)
    store.add(added[5])
    assert store.packed and store.memory == [] and len(store) == 1500
    _, out = stream(store)
    everything = np.concatenate([b[KEY] for b in added])
    assert np.array_equal(out[KEY], np.sort(everything))
