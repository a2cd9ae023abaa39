"""Starting and stopping the SparkContext the Spark engine runs on.

Each context has a directory of its own, `$TMPDIR/replcheck-spark-XXXXXXXX/`: Spark's log
(log4j) goes to `spark.log`, whatever the JVM prints to `jvm.log`, py4j's records to
`python.log`, never to the terminal; the stand-in JAVA_HOME that a runtime without
jdk.incubator.vector needs (checker.spark.java.spark_java_home) is made there too. The directory is
removed when the context ends normally or on Ctrl-C, and kept when Spark fails to start (the
one-line error names the file that holds the cause) or the block ends in another error.

The settings are the ones that measured fastest for many short BFS levels on a small machine:
no web UI, Unix domain sockets between the JVM and Python workers, a JVM that compiles quickly
rather than well (the driver does little JVM work), and reused Python workers.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager, nullcontext
from pathlib import Path

from ..interrupts import interruptions_deferred
from .jvm_archive import ClassArchive
from .java import EngineUnavailable, find_java_home, spark_java_home
from .workers import end_python_workers

LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{HH:mm:ss.SSS}} %p %c{{1}}: %m%n
"""


def _conf(master: str, partitions: int, scratch: Path, log_dir: Path, archive: str):
    from pyspark import SparkConf

    log4j = log_dir / "log4j2.properties"
    log4j.write_text(LOG4J2.format(log=log_dir / "spark.log"))
    java_options = f"-XX:TieredStopAtLevel=1 {archive} -Dlog4j.configurationFile={log4j.as_uri()}"
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
def spark_context(master: str = "local[*]", partitions: int | None = None):
    """A SparkContext on `master` for the duration of the block; afterwards Spark is stopped
    and its JVM ended (also on Ctrl-C), so no stray JVM is left. `partitions` defaults to the
    number of cores here. Raises EngineUnavailable with a one-line reason, naming the log file
    that holds the cause, when Spark cannot start."""
    if importlib.util.find_spec("pyspark") is None:
        raise EngineUnavailable("PySpark is not installed: pip install pyspark, or use --engine local")
    java_home = find_java_home()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    log_dir = Path(tempfile.mkdtemp(prefix="replcheck-spark-"))
    try:
        with _started(master, partitions or os.cpu_count() or 2, spark_java_home(java_home, log_dir / "java"), log_dir,
                      ClassArchive(java_home)) as sc:
            yield sc
    except EngineUnavailable:  # Spark's own failure: its one line names a log in log_dir, kept to be read
        raise
    except BaseException:  # Ctrl-C, or the search's own error (a damaged checkpoint, ...): no log to point to
        shutil.rmtree(log_dir, ignore_errors=True)
        raise
    else:
        shutil.rmtree(log_dir, ignore_errors=True)


@contextmanager
def _started(master: str, partitions: int, java_home: Path, log_dir: Path, archive: ClassArchive):
    """The body of `spark_context`, logging to `log_dir` and starting the JVM of `java_home`
    with the class-data sharing `archive`."""
    from py4j.protocol import Py4JError
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway

    with tempfile.TemporaryDirectory(prefix="replcheck-scratch-") as scratch, \
            open(log_dir / "jvm.log", "w") as jvm_log, _py4j_logged_to(log_dir / "python.log"):
        conf = _conf(master, partitions, Path(scratch), log_dir, archive.option)
        gateway = sc = None
        try:
            # A Ctrl-C inside launch_gateway would lose the only handle on the JVM it started
            # (and that JVM would stay), so it is raised once the gateway is here to be ended.
            with _java_home(java_home), interruptions_deferred() if _main_thread() else nullcontext():
                gateway = launch_gateway(conf, popen_kwargs={"stdout": jvm_log, "stderr": jvm_log})
            sc = SparkContext(conf=conf, gateway=gateway)
        except KeyboardInterrupt:  # SparkContext stops itself when its start is interrupted
            _end_jvm(gateway)
            _forget_context()
            raise
        except Exception as exc:  # py4j and the launcher raise many kinds; all mean "Spark did not start"
            jvm = getattr(gateway, "proc", None)
            cause = "spark.log" if jvm is not None and jvm.poll() is None else "jvm.log"
            reason = _reason(exc)  # before the shutdown: a Java exception's text comes from the JVM
            _shutdown(sc, gateway)
            _forget_context()
            raise EngineUnavailable(f"Spark failed to start on master {master!r}: {reason} "
                                    f"(see {log_dir / cause})") from None
        previous = signal.signal(signal.SIGINT, signal.default_int_handler) if _main_thread() else None
        _quiet_accumulator_server(sc)
        try:
            _warm_workers(sc)
            yield sc
        except Py4JError as exc:  # the context stopped under the search (a master that went away, a failed job)
            interruption = interruption_behind(exc)
            if interruption is not None:
                _stop_interrupted(sc, gateway)
                raise interruption from None
            reason = _reason(exc)
            if "stopped SparkContext" in reason:  # the cause is in the log: "All masters are unresponsive!", ...
                reason = _last_logged_error(log_dir / "spark.log") or reason
            _shutdown(sc, gateway)
            raise EngineUnavailable(f"Spark failed during the search on master {master!r}: {reason} "
                                    f"(see {log_dir / 'spark.log'})") from exc
        except KeyboardInterrupt:
            _stop_interrupted(sc, gateway)
            raise
        else:
            _shutdown(sc, gateway)
            archive.finish(exited_cleanly=True)
        finally:
            archive.finish(exited_cleanly=False)
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
            _forget_context()


def interruption_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM) that `exc` was raised while handling, if any. A Ctrl-C that lands
    inside a py4j call drops that call's connection, and PySpark's clean-up on the way out (the
    call site reset after `collect`) can then fail on a fresh one ("Answer from Java side is
    empty"): that failure is the interruption, not a Spark fault."""
    seen, waiting = set(), [exc]
    while waiting:
        exc = waiting.pop()
        if exc is None or id(exc) in seen:
            continue
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        waiting += [exc.__context__, exc.__cause__]
    return None


def _stop_interrupted(sc, gateway) -> None:
    """After Ctrl-C: an embedded master's Python workers are ended at once (a task busy in a
    level or a whole search would otherwise hold up the stop, `checker.spark.workers`), then
    the JVM, whose shutdown hook stops the context and its jobs as `sc.stop()` would (which
    took another 0.8 to 1.7 s on two cores, past the second a Ctrl-C is given). PySpark's
    accumulator server is told to stop in a thread of its own: its loop looks only every half
    second, and nothing waits for it."""
    end_python_workers(gateway)
    server = getattr(sc, "_accumulatorServer", None)
    if server is not None:
        threading.Thread(target=server.shutdown, name="replcheck-accumulator-stop", daemon=True).start()
    _end_jvm(gateway)


def _warm_workers(sc) -> None:
    """Run one small job on every task slot, so that Spark's first-job set-up and the Python
    workers' start (the daemon, numpy, numba, replcheck's modules) are done with the context's
    start rather than in a search's first level; the workers are reused afterwards."""
    from .coordinator import task_slots
    from .shard import warm_up

    slots = task_slots(sc)
    sc.parallelize(range(slots), slots).mapPartitions(warm_up).collect()


def _forget_context() -> None:
    """Clear PySpark's record of the running context and gateway, so that a later context starts
    afresh."""
    from pyspark import SparkContext

    SparkContext._gateway = SparkContext._jvm = SparkContext._active_spark_context = None


@contextmanager
def _java_home(home: Path):
    """$JAVA_HOME set to `home` for the block (the launcher and the JVM it starts read it), and
    restored afterwards."""
    previous = os.environ.get("JAVA_HOME")
    os.environ["JAVA_HOME"] = str(home)
    try:
        yield
    finally:
        if previous is None:
            del os.environ["JAVA_HOME"]
        else:
            os.environ["JAVA_HOME"] = previous


def _reason(exc: Exception) -> str:
    """The first line of what went wrong: for a Java exception its class and message (py4j's
    own first line only names the call), otherwise the exception's text or type."""
    from py4j.protocol import Py4JJavaError

    text = str(exc.java_exception.toString()) if isinstance(exc, Py4JJavaError) else str(exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


def _last_logged_error(log: Path) -> str | None:
    """The message of the last ERROR record in Spark's log, if any."""
    try:
        lines = [line for line in log.read_text(errors="replace").splitlines() if " ERROR " in line]
    except OSError:
        return None
    return lines[-1].split(" ERROR ", 1)[1].strip() if lines else None


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _quiet_accumulator_server(sc) -> None:
    """PySpark's accumulator server prints a traceback to stderr when the JVM closes its
    connection mid-update, which is what Ctrl-C does; log it to python.log instead."""
    server = getattr(sc, "_accumulatorServer", None)
    if server is not None:
        server.handle_error = lambda request, address: logging.getLogger("replcheck.spark").warning(
            "accumulator connection from the JVM closed", exc_info=True)


@contextmanager
def _py4j_logged_to(path: Path):
    """Send Python-side Spark and py4j log records (py4j logs through the root logger when a
    call is interrupted) to `path` instead of the terminal, for the block."""
    handler = logging.FileHandler(path)
    logging.getLogger().addHandler(handler)
    try:
        yield
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()


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
