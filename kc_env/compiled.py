"""How kc_env compiles: ``numba.njit`` with the machine code cached on disk, and a cache that
knows when any compiled source has changed.

numba keys a function's cache on the content of the file that defines it, not on the files of
the functions it calls: the heuristic (``agents/heuristic``) calls the vector kernel
(``vector/kernel.py``), so a change to a rule in the kernel would leave the heuristic's cached
code playing the old rule. Importing this module (``kernel.py`` does, before its first
function) gives every kc_env file one stamp instead: a hash of all the files with compiled code
and of the tables they read at compile time (``TABLES``). Any change to one
of them recompiles them all; files outside kc_env keep numba's own rule.

A loop over the cores (``parallel=True``, ``prange``) is compiled with ``njit_parallel``, which
lets one thread at a time into such loops: numba's threading layer here ("forksafe", which
without TBB or Intel OpenMP is its own workqueue) aborts the whole process when two threads
enter parallel code at once, and the web table runs agents in several threads.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import numba
from numba.core import caching

PACKAGE = Path(__file__).resolve().parent
ROOTS = tuple(p for p in (PACKAGE, PACKAGE.parent / "training") if p.is_dir())
"""Where kc_env's sources lie: the package, and in a clone the training folder that installs as
``kc_env.training`` (in a wheel it lies inside the package)."""
TABLES = ("cards.py", "observation.py", "actions.py", "rules.py", "game_info.py")
"""Files without compiled code whose values compiled code freezes as constants (the cards, the
observation layout, and ``GAME_INFO`` with what it reads: the action layout, the seats)."""


@functools.lru_cache(maxsize=1)
def sources_stamp() -> bytes:
    """A hash of every kc_env source that compiled code depends on."""
    digest = hashlib.sha256()
    for path in compiled_sources():
        digest.update(str(path.relative_to(PACKAGE.parent)).encode() + b"\0" + path.read_bytes())
    return digest.digest()


def compiled_sources() -> list[Path]:
    """The files ``sources_stamp`` hashes: every source with compiled code, and ``TABLES``."""
    files = {path for root in ROOTS for path in root.rglob("*.py") if b"njit" in path.read_bytes()}
    files |= {PACKAGE / name for name in TABLES}
    return sorted(files)


class PackageCacheLocator(caching.InTreeCacheLocator):
    """numba's in-tree cache (``__pycache__`` beside the source) for kc_env's files, stamped with
    ``sources_stamp`` instead of the one file's hash."""

    def get_source_stamp(self):
        return sources_stamp()

    @classmethod
    def from_function(cls, py_func, py_file):
        if not any(os.path.abspath(py_file).startswith(str(root) + os.sep) for root in ROOTS):
            return None
        return super().from_function(py_func, py_file)


_LOCATORS = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # named _CacheImpl before numba 0.61
if PackageCacheLocator not in _LOCATORS._locator_classes:
    _LOCATORS._locator_classes.insert(0, PackageCacheLocator)

njit = functools.partial(numba.njit, cache=True)
"""``numba.njit(cache=True)``, the one way kc_env compiles (``@njit`` or ``@njit(inline=...)``)."""

PARALLEL_LOCK = threading.RLock()
"""Held by the thread running a parallel loop (``njit_parallel``): one at a time per process."""


def njit_parallel(fn: Callable) -> Callable:
    """``numba.njit(parallel=True, cache=True)`` for a loop over the cores called from Python,
    which takes ``PARALLEL_LOCK`` around every call (see the module docstring): the one way
    kc_env compiles ``prange`` loops (``@njit_parallel``). The compiled function is ``.compiled``;
    compiled code must not call a parallel loop (numba would nest the launch)."""
    compiled = njit(parallel=True)(fn)

    @functools.wraps(fn)
    def one_at_a_time(*args, **kwargs):
        with PARALLEL_LOCK:
            return compiled(*args, **kwargs)

    one_at_a_time.compiled = compiled
    return one_at_a_time


def _fresh_lock_after_fork() -> None:
    """A forked child starts with the lock free: the thread that held it is not in the child."""
    global PARALLEL_LOCK
    PARALLEL_LOCK = threading.RLock()


os.register_at_fork(after_in_child=_fresh_lock_after_fork)

if "NUMBA_THREADING_LAYER" not in os.environ:
    # The batched agents run in parallel (prange); with GNU OpenMP, numba's usual layer where TBB
    # is not installed, a process that forks after one such run (kc eval's worker pool, after its
    # warm-up) has its children abort and waits for them forever. "forksafe" takes TBB, else
    # Intel OpenMP, else numba's own workqueue; an explicit NUMBA_THREADING_LAYER still wins.
    numba.config.THREADING_LAYER = "forksafe"
