"""The fast vector env needs no stable-baselines3 (issue 32): ``LearnerGames`` is a plain class,
``gymnasium.make_vec("KingsCorner-v0")`` its Gymnasium adapter, and only ``KingsCornerVecEnv``
(the SB3 adapter) imports SB3. Each check runs in a fresh interpreter whose imports of
``stable_baselines3`` and ``sb3_contrib`` fail, as in a venv without them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from without_sb3 import run_without_sb3

ROOT = Path(__file__).resolve().parent.parent

NO_SB3_LOADED = """
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("stable_baselines3", "sb3_contrib"))
    assert not loaded, loaded
"""


def _run_without_sb3(code: str) -> subprocess.CompletedProcess:
    return run_without_sb3(code, after=NO_SB3_LOADED)


def test_make_vec_plays_with_masks_without_sb3():
    done = _run_without_sb3("""
        import gymnasium
        import numpy as np
        import kc_env

        envs = gymnasium.make_vec("KingsCorner-v0", num_envs=64, opponents="heuristic")
        obs, info = envs.reset(seed=3)
        assert obs.shape == (64, 1599) and info["action_mask"].shape == (64, 497)
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(200):
            masks = info["action_mask"].astype(bool)
            assert masks.any(axis=1).all(), "a game without a legal action"
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
            obs, rewards, terminations, truncations, info = envs.step(actions)
            ended += int((terminations | truncations).sum())
        assert ended > 0, "no deal ended in 200 steps"
        envs.close()
        print("played", ended)
    """)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("played"), done.stdout


def test_learner_games_and_the_trainers_vector_env_without_sb3():
    pytest.importorskip("torch")
    done = _run_without_sb3("""
        import numpy as np
        from kc_env.vector import LearnerGames, kernel
        from kc_env.training.vec import vector_env

        games = vector_env(8, opponents="greedy", seed=1, illegal_action="raise")
        assert isinstance(games, LearnerGames)
        obs = games.reset()
        acts = np.zeros(8, dtype=np.int64)
        for _ in range(100):
            kernel.sample_masks(games.action_masks(), np.arange(8, dtype=np.uint64), acts)
            obs, rewards, dones, infos = games.step(acts)
        try:
            from kc_env.vector import KingsCornerVecEnv
        except ImportError as exc:
            assert "pip install 'kc_env[train]'" in str(exc), exc
            print("sb3 adapter:", exc)
    """)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "sb3 adapter: KingsCornerVecEnv is a stable-baselines3 VecEnv" in done.stdout, done.stdout


def test_the_rllib_trainer_imports_without_sb3():
    pytest.importorskip("ray")
    done = _run_without_sb3("""
        import kc_env.training.rllib.train, kc_env.training.rllib.export
        print("rllib trainer imported")
    """)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rllib trainer imported" in done.stdout
