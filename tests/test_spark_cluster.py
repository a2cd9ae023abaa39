"""A real standalone Spark cluster (a Master and two Workers on 127.0.0.1, started with PySpark's
own `spark-class`, as docs/spark-and-clusters.md shows) gives the local engine's exact results."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interrupting import PATIENCE
from test_spark_engine import _java_or_skip

ROOT = Path(__file__).resolve().parents[1]


def _comparable(doc: dict) -> dict:
    """A check's JSON without what differs between engines and runs: timings, engine, paths."""
    return {"counts": [doc[k] for k in ("distinct_states", "generated_states", "depth")],
            "levels": [{k: v for k, v in level.items() if k not in ("seconds", "task_seconds")}
                       for level in doc["levels"]],
            "invariants": {name: {k: v for k, v in verdict.items() if k != "trace_file"}
                           for name, verdict in doc["invariants"].items()}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(log: Path, text: str, count: int = 1, timeout: float = PATIENCE) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if log.exists() and log.read_text(errors="replace").count(text) >= count:
            return
        time.sleep(0.2)
    raise AssertionError(f"{log.name} never said {text!r}: {log.read_text(errors='replace')[-2000:]}")


@pytest.fixture
def cluster(tmp_path):
    """spark://127.0.0.1:PORT with two one-core Workers; stopped afterwards."""
    from checker.spark.java import find_java_home, spark_java_home

    _java_or_skip()
    import pyspark

    spark_class = Path(pyspark.__file__).parent / "bin" / "spark-class"
    env = dict(os.environ, JAVA_HOME=str(spark_java_home(find_java_home(), tmp_path / "java")),
               SPARK_HOME=str(spark_class.parents[1]), PYSPARK_PYTHON=sys.executable)
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    procs = []

    def start(name, *args):
        log = tmp_path / f"{name}.log"
        procs.append(subprocess.Popen([str(spark_class), *args], env=dict(env, SPARK_WORKER_DIR=str(tmp_path / name)),
                                      stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True))
        return log

    try:
        master = start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                       "--webui-port", str(_free_port()))
        _wait_for(master, "I have been elected leader")
        for n in (1, 2):
            start(f"worker{n}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                  "--memory", "1g", "--webui-port", str(_free_port()), url)
        _wait_for(master, "Registering worker", count=2)
        yield url, env
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_a_standalone_cluster_gives_the_exact_counts_and_trace(cluster, tmp_path):
    url, env = cluster
    args = ["check", "--variant", "kip101", "--invariant", "strong-isr", "--continue", "--json"]
    spark = subprocess.run([sys.executable, "-m", "cli", *args, "--master", url, "--partitions", "2",
                            "--trace-dir", str(tmp_path / "spark")], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=300)
    local = subprocess.run([sys.executable, "-m", "cli", *args, "--engine", "local", "--trace-dir",
                            str(tmp_path / "local")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert spark.returncode == local.returncode == 1, spark.stderr
    ours, theirs = json.loads(spark.stdout), json.loads(local.stdout)
    assert ours["engine_options"] == {"master": url, "partitions": 2, "tasks": 2}
    assert _comparable(ours) == _comparable(theirs)
    name = "spec-kip101-strong-isr.json"
    assert (tmp_path / "spark" / name).read_text() == (tmp_path / "local" / name).read_text()
