"""numba's cache files of replcheck's kernels, read with damage in mind and written where there
is room.

A cache is a cache. numba's own reader raises on an index or data file that cannot be read
back (cut short, overwritten: an UnpicklingError, or an EOFError that click reports as a bare
"Aborted!"), so every later run failed the same way until the user deleted the cache; and its
writer raises on a full disk. Here a file that cannot be read back counts as absent: the
function is compiled again and numba writes the file anew, through a temporary file renamed
over it as always (a run reading the cache at the same time sees the old file or the new one,
never half of one), so the repair lasts. A write that fails leaves the compiled code in use and
not kept. Each is said once a run (`cache.damaged`, `cache.not_kept`). A Ctrl-C that numba
turned into an error of its own while loading is no damage: it goes on up.
"""

from __future__ import annotations

from numba.core.caching import FunctionCache, IndexDataCacheFile

from ..interrupts import interruption_behind
from .cache import damaged, not_kept


class _CheckedFile(IndexDataCacheFile):
    """numba's index and data files of one function, where a file that cannot be read back is
    taken for an absent one (an index for an empty one, so saving a version writes it anew)."""

    def _load_index(self):
        try:
            return super()._load_index()
        except Exception as error:
            _damaged(error, self._index_path)
            return {}

    def _load_data(self, name):
        try:
            return super()._load_data(name)
        except OSError:
            raise  # gone since the index was read: numba takes it for absent
        except Exception as error:
            _damaged(error, self._data_path(name))
            return None


class CheckedCache(FunctionCache):
    """numba's on-disk cache of one kernel's compiled versions, where a damaged file is compiled
    again and a full disk keeps nothing (module docstring)."""

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file.__class__ = _CheckedFile

    def load_overload(self, sig, target_context):
        """The cached version for `sig`; None where there is none or it cannot be rebuilt from
        what was read (a data file that reads back but is not what numba wrote)."""
        try:
            return super().load_overload(sig, target_context)
        except Exception as error:
            _damaged(error, self._cache_file._index_path)
            return None

    def save_overload(self, sig, data):
        """Keep the version `data` for `sig`, where the cache can be written."""
        try:
            super().save_overload(sig, data)
        except OSError as error:
            not_kept(error, self._cache_path)


def _damaged(error: Exception, path: str) -> None:
    """Say that the cache file `path` is damaged (`cache.damaged`), `error` being what reading it
    raised; unless `error` is a Ctrl-C that numba turned into an error of its own: raise it then."""
    if interruption_behind(error) is not None:
        raise error
    damaged(path)
