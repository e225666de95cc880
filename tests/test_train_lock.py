"""One ``kc train`` per run folder, and ``--resume`` with the run's own config
(``reliability-2026-12b.md`` M-7 and L-1)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training.sb3.train import train  # noqa: E402

from kc_env.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "research" / "configs" / "maskable-ppo-2p.yaml"
HOLDER = """
import sys, time
from kc_env.training import run_lock
with run_lock.hold(sys.argv[1]):
    print("held", flush=True)
    time.sleep(120)
"""


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("runs") / "run"
    cfg = config_mod.load(CONFIG, "smoke", {"total_timesteps": 1024, "eval.every": 0, "eval.deals": 4})
    train(cfg, folder, progress=False, argv=["test"])
    return folder


def hold_in_another_process(folder: Path) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_second_kc_train_into_a_held_folder_is_refused_in_one_line(finished_run, capsys):
    holder = hold_in_another_process(finished_run)
    try:
        before = {p.name: p.stat().st_mtime_ns for p in finished_run.rglob("*") if p.is_file()}
        for extra in (["--resume"], ["--overwrite"]):
            code = main(["train", str(finished_run / "config.yaml"), "--run", str(finished_run), "--no-progress",
                         *extra])
            err = capsys.readouterr().err.strip()
            assert code == 2 and len(err.splitlines()) == 1, err
            assert f"{finished_run}: another kc train is running in this folder (process {holder.pid})" in err
        after = {p.name: p.stat().st_mtime_ns for p in finished_run.rglob("*") if p.is_file()}
        assert after == before  # nothing written, nothing deleted
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_holder_leaves_the_folder_free(tmp_path):
    from kc_env.training import run_lock

    folder = tmp_path / "run"
    holder = hold_in_another_process(folder)
    with pytest.raises(run_lock.RunBusyError):
        with run_lock.hold(folder):
            pass
    holder.kill()  # SIGKILL: the kernel lets go of the lock
    holder.wait()
    deadline = time.monotonic() + 5
    with run_lock.hold(folder):
        assert time.monotonic() < deadline


def test_a_run_that_fails_before_writing_leaves_no_folder(tmp_path):
    from kc_env.training import run_lock

    folder = tmp_path / "run"
    with pytest.raises(RuntimeError):
        with run_lock.hold(folder):
            raise RuntimeError("the trainer refused the config")
    assert not folder.exists()


@pytest.mark.parametrize("config, extra, differs", [
    (CONFIG, ["--variant", "smoke", "--set", "total_timesteps=8192"], "total_timesteps (1024 in the run, 8192 given)"),
    (ROOT / "configs" / "ppo-standard-4p.yaml", [], "num_players (2 in the run, 4 given)"),
])
def test_resume_with_another_config_is_refused_naming_what_differs(finished_run, capsys, config, extra, differs):
    code = main(["train", str(config), "--run", str(finished_run), "--resume", "--no-progress", *extra])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "--resume goes on with the run's own config.yaml" in err and differs in err
    assert f"kc train {finished_run / 'config.yaml'} --run {finished_run} --resume" in err


def test_resume_with_the_same_config_says_which_it_uses(finished_run, tmp_path, capsys):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    same = ["--variant", "smoke", "--set", "total_timesteps=1024", "--set", "eval.every=0", "--set", "eval.deals=4"]
    for args in ([str(CONFIG), *same], [str(run / "config.yaml")]):
        assert main(["train", *args, "--run", str(run), "--resume", "--no-progress"]) == 0
        assert f"resuming {run} with its own config.yaml" in capsys.readouterr().err
