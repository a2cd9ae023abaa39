"""The compiled-kernel cache is keyed on every source a kernel compiles from: changing a helper
in another module can never serve stale machine code (numba's own cache would, since it
checks only the file that defines the cached function)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from checker.kernel import cache

REPO = Path(__file__).resolve().parents[1]

CALLER = '''
from checker.kernel.jit import kernel
from model.helper import offset


@kernel
def shifted(x):
    return x + offset()
'''

HELPER = '''
from checker.kernel.jit import kernel


@kernel
def offset():
    return {value}
'''


@pytest.fixture
def tree(tmp_path):
    """A miniature project: the real kernel cache machinery, a cached kernel in one module that
    calls a helper kernel in another."""
    root = tmp_path / "project"
    (root / "checker" / "kernel").mkdir(parents=True)
    (root / "invariants").mkdir()
    (root / "model").mkdir()
    for name in ("__init__.py", "cache.py", "cache_locator.py", "jit.py", "layout_record.py", "numba_target.py",
                 "native.py", "native_export.py"):
        shutil.copy(REPO / "checker" / "kernel" / name, root / "checker" / "kernel" / name)
    for package in (root / "checker", root / "invariants", root / "model"):
        (package / "__init__.py").touch()
    (root / "model" / "caller.py").write_text(CALLER)
    (root / "model" / "helper.py").write_text(HELPER.format(value=1))
    return root


def run(root: Path, cache_dir: Path, saved: list | None = None) -> tuple[int, str]:
    """(shifted(10), the cache directory used) in a fresh Python process; numba's reports of
    what it compiled and saved to the cache are appended to `saved`."""
    env = {**os.environ, "REPLCHECK_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(root), "NUMBA_DEBUG_CACHE": "1"}
    done = subprocess.run([sys.executable, "-c", "from model.caller import shifted; from checker.kernel.jit import "
                           "CACHE_DIR; print(shifted(10), CACHE_DIR)"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300, check=True)
    lines = done.stdout.splitlines()
    if saved is not None:
        saved += [line for line in lines if "data saved to" in line]
    out = lines[-1].split()
    return int(out[0]), out[1]


def test_changed_helper_is_recompiled_not_served_stale(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    value, first_dir = run(tree, cache_dir)  # compiled
    assert value == 11
    assert run(tree, cache_dir) == (11, first_dir)  # served from the cache
    assert list(Path(first_dir).rglob("caller.shifted-*.nbi")), "the kernel was not cached on disk"
    (tree / "model" / "helper.py").write_text(HELPER.format(value=5))
    value, second_dir = run(tree, cache_dir)
    assert value == 15
    assert second_dir != first_dir


def test_another_copy_of_the_same_sources_loads_the_first_copys_compile(tree, tmp_path):
    """A fresh clone elsewhere on the machine (CI's, a worktree) compiles nothing again."""
    cache_dir, saved = tmp_path / "cache", []
    assert run(tree, cache_dir, saved)[0] == 11
    assert saved, "the first copy compiled and saved nothing"
    clone = tmp_path / "elsewhere" / "clone"
    shutil.copytree(tree, clone)
    saved.clear()
    assert run(clone, cache_dir, saved)[0] == 11
    assert saved == []


def test_digest_covers_every_kernel_package(tree, monkeypatch):
    monkeypatch.setattr(cache, "ROOT", tree)
    before = cache.source_digest()
    for package in cache.SOURCE_PACKAGES:
        path = tree / package / "__init__.py"
        path.write_text(path.read_text() + "# changed\n")
        after = cache.source_digest()
        assert after != before, f"a change under {package}/ does not change the cache key"
        before = after


def _own_cache(path: Path) -> Path:
    """`path` made as replcheck makes a kernel cache: marked as its own."""
    path.mkdir()
    (path / cache.OWNED).write_text("replcheck's\n")
    return path


def test_stale_caches_of_other_versions_are_pruned(tmp_path):
    current, old, recent = (_own_cache(tmp_path / name) for name in ("kernels-new", "kernels-old", "kernels-recent"))
    os.utime(old, (0, 0))
    cache.prune_stale(current)
    assert current.exists() and recent.exists() and not old.exists()


def test_a_run_prunes_its_own_stale_caches_and_never_a_users_directory(tmp_path):
    """A `kernels-*` directory replcheck did not make is the user's, however long unused."""
    root = tmp_path / "cache"
    root.mkdir()
    users, stale = root / "kernels-old", _own_cache(root / "kernels-0123456789abcdef")
    users.mkdir()
    (users / "notes.txt").write_text("mine")
    month_ago = time.time() - 30 * 86400
    for path in (users, stale):
        os.utime(path, (month_ago, month_ago))
    env = {**os.environ, "REPLCHECK_CACHE_DIR": str(root)}
    subprocess.run([sys.executable, "-c", "import checker.kernel.jit"], cwd=REPO, env=env, check=True, timeout=120)
    assert (users / "notes.txt").read_text() == "mine"
    assert not stale.exists()
    made = root / f"kernels-{cache.source_digest()}"
    assert (made / cache.OWNED).is_file(), "the run's own cache is not marked as replcheck's"


def test_read_only_cache_root_falls_back_to_a_temporary_directory(tmp_path, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache root should be")
    monkeypatch.setenv("REPLCHECK_CACHE_DIR", str(blocked / "cache"))
    temporary = tmp_path / "tmp"  # the system's temporary directory, for this test (nothing left in /tmp)
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    path = cache.cache_dir()
    assert path.is_dir() and path.parent == temporary / f"replcheck-{os.getuid()}"
    assert path.name == f"kernels-{cache.source_digest()}"


def test_a_module_left_out_of_the_digest_is_no_kernel_source():
    from checker.kernel.cache import NOT_KERNEL_SOURCE, ROOT, SOURCE_PACKAGES

    every = [p for package in SOURCE_PACKAGES for p in (ROOT / package).rglob("*.py")]
    left_out = [p for p in every if NOT_KERNEL_SOURCE in p.read_text()]
    assert left_out, "the rule table and the audit are left out of the digest"
    for path in every:
        text = path.read_text()
        if path in left_out:
            assert "@kernel" not in text, f"{path} defines a kernel but is left out of the kernel digest"
        elif "@kernel" in text:
            # its own package's modules, as it imports them (`from .name import`, `from . import a, name`)
            names = {p.stem for p in left_out if p.parent == path.parent}
            imported = {name for name in names if f".{name} import" in text or f" {name}," in text
                        or f" {name}\n" in text}
            assert not imported, f"{path} defines kernels and imports {imported}, left out of the kernel digest"
