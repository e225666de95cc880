"""Ctrl-C says what works (issue 36 item 3): ``kc train`` stopped in behaviour cloning, before
any checkpoint, names a command that goes on; ``kc eval`` prints one line and the tally of the
deals already played. And help prints without the extra a command needs (issue 36 item 9)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from kc_env.cli import main

CONFIG = Path(__file__).resolve().parent.parent / "research" / "configs" / "maskable-ppo-2p.yaml"


class Reached(Exception):
    """The resumed run got as far as behaviour cloning again."""


def test_kc_train_stopped_in_cloning_suggests_a_command_that_goes_on(tmp_path, capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("numba")
    import importlib

    from kc_env.training import trainers

    train_mod = importlib.import_module(f"kc_env.training.{trainers.get('sb3').train.partition(':')[0]}")

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(train_mod, "kickstart", stopped)
    run = tmp_path / "run"
    assert main(["train", str(CONFIG), "--variant", "smoke", "--run", str(run), "--set", "pretrain.teacher=heuristic",
                 "--set", "pretrain.samples=64", "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and not list((run / "checkpoints").glob("step_*"))
    assert "nothing to resume" in err
    command = err.split("again with: ", 1)[1].strip()
    argv = shlex.split(command)
    assert argv[:2] == ["kc", "train"], err

    def again(*args, **kwargs):
        raise Reached

    monkeypatch.setattr(train_mod, "kickstart", again)
    with pytest.raises(Reached):  # the suggested command trains (from the start), it is not refused
        main(argv[1:])
    assert "no checkpoint" not in capsys.readouterr().err


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_in_kc_eval_prints_one_line_and_the_tally_so_far(workers):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it): no worker traceback,
    one line on stderr, and the table of the whole rounds already played on stdout."""
    import os
    import signal
    import subprocess
    import sys
    import time

    # a terminal's child takes SIGINT by default; a test runner started in the background by a
    # shell without job control ignores it, and the child would inherit that (it hung then)
    proc = subprocess.Popen([sys.executable, "-m", "kc_env.cli", "eval", "random", "random", "--deals", "2000000",
                             "--workers", str(workers), "--no-progress"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(12)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    lines = [line for line in err.splitlines() if line.strip()]
    assert proc.returncode == 130, err
    assert len(lines) == 1 and lines[0].startswith("kc eval: interrupted after ") and "of 2000000 deals" in lines[0], err
    played = int(lines[0].split("after ")[1].split(" of")[0])
    assert played > 0 and played % 2 == 0  # whole rounds of the two seatings
    assert f"{played} deals" in out and "win share" in out


@pytest.mark.parametrize("command", ["train", "export"])
def test_help_prints_without_the_extra_a_command_needs(command, capsys, monkeypatch):
    """``kc train -h`` and ``kc export -h`` printed the missing-extra error instead of help
    (issue 36 item 9): help prints, and says what is missing; running the command still refuses."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    with pytest.raises(SystemExit) as done:
        main([command, "-h"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith(f"usage: kc {command}")
    assert "Not runnable here: it needs the train extra" in out
    assert main([command, "x"]) == 2
    assert f"kc {command}: needs the train extra" in capsys.readouterr().err
