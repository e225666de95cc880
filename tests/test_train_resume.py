"""A stopped run resumes exactly as it would have gone on (``reliability-2026-12b.md`` M-6): the
checkpoint is taken after the PPO update, at a rollout's start, with the evaluation due then and
where the run stands (generators, games, last observation), so the resumed run reaches the same
weights, bit for bit, and the same evaluation rows as one never stopped."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training.sb3.train import train  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "research" / "configs" / "maskable-ppo-2p.yaml"
SHORT = {"total_timesteps": 3072, "checkpoint_every": 1024, "eval.every": 1024, "eval.deals": 8,
         "league.snapshot_every": 1024, "league.snapshot_weight": 0.5}
"""Three rollouts of 1,024 steps; a snapshot, an evaluation and a checkpoint after each update."""


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("resume") / "whole"
    train(config_mod.load(CONFIG, "smoke", SHORT), folder, progress=False, argv=["test"])
    return folder


def stopped_at(run: Path, step: int, into: Path) -> Path:
    """A copy of ``run`` as a kill right after its checkpoint at ``step`` would have left it."""
    shutil.copytree(run, into)
    for path in [*into.glob("final.*"), *(p for p in (into / "checkpoints").glob("step_*")
                                          if int(p.name.split(".")[0][5:]) > step)]:
        path.unlink()
    return into


def final_state(run: Path) -> dict:
    return torch.load(run / "final.pt", weights_only=True)


def assert_same_run(run: Path, other: Path) -> None:
    mine, theirs = final_state(run), final_state(other)
    assert mine["n_updates"] == theirs["n_updates"] and mine["num_timesteps"] == theirs["num_timesteps"]
    assert mine["policy"].keys() == theirs["policy"].keys()
    for name, tensor in mine["policy"].items():
        assert torch.equal(tensor, theirs["policy"][name]), f"{name} differs"
    assert json.loads((run / "eval.json").read_text()) == json.loads((other / "eval.json").read_text())


def test_a_checkpoint_follows_its_update_and_keeps_its_evaluation(whole_run):
    for step in (1024, 2048):
        state = torch.load(whole_run / "checkpoints" / f"step_{step:012d}.pt", weights_only=True)
        assert state["n_updates"] == step // 1024  # the update of the rollout that ended at ``step`` is in
        rows = json.loads((whole_run / "checkpoints" / f"step_{step:012d}.eval.json").read_text())
        assert [r["step"] for r in rows] == list(range(0, step + 1, 1024))
    assert final_state(whole_run)["n_updates"] == 3


def test_resuming_from_a_checkpoint_ends_bit_for_bit_where_the_whole_run_did(whole_run, tmp_path, capsys):
    run = stopped_at(whole_run, 1024, tmp_path / "stopped")
    train(config_mod.load(run / "config.yaml"), run, resume=True, progress=False)
    assert_same_run(whole_run, run)
    assert "keeps no games" not in capsys.readouterr().err


def test_a_run_stopped_before_its_first_checkpoint_starts_again(whole_run, tmp_path, capsys):
    run = stopped_at(whole_run, -1, tmp_path / "stopped")
    train(config_mod.load(run / "config.yaml"), run, resume=True, progress=False)
    assert "stopped before its first checkpoint; training from the start" in capsys.readouterr().err
    assert_same_run(whole_run, run)


def kc_train(run: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.Popen([sys.executable, "-m", "kc_env.cli", "train", *args, "--run", str(run), "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.slow
def test_kill_9_at_random_points_then_resume_matches_an_uninterrupted_run(tmp_path):
    """The report's reproducer, repeated: ``kill -9`` at random moments of a 16-rollout smoke run
    and of each resume, then ``--resume`` to the end; the same final weights, bit for bit, and the
    same evaluation rows as the run never killed."""
    steps = ["--set", "total_timesteps=16384"]
    whole = tmp_path / "whole"
    assert kc_train(whole, str(CONFIG), "--variant", "smoke", *steps).wait() == 0
    run, rng, kills = tmp_path / "killed", random.Random(int(os.environ.get("KC_KILL_SEED", "31"))), 0
    process = kc_train(run, str(CONFIG), "--variant", "smoke", *steps)
    while kills < int(os.environ.get("KC_KILLS", "6")):
        time.sleep(rng.uniform(4, 20))
        if process.poll() is not None:
            break
        process.send_signal(signal.SIGKILL)
        process.wait()
        kills += 1
        started = (run / "config.yaml").is_file()  # else killed before it wrote anything: start it again
        process = kc_train(run, *([str(run / "config.yaml"), "--resume"] if started else
                                  [str(CONFIG), "--variant", "smoke", *steps]))
    _, err = process.communicate()
    assert process.returncode == 0, err
    assert kills >= 3, f"only {kills} kills landed before the run ended: kill sooner"
    assert_same_run(whole, run)
    rows = json.loads((run / "eval.json").read_text())
    assert [r["step"] for r in rows] == list(range(0, 16385, 2048))
    print(f"{kills} kills; final weights and {len(rows)} evaluation rows equal to the uninterrupted run")
