"""Fast batched play: the rules of ``kc_env.engine`` compiled with numba over arrays of games.

- ``kc_env.vector.KingsCornerVecEnv``: the stable-baselines3 ``VecEnv`` (with action masks for
  sb3-contrib ``MaskablePPO``) of ``num_envs`` single-agent games in one process (``vec_env.py``).
- ``kc_env.vector.KingsCornerVectorEnv``: the same games as a Gymnasium 1.x ``VectorEnv``
  (``gym_vector.py``), what ``gymnasium.make_vec("KingsCorner-v0", num_envs=N)`` makes.
- ``kc_env.vector.VecGame``: the batched games with every seat played from outside, for tests
  and benchmarks (``game.py``); ``kernel.py`` is the compiled core.

``KingsCornerVecEnv`` needs stable-baselines3 (``kc_env[train]``). Why numba, and the figures:
``docs/speed.md``.
"""

from __future__ import annotations

from .game import VecGame, rules_row


def __getattr__(name: str):
    if name in ("KingsCornerVecEnv", "KingsCornerVectorEnv"):  # imported on demand: they need stable-baselines3
        try:
            from . import gym_vector, vec_env
        except ImportError as exc:
            if "stable_baselines3" in str(exc):
                raise ImportError(
                    f"{name} drives a stable-baselines3 VecEnv: pip install 'kc_env[train]'"
                ) from exc
            raise
        return vec_env.KingsCornerVecEnv if name == "KingsCornerVecEnv" else gym_vector.KingsCornerVectorEnv
    raise AttributeError(f"module 'kc_env.vector' has no attribute {name!r}")


def make_vector_env(num_envs: int = 256, **kwargs):
    """``KingsCorner-v0``'s vector entry point (``gymnasium.make_vec``): a ``KingsCornerVectorEnv``
    of ``num_envs`` games (the keywords are ``KingsCornerVecEnv``'s)."""
    return __getattr__("KingsCornerVectorEnv")(num_envs, **kwargs)


__all__ = ["KingsCornerVecEnv", "KingsCornerVectorEnv", "VecGame", "make_vector_env", "rules_row"]
