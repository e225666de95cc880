"""Fast batched play: the rules of ``kc_env.engine`` compiled with numba over arrays of games.

- ``kc_env.vector.LearnerGames``: ``num_envs`` single-agent games in one process, opponents
  played inside ``step``, a plain class (``learner_games.py``): the fast vector env, which the two
  adapters below present to RL libraries.
- ``kc_env.vector.KingsCornerVectorEnv``: those games as a Gymnasium 1.x ``VectorEnv``
  (``gym_vector.py``), what ``gymnasium.make_vec("KingsCorner-v0", num_envs=N)`` makes.
- ``kc_env.vector.KingsCornerVecEnv``: those games as a stable-baselines3 ``VecEnv`` (with action
  masks for sb3-contrib ``MaskablePPO``, ``vec_env.py``); it needs stable-baselines3
  (``kc_env[train]``), and only it.
- ``kc_env.vector.VecGame``: the batched games with every seat played from outside, for tests
  and benchmarks (``game.py``); ``kernel.py`` is the compiled core.

Why numba, and the figures: ``docs/speed.md``.
"""

from __future__ import annotations

from .game import VecGame, rules_row


def __getattr__(name: str):
    if name == "LearnerGames":  # imported on demand: import kc_env compiles and loads no vector env
        from .learner_games import LearnerGames

        return LearnerGames
    if name == "KingsCornerVectorEnv":
        from .gym_vector import KingsCornerVectorEnv

        return KingsCornerVectorEnv
    if name == "KingsCornerVecEnv":  # the one that needs stable-baselines3
        try:
            from .vec_env import KingsCornerVecEnv
        except ImportError as exc:
            if "stable_baselines3" in str(exc):
                raise ImportError(
                    f"KingsCornerVecEnv is a stable-baselines3 VecEnv: pip install 'kc_env[train]' "
                    f"(LearnerGames and gymnasium.make_vec('KingsCorner-v0') need no SB3) ({exc})"
                ) from exc
            raise
        return KingsCornerVecEnv
    raise AttributeError(f"module 'kc_env.vector' has no attribute {name!r}")


def make_vector_env(num_envs: int = 256, **kwargs):
    """``KingsCorner-v0``'s vector entry point (``gymnasium.make_vec``): a ``KingsCornerVectorEnv``
    of ``num_envs`` games (the keywords are ``LearnerGames``')."""
    return __getattr__("KingsCornerVectorEnv")(num_envs, **kwargs)


__all__ = ["KingsCornerVecEnv", "KingsCornerVectorEnv", "LearnerGames", "VecGame", "make_vector_env", "rules_row"]
