"""Ctrl-C in ``kc train`` saves a checkpoint and says how to resume (issue 20)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kc_env.cli import main

CONFIG = Path(__file__).resolve().parent.parent / "research" / "configs" / "maskable-ppo-2p.yaml"


def test_ctrl_c_in_kc_train_saves_a_checkpoint_and_says_how_to_resume(tmp_path, capsys, monkeypatch):
    """Ctrl-C during the second PPO update (after 2,048 steps) writes the checkpoint of the last
    rollout's start (1,024 steps, after the first update), never a half-done update."""
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("numba")
    import torch
    from sb3_contrib import MaskablePPO

    real, updates = MaskablePPO.train, []

    def interrupted(self, *args, **kwargs):
        updates.append(self.num_timesteps)
        if len(updates) == 2:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(MaskablePPO, "train", interrupted)
    run = tmp_path / "run"
    assert main(["train", str(CONFIG), "--variant", "smoke", "--run", str(run), "--set", "eval.every=0",
                 "--set", "checkpoint_every=0", "--set", "pretrain.teacher=null", "--no-progress"]) == 130
    err = capsys.readouterr().err
    saved = run / "checkpoints" / "step_000000001024.pt"
    assert updates == [1024, 2048] and sorted(p.name for p in saved.parent.glob("*.pt")) == [saved.name]
    assert torch.load(saved, weights_only=True)["n_updates"] == 1
    assert f"{saved.name}" in err and f"kc train {run / 'config.yaml'} --run {run} --resume" in err
    assert "Traceback" not in err
