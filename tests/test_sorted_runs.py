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
