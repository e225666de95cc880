"""Fast batched play: the rules of ``kc_env.engine`` compiled with numba over arrays of games.

- ``kc_env.vector.KingsCornerVecEnv``: the stable-baselines3 ``VecEnv`` (with action masks for
  sb3-contrib ``MaskablePPO``) of ``num_envs`` single-agent games in one process (``vec_env.py``).
- ``kc_env.vector.VecGame``: the batched games with every seat played from outside, for tests
  and benchmarks (``game.py``); ``kernel.py`` is the compiled core.

``KingsCornerVecEnv`` needs stable-baselines3 (``kc_env[train]``). Why numba, and the figures:
``docs/speed.md``.
"""

from __future__ import annotations

from .game import VecGame, rules_row


def __getattr__(name: str):
    if name == "KingsCornerVecEnv":  # imported on demand: it needs stable-baselines3
        try:
            from .vec_env import KingsCornerVecEnv
        except ImportError as exc:
            if "stable_baselines3" in str(exc):
                raise ImportError(
                    "KingsCornerVecEnv is a stable-baselines3 VecEnv: pip install 'kc_env[train]'"
                ) from exc
            raise
        return KingsCornerVecEnv
    raise AttributeError(f"module 'kc_env.vector' has no attribute {name!r}")


__all__ = ["KingsCornerVecEnv", "VecGame", "rules_row"]
