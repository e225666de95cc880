"""The RLlib trainer's runs as benchmark entries (issue 33 item 4), without Ray running: a config
with ``benchmark.tasks`` and ``trainer: rllib`` is taken, each evaluation scores the network it
evaluates (``training/bench.py``), and a checkpoint keeps the run's ``benchmark.json`` that a
resume puts back. The tiny run on Ray is ``tests/test_rllib.py``'s (``-m slow``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib")

from kc_env.training import bench, trainers  # noqa: E402
from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training.rllib import train as train_mod  # noqa: E402
from kc_env.training.run import Run  # noqa: E402

from kc_env.benchmark import runs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TASK = "kc/standard-2p-vs-heuristic-v1"


def load(**overrides):
    return config_mod.load(ROOT / "configs" / "rllib-standard-2p.yaml", None,
                           {"benchmark.tasks": [TASK], "benchmark.quick": True, **overrides})


def test_a_config_with_benchmark_tasks_is_taken_by_the_rllib_trainer():
    assert "benchmark" in trainers.get("rllib").reads
    cfg = load()
    assert cfg.trainer == "rllib" and cfg.benchmark.tasks == [TASK]
    with pytest.raises(config_mod.ConfigError, match="is played at another table"):  # the tasks' own checks still hold
        load(num_players=3)


def test_benchmark_tasks_are_refused_for_a_trainer_that_does_not_read_them(monkeypatch):
    rllib = trainers.get("rllib")
    monkeypatch.setitem(trainers.REGISTRY, "rllib", dataclasses.replace(rllib, reads=rllib.reads - {"benchmark"}))
    with pytest.raises(config_mod.ConfigError, match="benchmark.tasks is read by the sb3 and turn_value and turn_ppo trainers only"):
        load()


def test_each_evaluation_scores_the_network_it_evaluates(monkeypatch, tmp_path):
    cfg = load(**{"eval.opponents": ["random"]})
    network, scored = object(), []
    monkeypatch.setattr(train_mod, "current_network", lambda algo, c: network)
    monkeypatch.setattr(train_mod, "evaluate_network", lambda net, *a, **k: {"win_rate": 0.5, "net": net})
    monkeypatch.setattr(bench, "score", lambda agent, c, folder, step, log=None: scored.append((agent, c, folder, step)))
    row = train_mod.evaluate(None, cfg, 4096, 3, tmp_path)
    assert row["random"]["net"] is network and len(scored) == 1
    agent, c, folder, step = scored[0]
    assert isinstance(agent, bench.NetworkAgent) and agent.network is network  # the most likely legal action
    assert (c, folder, step) == (cfg, tmp_path, 4096)
    train_mod.evaluate(None, cfg, 8192, 4)  # no run folder: nothing to record
    train_mod.evaluate(None, load(**{"benchmark.tasks": []}), 8192, 4, tmp_path)  # no tasks: nothing scored
    assert len(scored) == 1


class FakeAlgo:
    def save_to_path(self, path: str) -> None:
        Path(path).mkdir(parents=True)
        (Path(path) / "rllib_checkpoint.json").write_text("{}")


def test_a_checkpoint_keeps_benchmark_json_and_a_resume_puts_it_back(monkeypatch, tmp_path):
    monkeypatch.setenv("KC_ENV_SEAL_KEY", str(tmp_path / "seal.key"))
    run = Run(tmp_path / "run", load())
    run.folder.mkdir()
    state = {"iteration": 1, "env_steps": 400, "history": []}
    first = train_mod.save_checkpoint(run, FakeAlgo(), 1, state)  # no rows yet
    (run.folder / runs.FILE).write_text('{"rows": [0]}\n')
    second = train_mod.save_checkpoint(run, FakeAlgo(), 2, state)
    assert train_mod.newest_checkpoint(run.folder) == second and "benchmark_json" not in state
    (run.folder / runs.FILE).write_text('{"rows": [0, 800]}\n')  # scored after the checkpoint, then killed
    saved = json.loads(second.with_suffix(".json").read_text())
    train_mod.restore_benchmark(run, saved)
    assert (run.folder / runs.FILE).read_text() == '{"rows": [0]}\n' and "benchmark_json" not in saved
    train_mod.restore_benchmark(run, json.loads(first.with_suffix(".json").read_text()))
    assert not (run.folder / runs.FILE).exists()
