"""The game's facts are declared once (``kc_env.game_info.GAME_INFO``) and the rewards written
once (``kc_env.rewards``); these tests pin the documented values and check that the modules
which use them agree."""

from __future__ import annotations

import dataclasses
import random

import pytest

from kc_env import GAME_INFO, PRESETS, Rules, actions, engine, kings_corner_v0, observation, rewards
from kc_env.match import DEFAULT_MAX_MOVES


def test_game_info_holds_the_documented_contract():
    """DESIGN.md and the module docstrings document these numbers: here they are the assertion."""
    g = GAME_INFO
    assert g.num_distinct_actions == 497
    assert (g.play_offset, g.move_offset, g.end_turn_action) == (0, 432, 496)
    assert (g.num_cards, g.num_piles) == (54, 8)
    assert g.observation_size == 1599
    assert (g.min_num_players, g.max_num_players) == (2, 6)
    assert g.default_max_moves == 1000
    assert g.default_reward == "win_loss" and tuple(g.rewards) == rewards.REWARDS == ("win_loss", "score")
    assert (g.min_utility, g.max_utility, g.utility_sum) == (-1.0, 1.0, 0.0)
    assert g.rewards["score"] == rewards.Bounds(-54.0, 0.0, None)
    assert g.action_layout_version == actions.ACTION_LAYOUT_VERSION == 1
    assert g.observation_layout_version == observation.OBS_LAYOUT_VERSION == 2


def test_game_info_is_computed_by_the_modules_that_own_each_fact():
    g = GAME_INFO
    assert g.num_distinct_actions == actions.NUM_ACTIONS == len(actions.MOVES)
    assert g.move_offset == g.play_offset + g.num_cards * g.num_piles
    assert g.end_turn_action == g.move_offset + g.num_piles ** 2 == g.num_distinct_actions - 1
    assert g.observation_size == observation.OBS_SIZE == sum(size for _, size, _ in observation.LAYOUT)
    assert g.default_max_moves == DEFAULT_MAX_MOVES == kings_corner_v0.DEFAULT_MAX_MOVES
    assert kings_corner_v0.REWARDS == rewards.REWARDS
    with pytest.raises(dataclasses.FrozenInstanceError):
        GAME_INFO.observation_size = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        GAME_INFO.rewards["score"] = rewards.bounds("win_loss")  # type: ignore[index]


def test_the_players_a_table_seats_are_those_of_game_info():
    for n in range(GAME_INFO.min_num_players, GAME_INFO.max_num_players + 1):
        Rules(hand_size=5).check_players(n)
    for n in (GAME_INFO.min_num_players - 1, GAME_INFO.max_num_players + 1):
        with pytest.raises(ValueError, match=f"{GAME_INFO.min_num_players} to {GAME_INFO.max_num_players}"):
            Rules(hand_size=5).check_players(n)
    players = observation.SLICES["num_players"]
    assert players.stop - players.start == GAME_INFO.max_num_players - GAME_INFO.min_num_players + 1


def test_the_envs_declare_their_spaces_from_game_info():
    aec = kings_corner_v0.raw_env()
    assert aec.action_space("player_0").n == GAME_INFO.num_distinct_actions
    space = aec.observation_space("player_0")
    assert space["observation"].shape == (GAME_INFO.observation_size,)
    assert space["action_mask"].shape == (GAME_INFO.num_distinct_actions,)
    assert aec.max_moves == GAME_INFO.default_max_moves


def test_win_loss_shares_plus_and_minus_one():
    assert rewards.win_loss([0], 2) == [1.0, -1.0]
    assert rewards.win_loss([2], 4) == [-1 / 3, -1 / 3, 1.0, -1 / 3]
    assert rewards.win_loss([0, 2], 4) == [0.5, -0.5, 0.5, -0.5]
    assert rewards.win_loss([], 3) == rewards.win_loss([0, 1, 2], 3) == [0.0] * 3
    for n in range(2, 7):
        for k in range(n + 1):
            values = rewards.win_loss(list(range(k)), n)
            assert sum(values) == pytest.approx(0.0)
            assert all(GAME_INFO.rewards["win_loss"].min_utility <= v <= GAME_INFO.rewards["win_loss"].max_utility
                       for v in values)


def test_score_prices_a_dealt_hand_of_the_costliest_card_at_minus_one():
    rules = Rules.preset("standard")  # king 10, hand 7
    assert rewards.score_scale(rules) == 70
    assert rewards.score([0, 70, 7], rules) == [0.0, -1.0, -0.1]
    assert str(rewards.score([0], rules)[0]) == "0.0"  # not -0.0
    assert rewards.score_scale(Rules(hand_size=3, scoring="custom", custom_table=dict.fromkeys(
        ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"), 0))) == 3


def test_unknown_reward_kinds_are_refused_naming_the_kinds():
    with pytest.raises(ValueError, match="'win_loss', 'score'"):
        rewards.bounds("points")
    with pytest.raises(ValueError, match="reward must be one of"):
        kings_corner_v0.raw_env(reward="points")


@pytest.mark.parametrize("reward", rewards.REWARDS)
def test_the_pettingzoo_env_gives_the_rewards_of_the_rewards_module(reward):
    """Random one-deal episodes under every preset: each seat's reward is ``deal_rewards``, lies
    within ``bounds`` (of its rules, and so of ``GAME_INFO``), and win_loss sums to 0."""
    for k, preset in enumerate(sorted(PRESETS) * 3):
        n = 2 + k % 5
        rules = Rules.preset(preset, hand_size=3 + k % 5)
        aec = kings_corner_v0.raw_env(rules=rules, num_players=n, reward=reward, max_moves=60 + 40 * k)
        aec.reset(seed=k)
        rng = random.Random(k)
        for _ in aec.agent_iter():
            _, _, term, trunc, _ = aec.last()
            if term or trunc:
                break
            aec.step(rng.choice(actions.legal_actions(aec.game)))
        got = [aec.rewards[a] for a in aec.possible_agents]
        truncated = all(aec.truncations.values())
        assert got == rewards.deal_rewards(reward, aec.game, truncated), (preset, n, engine.to_text(aec.game))
        for bounds in (rewards.bounds(reward, rules), GAME_INFO.rewards[reward]):
            assert all(bounds.min_utility <= v <= bounds.max_utility for v in got)
            if bounds.utility_sum is not None:
                assert sum(got) == pytest.approx(bounds.utility_sum)
