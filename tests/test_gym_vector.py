"""KingsCornerVectorEnv: the fast vector env as a Gymnasium 1.x VectorEnv (gymnasium.make_vec),
masks in info, same-step autoreset, and a CleanRL-style masked PPO loop on it."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import kc_env  # noqa: F401  (registers KingsCorner-v0)
from kc_env import IllegalMove

pytest.importorskip("stable_baselines3")

from kc_env.vector import KingsCornerVectorEnv  # noqa: E402


def _legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


def test_make_vec_gives_the_fast_env_and_sync_still_works():
    envs = gymnasium.make_vec("KingsCorner-v0", num_envs=8, vectorization_mode="vector_entry_point",
                              opponents="heuristic", num_players=3)
    assert isinstance(envs.unwrapped, KingsCornerVectorEnv)
    assert isinstance(gymnasium.make_vec("KingsCorner-v0", num_envs=3).unwrapped, KingsCornerVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.single_action_space == gymnasium.spaces.Discrete(497) and envs.action_space.shape == (8,)
    obs, info = envs.reset(seed=0)
    assert obs.shape == (8, 1599) and obs.dtype == np.float32
    assert info["action_mask"].shape == (8, 497) and info["action_mask"].dtype == np.int8 and info["_action_mask"].all()
    sync = gymnasium.make_vec("KingsCorner-v0", num_envs=2, vectorization_mode="sync", opponents="greedy")
    assert sync.reset(seed=0)[0].shape == (2, 1599)
    with pytest.raises(ValueError, match="one deal per episode"):
        gymnasium.make_vec("KingsCorner-v0", num_envs=2, episode="match")


def test_same_step_autoreset_and_masks_follow_the_returned_observation():
    envs = KingsCornerVectorEnv(16, opponents="random", illegal_action="raise")
    obs, info = envs.reset(seed=3)
    again, _ = KingsCornerVectorEnv(16, opponents="random").reset(seed=3)
    assert np.array_equal(obs, again)  # seeded
    rng, ended = np.random.default_rng(0), 0
    for _ in range(400):
        obs, rewards, terminations, truncations, info = envs.step(_legal(info["action_mask"], rng))
        assert np.array_equal(info["action_mask"].astype(bool), envs.action_masks())
        assert info["action_mask"].any(axis=1).all()  # every game live: the ended ones were dealt again
        done = terminations | truncations
        if done.any():
            assert np.array_equal(info["_final_obs"], done) and np.array_equal(info["final_info"]["_episode"], done)
            for i in np.flatnonzero(done):
                assert info["final_obs"][i].shape == (1599,)
                assert rewards[i] == info["final_info"]["episode"]["r"][i]
            ended += int(done.sum())
        else:
            assert "final_obs" not in info and not rewards.any()
    assert ended > 16
    with pytest.raises(IllegalMove, match="learner"):
        envs.step(np.full(16, 495))  # move NW->W: never legal at once in every game


def test_an_illegal_first_action_is_an_episode_of_length_one_as_record_episode_statistics_says():
    envs = gymnasium.make_vec("KingsCorner-v0", num_envs=1)
    _, info = envs.reset(seed=0)
    info = envs.step(np.flatnonzero(info["action_mask"][0] == 0)[:1])[-1]
    single = gymnasium.wrappers.RecordEpisodeStatistics(gymnasium.make("KingsCorner-v0"))
    _, one = single.reset(seed=0)
    one = single.step(int(np.flatnonzero(one["action_mask"] == 0)[0]))[-1]
    assert info["final_info"]["episode"]["l"].tolist() == [one["episode"]["l"]] == [1]


def test_cleanrl_style_masked_ppo_loop():
    """A few thousand steps of PPO as CleanRL's ppo.py writes it, with the masks of info."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    num_envs, num_steps, updates = 16, 32, 6  # 3,072 steps
    envs = gymnasium.make_vec("KingsCorner-v0", num_envs=num_envs, opponents="random", illegal_action="raise")
    n_obs, n_act = envs.single_observation_space.shape[0], envs.single_action_space.n
    actor = torch.nn.Sequential(torch.nn.Linear(n_obs, 64), torch.nn.Tanh(), torch.nn.Linear(64, n_act))
    critic = torch.nn.Sequential(torch.nn.Linear(n_obs, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
    optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=2.5e-4)

    def dist(x, mask):
        return torch.distributions.Categorical(logits=actor(x).masked_fill(~mask, -1e9))

    obs_b = torch.zeros(num_steps, num_envs, n_obs)
    mask_b = torch.zeros(num_steps, num_envs, n_act, dtype=torch.bool)
    act_b, logp_b, rew_b, done_b, val_b = (torch.zeros(num_steps, num_envs) for _ in range(5))
    obs, info = envs.reset(seed=0)
    next_obs, next_mask = torch.as_tensor(obs), torch.as_tensor(info["action_mask"], dtype=torch.bool)
    next_done, returns_seen = torch.zeros(num_envs), []
    for _ in range(updates):
        for t in range(num_steps):
            obs_b[t], mask_b[t], done_b[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                d = dist(next_obs, next_mask)
                action = d.sample()
                logp_b[t], val_b[t] = d.log_prob(action), critic(next_obs).squeeze(-1)
            act_b[t] = action
            obs, reward, term, trunc, info = envs.step(action.numpy())
            rew_b[t] = torch.as_tensor(reward)
            next_obs, next_mask = torch.as_tensor(obs), torch.as_tensor(info["action_mask"], dtype=torch.bool)
            next_done = torch.as_tensor(term | trunc, dtype=torch.float32)
            if "final_info" in info:
                returns_seen += info["final_info"]["episode"]["r"][info["final_info"]["_episode"]].tolist()
        with torch.no_grad():  # GAE, as CleanRL computes it (same-step autoreset)
            adv, last = torch.zeros_like(rew_b), 0
            next_value = critic(next_obs).squeeze(-1)
            for t in reversed(range(num_steps)):
                nonterminal = 1.0 - (next_done if t == num_steps - 1 else done_b[t + 1])
                nv = next_value if t == num_steps - 1 else val_b[t + 1]
                delta = rew_b[t] + 0.99 * nv * nonterminal - val_b[t]
                adv[t] = last = delta + 0.99 * 0.95 * nonterminal * last
            ret = adv + val_b
        b_obs, b_mask, b_act = obs_b.reshape(-1, n_obs), mask_b.reshape(-1, n_act), act_b.reshape(-1)
        b_logp, b_adv, b_ret = logp_b.reshape(-1), adv.reshape(-1), ret.reshape(-1)
        for idx in torch.randperm(len(b_obs)).split(128):
            d = dist(b_obs[idx], b_mask[idx])
            ratio = (d.log_prob(b_act[idx]) - b_logp[idx]).exp()
            a = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
            pg = torch.max(-a * ratio, -a * ratio.clamp(0.8, 1.2)).mean()
            v = ((critic(b_obs[idx]).squeeze(-1) - b_ret[idx]) ** 2).mean()
            loss = pg + 0.5 * v - 0.01 * d.entropy().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            assert torch.isfinite(loss)
    assert len(returns_seen) > 20 and all(-1 <= r <= 1 for r in returns_seen)
    envs.close()


def test_the_dict_observation_is_refused_in_one_line_by_the_vector_env():
    """KingsCorner-v0(observation="dict") exists; make_vec's fast env answered it with a TypeError
    about LearnerGames.__init__ (found by the integrations work)."""
    with pytest.raises(ValueError) as caught:
        gymnasium.make_vec("KingsCorner-v0", num_envs=4, observation="dict")
    assert "observation must be 'vector', not 'dict'" in str(caught.value) and "\n" not in str(caught.value)


def test_reset_takes_one_seed_per_game_as_gymnasiums_vector_envs_do():
    """The environments probe: ``reset(seed=[1, 2, 3])`` raised "Seed must be a python integer"."""
    envs = gymnasium.make_vec("KingsCorner-v0", num_envs=3)
    listed, _ = envs.reset(seed=[1, 2, 3])
    listed = listed.copy()
    each = [gymnasium.make_vec("KingsCorner-v0", num_envs=3).reset(seed=[s, s, s])[0][0] for s in (1, 2, 3)]
    assert all(np.array_equal(listed[i], each[i]) for i in range(3))
    envs.reset(seed=[1, None, 3])
    with pytest.raises(ValueError, match=r"expected one seed per game \(3\), got 2"):
        envs.reset(seed=[1, 2])


def test_a_typo_in_make_vec_names_the_vector_env_and_its_options():
    """The newcomer's probe: ``opponent=`` gave "LearnerGames.__init__() got an unexpected keyword
    argument 'opponent'"."""
    with pytest.raises(TypeError) as caught:
        gymnasium.make_vec("KingsCorner-v0", num_envs=2, opponent="random")
    said = str(caught.value)
    assert said.startswith("KingsCornerVectorEnv (gymnasium.make_vec('KingsCorner-v0')) got an unexpected keyword "
                           "argument 'opponent'; its options: ") and "opponents" in said and "\n" not in said
