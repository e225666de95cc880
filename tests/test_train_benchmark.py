"""Training runs as benchmark entries (issue 33 item 4): ``benchmark.tasks`` in a config scores the
policy on kc-bench tasks at each evaluation into the run's ``benchmark.json``, kept in every
checkpoint; ``kc train CONFIG --seeds 0-4 --run RUN`` trains one run per seed into ``RUN/seed-N``;
``kc benchmark --runs`` aggregates them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from kc_env.training import bench  # noqa: E402
from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training import run as run_mod  # noqa: E402

from kc_env.benchmark import runs  # noqa: E402
from kc_env.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "research" / "configs" / "maskable-ppo-2p.yaml"
TASK = "kc/standard-2p-vs-heuristic-v1"


def load(**overrides):
    return config_mod.load(CONFIG, "smoke", overrides)


@pytest.mark.parametrize(("overrides", "message"), [
    ({"benchmark.tasks": ["kc/standard-2p-vs-nobody-v1"]}, f"no task 'kc/standard-2p-vs-nobody-v1' in kc-bench-v1; tasks: {TASK}"),
    ({"benchmark.tasks": ["kc/pagat-2p-vs-heuristic-v1"]}, "is a held-out table of the rule-generalisation track"),
    ({"benchmark.tasks": ["kc/standard-4p-vs-heuristic-v1"]}, r"\(standard, 4 players\) is played at another table"),
    ({"benchmark.tasks": [TASK], "rules": "wikihow"}, r"\(standard, 2 players\) is played at another table"),
    ({"benchmark.tasks": [7]}, r"benchmark.tasks must list task ids \(strings\)"),
    ({"benchmark.tasks": [TASK], "benchmark.workers": -1}, "benchmark.workers must be 0"),
])
def test_a_benchmark_task_is_checked_with_the_config(overrides, message):
    with pytest.raises(config_mod.ConfigError, match=message):
        load(**overrides)


def test_a_train_table_at_the_configs_table_is_taken():
    cfg = load(**{"benchmark.tasks": ["kc/wikihow-2p-vs-heuristic-v1"], "rules": "wikihow", "benchmark.quick": True})
    assert cfg.benchmark.tasks == ["kc/wikihow-2p-vs-heuristic-v1"] and cfg.benchmark.quick


def test_the_network_agent_plays_the_most_likely_legal_action():
    class Net:
        def logits(self, obs, masks):
            return np.arange(masks.shape[1], dtype=float)[None]

    mask = np.zeros(497, dtype=np.int8)
    mask[[3, 40]] = 1
    assert bench.NetworkAgent(Net()).act({"observation": np.zeros(1599, np.float32), "action_mask": mask}) == 40


def test_a_checkpoint_keeps_the_benchmark_rows_and_a_resume_puts_them_back(tmp_path):
    assert bench.snapshot(tmp_path) is None
    (tmp_path / runs.FILE).write_text('{"rows": [1]}\n')
    saved = bench.snapshot(tmp_path)
    (tmp_path / runs.FILE).write_text('{"rows": [1, 2]}\n')
    bench.restore(tmp_path, saved)
    assert (tmp_path / runs.FILE).read_bytes() == saved
    bench.restore(tmp_path, None)  # a checkpoint from before the first scores: the rows after it go
    assert not (tmp_path / runs.FILE).exists()


def test_seeds_train_one_run_each_and_resume_only_the_unfinished(tmp_path, monkeypatch, capsys):
    from kc_env.training.sb3 import train as train_mod

    seen = []

    def fake(cfg, folder, *, resume, progress, argv):
        seen.append((cfg.seed, folder.name, resume))
        config_mod.save(cfg, folder / "config.yaml")
        if cfg.seed != 1 or resume:
            (folder / "final.pt").write_bytes(b"")
        return run_mod.Run(folder, cfg)

    monkeypatch.setattr(train_mod, "train", fake)
    args = ["train", str(CONFIG), "--variant", "smoke", "--run", str(tmp_path / "r"), "--no-progress"]
    assert main([*args, "--seeds", "0-2"]) == 0
    assert seen == [(0, "seed-0", False), (1, "seed-1", False), (2, "seed-2", False)]
    assert "kc benchmark --runs" in capsys.readouterr().out
    assert main([*args, "--seeds", "0-2"]) == 2  # not again without --resume
    assert "holds a run already" in capsys.readouterr().err
    seen.clear()
    assert main([*args, "--seeds", "0-3", "--resume"]) == 0  # seed 1 never finished, seed 3 never began
    assert seen == [(1, "seed-1", True), (3, "seed-3", False)]


@pytest.mark.parametrize("seeds", ["4-1", "a-b", "-1", "0-5000", "1,1", "", "1_000", "\u0663-\u0665",
                                   "18446744073709551616", "4294967296"])
def test_a_bad_seed_range_is_one_line(seeds, capsys):
    assert main(["train", str(CONFIG), "--seeds", seeds]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("kc train: --seeds") and "\n" not in err


@pytest.mark.slow  # two smoke runs with a quick benchmark task at each evaluation: about 70 s on 2 cores
def test_two_seeds_are_scored_at_their_evaluations_resume_exactly_and_aggregate(tmp_path, capsys):
    root = tmp_path / "runs"
    args = ["train", str(CONFIG), "--variant", "smoke", "--run", str(root), "--no-progress", "--seeds", "0-1",
            "--set", f"benchmark.tasks=[{TASK}]", "--set", "benchmark.quick=true"]
    assert main(args) == 0
    first = (root / "seed-0" / runs.FILE).read_bytes()
    assert [r["step"] for r in runs.read(root / "seed-0")["rows"]] == [0, 2048, 4096]
    # seed 0 killed after its checkpoint at step 2048: everything later is gone
    seed0 = root / "seed-0"
    (seed0 / "final.pt").unlink()
    for late in [p for p in (seed0 / "checkpoints").iterdir() if int(p.name[5:17]) > 2048]:
        late.unlink()
    shutil.copy(seed0 / "checkpoints" / "step_000000002048.benchmark.json", seed0 / runs.FILE)
    assert main([*args, "--resume"]) == 0
    assert (seed0 / runs.FILE).read_bytes() == first, "the resumed run scored otherwise than the whole one"
    capsys.readouterr()
    assert main(["benchmark", "--runs", str(seed0), str(root / "seed-1"), "--json", str(tmp_path / "r.json"),
                 "--plot", str(tmp_path / "r.png")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["tasks"] == [TASK] and report["final_steps"] == [4096, 4096] and report["quick"]
    assert (tmp_path / "r.png").is_file()


@pytest.mark.slow  # one labelled iteration of the ranking trainer and a quick task: about 30 s on 2 cores
def test_the_turn_value_trainer_scores_each_iterations_model(tmp_path):
    from kc_env.training.turn_value.train import train

    cfg = config_mod.load(config_mod.find("turn-ranking-2p"), "smoke",
                          {"turn_value.iterations": 1, "benchmark.tasks": [TASK], "benchmark.quick": True})
    train(cfg, tmp_path / "run", log=lambda _: None)
    curve = json.loads((tmp_path / "run" / "curve.json").read_text())
    rows = runs.read(tmp_path / "run")["rows"]
    assert [r["step"] for r in rows] == [curve[-1]["decisions"]] and TASK in rows[0]["tasks"]
