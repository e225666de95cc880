"""Parallel loops (the vector env's step, its compiled opponents, the batched agents) start one
per step: they run on numba's TBB layer where pip installs TBB (``compiled.load_tbb``), which
starts one in about 2 us against about 100 us for numba's own workqueue. Results never depend on
the layer (every game's moves are its own, whichever core plays them)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

pytest.importorskip("numba")

from kc_env import compiled  # noqa: E402

WITH_TBB_WHEEL = sys.platform == "linux" and platform.machine() == "x86_64"
PROBE = """
import numpy as np, numba
from kc_env.vector import LearnerGames
games = LearnerGames(64, opponents="random", seed=0)
games.reset()
games.step(np.full(64, 496))
print(numba.threading_layer())
"""


@pytest.mark.skipif(not WITH_TBB_WHEEL, reason="pip's tbb wheel is for Linux x86_64 (and Windows)")
def test_the_vector_env_steps_on_tbb_where_pip_installs_it():
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_THREADING_LAYER", "LD_LIBRARY_PATH")}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == "tbb"


def test_load_tbb_finds_nothing_on_a_platform_without_its_library(monkeypatch):
    monkeypatch.setattr(compiled.sys, "platform", "sunos5")
    assert compiled.load_tbb() is False
