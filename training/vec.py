"""The one place the trainers make kc_env's fast vector env.

Today ``kc_env.vector.KingsCornerVecEnv`` subclasses stable-baselines3's ``VecEnv``, so making one
imports SB3. Issue 32 makes the fast env a plain class with thin SB3 and Gymnasium adapters; when
it lands, this module is what changes: the RLlib and turn-value trainers, which evaluate on the
vector env, then run without SB3. It is imported lazily here, so a module that imports this one
still loads without SB3 (``tests/test_trainers.py``).
"""

from __future__ import annotations

from typing import Any


def vector_env(num_envs: int, **kwargs: Any) -> Any:
    """``num_envs`` games of the fast vector env (``KingsCornerVecEnv``'s keywords)."""
    try:
        from kc_env.vector import KingsCornerVecEnv
    except ImportError as exc:
        raise ImportError(f"the vector env needs stable-baselines3 until issue 32 makes it a plain class: {exc}") from exc
    return KingsCornerVecEnv(num_envs, **kwargs)
