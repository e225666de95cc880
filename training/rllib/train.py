"""``kc train CONFIG`` with ``trainer: rllib``: Ray RLlib's PPO (new API stack) on the PettingZoo env.

Read top to bottom: start or join Ray (``ray_session``), make the run folder (the same files as
the SB3 trainer: resolved config, command, code version), build the PPO algorithm
(``build_config``: the env of ``env.py``, the modules and ``policy_mapping_fn`` of
``league.py``, the scale settings of ``rllib:``), then train iteration by iteration: copy the
learner into a snapshot every ``league.snapshot_every`` env steps, evaluate it every
``eval.every`` (its win rate against ``eval.opponents``, ``heuristic`` first, played by the
exported numpy network on the vector env: the mean return says nothing in a zero-sum game; with
``benchmark.tasks`` set, the same network is scored on those kc-bench tasks, ``training/bench.py``),
checkpoint every ``checkpoint_every``. What a run writes::

    runs/NAME/
        config.yaml  command.txt  version.json     what was run, exactly
        progress.json                              one row per iteration: steps, speed, deals, losses
        eval.json  learning_curve.png              win rates against eval.opponents
        benchmark.json                             kc-bench scores at each evaluation (benchmark.tasks)
        checkpoints/iter_000012/                   RLlib checkpoints (Algorithm.save_to_path)
        checkpoints/iter_000012.json               league, history and benchmark.json state beside each

``kc export RUN FOLDER`` turns the newest checkpoint into a model folder (``export.py``).

Ray: with ``RAY_ADDRESS`` set the run joins that cluster and ships this repository's code to
it with a runtime environment (``working_dir``); otherwise it starts a private Ray on this
machine, on loopback only (``127.0.0.1``, no dashboard), with its temporary folder under
``/tmp/kcray*``, and shuts it down at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.env.env_runner import NUM_ENV_STEP_FAILURES_LIFETIME
from ray.rllib.utils.metrics import (
    ENV_RUNNER_RESULTS,
    ENV_RUNNER_SAMPLING_TIMER,
    LEARNER_RESULTS,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    TIMERS,
)

from kc_env import rewards
from kc_env.files import write_atomic

from .. import bench, run_lock, seal
from .. import config as config_mod
from ..config import ConfigError, TrainConfig
from ..evaluate import evaluate_network
from ..run import Run, plot_learning_curve, start_run
from .env import KingsCornerRLlibEnv, env_config
from .league import (
    LEARNER,
    copy_to_snapshot,
    learner_state,
    mapping,
    module_spec,
    push_to_env_runners,
    snapshot_ids,
)
from .module import network_of

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINTS = "checkpoints"
SHIPPED_EXCLUDES = [".git", ".venv", "runs", "models", "**/__pycache__", "*.egg-info", "docs", "benchmarks", "research"]
"""What the runtime environment leaves out when it ships the repository to a cluster."""
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
SAMPLE_TIMEOUT_S = 900.0
"""How long an iteration waits for the env runners' samples. RLlib's 60 s default, on a busy
machine, ends the iteration with no samples and leaves the late requests queued on the runners."""
LEARNER_STATS = ("entropy", "policy_loss", "vf_loss", "mean_kl_loss", "vf_explained_var")
"""The learner's numbers of each iteration kept in ``progress.json``."""
SAMPLING_TIMER = (TIMERS, ENV_RUNNER_SAMPLING_TIMER)
"""Where RLlib's algorithm times its sampling (``log_time``; ``time_sampling_per_iteration``)."""
BENCHMARK_KEY = "benchmark_json"
"""The key of a checkpoint's state file that holds the run's ``benchmark.json`` as it was then
(``None``: no rows yet), put back on resume (``training/bench.py``)."""


def check_supported(cfg: TrainConfig) -> None:
    """Refuse, naming the key, the settings the rllib trainer does not implement."""
    problems = []
    if cfg.pretrain.teacher is not None:
        problems.append("pretrain.teacher (kickstarting by behaviour cloning is sb3 only; set it to null)")
    if cfg.ppo.target_kl is not None:
        problems.append("ppo.target_kl (RLlib's PPO has no early stop on KL; set it to null)")
    if cfg.network.prior is not None:
        problems.append("network.prior (the rllib module is a plain MLP; set it to null)")
    if problems:
        raise ConfigError("trainer rllib does not support " + "; ".join(problems))


@contextlib.contextmanager
def ray_session(temp_root: str | Path | None = None, num_cpus: int | None = None) -> Iterator[str]:
    """Ray for one run: join ``RAY_ADDRESS`` if set (shipping the code), else start a private
    Ray on loopback with its temp folder in ``temp_root`` (default a new ``/tmp/kcray*``), and
    shut it down afterwards. Yields the temp folder ("" on a cluster)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if ray.is_initialized():  # the caller's Ray (a test's, a notebook's): use it, leave it running
        yield ""
        return
    address = os.environ.get("RAY_ADDRESS")
    own_temp = None
    with contextlib.ExitStack() as stack:
        if address:
            local = address.rsplit(":", 1)[0] in ("127.0.0.1", "localhost")
            if local:  # a cluster on this machine's loopback (tests): stay on it
                stack.enter_context(loopback_only())
            ray.init(address=address, runtime_env=runtime_env(), _node_ip_address="127.0.0.1" if local else None)
            temp = ""
        else:
            if not os.environ.get("RAY_AUTH_TOKEN"):  # token auth on, without writing ~/.ray/auth_token
                os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
            if temp_root is None:
                own_temp = temp_root = tempfile.mkdtemp(prefix="kcray", dir="/tmp")  # short: Ray's socket paths
            temp = str(temp_root)
            stack.enter_context(loopback_only())
            # The raylet waits for its agents' ports (30 s by default), which on a busy machine
            # can take longer to start; it then aborts and the node never comes up.
            os.environ.setdefault("RAY_agent_register_timeout_ms", "300000")
            try:
                ray.init(num_cpus=num_cpus or max(2, os.cpu_count() or 1), _node_ip_address="127.0.0.1",
                         include_dashboard=False, _temp_dir=temp, configure_logging=False, log_to_driver=False,
                         runtime_env={"env_vars": {"RAY_USAGE_STATS_ENABLED": "0"}})
            except Exception:
                stop_session_processes(temp)  # a failed start leaves what it started running
                raise
        try:
            yield temp
        finally:
            ray.shutdown()
            if own_temp:
                shutil.rmtree(own_temp, ignore_errors=True)


def stop_session_processes(temp: str) -> None:
    """End the processes this process started for the Ray session in ``temp`` (their command
    lines name it): what a Ray start that failed half-way leaves running."""
    import psutil

    mine = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if temp in " ".join(proc.cmdline()):
                mine.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    for proc in mine:
        proc.terminate()
    _, alive = psutil.wait_procs(mine, timeout=10)
    for proc in alive:
        proc.kill()


@contextlib.contextmanager
def loopback_only() -> Iterator[None]:
    """Keep every Ray process on 127.0.0.1. Ray 2.60 replaces a loopback node address by the
    machine's network address (so that other machines can reach it), and its servers then listen
    on every interface, unless its single-machine mode is on: ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``,
    which the Ray processes started from here read from the environment, and which this process
    read when it imported Ray (``ray_constants.ENABLE_RAY_CLUSTER``, set here for the session)."""
    from ray._private import ray_constants

    saved_env, saved_flag = os.environ.get(LOOPBACK_ENV), ray_constants.ENABLE_RAY_CLUSTER
    os.environ[LOOPBACK_ENV] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved_flag
        if saved_env is None:
            os.environ.pop(LOOPBACK_ENV, None)
        else:
            os.environ[LOOPBACK_ENV] = saved_env


def runtime_env() -> dict[str, Any]:
    """What a cluster run ships: this repository's code (``kc_env``, ``training``, configs).
    The workers need the same Python packages installed (``make install`` on each machine)."""
    return {"working_dir": str(ROOT), "excludes": SHIPPED_EXCLUDES,
            "env_vars": {"RAY_USAGE_STATS_ENABLED": "0"}}


class DealChecks(RLlibCallback):
    """At the end of every deal, per seat that acted: whether its last reward is the one the deal's
    result gives it (``win_loss``: +1 the winner, -1/(n-1) the others, 0 or ``blocked_reward``
    without a winner; ``score``: a final reward at all), and whether the learner won (its win
    rate in training games, against the pool). A seat that never acted (someone went out before
    its first turn) has no episode in RLlib and nothing to learn from; it is counted apart."""

    def on_episode_end(self, *, episode, env_runner=None, metrics_logger=None, **kwargs) -> None:
        config = env_runner.config.env_config
        players = config["num_players"]
        rewarded = learner_won = 0
        for agent_id, seat in episode.agent_episodes.items():
            deal = (seat.get_infos(-1) or {}).get("deal") if len(seat) else None
            if not (seat.is_done and deal):
                continue
            reward = float(seat.get_rewards(-1))
            expected = deal_reward(int(agent_id.rsplit("_", 1)[1]), deal, players, config.get("blocked_reward"))
            rewarded += config.get("reward", "win_loss") != "win_loss" or abs(reward - expected) < 1e-6
            if episode.module_for(agent_id) == LEARNER:
                learner_won = int(deal["winner"] == int(agent_id.rsplit("_", 1)[1]))
        metrics_logger.log_value("kc_deals", 1, reduce="sum")
        metrics_logger.log_value("kc_seats", len(episode.agent_episodes), reduce="sum")
        metrics_logger.log_value("kc_seats_idle", players - len(episode.agent_episodes), reduce="sum")
        metrics_logger.log_value("kc_seats_rewarded", rewarded, reduce="sum")
        metrics_logger.log_value("kc_learner_won", learner_won, reduce="mean", window=1000)


def deal_reward(seat: int, deal: dict[str, Any], players: int, blocked_reward: float | None) -> float:
    """The ``win_loss`` reward of ``seat`` for a finished deal (``kc_env.rewards.win_loss``), or
    ``blocked_reward`` (when set) for a blocked deal nobody won."""
    if deal["winner"] < 0:  # -1 (kings_corner_v0.NO_WINNER): nobody won
        return float(blocked_reward) if blocked_reward is not None and deal["blocked"] else 0.0
    return rewards.win_loss([deal["winner"]], players)[seat]


def build_config(cfg: TrainConfig) -> PPOConfig:
    """RLlib's PPO config for a ``TrainConfig`` (new API stack: RLModule, Learner, EnvRunner)."""
    check_supported(cfg)
    r, ppo = cfg.rllib, cfg.ppo
    specs = module_spec(cfg)
    return (
        PPOConfig()
        .environment(KingsCornerRLlibEnv, env_config=env_config(cfg),
                     disable_env_checking=True)  # the check plays unmasked random (illegal) actions
        .env_runners(num_env_runners=r.num_env_runners, num_envs_per_env_runner=r.num_envs_per_env_runner,
                     rollout_fragment_length=r.rollout_fragment_length or "auto", num_cpus_per_env_runner=1,
                     sample_timeout_s=SAMPLE_TIMEOUT_S)
        .learners(num_learners=r.num_learners)
        .training(train_batch_size_per_learner=r.train_batch_size, minibatch_size=r.minibatch_size,
                  num_epochs=ppo.n_epochs, lr=ppo.learning_rate, gamma=ppo.gamma, lambda_=ppo.gae_lambda,
                  clip_param=ppo.clip_range, entropy_coeff=ppo.ent_coef, vf_loss_coeff=ppo.vf_coef,
                  grad_clip=ppo.max_grad_norm)
        .multi_agent(policies=set(specs.rl_module_specs), policy_mapping_fn=mapping(cfg),
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=specs)
        .callbacks(DealChecks)
        # An env error is a bug here (an illegal action raises): fail the run, do not restart.
        .fault_tolerance(restart_failed_env_runners=False)
        .debugging(seed=cfg.seed)
    )


def current_network(algo, cfg: TrainConfig):
    """The learner's policy now, as the numpy ``PolicyNetwork`` an export would hold."""
    return network_of(learner_state(algo), cfg.network.activation)


def evaluate(algo, cfg: TrainConfig, steps: int, iteration: int, folder: Path | None = None,
             show: bool = True) -> dict[str, Any]:
    """Win rates of the learner (argmax over legal actions) against each of ``eval.opponents``.
    With a run ``folder`` and ``benchmark.tasks`` set, the same policy is scored on those tasks and
    the scores recorded at ``steps`` in the folder's ``benchmark.json`` (``training/bench.py``; one
    line per task printed when ``show``)."""
    network = current_network(algo, cfg)
    row: dict[str, Any] = {"step": steps, "iteration": iteration}
    for k, opponent in enumerate(cfg.eval.opponents):
        row[opponent] = evaluate_network(network, cfg.rules_object(), cfg.num_players, opponent,
                                         deals=cfg.eval.deals, seed=10_000_019 + k)
    if folder is not None and cfg.benchmark.tasks:
        bench.score(bench.NetworkAgent(network), cfg, folder, steps, None if show else _quiet)
    return row


def _quiet(line: str) -> None:
    """A log that drops its lines (``progress=False``)."""


class Crossing:
    """Fires once each time a counter passes a multiple of ``every`` (never when 0)."""

    def __init__(self, every: int, start: int = 0) -> None:
        self.every = every
        self.next_at = (start // every + 1) * every if every > 0 else None

    def __call__(self, value: int) -> bool:
        if self.next_at is None or value < self.next_at:
            return False
        self.next_at = (value // self.every + 1) * self.every
        return True


def save_checkpoint(run: Run, algo, iteration: int, state: dict[str, Any]) -> Path:
    """An RLlib checkpoint of the whole algorithm, and beside it the league, the history and the
    run's ``benchmark.json`` as it is now (``BENCHMARK_KEY``)."""
    path = run.checkpoints / f"iter_{iteration:06d}"
    algo.save_to_path(str(path.resolve()))
    seal.seal(path)
    scores = bench.snapshot(run.folder)
    state = {**state, BENCHMARK_KEY: scores.decode() if scores is not None else None}
    write_atomic(path.with_suffix(".json"), json.dumps(state, indent=1) + "\n")  # last: it marks the checkpoint whole
    return path


def restore_benchmark(run: Run, state: dict[str, Any]) -> None:
    """Put back the ``benchmark.json`` of the checkpoint whose state is ``state`` (its rows after
    the checkpoint are scored again as the resumed run reaches them)."""
    scores = state.pop(BENCHMARK_KEY, None)
    bench.restore(run.folder, scores.encode() if scores is not None else None)


def newest_checkpoint(folder: Path) -> Path | None:
    """The newest complete checkpoint of a run (its state file is written last)."""
    found = sorted(p for p in (folder / CHECKPOINTS).glob("iter_*") if p.is_dir() and p.with_suffix(".json").is_file())
    return found[-1] if found else None


def describe(iteration: int, row: dict[str, Any], evaluation: dict[str, Any] | None) -> str:
    """One console line per iteration."""
    text = (f"iter {iteration:4d}  env steps {row['env_steps']:>10,}  {row['env_steps_per_s']:>7,.0f} steps/s "
            f"(sampling {row['sampling_steps_per_s']:>7,.0f})  deals {row['deals']:>5}  "
            f"train win {row['train_win_rate']:.3f}")
    if evaluation:
        text += "  " + "  ".join(f"vs {k} {v['win_rate']:.3f}" for k, v in evaluation.items() if isinstance(v, dict))
    return text


def time_sampling_per_iteration(algo) -> None:
    """Make RLlib's sampling timer each iteration's own sampling time. RLlib keeps it as an
    exponential moving average (coefficient 0.01): after the first iteration it barely moved (an
    iteration of 2.3 s reported 8.5 s of sampling). Declared again as a sum, which RLlib's reduce
    at the end of every iteration empties, it holds the time of that iteration's sampling calls;
    called after a checkpoint is restored, as restoring puts back the stats it saved."""
    algo.metrics.delete(*SAMPLING_TIMER, key_error=False)
    algo.metrics.log_time(SAMPLING_TIMER, reduce="sum")  # declares it; RLlib's own log_time then adds to it


def progress_row(result: dict[str, Any], iteration: int, steps: int, previous: int, seconds: float) -> dict[str, Any]:
    """What one iteration did: steps, speed, deals, seats rewarded, the learner's training wins."""
    runners = result[ENV_RUNNER_RESULTS]
    learner = result.get(LEARNER_RESULTS, {}).get(LEARNER, {})
    sampling = result.get(TIMERS, {}).get(ENV_RUNNER_SAMPLING_TIMER) or float("nan")
    new = steps - previous
    return {"iteration": iteration, "env_steps": steps, "seconds": round(seconds, 3),
            "env_steps_per_s": new / seconds, "sampling_seconds": sampling, "sampling_steps_per_s": new / sampling,
            "deals": int(runners.get("kc_deals", 0)), "seats": int(runners.get("kc_seats", 0)),
            "seats_rewarded": int(runners.get("kc_seats_rewarded", 0)), "seats_idle": int(runners.get("kc_seats_idle", 0)),
            "env_step_failures": int(runners.get(NUM_ENV_STEP_FAILURES_LIFETIME, 0)),
            "train_win_rate": float(runners.get("kc_learner_won", float("nan"))),
            **{key: float(learner[key]) for key in LEARNER_STATS if key in learner}}


def train(cfg: TrainConfig, folder: str | Path, *, resume: bool = False, progress: bool = True,
          argv: list[str] | None = None, ray_temp: str | Path | None = None,
          max_iterations: int | None = None) -> Run:
    """Train (or resume) the RLlib run in ``folder``, holding its lock (``run_lock``); returns the
    run. ``max_iterations`` stops earlier than ``total_timesteps`` (tests)."""
    with run_lock.hold(folder):
        return _train(cfg, Path(folder), resume, progress, argv, ray_temp, max_iterations)


def _train(cfg: TrainConfig, folder: Path, resume: bool, progress: bool, argv: list[str] | None,
           ray_temp: str | Path | None, max_iterations: int | None) -> Run:
    if resume:
        cfg = config_mod.load(folder / "config.yaml")
        checkpoint = newest_checkpoint(folder)
        if checkpoint is None:
            raise FileNotFoundError(f"{folder}: no checkpoint to resume from")
        seal.check(checkpoint)  # before Ray unpickles anything of it
        run = Run(folder, cfg)
    else:
        if newest_checkpoint(folder) is not None:
            raise FileExistsError(f"{folder} already holds a run; use --resume to continue it, or another folder")
        checkpoint = None
    check_supported(cfg)
    algo_config = build_config(cfg)
    with ray_session(ray_temp, num_cpus=cfg.rllib.num_env_runners + cfg.rllib.num_learners + 1):
        if not resume:
            run = start_run(cfg, folder, argv or sys.argv)
        algo = algo_config.build_algo()
        try:
            _loop(cfg, run, algo, checkpoint, progress, max_iterations)
        finally:
            algo.stop()
    return run


def _loop(cfg: TrainConfig, run: Run, algo, checkpoint: Path | None, progress: bool,
          max_iterations: int | None) -> None:
    state = {"iteration": 0, "env_steps": 0, "snapshots_taken": 0, "history": [], "progress": []}
    snapshots = snapshot_ids(cfg)
    if checkpoint is not None:
        algo.restore_from_path(str(checkpoint.resolve()))
        state = json.loads(checkpoint.with_suffix(".json").read_text())
        restore_benchmark(run, state)
        for snapshot in snapshots:  # the env runners get the frozen weights the checkpoint holds
            push_to_env_runners(algo, snapshot, learner_state(algo, snapshot))
    time_sampling_per_iteration(algo)
    if checkpoint is None:
        for snapshot in snapshots:  # every slot starts as the untrained learner
            copy_to_snapshot(algo, snapshot)
        if cfg.eval.every:
            _record_eval(run, state, evaluate(algo, cfg, 0, 0, run.folder, progress), progress)
    snap_due, eval_due = Crossing(cfg.league.snapshot_every, state["env_steps"]), Crossing(cfg.eval.every, state["env_steps"])
    ckpt_due = Crossing(cfg.checkpoint_every, state["env_steps"])
    done = 0
    while state["env_steps"] < cfg.total_timesteps and (max_iterations is None or done < max_iterations):
        started = time.perf_counter()
        result = algo.train()
        seconds = time.perf_counter() - started
        steps = int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])
        state["iteration"] += 1
        done += 1
        row = progress_row(result, state["iteration"], steps, state["env_steps"], seconds)
        state["env_steps"] = steps
        if row["env_step_failures"] or row["seats_rewarded"] != row["seats"]:
            raise RuntimeError(f"iteration {state['iteration']}: {row['env_step_failures']} env step failures, "
                               f"{row['seats'] - row['seats_rewarded']} seats without a final reward")
        state["progress"].append(row)
        (run.folder / "progress.json").write_text(json.dumps(state["progress"], indent=1) + "\n")
        if snapshots and snap_due(steps):
            copy_to_snapshot(algo, snapshots[state["snapshots_taken"] % len(snapshots)])
            state["snapshots_taken"] += 1
        evaluation = None
        finished = steps >= cfg.total_timesteps or (max_iterations is not None and done >= max_iterations)
        if eval_due(steps) or finished:
            evaluation = evaluate(algo, cfg, steps, state["iteration"], run.folder, progress)
            _record_eval(run, state, evaluation, False)
        if progress:
            print(describe(state["iteration"], row, evaluation), flush=True)
        if ckpt_due(steps) or finished:
            save_checkpoint(run, algo, state["iteration"], state)


def _record_eval(run: Run, state: dict[str, Any], row: dict[str, Any], show: bool) -> None:
    if state["history"] and state["history"][-1]["step"] == row["step"]:
        return
    state["history"].append(row)
    (run.folder / "eval.json").write_text(json.dumps(state["history"], indent=1) + "\n")
    plot_learning_curve([{k: v for k, v in r.items() if k != "iteration"} for r in state["history"]],
                        run.folder / "learning_curve.png", steps="env steps (every seat's actions)")
    if show:
        print(f"step {row['step']:,}: " + "  ".join(f"vs {k} {v['win_rate']:.3f}"
                                                    for k, v in row.items() if isinstance(v, dict)), flush=True)
