"""The one place the trainers' shared modules make kc_env's fast vector env.

``vector_env`` makes the plain ``LearnerGames`` (no RL library): the evaluation every trainer runs
(``evaluate.py``) plays on it, so the RLlib and turn-value trainers run without stable-baselines3.
The SB3 trainer trains on the same games as an SB3 ``VecEnv`` (``sb3/train.py``).
"""

from __future__ import annotations

from typing import Any

from kc_env.vector.learner_games import LearnerGames


def vector_env(num_envs: int, **kwargs: Any) -> LearnerGames:
    """``num_envs`` games of the fast vector env (``LearnerGames``' keywords)."""
    return LearnerGames(num_envs, **kwargs)
