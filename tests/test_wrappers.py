"""``kc_env.fast_aec`` is ``kings_corner_v0.env()``, faster: the same observations, masks, rewards,
terminations and errors at every step, and PettingZoo's ``api_test`` passes."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test

from kc_env import PRESETS, Rules, actions, engine, fast_aec, kings_corner_v0, observation
from kc_env.rules import CHOICES

VARIANTS = ("draw", "kings_on_sides", "cross_kings", "pile_moves", "must_play", "king_first",
            "fill_spaces_first", "corner_build", "clear_complete_piles", "blocked", "jokers")


def random_rules(k: int) -> tuple[Rules, int]:
    rng = random.Random(k)
    overrides = {key: rng.choice(CHOICES[key]) for key in VARIANTS if rng.random() < 0.5}
    return Rules.preset(sorted(PRESETS)[k % len(PRESETS)], **overrides), 2 + k % 5


def test_encode_and_mask_equal_the_reference():
    rng = random.Random(0)
    for k in range(150):
        rules, n = random_rules(k)
        state = engine.new_deal(rules, n, seed=k, dealer=k % n)
        totals = [rng.randrange(-60, 300) for _ in range(n)] if k % 2 else None
        while True:
            for seat in range(n):
                assert np.array_equal(fast_aec.encode(state, seat, totals), observation.encode(state, seat, totals))
            mask = fast_aec.legal_mask(state)
            assert mask.dtype == np.int8 and np.array_equal(mask, actions.legal_mask(state))
            if state.is_over or state.move_count > 300:
                break
            moves = engine.legal_moves(state)
            engine.apply(state, moves[rng.randrange(len(moves))])


def test_encode_gives_a_writable_float32_vector_and_checks_the_seat():
    state = engine.new_deal("standard", 3, seed=1)
    vec = fast_aec.encode(state, 1)
    assert vec.dtype == np.float32 and vec.shape == (observation.OBS_SIZE,) and vec.flags.writeable
    with pytest.raises(ValueError, match="seat"):
        fast_aec.encode(state, 3)


def play_both(kwargs: dict, seed: int, illegal_every: int = 0) -> int:
    """Play the reference env and the fast one side by side with the same actions (every
    ``illegal_every``-th one illegal); returns how many episodes an illegal action ended."""
    ref, fast = kings_corner_v0.env(**kwargs), fast_aec.env(**kwargs)
    rng = random.Random(seed)
    illegal_ends = 0
    for episode in range(3):
        ref.reset(seed=seed + episode)
        fast.reset(seed=seed + episode)
        steps = 0
        for agent in ref.agent_iter(2000):
            assert fast.agent_selection == agent
            a, b = ref.last(), fast.last()
            assert np.array_equal(a[0]["observation"], b[0]["observation"])
            assert np.array_equal(a[0]["action_mask"], b[0]["action_mask"])
            assert a[1:] == b[1:]
            assert ref.rewards == fast.rewards and ref.terminations == fast.terminations
            if a[2] or a[3]:
                action = None
            elif illegal_every and steps % illegal_every == illegal_every - 1:
                action = int(np.flatnonzero(a[0]["action_mask"] == 0)[0])
                illegal_ends += 1
            else:
                legal = np.flatnonzero(a[0]["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
            ref.step(action)
            fast.step(action)
            steps += 1
        assert not fast.agents and fast.rewards == ref.rewards
    return illegal_ends


@pytest.mark.parametrize("kwargs", [
    {"rules": "standard", "num_players": 2},
    {"rules": "wikihow", "num_players": 4, "reward": "score"},
    {"rules": Rules.preset("pagat", jokers=2, pile_moves="partial"), "num_players": 3, "max_moves": 80},
    {"rules": "german", "num_players": 3, "episode": "match", "max_deals": 3},
    {"rules": "online", "num_players": 6, "episode": "match", "reward": "score", "max_deals": 2},
])
def test_fast_env_plays_like_the_reference(kwargs):
    play_both(kwargs, seed=7)


def test_illegal_actions_end_the_game_the_same_way():
    assert play_both({"rules": "standard", "num_players": 3}, seed=3, illegal_every=25) == 3


def test_order_and_bounds_are_enforced_like_pettingzoo():
    env = fast_aec.env(num_players=2)
    with pytest.raises(AttributeError, match="before reset"):
        env.agent_selection  # noqa: B018
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        env.step(497)
    with pytest.raises(AssertionError, match="action space"):
        env.step(None)
    assert env.unwrapped.__class__ is fast_aec.FastRawEnv


def test_fast_env_passes_the_pettingzoo_api_test():
    api_test(fast_aec.env(rules="wikihow", num_players=3), num_cycles=200)
