"""Ctrl-C in ``kc train`` saves a checkpoint and says how to resume (issue 20)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kc_env.cli import main

CONFIG = Path(__file__).resolve().parent.parent / "configs" / "default.yaml"


def test_ctrl_c_in_kc_train_saves_a_checkpoint_and_says_how_to_resume(tmp_path, capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("numba")
    from sb3_contrib import MaskablePPO

    def interrupted(self, *args, **kwargs):
        self.num_timesteps = 512
        raise KeyboardInterrupt

    monkeypatch.setattr(MaskablePPO, "learn", interrupted)
    run = tmp_path / "run"
    assert main(["train", str(CONFIG), "--variant", "smoke", "--run", str(run), "--set", "eval.every=0",
                 "--set", "pretrain.teacher=null", "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert (run / "checkpoints" / "step_000000000512.pt").is_file()
    assert "step_000000000512.pt" in err and f"--run {run} --resume" in err and "Traceback" not in err
