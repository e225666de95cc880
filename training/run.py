"""What every trainer of ``kc train`` shares about a run folder: making it (the resolved config,
the command, the code version, the marker ``--overwrite`` checks), its checkpoints folder, the turn
trainers' ``progress.json`` (read back checked, written in strict JSON), and the learning-curve plot
of its evaluation history. The lock that keeps two processes out of one folder
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
from kc_env.files import finite_number, strict_json, write_atomic

from .threads import MAX_THREADS

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


def check_new_run_folder(folder: Path) -> None:
    """A new run goes into a new folder, an empty one, or one ``kc train`` made (whose run the
    trainer refuses to start over without ``--overwrite``): never beside someone's own files, which
    the marker would then offer to ``--overwrite``. ``FileExistsError`` otherwise."""
    from .run_lock import LOCK_FILE

    if folder.exists() and not folder.is_dir():
        raise FileExistsError(f"--run {folder} is a file, not a folder")
    if folder.is_dir() and not is_run(folder) and any(e.name != LOCK_FILE for e in folder.iterdir()):
        raise FileExistsError(f"--run {folder} holds files kc train did not make; name a new or empty folder")


def new_run_folder(folder: Path) -> None:
    """Make ``folder`` a new run's (``check_new_run_folder``), marked as ``kc train``'s."""
    check_new_run_folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    mark_run(folder)


def start_run(cfg: Any, folder: Path, argv: list[str]) -> Run:
    """Make the run folder and write what is being run: config, command and code version."""
    from .config import save

    new_run_folder(folder)
    save(cfg, folder / "config.yaml")
    write_atomic(folder / "command.txt", " ".join(argv) + "\n")
    write_atomic(folder / "version.json", json.dumps(code_version(), indent=2) + "\n")
    return Run(folder, cfg)


PROGRESS = "progress.json"
"""The turn trainers' record of a run: the iterations ``done`` and the learning ``curve``."""


class RunError(ValueError):
    """A run that cannot go on: a damaged ``progress.json``, or an update that left weights that
    are not finite; the message names the file or the iteration."""


def turn_progress(cfg: Any, folder: Path, resume: bool, iterations: int, x_key: str) -> dict[str, Any]:
    """A turn trainer's progress in ``folder``: read and checked on ``--resume`` (``read_progress``),
    else the run folder made (marked, its config saved) with nothing done."""
    from .config import save

    path = folder / PROGRESS
    if resume:
        if not path.is_file():
            raise FileNotFoundError(f"{folder}: nothing to resume (no {PROGRESS})")
        return read_progress(path, iterations, cfg.eval.opponents, x_key)
    if (folder / "config.yaml").exists():
        raise FileExistsError(f"{folder} holds a run already: --resume it, or --overwrite it")
    new_run_folder(folder)
    save(cfg, folder / "config.yaml")
    return {"done": 0, "curve": []}


def read_progress(path: Path, iterations: int, opponents: list[str], x_key: str) -> dict[str, Any]:
    """``path``'s progress, or ``RunError`` naming it and what is wrong (``progress_problem``)."""
    try:
        state = strict_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RunError(f"{path}: unreadable ({str(exc)[:200]})") from None
    problem = progress_problem(state, iterations, opponents, x_key)
    if problem:
        raise RunError(f"{path}: {problem}")
    return state


def progress_problem(state: Any, iterations: int, opponents: list[str], x_key: str) -> str:
    """What is wrong with a turn trainer's progress ("" when nothing): ``done`` from 0 to
    ``iterations``, a curve of the start and each iteration done (each point's iteration, its x
    ``x_key`` and a share with its interval against each of ``opponents``), the seconds and the
    update threads."""
    if not isinstance(state, dict):
        return "not a JSON object"
    done, curve = state.get("done"), state.get("curve")
    if type(done) is not int or not 0 <= done <= iterations:
        return f"'done' must be a whole number of iterations from 0 to {iterations}, not {done!r}"
    if not isinstance(curve, list) or len(curve) != done + 1 and (done or len(curve) > 1):
        return f"'curve' must list the start and each of the {done} iterations done"
    for i, point in enumerate(curve):
        if not (isinstance(point, dict) and type(point.get("iteration")) is int and type(point.get(x_key)) is int
                and all(_is_share(point.get(spec)) for spec in opponents)):
            return (f"curve point {i} must hold its iteration, {x_key} and a share with its interval against "
                    f"each of {', '.join(opponents)}")
    threads = state.get("update_threads", 1)
    if not finite_number(state.get("seconds", 0)) or type(threads) is not int or not 1 <= threads <= MAX_THREADS:
        return f"'seconds' must be a number and 'update_threads' a whole number from 1 to {MAX_THREADS:,}"
    return ""


def write_progress(folder: Path, state: dict[str, Any]) -> None:
    """Write ``progress.json`` whole, in strict JSON (a number that is not finite is refused)."""
    write_atomic(folder / PROGRESS, json.dumps(state, indent=1, allow_nan=False) + "\n")


def _is_share(x: Any) -> bool:
    """A win share with its 95% interval: three numbers in [0, 1]."""
    return isinstance(x, list) and len(x) == 3 and all(finite_number(v) and 0 <= v <= 1 for v in x)


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
