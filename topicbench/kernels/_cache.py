"""One numba cache stamp for the whole package, so that editing one file recompiles every kernel.

numba's cache keys a cached kernel by its own file's contents only, yet ``@njit`` callees from other files
(``special._exp_theta_block`` inside ``lda_estep._lda_e_step``) are compiled into it: after an edit of
``special.py`` the E-step would load stale machine code. Here the stamp of every function defined in this
package is a hash of all the package's files that define numba functions. Registered with numba's cache
locators (before its own ones, which it otherwise copies: NUMBA_CACHE_DIR, then __pycache__, then the user's
cache directory); NUMBA_CACHE_LOCATOR_CLASSES, if set, replaces them all.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent
# numba files outside the package that inline its kernels share the stamp (the gamma-Poisson family's kernels
# call _dot, _group_by_word, _digamma_parts, ...)
INLINERS = (PACKAGE.parent / "nmf_kernels.py",)


@functools.lru_cache(maxsize=None)
def _hash(stats: tuple) -> bytes:
    digest = hashlib.sha256()
    for name, _, _ in stats:
        digest.update(name.encode() + b"\0" + (PACKAGE.parent / name).read_bytes())
    return digest.digest()


def package_stamp() -> bytes:
    """sha256 over the package's files that define numba functions (re-read when one's mtime or size changes)."""
    files = [p for p in [*sorted(PACKAGE.glob("*.py")), *INLINERS] if p.exists() and b"njit" in p.read_bytes()]
    # names relative to topicbench/, so a copy of the repository (the mutation check's) keeps its warm cache
    return _hash(tuple((str(p.relative_to(PACKAGE.parent)), p.stat().st_mtime_ns, p.stat().st_size) for p in files))


def _for_this_package(base):
    class Locator(base):
        @classmethod
        def from_function(cls, py_func, py_file):
            path = Path(py_file).resolve()
            if path.parent != PACKAGE and path not in INLINERS:
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return package_stamp()

    Locator.__name__ = Locator.__qualname__ = f"TopicbenchKernels{base.__name__}"
    Locator.package = PACKAGE
    return Locator


class _TempDirCacheLocator(caching.UserWideCacheLocator):
    """The last resort: a cache in this user's temporary folder. Where the package's folder is read-only (an
    installed image) and the home folder too (a batch job's), numba finds no locator and refuses to define the
    kernels at all ("cannot cache function ...: no locator available"), an import-time traceback; a cache only
    changes how long the warm-up takes, so a temporary one will do."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        root = os.path.join(tempfile.gettempdir(), f"topicbench-numba-cache-{os.getuid()}")
        self._cache_path = os.path.join(root, self.get_suitable_cache_subpath(py_file))


# what unpickling a truncated or garbled cache file raises
_DAMAGED = (EOFError, ValueError, TypeError, AttributeError, ImportError, IndexError, KeyError, pickle.UnpicklingError)


def _tolerate_damaged_cache_files() -> None:
    """A damaged cache index or data file (a full disk or a crash while numba wrote it, a bad copy of the cache
    folder) is a cache miss: the kernel is compiled again and its entry rewritten. numba itself raises the
    unpickling error from inside the first kernel call, a traceback naming neither the file nor the cure. A cache
    that cannot be written (a full disk) is a warning: numba's OSError stopped the fit, naming no file."""
    cache_file = caching.IndexDataCacheFile
    if getattr(cache_file, "_topicbench_tolerant", False):
        return
    load_index, load = cache_file._load_index, cache_file.load

    def _load_index(self):
        try:
            return load_index(self)
        except _DAMAGED:
            return {}  # an empty index: compile, then save_overload writes a whole new index

    def _load(self, key):
        try:
            return load(self, key)
        except _DAMAGED:
            return None  # a miss: compile again (the new data file is written under a fresh name)

    save = cache_file.save

    def _save(self, key, data):
        try:
            save(self, key, data)
        except OSError as err:  # a full disk or a read-only cache folder: the kernel runs, only uncached
            if not _UNSAVED:
                print(f"topicbench: warning: cannot write the numba kernel cache in {self._cache_path} "
                      f"({err.strerror or err}); the kernels are compiled again next time", file=sys.stderr)
            _UNSAVED.append(self._cache_path)

    cache_file._load_index, cache_file.load, cache_file.save = _load_index, _load, _save
    cache_file._topicbench_tolerant = True


_UNSAVED: list[str] = []  # cache folders that could not be written (one warning per process)


def register() -> None:
    """Put this package's locators first (once per package directory, e.g. two copies loaded by a benchmark)."""
    _tolerate_damaged_cache_files()
    classes = caching.CacheImpl._locator_classes
    if not any(getattr(cls, "package", None) == PACKAGE for cls in classes):
        bases = (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator,
                 _TempDirCacheLocator)
        classes[:0] = [_for_this_package(base) for base in bases]
