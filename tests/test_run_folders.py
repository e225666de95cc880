"""Run folders are data (issue 18): exporting or resuming one runs no code from it, ``--overwrite``
deletes only a folder ``kc train`` made, and checkpoints survive a torn newest one.

Reproducers of ``reliability-2026-12.md`` items 2, 3, 4, 5 and 17, on tiny runs (the ``smoke``
variant of research/configs/maskable-ppo-2p.yaml).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training import run as run_mod  # noqa: E402
from kc_env.training.sb3 import checkpoint as checkpoint_mod  # noqa: E402
from kc_env.training.sb3.train import train  # noqa: E402

from kc_env.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "research" / "configs" / "maskable-ppo-2p.yaml"


def smoke(**overrides):
    return config_mod.load(CONFIG, "smoke", {"eval.every": 0, **overrides})


class Payload:
    """What a planted pickle would run: it touches ``mark`` when unpickled."""

    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self):
        return os.system, (f"touch {self.mark}",)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A run trained to 2048 steps with checkpoints at 1024 and 2048, and a snapshot taken after
    the first update (copied by each test)."""
    folder = tmp_path_factory.mktemp("runs") / "run"
    train(smoke(total_timesteps=2048, **{"league.snapshot_every": 1024}), folder, progress=False, argv=["test"])
    return folder


@pytest.fixture
def run(finished_run, tmp_path) -> Path:
    folder = tmp_path / "run"
    shutil.copytree(finished_run, folder)
    return folder


def plant_in_sb3_zip(zip_path: Path, mark: Path) -> None:
    """The report's reproducer: the zip's ``policy_class`` becomes a cloudpickle that touches ``mark``."""
    import cloudpickle

    with zipfile.ZipFile(zip_path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    data = json.loads(members["data"])
    data["policy_class"][":serialized:"] = base64.b64encode(cloudpickle.dumps(Payload(mark))).decode()
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(zip_path, "w") as z:
        for name, content in members.items():
            z.writestr(name, content)


def test_a_run_folder_holds_no_pickle_that_kc_reads(run):
    """Resumable state is tensors (``.pt``, read with weights_only) and JSON; SB3's zip is only final.zip."""
    names = {p.name for p in (run / "checkpoints").iterdir()}
    assert names == {f"step_{s:012d}{suffix}" for s in (1024, 2048) for suffix in (".pt", ".league.json", ".eval.json")}
    state = checkpoint_mod.read(run / "final.pt")
    assert state["num_timesteps"] == 2048 and (run / run_mod.RUN_MARKER).is_file()


def test_kc_export_runs_no_code_planted_in_the_run_folder(run, tmp_path, capsys):
    mark = tmp_path / "MARK"
    plant_in_sb3_zip(run / "final.zip", mark)
    assert main(["export", str(run), str(tmp_path / "model"), "--deals", "4", "--against", "random",
                 "--no-progress"]) == 0
    assert not mark.exists(), "kc export ran code from final.zip"
    assert json.loads((tmp_path / "model" / "model.json").read_text())["training_steps"] == 2048


def test_kc_export_refuses_a_pickle_in_place_of_the_tensors(run, tmp_path, capsys):
    import pickle

    mark = tmp_path / "MARK"
    (run / "final.pt").write_bytes(pickle.dumps(Payload(mark)))
    assert main(["export", str(run), str(tmp_path / "model"), "--deals", "4", "--no-progress"]) == 2
    assert not mark.exists()
    err = capsys.readouterr().err
    assert "final.pt: not a readable checkpoint" in err and len(err.strip().splitlines()) == 1


def test_kc_export_help_says_what_it_reads(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "no pickle" in out and "trust" in out


def test_resume_runs_no_code_planted_in_a_checkpoint(run, tmp_path, capsys):
    import pickle

    mark = tmp_path / "MARK"
    for path in (run / "checkpoints").glob("step_*.pt"):
        path.write_bytes(pickle.dumps(Payload(mark)))
    with pytest.raises(FileNotFoundError, match="no whole checkpoint"):
        train(None, run, resume=True, progress=False)
    assert not mark.exists()


def test_resume_falls_back_to_the_checkpoint_before_a_damaged_newest_one(run, capsys):
    newest = run / "checkpoints" / "step_000000002048.pt"
    newest.write_bytes(newest.read_bytes()[:1000])  # a torn file
    (run / "final.pt").unlink()
    train(None, run, resume=True, progress=False)
    err = capsys.readouterr().err
    assert "checkpoint step_000000002048.pt is damaged, trying the one before" in err
    assert checkpoint_mod.read(run / "final.pt")["num_timesteps"] == 2048, "trained on from step 1024"


def test_a_damaged_league_file_is_a_damaged_checkpoint(run, capsys):
    (run / "checkpoints" / "step_000000002048.league.json").write_text('{"snapshots": [')
    train(None, run, resume=True, progress=False)
    assert "step_000000002048.league.json: unreadable" in capsys.readouterr().err


def test_snapshot_paths_are_relative_so_a_moved_run_resumes_with_its_own(run, tmp_path):
    league = json.loads((run / "checkpoints" / "step_000000002048.league.json").read_text())
    assert league["snapshots"] == ["snapshots/step_000001024"]
    moved = tmp_path / "moved"
    run.rename(moved)
    train(None, moved, resume=True, progress=False)  # the original location is gone


def test_overwrite_keeps_a_folder_kc_train_did_not_make(tmp_path, capsys):
    victim = tmp_path / "victim"
    (victim / "src").mkdir(parents=True)
    (victim / "config.yaml").write_text("x: 1\n")
    (victim / "important.txt").write_text("precious\n")
    assert main(["train", str(tmp_path / "nonexistent.yaml"), "--run", str(victim), "--overwrite"]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert (victim / "important.txt").read_text() == "precious\n", "a bad config path deleted the folder"
    assert main(["train", str(CONFIG), "--variant", "smoke", "--run", str(victim), "--overwrite"]) == 2
    assert "was not made by kc train" in capsys.readouterr().err
    assert (victim / "important.txt").is_file()


def test_overwrite_deletes_a_run_only_after_its_config_is_checked(run, capsys, monkeypatch):
    assert main(["train", str(CONFIG), "--variant", "smoke", "--run", str(run), "--overwrite",
                 "--set", "ppo.gamma=2"]) == 2
    assert "gamma" in capsys.readouterr().err and (run / "final.pt").is_file()
    from kc_env.training.sb3 import train as train_mod

    seen = []
    monkeypatch.setattr(train_mod, "train", lambda cfg, folder, **kw: seen.append(sorted(p.name for p in folder.iterdir()))
                        or train_mod.Run(folder, cfg))
    assert main(["train", str(CONFIG), "--variant", "smoke", "--run", str(run), "--overwrite", "--no-progress"]) == 0
    assert seen == [[".kc-train-lock"]], "the old run was deleted before training started (all but the run's lock)"


def test_overwrite_of_a_run_folder_not_made_yet_starts_the_run(tmp_path, monkeypatch):
    """make demo's first run: --overwrite where nothing is yet (the lock makes the folder)."""
    from kc_env.training.sb3 import train as train_mod

    seen = []
    monkeypatch.setattr(train_mod, "train", lambda cfg, folder, **kw: seen.append(folder) or train_mod.Run(folder, cfg))
    fresh = tmp_path / "runs" / "demo"
    assert main(["train", str(CONFIG), "--variant", "smoke", "--run", str(fresh), "--overwrite", "--no-progress"]) == 0
    assert seen == [fresh]


def test_the_final_checkpoint_is_saved_before_the_final_evaluation(tmp_path, monkeypatch):
    from kc_env.training.sb3 import train as train_mod

    def failing(*args, **kwargs):
        raise RuntimeError("evaluation failed")

    monkeypatch.setattr(train_mod, "evaluate_network", failing)
    with pytest.raises(RuntimeError, match="evaluation failed"):
        train(smoke(total_timesteps=1024), tmp_path / "run", progress=False, argv=["test"])
    assert checkpoint_mod.read(tmp_path / "run" / "final.pt")["num_timesteps"] == 1024
    assert (tmp_path / "run" / "checkpoints" / "step_000000001024.pt").is_file()


def test_a_full_disk_is_one_line_not_a_traceback(tmp_path, capsys, monkeypatch):
    """Item 17: a read-only folder or a full disk gave a raw OSError traceback."""
    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    assert main(["train", str(CONFIG), "--variant", "smoke", "--run", str(tmp_path / "run"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kc train: ") and "No space left on device" in err and err.count("\n") == 1


def test_a_league_snapshot_says_the_table_it_was_trained_for(finished_run):
    """A snapshot's card names the run's rules and players, as an exported model's does: without
    them every game against the snapshot warned that its card does not say the rules."""
    card = json.loads((finished_run / "snapshots" / "step_000001024" / "model.json").read_text())
    config = smoke()
    assert card["rules"] == config.rules_object().to_dict() and card["num_players"] == config.num_players
