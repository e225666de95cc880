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
_WEIGHTED: list = []  # the compiled loop of ``weighted_heuristic``, once made
_TUNED: dict[tuple[float, ...], Callable[[np.ndarray, np.ndarray], np.ndarray]] = {}  # by weights


def rule_based(name: str, weights=None) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The batched form of ``kc_env.agents.policies.<name>_action`` (``greedy`` or ``heuristic``);
    the heuristic with its evaluation ``weights`` (a mapping, ``policies.evaluation_weights``)
    when given."""
    try:
        from ..agents import policies
    except ImportError as exc:  # pragma: no cover - only while the policies are being written
        raise ValueError(f"the {name!r} opponent needs kc_env.agents.policies, which cannot be imported: {exc}") from None
    if weights is not None:
        if name != "heuristic":
            raise ValueError(f"only the heuristic has evaluation weights, not {name!r}")
        table = policies.evaluation_weights(weights)
        key = tuple(table.tolist())  # rollout rewards ask for the same prior at every step
        if key not in _TUNED:
            _TUNED[key] = weighted_heuristic(table[None, :])
        return _TUNED[key]
    if name in _MADE:
        return _MADE[name]
    fn = getattr(policies, f"{name}_action")
    loop = _compile_loop(fn)

    def act_batch(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.zeros(len(obs), dtype=np.int64)
        loop(np.ascontiguousarray(obs, dtype=np.float32), np.ascontiguousarray(masks, dtype=np.int8), out)
        return out

    _MADE[name] = act_batch
    return act_batch


def weighted_heuristic(table: np.ndarray, rows: np.ndarray | None = None) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The heuristic over a batch, row ``i`` with the evaluation weights ``table[rows[i]]`` (float64
    ``[k, len(WEIGHT_NAMES)]``; every row with ``table[0]`` when ``rows`` is None)."""
    table = np.ascontiguousarray(table, dtype=np.float64)

    def act_batch(obs: np.ndarray, masks: np.ndarray, rows: np.ndarray | None = rows) -> np.ndarray:
        out = np.zeros(len(obs), dtype=np.int64)
        which = np.zeros(len(obs), dtype=np.int64) if rows is None else np.ascontiguousarray(rows, dtype=np.int64)
        _weighted_loop()(np.ascontiguousarray(obs, dtype=np.float32), np.ascontiguousarray(masks, dtype=np.int8),
                         table, which, out)
        return out

    return act_batch


def _weighted_loop():
    if not _WEIGHTED:
        from ..agents.policies import heuristic_action_w

        @njit(parallel=True)
        def loop(obs, masks, table, which, out):
            for i in prange(obs.shape[0]):
                out[i] = heuristic_action_w(obs[i], masks[i], table[which[i]].copy())

        _WEIGHTED.append(loop)
    return _WEIGHTED[0]


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
