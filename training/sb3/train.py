"""``kc train CONFIG``: MaskablePPO on the vector env, against a self-play league.

Read top to bottom: load the config, make the run folder (resolved config, command, code
version), build the vector env and the league, build or resume the model, then learn with
three callbacks (league, checkpoints, evaluation). Everything a run writes lands in its folder::

    runs/NAME/
        config.yaml  command.txt  version.json     what was run, exactly
        .kc-train-run                                marks a folder kc train made (--overwrite checks it)
        checkpoints/step_000250000.pt (+ .league.json, .eval.json, .benchmark.json)    resumable state (no pickle)
        snapshots/step_000500000/                   frozen learners (exported policy folders)
        tb/                                          TensorBoard logs
        eval.json  learning_curve.png                periodic evaluation results
        benchmark.json                               kc-bench scores at each evaluation (benchmark.tasks)
        improve/chunk_0000.npz  pretrain.json        labelled positions, the fit (pretrain.method: rollouts)
        tune.json                                    the prior's tuned weights, every generation (tune:)
        final.pt                                     the model at the end (what kc export reads)
        final.zip                                    the same in SB3's format, for your own SB3 code

Checkpoints are tensors and JSON, never pickles (``training/sb3/checkpoint.py``): resuming and exporting
a run folder run no code from it.

``--resume`` continues a killed run from its newest whole checkpoint (a damaged newest one is
skipped, saying so), with the same config (a run killed
while labelling positions for ``pretrain.method: rollouts`` keeps its labelled chunks and goes on;
one killed while tuning the prior's weights goes on at its next generation).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import VecEnv

from kc_env.agents import policy_model
from kc_env.files import write_atomic
from kc_env.vector.vec_env import KingsCornerVecEnv

from .. import bench, run_lock
from .. import config as config_mod
from ..config import TrainConfig
from ..evaluate import evaluate_network
from ..export import network_of
from ..export_folder import staged
from ..run import CHECKPOINTS, Run, plot_learning_curve, start_run
from ..threads import update_threads
from . import checkpoint as checkpoint_mod
from . import improve, resume_state
from .league import League
from .policy import PriorPolicy, policy_kwargs
from .pretrain import collect, fit
from .rollouts import RolloutReward
from .tune import TUNE_FILE, start_weights, tune
from .wrappers import BlockedReward, PriorAction, privileged_size

BENCHMARK_SUFFIX = ".benchmark.json"
"""A checkpoint's copy of the run's ``benchmark.json`` (``training/bench.py``), put back on resume."""


def make_env(cfg: TrainConfig, league: League, prior_weights: dict[str, float] | None = None) -> VecEnv:
    """The vector env, every game's opponents drawn from the league (with the prior's action
    appended to the observations when the network has a prior; a heuristic prior plays with
    ``prior_weights`` when the run tuned them)."""
    n_opp = cfg.num_players - 1
    env = KingsCornerVecEnv(cfg.n_envs, rules=cfg.rules_object(), num_players=cfg.num_players,
                            opponents=["random"] * n_opp, reward=cfg.reward, max_moves=cfg.max_moves,
                            seed=cfg.seed, illegal_action="raise")
    for i in range(cfg.n_envs):
        env.set_opponents([i], [league.draw() for _ in range(n_opp)])
    if cfg.blocked_reward is not None:
        env = BlockedReward(env, cfg.blocked_reward)
    net = cfg.network
    if net.prior is not None:
        env = PriorAction(env, net.prior, net.privileged_critic, prior_weights)
    return RolloutReward(env, net.prior, prior_weights) if cfg.rollout_reward else env


def make_model(cfg: TrainConfig, env: VecEnv, folder: Path, prior_weights: dict[str, float] | None = None) -> MaskablePPO:
    """A new MaskablePPO with the config's network and hyperparameters."""
    net = cfg.network
    privileged = privileged_size(cfg.num_players) if net.privileged_critic else 0
    kwargs = policy_kwargs(net.shared, net.hidden, net.activation, net.prior, net.prior_weight, privileged, prior_weights)
    return MaskablePPO(PriorPolicy if net.prior else "MlpPolicy", env, policy_kwargs=kwargs, seed=cfg.seed, verbose=0,
                       tensorboard_log=str(folder / "tb"), device="cpu", **vars(cfg.ppo))


class ThreadsCallback(BaseCallback):
    """One torch thread while collecting rollouts, ``update_threads`` while learning from them."""

    def __init__(self, update_threads: int) -> None:
        super().__init__()
        self.update_threads = update_threads

    def _on_rollout_start(self) -> None:
        torch.set_num_threads(1)

    def _on_rollout_end(self) -> None:
        torch.set_num_threads(self.update_threads)

    def _on_step(self) -> bool:
        return True


class RolloutStatsCallback(BaseCallback):
    """Logs, per rollout, how often the learner played otherwise than its prior and what that
    gained (``rollout_reward`` runs only; ``training/sb3/rollouts.py``)."""

    def _on_rollout_end(self) -> None:
        if isinstance(self.training_env, RolloutReward):
            for key, value in self.training_env.take_stats().items():
                self.logger.record(f"rollout/{key}", value)

    def _on_step(self) -> bool:
        return True


class EveryCallback(BaseCallback):
    """Calls ``fire()`` at the start of the first rollout after training passed a multiple of
    ``every`` steps (0: never): after the PPO update of the rollout that passed it, so what
    fires sees (and a checkpoint keeps) that update, and the steps stay on the rollouts' grid."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every, self.next_at = every, 0

    def _on_training_start(self) -> None:
        self.next_at = self._after(self.model.num_timesteps)

    def _on_rollout_start(self) -> None:
        steps = self.model.num_timesteps
        if self.next_at and steps >= self.next_at:
            self.num_timesteps = steps
            self.fire()
            self.next_at = self._after(steps)

    def _after(self, steps: int) -> int:
        return (steps // self.every + 1) * self.every if self.every else 0

    def _on_step(self) -> bool:
        return True

    def fire(self) -> None:
        raise NotImplementedError


class LeagueCallback(EveryCallback):
    """Draws new opponents for each game whose deal ended; adds a snapshot every K steps."""

    def __init__(self, run: Run, league: League) -> None:
        super().__init__(run.config.league.snapshot_every)
        self.run, self.league = run, league

    def _on_step(self) -> bool:
        env = self.training_env  # set_opponents reaches the vector env through any wrapper
        n_opp = self.run.config.num_players - 1
        for i in np.flatnonzero(self.locals["dones"]):
            env.set_opponents([int(i)], [self.league.draw() for _ in range(n_opp)])
        return super()._on_step()

    def fire(self) -> None:
        folder = self.run.folder / "snapshots" / f"step_{self.num_timesteps:09d}"
        with staged(folder) as stage:  # whole or not at all: a kill leaves no torn snapshot
            config = self.run.config  # its table, as an exported model's card says it (else every game warns)
            policy_model.save(stage, network_of(self.model), {"rules": config.rules_object().to_dict(),
                                                                "num_players": config.num_players,
                                                                "training_steps": self.num_timesteps,
                                                                "snapshot_of": str(self.run.folder)})
        self.league.add_snapshot(folder)
        self.logger.record("league/snapshots", len(self.league.snapshots))


class EvalCallback(EveryCallback):
    """Evaluates the learner against fixed opponents every N steps: TensorBoard, JSON, PNG."""

    def __init__(self, run: Run, history: list[dict[str, Any]]) -> None:
        super().__init__(run.config.eval.every)
        self.run, self.history = run, history

    def fire(self) -> None:
        self.evaluate()

    def evaluate(self) -> dict[str, Any]:
        cfg = self.run.config
        row: dict[str, Any] = {"step": int(self.model.num_timesteps)}  # also right before learn() runs
        network = network_of(self.model)
        logger = getattr(self.model, "_logger", None)  # none before learn() (the step-0 evaluation)
        for k, opponent in enumerate(cfg.eval.opponents):
            result = evaluate_network(network, cfg.rules_object(), cfg.num_players, opponent,
                                      deals=cfg.eval.deals, seed=10_000_019 + k)
            row[opponent] = result
            if logger is not None:
                logger.record(f"eval/win_rate_vs_{opponent}", result["win_rate"])
                logger.record(f"eval/win_share_vs_{opponent}", result["win_share"])
        if cfg.benchmark.tasks:  # kc-bench scores in benchmark.json (training/bench.py)
            card = bench.score(bench.NetworkAgent(network), cfg, self.run.folder, row["step"])
            for task in card["tasks"] if logger is not None else ():
                logger.record(f"benchmark/{task['id']}", task["win_share"])
        self.history.append(row)
        print(f"step {row['step']:,}: win share against " + ", ".join(
            f"{o} {row[o]['win_share']:.3f} [{row[o]['share_interval'][0]:.3f}, {row[o]['share_interval'][1]:.3f}]"
            for o in cfg.eval.opponents), flush=True)
        write_atomic(self.run.folder / "eval.json", json.dumps(self.history, indent=1) + "\n")
        plot_learning_curve(self.history, self.run.folder / "learning_curve.png")
        if logger is not None:
            logger.dump(self.num_timesteps)
        return row


class CheckpointCallback(EveryCallback):
    """At the start of every rollout (after the league's snapshot and the evaluation due then),
    takes the whole checkpoint in memory (``take_checkpoint``); writes it every N steps, and
    ``latest`` is what Ctrl-C writes: a rollout's start, never a half-collected rollout or a
    half-done update."""

    def __init__(self, run: Run, league: League, history: list[dict[str, Any]]) -> None:
        super().__init__(run.config.checkpoint_every)
        self.run, self.league, self.history = run, league, history
        self.latest: Checkpoint | None = None

    def _on_rollout_start(self) -> None:
        self.latest = take_checkpoint(self.run, self.model, self.league, self.history)
        super()._on_rollout_start()

    def fire(self) -> None:
        self.latest.write()


@dataclass
class Checkpoint:
    """A checkpoint's files, in memory: ``step_N.pt`` and the league and evaluation beside it."""

    stem: Path
    files: dict[str, bytes]

    def write(self) -> Path:
        """Write every file atomically and fsynced, the ``.pt`` last, so a checkpoint that exists
        is whole (``training/sb3/checkpoint.py``); returns the ``.pt``."""
        self.stem.parent.mkdir(parents=True, exist_ok=True)
        for suffix in sorted(self.files, key=lambda s: s == ".pt"):
            write_atomic(self.stem.with_suffix(suffix), self.files[suffix])
        return checkpoint_mod.state_path(self.stem)


def take_checkpoint(run: Run, model: MaskablePPO, league: League, history: list[dict[str, Any]]) -> Checkpoint:
    """The run's checkpoint now: the model, where the run stands (``resume_state``), the league
    and the evaluation history."""
    standing = model.get_env() is not None and model._last_obs is not None
    position = resume_state.capture(model, league, run.folder) if standing else None
    if position is not None:
        position["update_threads"] = run.update_threads  # a resume keeps the run's choice (threads.py)
    scores = bench.snapshot(run.folder)
    return Checkpoint(run.checkpoints / f"step_{model.num_timesteps:012d}", {
        ".league.json": json.dumps(league.state_dict(run.folder)).encode(),
        ".eval.json": (json.dumps(history) + "\n").encode(),
        **({BENCHMARK_SUFFIX: scores} if scores is not None else {}),
        ".pt": checkpoint_mod.state_bytes(model, position)})


def save_checkpoint(run: Run, model: MaskablePPO, league: League, history: list[dict[str, Any]]) -> Path:
    """Write the run's checkpoint now (``take_checkpoint``); returns its ``.pt``."""
    return take_checkpoint(run, model, league, history).write()


def kickstart(cfg: TrainConfig, model: MaskablePPO, env: VecEnv, run: Run, progress: bool = True) -> None:
    """Clone the teacher before PPO (``training/sb3/pretrain.py``); the result goes in ``pretrain.json``.
    A line per epoch, and with ``progress`` on a terminal a bar over the gradient steps."""
    p = cfg.pretrain
    print(f"behaviour cloning: recording {p.samples:,} actions of {p.teacher}", flush=True)
    demos = collect(env, p.teacher, p.samples, cfg.ppo.gamma)
    print(f"behaviour cloning: fitting {len(demos.actions):,} actions, {p.epochs} epochs", flush=True)
    torch.set_num_threads(run.update_threads)
    started = time.perf_counter()
    bar = _terminal_bar(progress, p.epochs * -(-len(demos.actions) // p.batch_size), "behaviour cloning")

    def epoch_line(stats: dict[str, Any]) -> None:
        line = (f"behaviour cloning: epoch {stats['epoch']}/{p.epochs}: plays {p.teacher}'s move in "
                f"{stats['agreement']:.1%}, {time.perf_counter() - started:.0f} s")
        if bar is not None:
            bar.write(line)  # above the bar, which stays at the bottom
        else:
            print(line, flush=True)

    try:
        stats = fit(model, demos, p.epochs, batch_size=p.batch_size, learning_rate=p.learning_rate, seed=cfg.seed,
                    report=epoch_line, step=bar.update if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    print(f"behaviour cloning: the network plays {p.teacher}'s move in {stats['agreement']:.1%} of them", flush=True)
    (run.folder / "pretrain.json").write_text(json.dumps(stats, indent=1) + "\n")
    env.reset()


def improve_prior(cfg: TrainConfig, model: MaskablePPO, env: VecEnv, run: Run) -> None:
    """Label positions by play-outs in the training env (its league is the prior alone) and fit
    the actor to each move's advantage over the prior (``training/sb3/improve.py``); the fit's
    figures go in ``pretrain.json``."""
    p = cfg.pretrain
    data = improve.label(env.unwrapped, p.teacher, p.samples, run.folder / "improve", redeals=p.redeals)
    env.reset()  # the labelling played the games behind the wrappers' backs
    torch.set_num_threads(run.update_threads)
    stats = improve.fit(model, data, epochs=p.epochs, learning_rate=p.learning_rate, scale=p.advantage_scale,
                        holdout=p.holdout, seed=cfg.seed)
    (run.folder / "pretrain.json").write_text(json.dumps(stats, indent=1) + "\n")


def _terminal_bar(progress: bool, total: int, label: str) -> Any:
    """A tqdm bar on stderr when ``progress`` and stderr is a terminal (never into a log), else None."""
    if not (progress and sys.stderr.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit="step", leave=False, smoothing=0.1)


def _has_stage(folder: Path) -> bool:
    """Whether ``folder`` holds the work of a stage before PPO (labelled positions, tuning)."""
    return (folder / "improve").is_dir() or (folder / TUNE_FILE).is_file()


def train(cfg: TrainConfig, folder: str | Path, *, resume: bool = False, progress: bool = True,
          argv: list[str] | None = None) -> Run:
    """Train (or resume) the run in ``folder``, holding its lock (``run_lock``); returns the run.
    See the module docstring."""
    with run_lock.hold(folder):
        return _train(cfg, Path(folder), resume, progress, argv)


def _train(cfg: TrainConfig, folder: Path, resume: bool, progress: bool, argv: list[str] | None) -> Run:
    if resume:
        cfg = config_mod.load(folder / "config.yaml")
        run = Run(folder, cfg)
    else:
        if any((folder / CHECKPOINTS).glob("step_*")) or _has_stage(folder):
            raise FileExistsError(f"{folder} already holds a run; use --resume to continue it, or another folder")
        run = start_run(cfg, folder, argv or sys.argv)
    league = League(cfg.league, seed=cfg.seed)
    history: list[dict[str, Any]] = []
    point = resume_point(run) if resume else None
    checkpoint = saved = None
    if point is not None:
        checkpoint, (saved, league_state, rows) = point
        league.load_state_dict(league_state, folder)
        history.extend(rows)
    kept = saved.get("position", {}).get("update_threads") if saved is not None else None
    run.update_threads = update_threads(cfg.update_threads, kept)
    prior_weights = (tune(cfg, folder) if cfg.tune.generations
                     else start_weights(cfg) if cfg.network.heuristic_weights else None)
    env = make_env(cfg, league, prior_weights)
    model = make_model(cfg, env, folder, prior_weights)
    if checkpoint is not None:
        checkpoint_mod.restore(model, saved, checkpoint)
        resume_where_it_stood(run, model, league, saved, checkpoint, history)
    else:
        if cfg.pretrain.teacher and cfg.pretrain.method == "rollouts":
            improve_prior(cfg, model, env, run)
        elif cfg.pretrain.teacher:
            kickstart(cfg, model, env, run, progress)
    remaining = cfg.total_timesteps - model.num_timesteps
    evaluator = EvalCallback(run, history)
    if checkpoint is None and cfg.eval.every:  # where training starts (after any kickstart)
        evaluator.init_callback(model)
        evaluator.evaluate()
    checkpoints = CheckpointCallback(run, league, history)
    callbacks = CallbackList([ThreadsCallback(run.update_threads), RolloutStatsCallback(), LeagueCallback(run, league),
                              evaluator, checkpoints])  # at a rollout's start: snapshot, evaluation, checkpoint
    if remaining > 0:
        try:
            model.learn(remaining, callback=callbacks, progress_bar=progress, reset_num_timesteps=checkpoint is None,
                        tb_log_name="ppo")
        except KeyboardInterrupt:  # Ctrl-C: keep the last rollout's start; kc train says how to resume
            if checkpoints.latest is not None:
                checkpoints.latest.write()
            env.close()
            raise
    last = save_checkpoint(run, model, league, history)  # saved before the final evaluation, which may fail
    checkpoint_mod.save(folder / "final.pt", model)
    model.save(folder / "final.zip")
    rollout = cfg.n_envs * cfg.ppo.n_steps
    if not history or model.num_timesteps - history[-1]["step"] >= rollout:
        evaluator.init_callback(model)
        evaluator.evaluate()
        write_atomic(last.with_suffix(".eval.json"), json.dumps(history) + "\n")
        if (scores := bench.snapshot(folder)) is not None:
            write_atomic(last.with_suffix(BENCHMARK_SUFFIX), scores)
    env.close()
    return run


def resume_where_it_stood(run: Run, model: MaskablePPO, league: League, saved: dict[str, Any], checkpoint: Path,
                          history: list[dict[str, Any]]) -> None:
    """Put the games, generators and last observation of ``checkpoint`` back (``resume_state``),
    so the run goes on as it would have without the stop; and ``eval.json`` back to the
    checkpoint's rows (those after it are evaluated again, to the same figures)."""
    if "position" in saved:
        try:
            resume_state.restore(model, league, run.folder, saved["position"])
        except resume_state.ResumeStateError as exc:
            raise checkpoint_mod.CheckpointError(f"{checkpoint}: {exc}") from None
    else:
        print(f"{checkpoint.name} keeps no games or generators (a checkpoint from before they were kept): the run "
              "goes on with new deals, so not as it would have without the stop", file=sys.stderr)
    if history:
        write_atomic(run.folder / "eval.json", json.dumps(history, indent=1) + "\n")
    scores = checkpoint.with_suffix("").with_suffix(BENCHMARK_SUFFIX)
    bench.restore(run.folder, scores.read_bytes() if scores.is_file() else None)


def resume_point(run: Run) -> tuple[Path, tuple] | None:
    """The newest whole checkpoint of ``run`` and what it holds (``checkpoint.read_set``); damaged
    ones are skipped with a line on stderr. ``None`` when the run stopped before its first
    checkpoint: in a stage that resumes on its own (labelling, tuning), or before training began
    (it then starts from the beginning, as the same seed would)."""
    found = run.all_checkpoints()
    if not found and list(run.checkpoints.glob("step_*.zip")):
        raise FileNotFoundError(f"{run.folder}: its checkpoints are SB3 zips, which kc no longer reads (loading one "
                                f"unpickles code); train it afresh")
    point = checkpoint_mod.newest_whole(found, run.folder, lambda line: print(line, file=sys.stderr))
    if point is None and found and not _has_stage(run.folder):
        raise FileNotFoundError(f"{run.folder}: no whole checkpoint to resume from")
    if point is None and not _has_stage(run.folder):
        print(f"{run.folder}: stopped before its first checkpoint; training from the start", file=sys.stderr)
    return point
