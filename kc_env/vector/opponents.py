"""Rule-based opponents for the vector env, batched: ``rule_based("greedy")`` is a function
``(obs [k, 1584] float32, masks [k, 497] int8) -> actions [k]`` that runs the numba policy of
``kc_env.agents.policies`` over every row in one compiled loop.

The loop is compiled per process (not cached on disk): a numba cache would keep a copy of the
policy's code and would not notice when ``policies.py`` changes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange

_MADE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {}


def rule_based(name: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The batched form of ``kc_env.agents.policies.<name>_action`` (``greedy`` or ``heuristic``)."""
    if name in _MADE:
        return _MADE[name]
    try:
        from ..agents import policies
    except ImportError as exc:  # pragma: no cover - only while the policies are being written
        raise ValueError(f"the {name!r} opponent needs kc_env.agents.policies, which cannot be imported: {exc}") from None
    fn = getattr(policies, f"{name}_action")
    loop = _compile_loop(fn)

    def act_batch(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.zeros(len(obs), dtype=np.int64)
        loop(np.ascontiguousarray(obs, dtype=np.float32), np.ascontiguousarray(masks, dtype=np.int8), out)
        return out

    _MADE[name] = act_batch
    return act_batch


def _compile_loop(fn):
    """The policy over every row, the rows shared among numba's threads (one per core). Each call
    reads only its own row and allocates its own scratch, so the answers are those of the serial
    loop; on 2 idle cores the heuristic went from 220 to 132 us a decision (heuristic opponents
    are most of a training rollout's time)."""

    @njit(parallel=True)
    def loop(obs, masks, out):
        for i in prange(obs.shape[0]):
            out[i] = fn(obs[i], masks[i])

    return loop
