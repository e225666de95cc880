"""How a script finds ``KingsCorner-v0``: Gymnasium 1.x's convention, as ALE and MiniGrid follow it
(issue 32). ``import kc_env`` registers the envs; ``gymnasium.make("kc_env:KingsCorner-v0")``
imports kc_env itself. Nothing runs at interpreter start: no ``.pth`` hook (the wheel holds none:
tests/test_shipped_models.py), so a bare ``import gymnasium`` knows nothing of kc_env.

Each check runs in a fresh interpreter outside the repository, so only what is installed counts
and no earlier ``import kc_env`` of this process helps."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import pytest

import kc_env


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_module_prefix_imports_kc_env_and_nothing_registers_before(tmp_path):
    code = """if True:
        import sys, gymnasium
        assert "KingsCorner-v0" not in gymnasium.registry, "registered before kc_env was imported"
        assert "kc_env" not in sys.modules, "imported at interpreter start"
        obs, info = gymnasium.make("kc_env:KingsCorner-v0").reset(seed=0)
        print(obs.shape, "kc_env" in sys.modules)
    """
    run = _python(code, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["(1599,)", "True"]


def test_import_kc_env_then_the_bare_id(tmp_path):
    code = """if True:
        import gymnasium
        import kc_env
        gymnasium.register_envs(kc_env)
        obs, info = gymnasium.make("KingsCorner-v0").reset(seed=0)
        vec_obs, _ = gymnasium.make_vec("KingsCorner-v0", num_envs=4).reset(seed=0)
        import pettingzoo
        aec = pettingzoo.make("aec", "kc_env/kings_corner_v0")
        print(obs.shape, vec_obs.shape, type(aec.unwrapped).__name__)
    """
    run = _python(code, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["(1599,)", "(4,", "1599)", "raw_env"]


def test_sb3_make_vec_env_with_the_module_prefix(tmp_path):
    """Issue 20's one-liner, in the convention: SB3 passes the id to ``gymnasium.make``."""
    pytest.importorskip("stable_baselines3")
    code = ("from stable_baselines3.common.env_util import make_vec_env; "
            "print(make_vec_env('kc_env:KingsCorner-v0', n_envs=4).reset().shape)")
    run = _python(code, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["(4,", "1599)"]


def test_one_declaration_and_registering_again_changes_nothing():
    spec = gymnasium.spec("KingsCorner-v0")
    (declared,) = kc_env.GYMNASIUM_ENVS
    assert (spec.id, spec.entry_point, spec.vector_entry_point) == (
        declared["id"], declared["entry_point"], declared["vector_entry_point"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium warns when an id is registered over
        kc_env._register()
        kc_env._register()
    assert gymnasium.spec("KingsCorner-v0") is spec
