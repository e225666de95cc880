"""The single-agent Gymnasium env KingsCorner-v0 (kc_env.gym_env): Gymnasium's and SB3's
checkers, the learner's own observation, mask and reward, illegal actions, and a short
MaskablePPO run."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import kc_env  # noqa: F401  (registers KingsCorner-v0)
from kc_env import IllegalMove, actions, agents, engine
from kc_env import observation as obs_mod
from kc_env.gym_env import KingsCornerEnv


@pytest.mark.parametrize("kwargs", [{}, {"rules": "pagat", "num_players": 4, "episode": "match"},
                                    {"rules": "german", "num_players": 3, "reward": "score", "learner_seat": 2}])
def test_gymnasium_check_env(kwargs):
    env = gymnasium.make("KingsCorner-v0", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        check_env(env.unwrapped)


@pytest.mark.parametrize("kwargs", [{}, {"rules": "bicycle", "num_players": 6, "episode": "match"}])
def test_sb3_check_env(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(gymnasium.make("KingsCorner-v0", **kwargs))


def _expected_final_reward(state: engine.GameState, seat: int) -> float:
    if state.winner is None:
        return 0.0
    return 1.0 if state.winner == seat else -1.0 / (state.num_players - 1)


@pytest.mark.parametrize("num_players", [2, 3, 4, 6])
def test_everything_returned_is_the_learners_own(num_players):
    for seed in range(4 * num_players):
        env = KingsCornerEnv(rules="standard", num_players=num_players)
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        seat = env.learner_seat
        total = 0.0
        while True:
            state = env.aec.game
            assert env.aec.agent_selection == env.learner == f"player_{seat}"
            assert state.current_player == seat
            np.testing.assert_array_equal(obs, obs_mod.encode(state, seat))
            mask = actions.legal_mask(state)
            np.testing.assert_array_equal(info["action_mask"], mask)
            np.testing.assert_array_equal(env.action_masks(), mask.astype(bool))
            assert obs_mod.decode(obs).hand == tuple(sorted(state.hands[seat]))
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            total += reward
            if terminated or truncated:
                break
            assert reward == 0.0
        state = env.aec.game
        assert reward == pytest.approx(_expected_final_reward(state, seat))
        np.testing.assert_array_equal(obs, obs_mod.encode(state, seat))
        assert not info["action_mask"].any() and not env.action_masks().any()
        assert info["deal"]["winner"] == (-1 if state.winner is None else state.winner)  # -1: nobody won


def test_learner_seat_random_covers_every_seat_and_fixed_seat_holds():
    env = KingsCornerEnv(num_players=3)
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(30)}
    assert seats == {0, 1, 2}
    fixed = KingsCornerEnv(num_players=3, learner_seat=1)
    assert {fixed.reset(seed=s)[1]["learner_seat"] for s in range(10)} == {1}


def _trajectory(seed: int, steps: int = 40) -> list:
    env = gymnasium.make("KingsCorner-v0", num_players=3, opponents=["random", "random"])
    obs, info = env.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        out += [obs, reward]
        if terminated or truncated:
            obs, info = env.reset()
            out.append(obs)
    return out


def test_same_seed_same_game():
    a, b, c = _trajectory(1), _trajectory(1), _trajectory(2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=False))


def test_match_episode_scores_reach_the_learner():
    env = KingsCornerEnv(rules="german", num_players=2, episode="match", learner_seat=0)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated or truncated:
            break
    match = env.aec.match
    assert terminated and match.is_over
    assert reward == pytest.approx(1.0 if 0 in match.winners else -1.0)
    assert info["match"]["totals"] == list(match.totals)
    assert obs_mod.decode(obs).scores == pytest.approx([t / 5 for t in match.totals])


def test_illegal_action_terminates_by_default():
    env = KingsCornerEnv()
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] and actions.name(illegal) in info["illegal_reason"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(actions.END_TURN_ACTION)
    env.reset(seed=0)
    assert env.step(600)[2] and env.reset(seed=0) and env.step(None)[2]


def test_illegal_action_raises_when_asked():
    env = KingsCornerEnv(illegal_action="raise")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.aec.game.snapshot()
    with pytest.raises(IllegalMove, match=r"learner \(player_\d\) chose action"):
        env.step(illegal)
    assert env.aec.game.snapshot() == before


def test_bad_arguments():
    with pytest.raises(ValueError, match="known specs"):
        KingsCornerEnv(opponents=["grandmaster"])
    with pytest.raises(ValueError, match="need 2 opponents"):
        KingsCornerEnv(num_players=3, opponents=["random"])
    with pytest.raises(ValueError):
        KingsCornerEnv(learner_seat=2)
    with pytest.raises(ValueError):
        KingsCornerEnv(illegal_action="ignore")
    assert isinstance(KingsCornerEnv(opponents=[agents.load("random", seed=3)]).opponents[0], agents.RandomAgent)


def test_numpy_whole_numbers_are_taken_for_num_players_and_max_moves():
    env = KingsCornerEnv(num_players=np.int64(3), max_moves=np.int64(50), opponents=["random", "random"],
                         learner_seat=np.int64(2))
    assert (env.aec.num_players, env.aec.max_moves) == (3, 50) and type(env.aec.num_players) is int
    assert env.reset(seed=0)[1]["learner_seat"] == 2 and type(env.learner_seat_option) is int
    with pytest.raises(ValueError, match=r"^learner_seat must be a seat 0\.\.1 or 'random', not True$"):
        KingsCornerEnv(learner_seat=True)
    with pytest.raises(ValueError, match="^num_players must be 2 to 6, not 3.0$"):
        KingsCornerEnv(num_players=3.0)


def test_render_shows_the_learners_hand():
    env = KingsCornerEnv(num_players=3, render_mode="ansi", learner_seat=2)
    env.reset(seed=0)
    text = env.render()
    assert "player_2 (you)" in text and "stock" in text


def test_maskable_ppo_trains_without_illegal_actions():
    """A few thousand MaskablePPO steps; illegal_action="raise" makes any illegal action an error."""
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor

    torch.set_num_threads(1)
    env = Monitor(gymnasium.make("KingsCorner-v0", num_players=3, illegal_action="raise"))
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0,
                        policy_kwargs={"net_arch": [64, 64]}, verbose=0)
    model.learn(total_timesteps=4096)
    assert model.num_timesteps >= 4096
    assert len(env.get_episode_rewards()) > 10
    obs, info = env.reset(seed=1)
    for _ in range(200):
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        obs, reward, terminated, truncated, info = env.step(int(action))
        if terminated or truncated:
            obs, info = env.reset()


def test_registration_and_imports_without_torch_or_gymnasium():
    """kc_env and its envs import without torch; the engine imports without gymnasium too."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['torch'] = None; import kc_env, kc_env.kings_corner_v0, kc_env.gym_env; "
            "import gymnasium; assert 'KingsCorner-v0' in gymnasium.registry; "
            "sys.modules['gymnasium'] = None; [sys.modules.pop(m) for m in list(sys.modules) if m.startswith('kc_env')]; "
            "import kc_env; kc_env.engine.new_deal('standard', 2, seed=0); kc_env.actions.legal_mask")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_true_is_not_action_one():
    """Issue 18 item 18: KingsCorner-v0 took True as action 1."""
    env = KingsCornerEnv(illegal_action="raise")
    env.reset(seed=1)
    with pytest.raises(IllegalMove, match="True, which is not an action"):
        env.step(True)


@pytest.mark.parametrize("kwargs", [{}, {"rules": "pagat", "num_players": 3, "episode": "match"}])
def test_dict_observation_carries_the_mask_as_the_pettingzoo_env_does(kwargs):
    """``observation="dict"`` (issue 36 item 5): stacks that read the mask from the observation
    (TorchRL's ``GymEnv``) see it; the space is the PettingZoo env's, and the mask is the
    learner's legal actions at every step, all 0 once the episode is over."""
    env = gymnasium.make("KingsCorner-v0", observation="dict", **kwargs)
    assert env.observation_space == kc_env.kings_corner_v0.raw_env().observation_space("player_0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    vector_env = KingsCornerEnv(**kwargs)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        vec, _ = vector_env.reset(seed=seed)
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            np.testing.assert_array_equal(obs["observation"], vec)
            np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
            np.testing.assert_array_equal(obs["action_mask"], actions.legal_mask(env.unwrapped.aec.game))
            action = int(np.flatnonzero(obs["action_mask"])[seed % 2 - 1])
            obs, _, terminated, truncated, info = env.step(action)
            vec, *_ = vector_env.step(action)
            done = terminated or truncated
        assert not obs["action_mask"].any()


def test_dict_observation_is_an_option_with_a_clear_error():
    with pytest.raises(ValueError, match="observation must be one of"):
        KingsCornerEnv(observation="mask")
    assert KingsCornerEnv().observation_space.shape == (obs_mod.OBS_SIZE,)  # the vector stays the default


@pytest.mark.parametrize("episode", ["deal", "match"])
def test_an_episode_ended_by_an_illegal_action_has_the_infos_of_every_ended_episode(episode):
    """The environments probe: after an illegal action ``info["deal"]`` (and ``info["match"]``) were
    missing, where the docs promise them, of one shape, whenever the episode is over."""
    env = gymnasium.make("KingsCorner-v0", episode=episode)
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert info["deal"] == {"winner": -1, "blocked": False, "truncated": False, "penalties": [0, 0]}
    if episode == "match":
        assert info["match"]["winners"] == [-1, -1] and len(info["match"]["totals"]) == 2
    else:
        assert "match" not in info


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_of_an_env_in_play_is_a_fresh_env_that_asks_for_reset(how):
    """The environments probe: a deep-copied or unpickled env in mid-episode raised AttributeError
    ('raw_env' object has no attribute 'agent_selection'): its PettingZoo env is rebuilt from its
    arguments (EzPickle), with no episode in play."""
    import copy
    import pickle

    env = gymnasium.make("KingsCorner-v0")
    _, info = env.reset(seed=1)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    with pytest.raises(RuntimeError, match=r"^no episode in play \(it is over, or this env is a copy\): call reset"):
        twin.step(legal)
    obs, _ = twin.reset(seed=1)
    assert np.array_equal(obs, env.reset(seed=1)[0])


@pytest.mark.parametrize("opponents", [3, 2.5, True])
def test_opponents_that_are_neither_a_spec_nor_a_list_are_refused_in_one_line(opponents):
    """The newcomer's probe: ``opponents=3`` gave "TypeError 'int' object is not iterable"."""
    with pytest.raises(ValueError) as caught:
        gymnasium.make("KingsCorner-v0", opponents=opponents)
    assert str(caught.value) == (f"opponents must be one agent spec (or Agent) for every other seat, or a list of "
                                 f"one per other seat (2 players need 1), not {opponents!r}")


def test_an_unknown_reset_option_is_refused_in_one_line_and_changes_nothing():
    """The newcomer's probe: ``reset(options={"positon": text})`` dealt a random deal, silently."""
    text = engine.to_text(engine.new_deal("standard", 2, seed=1))
    env, same = gymnasium.make("KingsCorner-v0"), gymnasium.make("KingsCorner-v0")
    env.reset(seed=5)
    same.reset(seed=5)
    with pytest.raises(ValueError, match=r"^unknown reset option 'positon'; the options are: position$"):
        env.reset(seed=0, options={"positon": text})
    np.testing.assert_array_equal(env.reset()[0], same.reset()[0])


def test_an_empty_opponent_spec_is_refused_not_read_as_random():
    """A late probe: ``opponents=""`` was taken as ``random`` (``"" or "random"``)."""
    with pytest.raises(ValueError, match="^unknown agent spec ''"):
        KingsCornerEnv(opponents="")


@pytest.mark.parametrize("make", [lambda: gymnasium.make("KingsCorner-v0", positon=1),
                                  lambda: KingsCornerEnv(positon=1)])
def test_a_typo_in_a_keyword_names_the_env_and_its_options(make):
    """As the AEC and vector envs say it: ``positon=`` gave "KingsCornerEnv.__init__() got an
    unexpected keyword argument 'positon'", without the options."""
    with pytest.raises(TypeError) as caught:
        make()
    said = str(caught.value)
    assert said.startswith("KingsCornerEnv (gymnasium.make('KingsCorner-v0')) got an unexpected keyword argument "
                           "'positon'; its options: rules, num_players, opponents, learner_seat, episode, reward, "
                           "max_moves, max_deals, dealer, illegal_action, render_mode, observation") and "\n" not in said


def test_the_aec_envs_own_option_says_why_it_is_not_here():
    """``render_view`` chooses whose hand the AEC env shows; KingsCorner-v0 shows the learner's, and
    says so, as the AEC env explains the options it lacks (``opponents``, ``observation``)."""
    with pytest.raises(TypeError, match=r"'render_view' \(an option of the PettingZoo env kings_corner_v0: "
                                        r"KingsCorner-v0 renders the learner's view\); its options: rules,"):
        KingsCornerEnv(render_view="all")
