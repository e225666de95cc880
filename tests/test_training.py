"""Training, resuming and exporting, on tiny runs (the ``smoke`` variant of research/configs/maskable-ppo-2p.yaml)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training.export import TOLERANCE, export, network_of, sample_observations, torch_probabilities  # noqa: E402
from kc_env.training.sb3 import checkpoint as checkpoint_mod  # noqa: E402
from kc_env.training.sb3.train import train  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from kc_env import GAME_INFO  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "research" / "configs" / "maskable-ppo-2p.yaml"


def smoke(**overrides):
    return config_mod.load(CONFIG, "smoke", overrides)


def test_configs_are_strict(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("default:\n  rules: standard\n  learning_rate: 0.1\n")
    with pytest.raises(config_mod.ConfigError, match="unknown key 'learning_rate'; allowed: rules, num_players"):
        config_mod.load(bad)
    bad.write_text("default:\n  ppo: {n_epochs: many}\n")
    with pytest.raises(config_mod.ConfigError, match=r"ppo.n_epochs: expected int, got 'many'"):
        config_mod.load(bad)
    bad.write_text("default:\n  rules: {preset: pagat, draw: sideways}\n")
    with pytest.raises(config_mod.ConfigError, match="rule 'draw' cannot be 'sideways'"):
        config_mod.load(bad)
    with pytest.raises(config_mod.ConfigError, match="no variant 'nosuch'; variants: smoke"):
        config_mod.load(CONFIG, "nosuch")


def test_every_shipped_config_loads():
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        config_mod.load(path)


def test_a_tiny_run_trains_evaluates_snapshots_and_saves(tmp_path):
    run = train(smoke(), tmp_path / "run", progress=False, argv=["test"])
    folder = run.folder
    assert (folder / "final.zip").is_file() and (folder / "learning_curve.png").is_file()
    history = json.loads((folder / "eval.json").read_text())
    assert history[-1]["step"] >= 4096 and {"heuristic", "random"} <= set(history[-1])
    assert list((folder / "snapshots").iterdir()), "a snapshot joined the league"
    assert (folder / "config.yaml").is_file() and json.loads((folder / "version.json").read_text())["commit"]
    assert list((folder / "tb").rglob("events.out.tfevents*"))


def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    folder = tmp_path / "run"
    cmd = [sys.executable, "-m", "kc_env.cli", "train", str(CONFIG), "--variant", "smoke", "--run", str(folder),
           "--no-progress", "--set", "total_timesteps=6144",
           "--set", "eval.every=100000", "--set", "eval.deals=8"]  # evaluations are not what is tested
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 240
    while time.time() < deadline and not list((folder / "checkpoints").glob("step_*.pt")):
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    first = sorted((folder / "checkpoints").glob("step_*.pt"))
    assert first and not (folder / "final.pt").exists(), "killed before the end"
    steps_at_kill = checkpoint_mod.read(first[-1])["num_timesteps"]
    assert 0 < steps_at_kill < 6144
    result = subprocess.run(cmd + ["--resume"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    final = MaskablePPO.load(folder / "final.zip", device="cpu")
    assert final.num_timesteps >= 6144
    assert final.num_timesteps - steps_at_kill < 6144, "resumed, not restarted"


def test_export_matches_torch_and_is_refused_when_tampered(tmp_path):
    cfg = smoke(total_timesteps=2048)
    run = train(cfg, tmp_path / "run", progress=False, argv=["test"])
    model = MaskablePPO.load(run.folder / "final.zip", device="cpu")
    folder = export(model, tmp_path / "model", {"training_steps": model.num_timesteps}, cfg.rules_object(), 2)
    from kc_env.agents.policy_model import ModelError, load_network

    network, card = load_network(folder)
    obs, masks = sample_observations(cfg.rules_object(), 2, count=64, seed=5)
    gap = np.abs(network.probabilities(obs, masks) - torch_probabilities(model, obs, masks)).max()
    assert gap < TOLERANCE and card["export_check"]["max_probability_gap"] < TOLERANCE
    assert network_of(model).action[0].shape == (GAME_INFO.num_distinct_actions, 32)
    card["action_layout_version"] = 2
    (folder / "model.json").write_text(json.dumps(card))
    with pytest.raises(ModelError, match="action layout version 2"):
        load_network(folder)


def test_a_network_with_a_prior_trains_exports_and_plays_like_its_prior(tmp_path):
    """``network.prior``: the env appends the heuristic's choice to the observation, the policy
    adds a learned weight to its logit; the export computes the same with numpy (within the export's TOLERANCE).
    ``network.privileged_critic``: the critic also reads the hidden cards, the actor never does."""
    import torch
    from kc_env.training.sb3.policy import PriorPolicy
    from kc_env.training.sb3.wrappers import privileged_size

    from kc_env.agents.heuristic.search import heuristic_action

    cfg = smoke(total_timesteps=2048, network={"shared": [32], "hidden": [16], "prior": "heuristic",
                                               "prior_weight": 20.0, "privileged_critic": True})
    run = train(cfg, tmp_path / "run", progress=False, argv=["test"])
    model = MaskablePPO.load(run.folder / "final.zip", device="cpu")
    prior_column = GAME_INFO.observation_size  # the observation, the prior's action, the critic's columns
    width = prior_column + 1 + privileged_size(2)
    assert isinstance(model.policy, PriorPolicy) and model.observation_space.shape == (width,)
    seen = torch.rand(8, width)
    seen[:, prior_column] = GAME_INFO.end_turn_action
    hidden = seen.clone()
    hidden[:, prior_column + 1:] = torch.rand(8, width - prior_column - 1)
    with torch.no_grad():
        assert torch.equal(model.policy.get_distribution(seen).distribution.probs,
                           model.policy.get_distribution(hidden).distribution.probs), "the actor ignores hidden cards"
        assert not torch.equal(model.policy.predict_values(seen), model.policy.predict_values(hidden))
    folder = export(model, tmp_path / "model", {"training_steps": model.num_timesteps}, cfg.rules_object(), 2)
    card = json.loads((folder / "model.json").read_text())
    assert card["network"]["prior"] == "heuristic" and card["export_check"]["max_probability_gap"] < TOLERANCE
    from kc_env.agents.policy_model import PolicyAgent

    agent = PolicyAgent(folder)
    obs, masks = sample_observations(cfg.rules_object(), 2, count=64, seed=6)
    chosen = agent.act_batch(obs, masks)
    assert all(chosen[i] == heuristic_action(obs[i], masks[i].astype(np.int8)) for i in range(len(obs)))
    with pytest.raises(config_mod.ConfigError, match="network.prior must be heuristic, greedy or null"):
        smoke(network={"prior": "oracle"})
    with pytest.raises(config_mod.ConfigError, match="network.privileged_critic needs network.prior"):
        smoke(network={"privileged_critic": True})


def test_the_privileged_critic_sees_the_other_hands_and_the_next_stock_cards():
    from kc_env.training.sb3.wrappers import STOCK_AHEAD, PriorAction

    from kc_env.vector import KingsCornerVecEnv

    env = KingsCornerVecEnv(8, num_players=3, opponents="heuristic", seed=3)
    wrapped = PriorAction(env, "heuristic", privileged=True)
    obs = wrapped.reset()
    for _ in range(20):
        obs, *_ = wrapped.step(np.array([np.flatnonzero(m)[0] for m in wrapped.action_masks()]))
    for b in range(8):
        state, seat = env.state(b), int(env.learner_seats()[b])
        columns = obs[b, GAME_INFO.observation_size + 1:].reshape(-1, GAME_INFO.num_cards)  # after the prior's action
        for j in (1, 2):
            assert set(np.flatnonzero(columns[j - 1])) == set(state.hands[(seat + j) % 3])
        for k in range(STOCK_AHEAD):
            assert set(np.flatnonzero(columns[2 + k])) == ({state.stock[-1 - k]} if k < len(state.stock) else set())


def test_blocked_reward_prices_only_blocked_deals_without_a_winner():
    """A blocked deal with no winner costs the learner ``blocked_reward``; wins, losses, a
    fewest-cards winner of a blocked deal and live steps keep the env's reward."""
    from kc_env.training.sb3.wrappers import BlockedReward

    from kc_env.vector import KingsCornerVecEnv

    venv = KingsCornerVecEnv(5, seed=0)
    deals = [{"blocked": True, "winner": -1}, {"blocked": True, "winner": 1},
             {"blocked": False, "winner": 0}, {"blocked": False, "winner": 1}, None]
    rewards = np.array([0.0, -1.0, 1.0, -1.0, 0.0], dtype=np.float32)
    dones = np.array([d is not None for d in deals])
    infos = [{} if d is None else {"deal": d} for d in deals]
    venv.step_wait = lambda: (np.zeros((5, 1)), rewards.copy(), dones, infos)
    _, got, _, _ = BlockedReward(venv, -1.0).step_wait()
    assert got.tolist() == [-1.0, -1.0, 1.0, -1.0, 0.0]


def test_kickstart_clones_the_teacher():
    """Behaviour cloning on the heuristic's moves: legal demonstrations, returns within the
    reward's range, and a policy that agrees with the teacher far more than chance."""
    from kc_env.training.sb3.policy import policy_kwargs
    from kc_env.training.sb3.pretrain import collect, fit

    from kc_env.vector import KingsCornerVecEnv

    env = KingsCornerVecEnv(32, seed=3)
    demos = collect(env, "heuristic", 3000, gamma=0.99)
    assert len(demos.actions) > 1000
    assert demos.masks[np.arange(len(demos.actions)), demos.actions].all()
    assert np.abs(demos.returns).max() <= 1.0 and (demos.returns != 0).any()
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=policy_kwargs([64], [], "tanh"), device="cpu")
    epochs = []
    stats = fit(model, demos, epochs=8, batch_size=512, learning_rate=3e-3, report=epochs.append)
    assert stats["agreement"] > 0.5
    assert [e["epoch"] for e in epochs] == list(range(1, 9)) and epochs[-1] == stats  # a line per epoch


def test_an_evaluation_outside_learn_is_recorded_at_the_models_step(tmp_path):
    """The evaluation kc train makes when it finishes a resumed run without learning more (or
    before learning) carries the model's step count, not the callback's (0 outside learn)."""
    from kc_env.training.sb3.league import League
    from kc_env.training.sb3.train import EvalCallback, Run, make_env, make_model

    cfg = smoke(eval={"deals": 8, "opponents": ["random"]})
    run = Run(tmp_path, cfg)
    model = make_model(cfg, make_env(cfg, League(cfg.league, seed=0)), tmp_path)
    model.num_timesteps = 1234
    evaluator = EvalCallback(run, [])
    evaluator.init_callback(model)
    assert evaluator.evaluate()["step"] == 1234


def test_an_export_whose_numpy_probabilities_are_not_torchs_is_refused(tmp_path):
    """``save_checked`` refuses a network numpy computes otherwise than torch (here: torch's
    probabilities uniform over the legal actions) and accepts one that differs by float32 noise."""
    from kc_env.training.export import save_checked

    from kc_env import actions
    from kc_env.agents.policy_model import PolicyNetwork
    from kc_env.observation import OBS_SIZE
    from kc_env.rules import Rules

    rng = np.random.default_rng(0)
    network = PolicyNetwork(((rng.normal(0, 0.1, (8, OBS_SIZE)).astype(np.float32), np.zeros(8, np.float32)),),
                            (rng.normal(0, 1, (actions.NUM_ACTIONS, 8)).astype(np.float32),
                             np.zeros(actions.NUM_ACTIONS, np.float32)))
    rules = Rules.preset("standard")

    def uniform(obs, masks):
        return masks / masks.sum(axis=1, keepdims=True)

    with pytest.raises(ValueError, match="numpy and torch probabilities differ by"):
        save_checked(network, tmp_path / "wrong", {}, rules, 2, uniform)
    noisy = save_checked(network, tmp_path / "noisy", {}, rules, 2,
                         lambda obs, masks: network.probabilities(obs, masks) + TOLERANCE / 10)
    assert json.loads((noisy / "model.json").read_text())["export_check"]["max_probability_gap"] < TOLERANCE
