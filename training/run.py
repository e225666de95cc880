"""What every trainer of ``kc train`` shares about a run folder: making it (the resolved config,
the command, the code version, the marker ``--overwrite`` checks), its checkpoints folder, and the
learning-curve plot of its evaluation history. The lock that keeps two processes out of one folder
is ``run_lock``; the benchmark rows of a run are ``kc_env.benchmark.runs`` (``training/bench.py``).

No trainer library is imported here: the SB3, RLlib and turn-value trainers all use it.
"""

from __future__ import annotations

import json
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import kc_env
from kc_env.files import write_atomic

CHECKPOINTS = "checkpoints"
RUN_MARKER = ".kc-train-run"
"""The file every trainer of ``kc train`` writes into a run folder it makes: ``--overwrite``
deletes only a folder that holds it."""


@dataclass
class Run:
    """A run folder and the config it was started with."""

    folder: Path
    config: Any  # training.config.TrainConfig
    update_threads: int = 1
    """The torch threads of the run's gradient updates (``training/threads.py``)."""

    @property
    def checkpoints(self) -> Path:
        return self.folder / CHECKPOINTS

    def newest_checkpoint(self) -> Path | None:
        found = self.all_checkpoints()
        return found[-1] if found else None

    def all_checkpoints(self) -> list[Path]:
        """The checkpoints' ``.pt`` files, oldest first."""
        return sorted(self.checkpoints.glob("step_*.pt"))


def mark_run(folder: str | Path) -> None:
    """Mark ``folder`` as a run folder made by ``kc train``."""
    write_atomic(Path(folder) / RUN_MARKER, "made by kc train; kc train --overwrite may delete this folder\n")


def is_run(folder: str | Path) -> bool:
    """Whether ``kc train`` made ``folder`` (it holds ``RUN_MARKER``)."""
    return (Path(folder) / RUN_MARKER).is_file()


def start_run(cfg: Any, folder: Path, argv: list[str]) -> Run:
    """Make the run folder and write what is being run: config, command and code version."""
    from .config import save

    folder.mkdir(parents=True, exist_ok=True)
    mark_run(folder)
    save(cfg, folder / "config.yaml")
    write_atomic(folder / "command.txt", " ".join(argv) + "\n")
    write_atomic(folder / "version.json", json.dumps(code_version(), indent=2) + "\n")
    return Run(folder, cfg)


def code_version() -> dict[str, Any]:
    """The code a run was made with: kc_env's version and the git commit (and whether dirty)."""
    root = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    try:
        import torch

        torch_version = torch.__version__
    except ImportError:
        torch_version = None
    return {"kc_env": kc_env.__version__, "commit": git("rev-parse", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
            "python": platform.python_version(), "torch": torch_version}


def plot_learning_curve(history: list[dict[str, Any]], path: Path,
                        steps: str = "training steps (learner actions)") -> None:
    """Win share (with its 95% interval; the win rate for rows evaluated before the win share
    was measured) against each evaluation opponent, over ``steps`` (the x axis's label): the one
    learning-curve plot of every trainer. Benchmark scores (``training/bench.py``) are
    ``kc benchmark --runs RUN... --plot``'s to draw. Without matplotlib (the ``eval`` extra) no plot."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return

    fig, ax = plt.subplots(figsize=(7, 4))
    opponents = [k for k in history[-1] if k != "step"]
    x = [row["step"] for row in history]
    for opponent in opponents:
        rows = [row[opponent] for row in history]
        rates = [r["win_share"] if "win_share" in r else r["win_rate"] for r in rows]
        low, high = zip(*(r["share_interval"] if "share_interval" in r else r["interval"] for r in rows), strict=True)
        ax.plot(x, rates, marker="o", label=f"vs {opponent}")
        ax.fill_between(x, low, high, alpha=0.2)
    num_players = history[-1][opponents[0]].get("num_players", 2)
    ax.axhline(1 / num_players, color="grey", linestyle="--", linewidth=1, label="fair share")
    ax.set_xlabel(steps)
    ax.set_ylabel("win share (a deal nobody won: 1/n each)")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
