"""Starting and stopping the SparkContext the Spark engine runs on.

Spark's own logging (and anything its JVM prints) goes to `spark.log` in the log directory
(`$TMPDIR/replcheck-spark/` unless given), never to the terminal. The settings are
the ones that measured fastest for many short BFS levels on a small machine: no web UI, Unix
domain sockets between the JVM and Python workers, a JVM that compiles quickly rather than
well (the driver does little JVM work), and reused Python workers.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from .java import EngineUnavailable, find_java_home

LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{HH:mm:ss.SSS}} %p %c{{1}}: %m%n
"""


LOG_DIR = Path(tempfile.gettempdir()) / "replcheck-spark"


def _conf(master: str, partitions: int, scratch: Path, log_dir: Path):
    from pyspark import SparkConf

    log4j = log_dir / "log4j2.properties"
    log4j.write_text(LOG4J2.format(log=log_dir / "spark.log"))
    java_options = f"-XX:TieredStopAtLevel=1 -Dlog4j.configurationFile={log4j.as_uri()}"
    return (SparkConf().setMaster(master).setAppName("replcheck")
            .set("spark.ui.enabled", "false")
            .set("spark.ui.showConsoleProgress", "false")
            .set("spark.python.unix.domain.socket.enabled", "true")
            .set("spark.python.worker.reuse", "true")
            .set("spark.driver.extraJavaOptions", java_options)
            .set("spark.executor.extraJavaOptions", f"-Dlog4j.configurationFile={log4j.as_uri()}")
            .set("spark.default.parallelism", str(partitions))
            .set("spark.driver.memory", "4g")
            .set("spark.locality.wait", "0")
            .set("spark.shuffle.compress", "false")
            .set("spark.shuffle.spill.compress", "false")
            .set("spark.local.dir", str(scratch)))


@contextmanager
def spark_context(master: str = "local[*]", partitions: int | None = None, checkpoint_dir: str | None = None,
                  log_dir: Path = LOG_DIR):
    """A SparkContext on `master` for the duration of the block; afterwards Spark is stopped
    and its JVM ended (also on Ctrl-C), so no stray JVM is left. `partitions` defaults to the
    number of cores here. With `checkpoint_dir` (any path Spark's filesystems reach: local,
    HDFS, S3) lineage is truncated by reliable checkpoints there. Raises EngineUnavailable with
    a one-line reason when Spark cannot start."""
    try:
        from pyspark import SparkContext
        from pyspark.java_gateway import launch_gateway
    except ImportError:
        raise EngineUnavailable("PySpark is not installed: pip install pyspark, or use --engine local") from None
    os.environ["JAVA_HOME"] = str(find_java_home())
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    log_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="replcheck-spark-") as scratch, \
            open(log_dir / "jvm.log", "w") as jvm_log:
        conf = _conf(master, partitions or os.cpu_count() or 2, Path(scratch), log_dir)
        gateway = sc = None
        try:
            gateway = launch_gateway(conf, popen_kwargs={"stdout": jvm_log, "stderr": jvm_log})
            sc = SparkContext(conf=conf, gateway=gateway)
            if checkpoint_dir:
                sc.setCheckpointDir(str(checkpoint_dir))
        except Exception as exc:  # py4j and the launcher raise many kinds; all mean "Spark did not start"
            _shutdown(sc, gateway)
            SparkContext._gateway = SparkContext._jvm = SparkContext._active_spark_context = None
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise EngineUnavailable(f"Spark failed to start on master {master!r}: {reason} "
                                    f"(see {log_dir / 'spark.log'})") from None
        previous = signal.signal(signal.SIGINT, signal.default_int_handler) if _main_thread() else None
        py4j_log = _quiet_py4j(log_dir)
        _quiet_accumulator_server(sc)
        try:
            yield sc
        except KeyboardInterrupt:
            # py4j drops the connection whose call was interrupted; a fresh one cancels the
            # jobs and stops the context (which also closes the accumulator server), then the
            # JVM is ended whatever happened.
            try:
                sc.cancelAllJobs()
                sc.stop()
            except Exception:  # the JVM may already be unreachable; it is ended below
                pass
            _end_jvm(gateway)
            raise
        else:
            _shutdown(sc, gateway)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
            logging.getLogger().removeHandler(py4j_log)
            py4j_log.close()
            SparkContext._gateway = None
            SparkContext._jvm = None
            SparkContext._active_spark_context = None


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _quiet_accumulator_server(sc) -> None:
    """PySpark's accumulator server prints a traceback to stderr when the JVM closes its
    connection mid-update, which is what Ctrl-C does; log it to python.log instead."""
    server = getattr(sc, "_accumulatorServer", None)
    if server is not None:
        server.handle_error = lambda request, address: logging.getLogger("replcheck.spark").warning(
            "accumulator connection from the JVM closed", exc_info=True)


def _quiet_py4j(log_dir: Path) -> logging.Handler:
    """Send Python-side Spark and py4j log records (py4j logs through the root logger when a
    call is interrupted) to python.log instead of the terminal."""
    handler = logging.FileHandler(log_dir / "python.log")
    logging.getLogger().addHandler(handler)
    return handler


def _shutdown(sc, gateway) -> None:
    """Stop the context and close the gateway, then end the JVM."""
    if sc is not None:
        sc.stop()
    if gateway is not None:
        gateway.shutdown()
    _end_jvm(gateway)


def _end_jvm(gateway) -> None:
    """Terminate the JVM that `launch_gateway` started, and wait for it."""
    proc = getattr(gateway, "proc", None)
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
