"""How kc_env compiles: ``numba.njit`` with the machine code cached on disk, and a cache that
knows when any compiled source has changed.

numba keys a function's cache on the content of the file that defines it, not on the files of
the functions it calls: the heuristic (``agents/heuristic``) calls the vector kernel
(``vector/kernel.py``), so a change to a rule in the kernel would leave the heuristic's cached
code playing the old rule. Importing this module (``kernel.py`` does, before its first
function) gives every kc_env file one stamp instead: a hash of all the files with compiled code
and of the tables they read at compile time (``TABLES``). Any change to one
of them recompiles them all; files outside kc_env keep numba's own rule.

The machine code is cached in the user's cache folder, ``$XDG_CACHE_HOME/kc_env/numba`` (by
default ``~/.cache/kc_env/numba``), or under ``NUMBA_CACHE_DIR`` when the user sets it, each
source folder in a subfolder of its own (numba's naming, a hash of the folder's path): not beside
the sources, so that an installed package stays as pip wrote it and ``pip uninstall`` leaves
nothing in site-packages. Where that folder cannot be written, the cache goes beside the sources
(numba's ``__pycache__``), under the same stamp. The first compile of a process that has to
compile (nothing cached yet, or a source changed) says so once on stderr when stderr is a
terminal: the agents take about 30 s to compile on idle cores (minutes on a busy machine), once; later
processes load them.

A loop over the cores (``parallel=True``, ``prange``) is compiled with ``njit_parallel``, which
lets one thread at a time into such loops: numba's threading layer here ("forksafe", which
without TBB or Intel OpenMP is its own workqueue) aborts the whole process when two threads
enter parallel code at once, and the web table runs agents in several threads.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import sys
import sysconfig
import threading
from collections.abc import Callable
from pathlib import Path

import numba
from numba.core import caching, cgutils, event, types
from numba.extending import intrinsic

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


def cache_dir() -> Path:
    """The folder of kc_env's numba cache: ``NUMBA_CACHE_DIR`` when set, else
    ``$XDG_CACHE_HOME/kc_env/numba`` (``~/.cache/kc_env/numba`` without ``XDG_CACHE_HOME``)."""
    if numba.config.CACHE_DIR:
        return Path(numba.config.CACHE_DIR)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kc_env" / "numba"


def is_ours(py_file: str) -> bool:
    """Whether ``py_file`` is one of kc_env's sources (``ROOTS``)."""
    return any(os.path.abspath(py_file).startswith(str(root) + os.sep) for root in ROOTS)


class PackageTreeCacheLocator(caching.InTreeCacheLocator):
    """numba's in-tree cache (``__pycache__`` beside the source) for kc_env's files, stamped with
    ``sources_stamp`` instead of the one file's hash: where ``PackageCacheLocator``'s folder
    cannot be written."""

    def get_source_stamp(self):
        return sources_stamp()

    @classmethod
    def from_function(cls, py_func, py_file):
        return super().from_function(py_func, py_file) if is_ours(py_file) else None


class PackageCacheLocator(PackageTreeCacheLocator):
    """kc_env's files cached in ``cache_dir()``, one subfolder for each source folder (numba's
    ``get_suitable_cache_subpath``: its name and a hash of its path, so two copies of kc_env never
    share a cache), stamped with ``sources_stamp``."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = str(cache_dir() / self.get_suitable_cache_subpath(py_file))


_LOCATORS = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # named _CacheImpl before numba 0.61
for _locator in (PackageTreeCacheLocator, PackageCacheLocator):  # PackageCacheLocator first
    if _locator not in _LOCATORS._locator_classes:
        _LOCATORS._locator_classes.insert(0, _locator)

COMPILING_NOTICE = ("kc_env: compiling the agents for this machine, once (about 30 s on idle cores); "
                    "later runs load them from {folder}")


class CompileNotice(event.Listener):
    """Says ``COMPILING_NOTICE`` on stderr (a terminal) at the first compile of kc_env code in the
    process. numba fires ``numba:compile`` only when it compiles, not when it loads the cache."""

    def __init__(self) -> None:
        self.said = False

    def on_start(self, ev: event.Event) -> None:
        if self.said:
            return
        dispatcher = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
        code = getattr(getattr(dispatcher, "py_func", None), "__code__", None)
        if code is None or not is_ours(code.co_filename):
            return
        self.said = True
        stream = sys.stderr
        if stream is not None and stream.isatty():
            print(COMPILING_NOTICE.format(folder=cache_dir()), file=stream, flush=True)

    def on_end(self, ev: event.Event) -> None:
        pass


NOTICE = CompileNotice()
event.register("numba:compile", NOTICE)

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


@intrinsic
def take_next(typingctx, counter):
    """``counter[0] += 1`` as one atomic step, returning the value before: the cores of a
    ``prange`` loop share out work items with it, each taking the next one free as it finishes
    the last (numba's workqueue splits a loop's range among the cores beforehand, which leaves a
    core idle when the costly items fall to the other). ``counter``: an int64 array."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        slot = cgutils.get_item_pointer(context, builder, signature.args[0], ary, [context.get_constant(types.intp, 0)])
        return builder.atomic_rmw("add", slot, context.get_constant(types.int64, 1), "seq_cst")

    return types.int64(counter), codegen


def _fresh_lock_after_fork() -> None:
    """A forked child starts with the lock free: the thread that held it is not in the child."""
    global PARALLEL_LOCK
    PARALLEL_LOCK = threading.RLock()


os.register_at_fork(after_in_child=_fresh_lock_after_fork)

TBB_LIBRARIES = {"linux": "libtbb.so.12", "darwin": "libtbb.12.dylib"}
"""The TBB library numba's TBB layer links against, by platform (pip's ``tbb`` wheel)."""


def load_tbb() -> bool:
    """Load the TBB library that pip's ``tbb`` wheel (a dependency where it has one) puts in the
    environment's ``lib`` folder, where the dynamic loader does not look, so that numba's TBB
    layer finds it loaded. Returns whether it is. Starting a parallel loop costs numba's own
    workqueue about 100 us on this project's 2-core VM and TBB about 2 us: the vector env's step
    and its compiled opponents start one every step."""
    name = TBB_LIBRARIES.get(sys.platform)
    if name is None:
        return False
    user = sysconfig.get_paths(scheme=f"{os.name}_user")["data"]  # pip install --user
    for folder in dict.fromkeys((sysconfig.get_paths()["data"], sys.prefix, user, sys.base_prefix)):
        path = Path(folder) / "lib" / name
        if path.is_file():
            try:
                ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
            except OSError:
                return False
            return True
    return False


if "NUMBA_THREADING_LAYER" not in os.environ:
    # The batched agents run in parallel (prange); with GNU OpenMP, numba's usual layer where TBB
    # is not installed, a process that forks after one such run (kc eval's worker pool, after its
    # warm-up) has its children abort and waits for them forever. "forksafe" takes TBB (loaded
    # here when pip installed it), else Intel OpenMP, else numba's own workqueue; an explicit
    # NUMBA_THREADING_LAYER still wins.
    load_tbb()
    numba.config.THREADING_LAYER = "forksafe"
