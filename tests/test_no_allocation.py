"""Compiled functions that ``kernel.borrowing`` code calls allocate nothing.

numba compiles a function without an ``_nrt`` of its own with the flags of the first caller that
compiles it: called first from a ``borrowing`` function (the heuristic's search calls
``greedy_action``) it compiles without reference counting, and an array made in it (or returned
to it by a callee compiled with reference counting) is never freed. The disk cache keeps that
version for every later caller (its key is the signature, not the flags), so every later call of
``greedy_action`` from Python leaked its array. A function that allocates nothing is the same
under both flags, whichever caller compiles it first.

The check reads the machine code: the object code of a function names the NRT allocators it or
its callees (numba links them in) call. numba keeps that object code only for what it compiles in
the process (not for what it loads from the cache, nor does it show cached code's IR), so the
check compiles them afresh in a child process with a cache folder of its own (a few seconds).
"""

from __future__ import annotations

import os
import subprocess
import sys

CHECK = r"""
import numpy as np
from kc_env.agents import greedy, view
from kc_env.vector import kernel as K

ALLOCATORS = (b"NRT_MemInfo_alloc", b"NRT_MemInfo_new", b"NRT_Allocate")
obs = np.zeros(K.OBS_SIZE, dtype=np.float32)
mask = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
mask[K.END_TURN_ACTION] = 1
for fn, args in ((greedy.greedy_action, (obs, mask)), (view.card_penalty, (obs, np.int64(52))),
                 (view.card_penalties, (obs,))):
    fn(*args)
    sig = tuple(fn.typeof_pyval(a) for a in args)
    _name, kind, (code, _bitcode) = fn.overloads[sig].library.serialize_using_object_code()
    assert kind == "object"
    print(fn.__name__, any(name in code for name in ALLOCATORS))
"""


def test_greedy_allocates_nothing(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True,
                         timeout=600, check=True).stdout
    allocates = dict(line.split() for line in out.splitlines())
    assert allocates == {"greedy_action": "False", "card_penalty": "False",
                         "card_penalties": "True"}  # the last: the check does see an allocation
