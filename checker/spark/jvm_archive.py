"""A class-data sharing archive for Spark's JVM, so that it starts in about half the time.

Most of a fresh SparkContext's start, and of its first job, goes on loading and verifying
thousands of Spark and Scala classes. Java 13 and later can dump the classes a run loaded into
an archive when the JVM exits (`-XX:ArchiveClassesAtExit`) and map that archive at the next
start (`-XX:SharedArchiveFile`). Measured on a 2-core machine with Java 17: context start 2.09 s
-> 1.16 s, first job 1.20 s -> 0.96 s.

The first run on a machine writes the archive (its JVM takes about a second longer to exit);
later runs use it. One archive per Java runtime and PySpark version, kept beside the compiled
kernels (`checker.kernel.cache.cache_root`). The JVM checks an archive against its own build
and class path and ignores one that does not match (`-Xshare:auto`, the default), so a stale
or damaged archive costs only the speed-up.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def archive_path(java_home: Path) -> Path:
    """Where the archive for the Java runtime at `java_home` and this PySpark lives."""
    import pyspark

    from ..kernel.cache import cache_root

    jars = Path(pyspark.__file__).parent / "jars"
    key = f"{Path(java_home).resolve()}\0{pyspark.__version__}\0{sorted(p.name for p in jars.glob('*.jar'))}"
    return cache_root() / "jvm" / f"spark-{hashlib.sha256(key.encode()).hexdigest()[:16]}.jsa"


class ClassArchive:
    """The JVM option that uses the archive for `java_home`, or, where there is none yet, the
    one that dumps it beside where it belongs at exit; `finish()` then moves the dump into
    place."""

    def __init__(self, java_home: Path):
        self.path = archive_path(java_home)
        self.dump = None
        if not self.path.is_file():
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.dump = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            except OSError:
                pass  # a read-only cache: no archive, the JVM starts as it would without one

    @property
    def option(self) -> str:
        """The JVM option: use the archive, or dump one at exit (nothing where neither can be)."""
        if self.path.is_file():
            return f"-XX:SharedArchiveFile={self.path}"
        return f"-XX:ArchiveClassesAtExit={self.dump}" if self.dump is not None else ""

    def finish(self, exited_cleanly: bool) -> None:
        """After the JVM has ended: move its dump into place if it exited cleanly (atomically,
        so that two runs dumping at once leave one whole archive), else remove what it left."""
        if self.dump is None or not self.dump.is_file():
            return
        try:
            if exited_cleanly:
                os.replace(self.dump, self.path)
            else:
                self.dump.unlink()
        except OSError:
            pass
