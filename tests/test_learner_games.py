"""``LearnerGames``, the fast vector env as a plain class: its adapters play the same games, and
``state_arrays`` / ``load_state_arrays`` / ``seated`` carry where the games stand into another env
(what a training checkpoint keeps), so that it goes on exactly as the first."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from kc_env.vector import KingsCornerVectorEnv, LearnerGames  # noqa: E402
from kc_env.vector import kernel as K  # noqa: E402


def random_actions(masks: np.ndarray, seed: int) -> np.ndarray:
    out = np.zeros(len(masks), dtype=np.int64)
    K.sample_masks(masks, np.arange(len(masks), dtype=np.uint64) + np.uint64(seed), out)
    return out


def play(env, steps: int, first: int = 0) -> list:
    out = []
    for step in range(first, first + steps):
        obs, rewards, dones, infos = env.step(random_actions(env.action_masks(), step))
        out += [obs, rewards, dones, [i.get("deal") for i in infos]]
    return out


def same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
                                    for x, y in zip(a, b, strict=True))


def test_the_adapters_play_the_plain_classs_games():
    pytest.importorskip("stable_baselines3")
    from kc_env.vector import KingsCornerVecEnv

    plain = LearnerGames(8, rules="pagat", num_players=3, opponents=["greedy", "random"])
    sb3 = KingsCornerVecEnv(8, rules="pagat", num_players=3, opponents=["greedy", "random"])
    sb3.seed(4)
    assert np.array_equal(plain.reset(seed=4), sb3.reset())
    assert same(play(plain, 60), play(sb3, 60))
    gym = KingsCornerVectorEnv(8, rules="pagat", num_players=3, opponents=["greedy", "random"])
    plain_again = LearnerGames(8, rules="pagat", num_players=3, opponents=["greedy", "random"], seed=4)
    obs, info = gym.reset(seed=4)
    assert np.array_equal(obs, plain_again.reset())
    assert np.array_equal(info["action_mask"].astype(bool), plain_again.action_masks())


def test_one_seed_per_game_and_a_wrong_count_refused():
    env = LearnerGames(3, seed=0)
    first = env.reset(seed=[10, None, 12])
    assert np.array_equal(first[[0, 2]], LearnerGames(3).reset(seed=[10, 11, 12])[[0, 2]])
    with pytest.raises(ValueError, match="one seed per game"):
        env.reset(seed=[1, 2])
    with pytest.raises(RuntimeError, match="call reset"):
        LearnerGames(2).step([0, 0])


def test_state_arrays_carry_the_games_into_another_env():
    kwargs = dict(num_players=3, opponents=["heuristic", "random"], seed=9, record=True)
    a = LearnerGames(12, **kwargs)
    a.reset()
    for b in range(0, 12, 3):  # other opponents in some games: the seating travels too
        a.set_opponents([b], ["random", "greedy"])
    play(a, 40)
    b = LearnerGames(12, **{**kwargs, "seed": 1})  # other deals, other opponents' numbering
    b.set_opponents(None, ["greedy", "greedy"])
    saved = {kind: {name: array.copy() for name, array in arrays.items()} for kind, arrays in a.state_arrays().items()}
    b.load_state_arrays(saved)
    for game, row in enumerate(a.seated()):
        b.set_opponents([game], row)
    assert same(play(a, 80, first=100), play(b, 80, first=100))


def test_load_state_arrays_refuses_another_size_or_a_missing_array():
    a, b = LearnerGames(4, seed=0), LearnerGames(5, seed=0)
    a.reset()
    with pytest.raises(ValueError, match="has shape"):
        b.load_state_arrays(a.state_arrays())
    saved = a.state_arrays()
    del saved["env"]["_obs"]
    with pytest.raises(ValueError, match="the saved env lack _obs: another version of the vector env"):
        LearnerGames(4).load_state_arrays(saved)
    assert "_opp_kind" not in saved["env"] and "_game_kinds" not in saved["env"]  # the seating is seated()'s
