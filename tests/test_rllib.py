"""The Ray RLlib trainer (``training/rllib/``): config, env, masked module, smoke runs on Ray,
snapshot weights on the env runners, export, and no Ray process left behind.

Ray runs on loopback only (``127.0.0.1``, no dashboard), with its temp folder in a short folder
this module makes and removes (Ray's socket paths must stay under ~107 characters).
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")
pytest.importorskip("ray.rllib")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training.config import ConfigError, TrainConfig  # noqa: E402
from kc_env.training.export import TOLERANCE, sample_observations  # noqa: E402
from kc_env.training.rllib import league as league_mod  # noqa: E402
from kc_env.training.rllib.env import KingsCornerRLlibEnv  # noqa: E402
from kc_env.training.rllib.export import export_checkpoint, load_module, publish  # noqa: E402
from kc_env.training.rllib.module import MaskedPolicyModule, network_of, torch_probabilities  # noqa: E402
from kc_env.training.rllib.train import (  # noqa: E402
    SAMPLING_TIMER,
    build_config,
    newest_checkpoint,
    progress_row,
    ray_session,
    time_sampling_per_iteration,
    train,
)

from kc_env import GAME_INFO  # noqa: E402
from kc_env.agents import load as load_agent  # noqa: E402
from kc_env.rewards import win_loss  # noqa: E402
from kc_env.tournament import run_tournament  # noqa: E402

os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
pytestmark = pytest.mark.xdist_group("ray")  # one worker runs them all: one Ray, one set of smoke runs

SMALL = {
    "trainer": "rllib", "total_timesteps": 100_000, "checkpoint_every": 100_000,
    "network": {"shared": [32], "hidden": []},
    "league": {"agents": {"heuristic": 0.4, "greedy": 0.3, "random": 0.3}, "snapshot_every": 300,
               "snapshot_weight": 0.3, "max_snapshots": 2},
    "eval": {"every": 100_000, "deals": 16, "opponents": ["heuristic", "random"]},
    "ppo": {"n_epochs": 1},
    "rllib": {"num_env_runners": 2, "num_envs_per_env_runner": 2, "train_batch_size": 400, "minibatch_size": 200},
}


def small_config(tmp_path: Path, **top) -> TrainConfig:
    path = tmp_path / "rllib.yaml"
    path.write_text(json.dumps({"default": {**SMALL, **top}}))  # JSON is YAML
    return config_mod.load(path)


def ray_processes(temp: str, children: bool = True) -> list[psutil.Process]:
    """Live processes of the Ray started with temp folder ``temp`` (raylet, gcs, workers), and
    with ``children`` this process's own Ray's, whose command lines Ray renames."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            cmd = " ".join(proc.info["cmdline"] or [])
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        if temp in cmd or (children and ("ray::" in cmd or "raylet" in cmd or "gcs_server" in cmd)
                           and proc.ppid() == os.getpid()):
            found.append(proc)
    return found


def assert_loopback_only(temp: str, children: bool = True) -> None:
    """Every socket the Ray processes of ``temp`` listen on is bound to 127.0.0.1."""
    listening = []
    for proc in ray_processes(temp, children):
        try:
            listening += [c.laddr.ip for c in proc.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    assert listening and all(ip in ("127.0.0.1", "::ffff:127.0.0.1") for ip in listening), listening


def _ray_temp(own_ray: bool):
    """A short temp folder for Ray; afterwards (this process's Ray shut down if ``own_ray``), no
    Ray process started under it may be running."""
    temp = tempfile.mkdtemp(prefix="kcray", dir="/tmp")
    yield temp
    if own_ray and ray.is_initialized():
        ray.shutdown()
    left = [p for p in set(ray_processes(temp, children=own_ray)) | STARTED.pop(temp, set())
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    gone, alive = psutil.wait_procs(left, timeout=20)
    shutil.rmtree(temp, ignore_errors=True)
    assert not alive, f"Ray processes left running: {[' '.join(p.cmdline()[:3]) for p in alive]}"


@pytest.fixture
def head_temp():
    """The temp folder of a Ray head that a test starts with ``ray start``."""
    yield from _ray_temp(own_ray=False)


@pytest.fixture(scope="module")
def shared_ray():
    """One Ray on loopback for the module's tests that only need a Ray to train on (starting one,
    with its env runners, is most of such a test's time); afterwards no Ray process is left."""
    before = os.environ.get("KC_ENV_SEAL_KEY")
    for temp in _ray_temp(own_ray=True):
        os.environ["KC_ENV_SEAL_KEY"] = str(Path(temp) / "checkpoint.key")  # not the user's key
        try:
            with loopback_ray(temp):
                yield temp
        finally:
            if before is None:
                os.environ.pop("KC_ENV_SEAL_KEY", None)
            else:
                os.environ["KC_ENV_SEAL_KEY"] = before


STARTED: dict[str, set[psutil.Process]] = {}
"""The processes each test's Ray started (by temp folder), for the check that none is left."""


@contextlib.contextmanager
def loopback_ray(temp: str):
    """A Ray on loopback for one test; notes every process it starts (the descendants of this
    process: Ray renames some, so their command lines do not say whose they are)."""
    with ray_session(temp, num_cpus=4):
        assert ray_processes(temp), "no Ray process found under the temp folder: the leak check would see none"
        assert_loopback_only(temp)
        try:
            yield
        finally:
            STARTED.setdefault(temp, set()).update(psutil.Process().children(recursive=True))
    assert not ray.is_initialized()


# -- config ------------------------------------------------------------------------------------

def test_trainer_and_rllib_block_are_strict(tmp_path):
    assert small_config(tmp_path).rllib.num_env_runners == 2
    cases = [
        ({"trainer": "jax"}, "trainer must be one of sb3, rllib, turn_value, turn_ppo, not 'jax'"),
        ({"rllib": {"num_learners": 2}}, "rllib.num_learners must be 0 or 1"),
        ({"rllib": {"num_runners": 2}}, "unknown key 'rllib.num_runners'"),
        ({"rllib": {"minibatch_size": 10_000, "train_batch_size": 400}}, "rllib.minibatch_size must be"),
        ({"rllib": {"num_envs_per_env_runner": "many"}}, "num_envs_per_env_runner: expected int"),
        ({"rllib": [1, 2]}, "rllib: expected a mapping"),
    ]
    for top, message in cases:
        with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
            small_config(tmp_path, **top)


def test_unsupported_settings_are_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match="pretrain.teacher"):
        build_config(small_config(tmp_path, pretrain={"teacher": "heuristic"}))
    with pytest.raises(ConfigError, match="ppo.target_kl"):
        build_config(small_config(tmp_path, ppo={"target_kl": 0.02}))
    with pytest.raises(ConfigError, match="network.prior"):
        build_config(small_config(tmp_path, network={"shared": [32], "hidden": [], "prior": "heuristic"}))
    with pytest.raises(ConfigError, match="'models/x'"):
        build_config(small_config(tmp_path, league={"agents": {"models/x": 1.0}}))


def test_kc_train_refuses_an_unknown_trainer_flag(tmp_path, capsys):
    from kc_env.cli import main

    with pytest.raises(SystemExit):
        main(["train", "configs/rllib-standard-2p.yaml", "--trainer", "jax"])
    assert "invalid choice: 'jax'" in capsys.readouterr().err


# -- env, mapping, module -----------------------------------------------------------------------

def play_random_deal(env, rng, seed: int) -> tuple[dict, dict]:
    """One deal of random legal moves in the RLlib env; the last step's rewards and infos."""
    obs, _ = env.reset(seed=seed)
    while True:
        (agent, o), = obs.items()
        obs, rewards, terminated, truncated, infos = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        if terminated["__all__"] or truncated["__all__"]:
            return rewards, infos


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_seat_is_rewarded_at_the_end_of_each_deal(players):
    env = KingsCornerRLlibEnv({"num_players": players, "rules": "standard"})
    rng = np.random.default_rng(players)
    for deal in range(30):
        rewards, infos = play_random_deal(env, rng, seed=deal)
        assert sorted(rewards) == [f"player_{i}" for i in range(players)]
        winner = infos["player_0"]["deal"]["winner"]
        expected = win_loss(() if winner < 0 else (winner,), players)
        assert [rewards[f"player_{i}"] for i in range(players)] == pytest.approx(expected)


def test_blocked_reward_replaces_every_seats_reward_for_a_blocked_deal():
    env = KingsCornerRLlibEnv({"num_players": 2, "blocked_reward": -1.0, "max_moves": GAME_INFO.default_max_moves})
    rng = np.random.default_rng(0)
    blocked = 0
    for deal in range(120):
        rewards, infos = play_random_deal(env, rng, seed=deal)
        if infos["player_0"]["deal"]["blocked"] and infos["player_0"]["deal"]["winner"] < 0:
            blocked += 1
            assert rewards == {"player_0": -1.0, "player_1": -1.0}
    assert blocked > 0


def test_rllibs_env_check_plays_illegal_actions_so_it_is_off():
    """RLlib's check steps the env with unmasked random actions: here those are illegal and the
    raw env raises. The trainer's config turns the check off. The check resets with seed 42 and
    steps once with a sample of the agent's action space, which it leaves unseeded; a few of the
    497 actions are legal, so the space is seeded here to make that one sample an illegal one."""
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from kc_env.engine import IllegalMove

    env = KingsCornerRLlibEnv({"num_players": 2})
    obs, _ = env.reset(seed=42)
    (agent,) = obs
    space, mask = env.get_action_space(agent), obs[agent]["action_mask"]

    def first_sample(seed: int) -> int:
        space.seed(seed)
        return int(space.sample())

    illegal = next(seed for seed in range(100) if not mask[first_sample(seed)])
    space.seed(illegal)
    with pytest.raises(Exception) as caught:  # RLlib rewords the error; the cause is the engine's
        check_multiagent_environments(env)
    chain, error = [], caught.value
    while error is not None:
        chain.append(error)
        error = error.__cause__ or error.__context__
    assert any(isinstance(e, IllegalMove) and "is illegal" in str(e) for e in chain), chain
    assert build_config(TrainConfig(trainer="rllib")).disable_env_checking is True


def test_the_mapping_seats_the_learner_once_and_draws_opponents_by_weight():
    mapping = league_mod.SeatMapping(3, {"heuristic": 0.5, "random": 0.5}, ["snapshot_0", "snapshot_1"], 0.25, seed=0)
    seen = {"heuristic": 0, "random": 0, "snapshot_0": 0, "snapshot_1": 0}
    learner_seats = [0, 0, 0]
    for k in range(4000):
        seats = mapping.seating(f"episode{k}")
        assert seats.count(league_mod.LEARNER) == 1 and seats == mapping.seating(f"episode{k}")
        learner_seats[seats.index(league_mod.LEARNER)] += 1
        for module in seats:
            if module != league_mod.LEARNER:
                seen[module] += 1
    assert min(learner_seats) > 1200
    assert (seen["snapshot_0"] + seen["snapshot_1"]) / 8000 == pytest.approx(0.25, abs=0.02)
    assert seen["heuristic"] / seen["random"] == pytest.approx(1.0, abs=0.1)


def test_masked_module_gives_illegal_actions_no_probability_and_exports_exactly():
    cfg = TrainConfig(trainer="rllib", network=config_mod.NetworkSettings(shared=[64], hidden=[32], activation="relu"))
    spec = league_mod.module_spec(cfg).rl_module_specs[league_mod.LEARNER]
    module = spec.build()
    assert isinstance(module, MaskedPolicyModule)
    obs, masks = sample_observations(cfg.rules_object(), 2, count=128)
    probs = torch_probabilities(module, obs, masks)
    assert np.all(probs[masks == 0] == 0) and np.allclose(probs.sum(axis=1), 1)
    network = network_of(module.get_state(), "relu")
    assert [w.shape for w, _ in network.hidden] == [(64, GAME_INFO.observation_size), (32, 64)]
    assert network.action[0].shape == (GAME_INFO.num_distinct_actions, 32)
    assert np.max(np.abs(network.probabilities(obs, masks) - probs)) < TOLERANCE


def test_progress_rows_sampling_seconds_are_the_iterations_own_not_rllibs_moving_average():
    """RLlib's algorithm times its sampling as an exponential moving average (coefficient 0.01):
    an iteration that sampled 2 s after one of 8 s read 7.94 s. The trainer declares the timer as
    a sum that each iteration's reduce empties, also over the average a checkpoint restores."""
    from types import SimpleNamespace

    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    algo = SimpleNamespace(metrics=MetricsLogger(root=True))
    algo.metrics.log_time(SAMPLING_TIMER).push(5.0)  # RLlib's own average, as a checkpoint puts it back
    time_sampling_per_iteration(algo)
    rows = []
    for calls in ([8.0], [1.5, 0.5]):  # the sampling calls of each iteration (one per training_step)
        for seconds in calls:
            algo.metrics.log_time(SAMPLING_TIMER).push(seconds)  # what RLlib's `with log_time(...)` pushes
        result = {ENV_RUNNER_RESULTS: {}, **algo.metrics.compile()}
        rows.append(progress_row(result, len(rows) + 1, 1000 * (len(rows) + 1), 1000 * len(rows), 10.0))
    assert [row["sampling_seconds"] for row in rows] == [8.0, 2.0]
    assert [row["sampling_steps_per_s"] for row in rows] == [125.0, 500.0]


# -- on Ray ---------------------------------------------------------------------------------------

def test_smoke_two_iterations_two_env_runners_then_resume_and_export(shared_ray, tmp_path):
    """Two training iterations with two env runners, 2 players: no illegal action (the raw env
    raises on one, and an env runner error fails the run), every seat that acted rewarded at the
    end of each deal as the deal's result says, win rates logged; then the run resumes, its
    checkpoint exports to a model folder, and a damaged checkpoint is refused. The fixture then
    proves no Ray process is left."""
    cfg, folder = smoke_runs(tmp_path, (2,))[2]
    check_resume(cfg, folder)
    check_export(cfg, folder, tmp_path)
    check_damaged_checkpoints(cfg, folder, tmp_path)


@pytest.mark.slow
def test_smoke_two_iterations_with_3_and_4_players(shared_ray, tmp_path):
    """The same two iterations with 3 and 4 seats (one learner, the rest from the league)."""
    smoke_runs(tmp_path, (3, 4))


def smoke_runs(tmp_path: Path, seats: tuple[int, ...]) -> dict[int, tuple[TrainConfig, Path]]:
    """Two iterations of the small config for each number of players in ``seats`` on the shared
    Ray, each run checked; returns ``{players: (config, run folder)}``."""
    runs = {}
    for players in seats:
        cfg = small_config(tmp_path, num_players=players)
        runs[players] = cfg, train(cfg, tmp_path / f"run{players}", argv=["test"], progress=False,
                                   max_iterations=2).folder
    for players, (cfg, folder) in runs.items():
        rows = json.loads((folder / "progress.json").read_text())
        assert [r["iteration"] for r in rows] == [1, 2]
        assert rows[-1]["env_steps"] >= 2 * cfg.rllib.train_batch_size
        assert all(np.isfinite(rows[-1][key]) for key in ("entropy", "policy_loss", "vf_loss"))
        for row in rows:
            assert row["deals"] > 0 and row["env_step_failures"] == 0
            assert row["seats_rewarded"] == row["seats"] == row["deals"] * players - row["seats_idle"]
            assert 0 < row["sampling_seconds"] <= row["seconds"]  # the iteration's own, within it
        evaluation = json.loads((folder / "eval.json").read_text())
        assert evaluation[0]["step"] == 0 and evaluation[-1]["step"] == rows[-1]["env_steps"]
        assert 0 <= evaluation[-1]["heuristic"]["win_rate"] <= 1 and evaluation[-1]["random"]["deals"] >= 16
        assert json.loads(newest_checkpoint(folder).with_suffix(".json").read_text())["snapshots_taken"] >= 1
    return runs


def check_resume(cfg: TrainConfig, folder: Path) -> None:
    """``--resume`` continues from the newest checkpoint: its counters and history go on, and a
    finished run is not started again over itself."""
    saved = json.loads(newest_checkpoint(folder).with_suffix(".json").read_text())
    train(cfg, folder, resume=True, progress=False, max_iterations=1)
    rows = json.loads((folder / "progress.json").read_text())
    assert [r["iteration"] for r in rows] == [1, 2, 3] and rows[2]["env_steps"] > saved["env_steps"]
    assert 0 < rows[2]["sampling_seconds"] <= rows[2]["seconds"]  # not the average the checkpoint held
    assert len(json.loads((folder / "eval.json").read_text())) == len(saved["history"]) + 1
    with pytest.raises(FileExistsError, match="--resume"):
        train(cfg, folder, progress=False)


def check_export(cfg: TrainConfig, folder: Path, tmp_path: Path) -> None:
    model, text = publish(folder, tmp_path / "model", against=["random"], deals=12, progress=False)
    card = json.loads((model / "model.json").read_text())
    assert card["trainer"] == "rllib" and card["num_players"] == 2 and card["export_check"]["max_probability_gap"] < TOLERANCE
    assert card["training_steps"] >= 800 and "model" in text
    agent = load_agent(str(model))
    result = run_tournament([agent, "random"], cfg.rules_object(), 2, deals=6, seed=0, progress=False)
    assert sum(s.deals for s in result.stats) > 0
    assert (model / "weights.npz").stat().st_size < 10_000_000


def check_damaged_checkpoints(cfg: TrainConfig, folder: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an RLlib checkpoint"):
        load_module(tmp_path)
    broken = tmp_path / "broken"
    shutil.copytree(newest_checkpoint(folder), broken)
    load_module(broken)  # a copy keeps its seal
    state = broken / "learner_group/learner/rl_module/learner/module_state.pkl"
    planted = tmp_path / "the payload ran"
    state.write_bytes(pickle.dumps(Payload(str(planted))))
    with pytest.raises(ValueError, match="changed since, or sealed elsewhere"):
        export_checkpoint(broken, tmp_path / "out", {}, cfg.rules_object(), 2)
    assert not planted.exists(), "the planted pickle was loaded"
    planted_run = tmp_path / "planted-run"
    shutil.copytree(folder, planted_run)
    shutil.copy(state, newest_checkpoint(planted_run) / state.relative_to(broken))
    with pytest.raises(ValueError, match="changed since, or sealed elsewhere"):
        train(cfg, planted_run, resume=True, progress=False, max_iterations=1)
    assert not planted.exists(), "the planted pickle was loaded"
    check_symlinked_component_is_refused(cfg, folder, tmp_path)
    state.unlink()
    with pytest.raises(ValueError, match="no learner module"):
        load_module(broken)


def check_symlinked_component_is_refused(cfg: TrainConfig, folder: Path, tmp_path: Path) -> None:
    """``reliability-2026-12b.md`` H-3: Ray restores an optional component whose folder exists, so
    a symlinked ``env_runner/rl_module`` to a planted pickle ran it on ``--resume``; the seal now
    refuses any link, before Ray reads anything."""
    planted = tmp_path / "the symlinked payload ran"
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "module_state.pkl").write_bytes(pickle.dumps(Payload(str(planted))))
    planted_run = tmp_path / "symlinked-run"
    shutil.copytree(folder, planted_run)
    (newest_checkpoint(planted_run) / "env_runner" / "rl_module").symlink_to(evil, target_is_directory=True)
    with pytest.raises(ValueError, match="env_runner/rl_module is a symbolic link"):
        train(cfg, planted_run, resume=True, progress=False, max_iterations=1)
    with pytest.raises(ValueError, match="env_runner/rl_module is a symbolic link"):
        load_module(newest_checkpoint(planted_run))
    assert not planted.exists(), "the planted pickle was loaded"


class Payload:
    """A pickle that, when loaded, creates the file ``path``: what a planted checkpoint could do."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_frozen_snapshot_weights_reach_the_env_runners(shared_ray, tmp_path):
    """After an iteration the env runners hold the learner's WEIGHTS_SEQ_NO, so RLlib's own
    sync of a snapshot from the learner group is skipped; ``copy_to_snapshot`` arrives."""
    cfg = small_config(tmp_path, num_players=2)
    check_snapshot_sync(build_config(cfg).build_algo())


def check_snapshot_sync(algo) -> None:
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE
    from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO

    try:
        runners = algo.env_runner_group

        def on_runners(snapshot):
            return runners.foreach_env_runner(lambda r: r.module[snapshot].get_state(), local_env_runner=False)

        initial = on_runners("snapshot_1")
        algo.train()  # the learner moves away from the snapshots' first weights
        learner = league_mod.learner_state(algo)
        assert not np.allclose(learner["action.weight"], initial[0]["action.weight"])
        # RLlib's path: set the snapshot in the learner group, then sync it from there.
        algo.learner_group.set_state({COMPONENT_LEARNER: {COMPONENT_RL_MODULE: {"snapshot_1": learner}}})
        sent = algo.learner_group.get_state(components=f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/snapshot_1")
        held = runners.foreach_env_runner(lambda r: r._weights_seq_no, local_env_runner=False)
        assert sent[COMPONENT_LEARNER][WEIGHTS_SEQ_NO] == held[0] == held[1] > 0  # not newer: skipped
        runners.sync_weights(from_worker_or_learner_group=algo.learner_group, policies=["snapshot_1"],
                             inference_only=True)
        skipped = on_runners("snapshot_1")
        assert len(skipped) == 2 and all(np.array_equal(s["action.weight"], initial[0]["action.weight"]) for s in skipped)
        # The forced push arrives on every env runner, for every layer.
        league_mod.copy_to_snapshot(algo, "snapshot_0")
        arrived = on_runners("snapshot_0")
        assert len(arrived) == 2
        for state in arrived:
            assert set(state) == set(learner)
            assert all(np.array_equal(state[k], learner[k]) for k in learner)
    finally:
        algo.stop()


@pytest.mark.slow  # a tiny run scored at 3 evaluations, resumed, and an export scored: about 60 s on 2 cores
def test_a_run_records_benchmark_scores_at_each_evaluation_and_a_resume_puts_back_its_rows(shared_ray, tmp_path):
    """With ``benchmark.tasks`` set, each evaluation (step 0 and every iteration here) adds a row to
    ``benchmark.json``; a row is what ``kc benchmark`` gives the checkpoint's exported module (its
    most likely legal action). Killed after scoring its last iteration but before checkpointing
    it, the run resumes from the checkpoint before: that checkpoint's rows come back, the later
    ones go, and the step it reaches again is scored anew."""
    from kc_env.benchmark import evaluate as benchmark_evaluate
    from kc_env.benchmark import runs

    task = "kc/standard-2p-vs-heuristic-v1"
    cfg = small_config(tmp_path, checkpoint_every=1, eval={"every": 1, "deals": 8, "opponents": ["random"]},
                       benchmark={"tasks": [task], "quick": True})
    folder = train(cfg, tmp_path / "run", argv=["test"], progress=False, max_iterations=2).folder
    steps = [r["step"] for r in json.loads((folder / "eval.json").read_text())]
    whole = runs.read(folder)
    assert len(steps) == 3 and [r["step"] for r in whole["rows"]] == steps and whole["quick"]
    first = folder / "checkpoints" / "iter_000001"
    export_checkpoint(first, tmp_path / "first", {}, cfg.rules_object(), 2)
    card = benchmark_evaluate(str(tmp_path / "first"), tasks=[task], quick=True)
    assert json.loads(json.dumps(card.scores[0].to_dict())) == whole["rows"][1]["tasks"][task]
    shutil.rmtree(folder / "checkpoints" / "iter_000002")  # killed before its checkpoint was written
    (folder / "checkpoints" / "iter_000002.json").unlink()
    late = {**whole, "rows": [*whole["rows"], {**whole["rows"][-1], "step": 10**9}]}
    (folder / runs.FILE).write_text(json.dumps(late, indent=1) + "\n")
    train(cfg, folder, resume=True, progress=False, max_iterations=1)
    again = runs.read(folder)["rows"]
    reached = json.loads((folder / "progress.json").read_text())[-1]["env_steps"]
    assert [r["step"] for r in again] == [*steps[:2], reached]
    assert again[:2] == whole["rows"][:2]


@pytest.mark.slow
def test_with_ray_address_kc_train_joins_the_cluster_and_ships_the_code(head_temp, tmp_path):
    """A head started with ``ray start`` (on loopback, token authentication on); ``kc train
    --trainer rllib`` with ``RAY_ADDRESS`` set joins it, ships the code as a runtime environment
    (``working_dir``) and trains; stopping the head (by its process id) leaves no Ray process."""
    import secrets
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
           "RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    bin_dir = Path(sys.executable).parent
    head = subprocess.Popen([str(bin_dir / "ray"), "start", "--head", "--block", "--node-ip-address=127.0.0.1",
                             f"--port={port}", "--num-cpus=4", "--include-dashboard=false",
                             f"--temp-dir={head_temp}", "--disable-usage-stats"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(8)
        assert head.poll() is None, "ray start --head exited"
        assert_loopback_only(head_temp, children=False)
        config = tmp_path / "rllib.yaml"
        config.write_text(json.dumps({"default": {**SMALL, "trainer": "sb3", "total_timesteps": 400}}))
        done = subprocess.run([str(bin_dir / "kc"), "train", str(config), "--trainer", "rllib", "--run", str(tmp_path / "run")],
                              env={**env, "RAY_ADDRESS": f"127.0.0.1:{port}"}, capture_output=True, text=True,
                              timeout=400, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "Connecting to existing Ray cluster at address: 127.0.0.1" in done.stderr
        assert json.loads((tmp_path / "run" / "progress.json").read_text())[0]["deals"] > 0
        shipped = [p for p in Path(head_temp).glob("session_2*/runtime_resources/working_dir_files/_ray_pkg_*") if p.is_dir()]
        assert shipped and all((p / "training" / "rllib" / "train.py").is_file() for p in shipped)
        assert not any((p / ".venv").exists() or (p / "runs").exists() for p in shipped)
    finally:
        head.terminate()
        head.wait(timeout=60)
