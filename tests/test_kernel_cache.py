"""The compiled-kernel cache is keyed on every source a kernel compiles from: changing a helper
in another module can never serve stale machine code (numba's own cache would, since it
checks only the file that defines the cached function)."""

from __future__ import annotations

import errno
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from checker.kernel import cache
from conftest import run_cli

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
    for name in ("__init__.py", "cache.py", "cache_files.py", "cache_locator.py", "jit.py", "layout_record.py",
                 "numba_target.py", "native.py", "native_export.py"):
        shutil.copy(REPO / "checker" / "kernel" / name, root / "checker" / "kernel" / name)
    shutil.copy(REPO / "checker" / "interrupts.py", root / "checker" / "interrupts.py")
    for package in (root / "checker", root / "invariants", root / "model"):
        (package / "__init__.py").touch()
    (root / "model" / "caller.py").write_text(CALLER)
    (root / "model" / "helper.py").write_text(HELPER.format(value=1))
    return root


def run(root: Path, cache_dir: Path, saved: list | None = None, said: list | None = None, before: str = "",
        env: dict | None = None) -> tuple[int, str]:
    """(shifted(10), the cache directory used) in a fresh Python process that first runs the
    code `before`, with `env` added to its environment; numba's reports of what it compiled and
    saved to the cache are appended to `saved`, the lines it wrote on stderr to `said`."""
    env = {**os.environ, "REPLCHECK_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(root), "NUMBA_DEBUG_CACHE": "1",
           **(env or {})}
    done = subprocess.run([sys.executable, "-c", before + "\nfrom model.caller import shifted; from checker.kernel.jit "
                           "import CACHE_DIR; print(shifted(10), CACHE_DIR)"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    if saved is not None:
        saved += [line for line in lines if "data saved to" in line]
    if said is not None:
        said += done.stderr.splitlines()
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


def _overwrite(cache_dir: Path) -> list[Path]:
    """Every numba index and data file in `cache_dir` overwritten with bytes that are no pickle."""
    damaged = [*cache_dir.rglob("*.nbi"), *cache_dir.rglob("*.nbc")]
    for path in damaged:
        path.write_bytes(b"\x00\xff not what numba wrote " * 4)
    return damaged


def _emptied(cache_dir: Path) -> list[Path]:
    """Every numba data file in `cache_dir` cut to nothing (numba's reader then raised EOFError,
    which the command line reported as a bare "Aborted!")."""
    damaged = list(cache_dir.rglob("*.nbc"))
    for path in damaged:
        path.write_bytes(b"")
    return damaged


def _halved(cache_dir: Path) -> list[Path]:
    """Every numba data file in `cache_dir` cut to half its length."""
    damaged = list(cache_dir.rglob("*.nbc"))
    for path in damaged:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return damaged


def _replaced(cache_dir: Path) -> list[Path]:
    """Every numba data file in `cache_dir` replaced by a pickle of something else: it reads back,
    but numba cannot rebuild a compiled function from it."""
    damaged = list(cache_dir.rglob("*.nbc"))
    for path in damaged:
        path.write_bytes(pickle.dumps(("not", "what", "numba", "wrote")))
    return damaged


def _numba_loads(cache_dir: Path) -> None:
    """Remove the exported machine code (`checker.kernel.native`), so a run loads numba's cache."""
    shutil.rmtree(cache_dir / "native", ignore_errors=True)


@pytest.mark.parametrize("damage", [_overwrite, _emptied, _halved, _replaced])
def test_a_damaged_numba_cache_is_compiled_again_once_said_once(tree, tmp_path, damage):
    """A cache is a cache: a file that cannot be read back is compiled again and written anew, in
    one line on stderr, and the next run loads the repaired cache without a word."""
    cache_dir = tmp_path / "cache"
    used = Path(run(tree, cache_dir)[1])
    _numba_loads(used)
    assert damage(used), "nothing was cached to damage"
    saved, said = [], []
    assert run(tree, cache_dir, saved, said)[0] == 11
    assert len(said) == 1 and "damaged" in said[0], said
    assert saved, "the damaged cache was not written anew"
    _numba_loads(used)
    saved, said = [], []
    assert run(tree, cache_dir, saved, said)[0] == 11
    assert said == [] and saved == [], "the repair did not last"


def test_the_compile_that_repairs_a_damaged_cache_is_announced_by_its_one_line(tree, tmp_path):
    """A run's compile is announced "once per machine and replcheck version" (checker.compile_notice);
    the compile that repairs a damaged cache is neither, and the line about the damage says it is
    made again: that line is the only one."""
    shutil.copy(REPO / "checker" / "compile_notice.py", tree / "checker" / "compile_notice.py")
    env = {**os.environ, "REPLCHECK_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tree)}
    code = ("from checker.compile_notice import compile_notices\nfrom model.caller import shifted\n"
            "with compile_notices():\n    print(shifted(10))")

    def stderr_lines() -> list[str]:
        done = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True,
                              timeout=300)
        assert (done.returncode, done.stdout) == (0, "11\n"), done.stderr
        return done.stderr.splitlines()

    assert [line.split(" for this machine")[0] for line in stderr_lines()] == ["compiling replcheck's kernels"]
    used = next((tmp_path / "cache").glob("kernels-*"))
    _numba_loads(used)
    _overwrite(used)
    said = stderr_lines()
    assert len(said) == 1 and said[0].startswith("the kernel cache held a damaged file"), said
    _numba_loads(used)
    assert stderr_lines() == []


def test_two_runs_at_once_repair_a_damaged_cache_and_agree(tree, tmp_path):
    """Both runs read the damaged files and write their repair (each through a file renamed over
    the old one): both answer, and the cache they leave loads cleanly."""
    cache_dir = tmp_path / "cache"
    used = Path(run(tree, cache_dir)[1])
    _numba_loads(used)
    _overwrite(used)
    env = {**os.environ, "REPLCHECK_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(tree)}
    runs = [subprocess.Popen([sys.executable, "-c", "from model.caller import shifted; print(shifted(10))"],
                             cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    for process in runs:
        out, err = process.communicate(timeout=300)
        assert (process.returncode, out.strip()) == (0, "11"), err
        assert len(err.splitlines()) <= 1
    _numba_loads(used)
    saved, said = [], []
    assert run(tree, cache_dir, saved, said)[0] == 11
    assert said == [] and saved == []


def test_a_ctrl_c_that_numba_turned_into_an_error_while_loading_is_no_damage(monkeypatch):
    """numba reports a Ctrl-C landing while it loads a compiled function as a SystemError caused by
    it: that goes on up to be reported as an interruption, not taken for a damaged file."""
    from numba.core.caching import Cache

    from checker.kernel.cache_files import CheckedCache

    def interrupted(self, sig, target_context):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as interruption:
            raise SystemError("error return without exception set") from interruption

    monkeypatch.setattr(Cache, "load_overload", interrupted)
    checked = CheckedCache.__new__(CheckedCache)
    checked._cache_file = SimpleNamespace(_index_path="function.nbi")
    with pytest.raises(SystemError):
        checked.load_overload(None, None)


GENERATE = "from checker.kernel.instantiate import search_module; search_module('model.fetch.kernel')"
"""Write (or check) and import the fetch model's search loop: no compile."""


def test_a_damaged_generated_search_loop_is_written_again(tmp_path):
    """A generated module with bytes that are not UTF-8 (it raised UnicodeDecodeError on every
    run) is written again, said in one line; the next run says nothing."""
    env = {**os.environ, "REPLCHECK_CACHE_DIR": str(tmp_path)}

    def generate() -> str:
        done = subprocess.run([sys.executable, "-c", GENERATE], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stderr

    generate()
    module = next(tmp_path.glob("kernels-*/generated/replcheck_search_model_fetch_kernel.py"))
    written = module.read_bytes()
    module.write_bytes(written[:100] + b"\xff\xfe\x00" + written[100:])
    said = generate().splitlines()
    assert len(said) == 1 and "damaged" in said[0], said
    assert module.read_bytes() == written
    assert generate() == ""


NO_ROOM_FOR_NUMBA = """
import errno
from numba.core.caching import IndexDataCacheFile

def no_room(self, path):
    raise OSError(errno.ENOSPC, "No space left on device")

IndexDataCacheFile._open_for_write = no_room
"""
"""Every file numba writes to its cache fails as on a full disk."""


def test_a_full_disk_under_the_cache_keeps_nothing_and_the_run_answers(tree, tmp_path):
    """numba's writes failing for want of room: each run compiles, answers and says so in one line."""
    for _ in range(2):
        said = []
        assert run(tree, tmp_path / "cache", said=said, before=NO_ROOM_FOR_NUMBA)[0] == 11
        assert len(said) == 1 and "No space left on device" in said[0], said


def _no_room(path, content):
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


def test_no_room_for_a_new_cache_falls_back_to_the_temporary_directory(tmp_path, monkeypatch):
    """As for a read-only cache: where the cache's first file cannot be written for want of room,
    the temporary directory serves, and no empty directory is left behind."""
    full, temporary = tmp_path / "full", tmp_path / "tmp"
    monkeypatch.setenv("REPLCHECK_CACHE_DIR", str(full))
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    real = cache.write_cache_file
    monkeypatch.setattr(cache, "write_cache_file",
                        lambda path, content: (_no_room if full in path.parents else real)(path, content))
    path = cache.cache_dir()
    assert path.parent == temporary / f"replcheck-{os.getuid()}" and (path / cache.OWNED).is_file()
    assert list(full.iterdir()) == []


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EROFS])
def test_no_room_anywhere_for_the_cache_is_one_line_and_exit_2(tmp_path, monkeypatch, number):
    """No room for the cache, or no place that can be written (a read-only file system), in the
    user's cache directory nor in the temporary one: one line naming the place, exit 2."""
    from checker.kernel import warm

    def refused(path, content):
        raise OSError(number, os.strerror(number), str(path))

    monkeypatch.setenv("REPLCHECK_CACHE_DIR", str(tmp_path / "full"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr(cache, "write_cache_file", refused)
    with pytest.raises(OSError) as raised:
        cache.cache_dir()
    assert raised.value.errno == number
    monkeypatch.setattr(warm, "is_compiled", lambda *args: cache.cache_dir())
    result = run_cli("check", "--engine", "local", "--model", "spec")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"Error: cannot write {tmp_path / 'full'}/kernels-{cache.source_digest()}: "
                                          f"{os.strerror(number)} (and the temporary directory, tried next for "
                                          "compiled kernels, too)"]


@pytest.fixture
def small_disk(tmp_path):
    """A file system of one 4 KiB page (tmpfs) under the test's directory, where this machine lets
    the test mount one (Linux, as root); the test is skipped elsewhere."""
    where = tmp_path / "small"
    where.mkdir()
    mount = shutil.which("mount")
    if mount is None or os.geteuid() != 0 or subprocess.run(
            [mount, "-t", "tmpfs", "-o", "size=4k", "tmpfs", str(where)], capture_output=True).returncode != 0:
        pytest.skip("no small file system can be mounted here")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def test_a_cache_on_a_disk_that_fills_keeps_nothing_and_each_run_answers(tree, tmp_path, small_disk):
    """Room for the cache's mark of ownership and nothing more: numba's writes fail for want of
    room, and each run still answers, saying so in one line."""
    for _ in range(2):
        said = []
        value, used = run(tree, small_disk / "cache", said=said, env={"TMPDIR": str(tmp_path)})
        assert value == 11 and Path(used).parent == small_disk / "cache"
        assert len(said) == 1 and "No space left on device" in said[0], said


def test_a_cache_on_a_full_disk_falls_back_to_the_temporary_directory(tree, tmp_path, small_disk):
    (small_disk / "filler").write_bytes(b"x" * 4096)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    said = []
    value, used = run(tree, small_disk / "cache", said=said, env={"TMPDIR": str(temporary)})
    assert value == 11 and Path(used).parent == temporary / f"replcheck-{os.getuid()}"
    assert said == []
