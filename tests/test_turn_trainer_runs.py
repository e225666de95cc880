"""The turn trainers' run folders under hostile or unlucky input (``training/run.py``'s progress,
``training/turn_ppo``): an update on one choice, a damaged ``progress.json`` on ``--resume``, a
``turn_ppo.start`` that is not a model, a model whose card cannot be written. Each is refused in
one line naming the file or the iteration, and leaves nothing half-written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training import run as run_mod  # noqa: E402
from kc_env.training.turn_ppo import train as turn_ppo_train  # noqa: E402
from kc_env.training.turn_ppo.settings import TurnPPOSettings  # noqa: E402
from kc_env.training.turn_ppo.update import ppo_update  # noqa: E402

from kc_env.agents import ModelError  # noqa: E402
from kc_env.agents.turn_value import FEATURES  # noqa: E402
from kc_env.cli import main  # noqa: E402

CONFIG = Path(__file__).resolve().parents[1] / "research" / "configs" / "turn-ppo-2p.yaml"
UNIFORM = [(np.zeros((1, FEATURES), np.float32), np.zeros(1, np.float32))]
SHARE = [0.5, 0.4, 0.6]


def one_choice() -> dict[str, np.ndarray]:
    """An iteration in which the network chose once (a gate's second network at one careless table)."""
    return {"feats": np.random.default_rng(0).normal(0, 0.1, (1, 3, FEATURES)).astype(np.float32),
            "valid": np.array([3]), "picks": np.array([1]), "logps": np.full(1, -np.log(3), np.float32),
            "outcomes": np.ones(1, np.float32)}


def test_an_update_on_a_single_choice_leaves_finite_networks_and_diagnostics():
    s = TurnPPOSettings(epochs=1, batch_size=8, critic_hidden=[4])
    actor, critic, stats = ppo_update(UNIFORM, None, one_choice(), s, seed=0, log=lambda _: None)
    assert all(np.isfinite(a).all() for layer in (*actor, *critic) for a in layer)
    assert all(np.isfinite(v) for v in stats.values())


def test_an_update_that_leaves_weights_not_finite_stops_the_run_naming_the_iteration(monkeypatch):
    cfg = config_mod.load(CONFIG, "smoke")
    broken = [(np.full((1, FEATURES), np.nan, np.float32), np.zeros(1, np.float32))]
    monkeypatch.setattr(turn_ppo_train, "ppo_update", lambda *a, **k: (broken, UNIFORM, {}))
    data = {**one_choice(), "nets": np.zeros(1, np.int64)}
    with pytest.raises(run_mod.RunError, match="iteration 3: the update left the network's weights not finite"):
        turn_ppo_train._update(cfg, 3, (UNIFORM, None), (None, None), data, lambda _: None)


def test_a_model_whose_card_cannot_be_written_leaves_no_folder(tmp_path):
    cfg = config_mod.load(CONFIG, "smoke")
    with pytest.raises(ModelError, match="not JSON"):
        turn_ppo_train._save_model(cfg, tmp_path / "model", (UNIFORM, None), [{"iteration": 0, "x": float("nan")}])
    assert list(tmp_path.iterdir()) == []


def progress(done=1, curve=None, **more) -> dict:
    points = [{"iteration": i, "games": 40 * i, "heuristic": SHARE, "greedy": SHARE, "random": SHARE}
              for i in range(done + 1)]
    return {"done": done, "curve": points if curve is None else curve, **more}


@pytest.mark.parametrize("text, problem", [
    ('{"done": 1, "curve": [', "unreadable"),
    (b"\xff\xfe", "unreadable"),
    ("[" * 100_000 + "]" * 100_000, "unreadable"),
    ("[]", "not a JSON object"),
    (json.dumps({**progress(), "done": "1"}), "'done' must be a whole number of iterations from 0 to 2, not '1'"),
    (json.dumps(progress(done=3)), "'done' must be a whole number of iterations from 0 to 2, not 3"),
    (json.dumps({"done": 1}), "'curve' must list the start and each of the 1 iterations done"),
    (json.dumps(progress(curve=[{"iteration": 0}])), "'curve' must list"),
    (json.dumps(progress(curve=[{"iteration": 0}, {"iteration": 1}])), "curve point 0 must hold its iteration, games"),
    (json.dumps(progress()).replace("0.6", "NaN", 1), "unreadable .NaN is not a JSON number"),
    (json.dumps(progress()).replace("0.6", "1.5", 1), "curve point 0 must hold"),
    (json.dumps(progress(seconds="12")), "'seconds' must be a number"),
    (json.dumps(progress(update_threads=0)), "'seconds' must be a number and 'update_threads' a whole number from 1 to"),
    (json.dumps(progress(update_threads=-3)), "'seconds' must be a number and 'update_threads' a whole number from 1 to"),
])
def test_a_damaged_progress_file_is_refused_naming_it(tmp_path, text, problem):
    path = tmp_path / "progress.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(run_mod.RunError, match=f"^{path}: {problem}"):
        run_mod.read_progress(path, 2, ["heuristic", "greedy", "random"], "games")


def test_a_whole_progress_file_reads_back():
    assert run_mod.progress_problem(progress(done=2, seconds=3, update_threads=1), 2, ["heuristic"], "games") == ""


def smoke_run(folder: Path) -> Path:
    """A run folder of the smoke config as ``kc train`` makes it, one iteration done."""
    cfg = config_mod.load(CONFIG, "smoke")
    folder.mkdir()
    run_mod.mark_run(folder)
    config_mod.save(cfg, folder / "config.yaml")
    (folder / "progress.json").write_text(json.dumps(progress(done=1, curve=[{"iteration": 0}])))
    return folder


def test_kc_train_resume_refuses_a_damaged_progress_file_in_one_line(tmp_path, capsys):
    run = smoke_run(tmp_path / "run")
    code = main(["train", str(run / "config.yaml"), "--run", str(run), "--resume", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[0] == f"resuming {run} with its own config.yaml" and len(err) == 2, err
    assert err[1].startswith(f"kc train: {run / 'progress.json'}: 'curve' must list")


@pytest.mark.parametrize("planted", ["iteration_2", "curve.json"])
def test_kc_train_resume_refuses_a_run_folder_that_holds_a_link(tmp_path, capsys, planted):
    """A probe of kc train: a link planted in a run folder made --resume write through it, outside
    the run (a folder's files deleted and replaced, a file overwritten)."""
    run = smoke_run(tmp_path / "run")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("mine")
    (run / planted).symlink_to(outside if planted.startswith("iteration") else outside / "precious.txt")
    code = main(["train", str(run / "config.yaml"), "--run", str(run), "--resume", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].startswith(f"kc train: {run}: {planted} is a link (to "), err
    assert [p.name for p in outside.iterdir()] == ["precious.txt"] and (outside / "precious.txt").read_text() == "mine"


@pytest.mark.parametrize("start", ["no/such/model", "models/ppo-standard-2p"])
def test_a_start_that_is_not_a_turn_value_model_is_refused_before_the_run_folder_is_made(tmp_path, capsys, start):
    run = tmp_path / "run"
    code = main(["train", str(CONFIG), "--variant", "smoke", "--run", str(run), "--no-progress",
                 "--set", f"turn_ppo.start={start}"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and start in err, err
    assert not run.exists()


def test_kc_export_of_a_run_whose_config_nests_too_deep_is_one_line(tmp_path, capsys):
    """A probe of kc train: a config.yaml nested 100,000 deep gave a RecursionError's traceback
    (``trainers.of_run`` caught the others)."""
    run = smoke_run(tmp_path / "run")
    (run / "config.yaml").write_text("default: " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["export", str(run), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


def test_a_fifo_planted_as_an_iterations_critic_is_refused_unopened(tmp_path):
    """A probe of kc train: a FIFO named critic.npz made --resume wait for a writer forever."""
    import os
    import threading

    fifo = tmp_path / turn_ppo_train.CRITIC_FILE
    os.mkfifo(fifo)
    done: list[str] = []

    def load():
        with pytest.raises(ModelError, match="not a file"):
            turn_ppo_train._load_critics(fifo, [4], False, FEATURES)
        done.append("refused")

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(timeout=20)
    assert done == ["refused"]
