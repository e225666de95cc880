"""The vector env returns its observation buffer itself, not a copy (``LearnerGames._writable_obs``):
an array the caller still holds, or a view or tensor of it, is never written again, and one it let
go of is written in place of a copy."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from kc_env.vector import LearnerGames  # noqa: E402


def random_actions(env: LearnerGames, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])


def test_an_observation_held_is_never_written_again():
    env = LearnerGames(8, rules="pagat", num_players=3, seed=3)
    rng = np.random.default_rng(0)
    held = [env.reset()]
    views = [held[0][2]]  # a view keeps its array held too
    for _ in range(60):
        held.append(env.step(random_actions(env, rng))[0])
        views.append(held[-1][2])
    frozen = [h.copy() for h in held]
    for _ in range(20):
        env.step(random_actions(env, rng))
    for obs, copy, view in zip(held, frozen, views, strict=True):
        assert np.array_equal(obs, copy) and np.array_equal(view, copy[2])
    assert len({id(h) for h in held}) == len(held)


def test_a_released_observation_buffer_is_reused_and_the_values_match_a_copying_run():
    """Two envs with the same seed: one keeps every observation, one lets each go at once (its
    buffers are reused); both see the same values."""
    keep, drop = (LearnerGames(6, rules="standard", num_players=2, seed=9) for _ in range(2))
    rng_keep, rng_drop = np.random.default_rng(1), np.random.default_rng(1)
    kept = [keep.reset()]
    first = drop.reset()
    assert np.array_equal(first, kept[0])
    ids = set()
    for _ in range(200):
        kept.append(keep.step(random_actions(keep, rng_keep))[0])
        obs, _, dones, infos = drop.step(random_actions(drop, rng_drop))
        ids.add(id(obs))
        assert np.array_equal(obs, kept[-1])
        for b in np.flatnonzero(dones):
            assert infos[b]["terminal_observation"].base is None  # a copy of its own
        del obs, infos
    assert len(ids) <= 3, "a buffer let go of should be written again, not replaced"


def test_an_illegal_learner_action_keeps_its_observation():
    env = LearnerGames(4, rules="standard", num_players=2, seed=2)
    obs = env.reset()
    masks = env.action_masks()
    acts = np.array([np.flatnonzero(m)[0] for m in masks])
    acts[1] = int(np.flatnonzero(~masks[1])[0])  # illegal in game 1: it ends with the view it had
    _, rewards, dones, infos = env.step(acts)
    assert dones[1] and rewards[1] == -1 and infos[1]["illegal_action"]
    assert np.array_equal(infos[1]["terminal_observation"], obs[1])


def test_a_buffer_let_go_of_at_once_is_written_again_in_place():
    """A caller that drops each observation before the next step (copying what it needs) gets
    the same buffer back every step, with the values a holding caller sees; a game whose learner
    chose an illegal action ends with the view it had."""
    keep, drop = (LearnerGames(6, rules="pagat", num_players=3, seed=4) for _ in range(2))
    rng_keep, rng_drop = np.random.default_rng(2), np.random.default_rng(2)
    kept = keep.reset()
    ids = {id(drop.reset())}
    for t in range(120):
        acts = random_actions(keep, rng_keep)
        assert np.array_equal(acts, random_actions(drop, rng_drop))
        if t % 10 == 3:
            acts[t % 6] = int(np.flatnonzero(~keep.action_masks()[t % 6])[0])
        seen = kept[t % 6].copy()
        kept, rewards, dones, infos = keep.step(acts)
        obs, drop_rewards, drop_dones, drop_infos = drop.step(acts)
        ids.add(id(obs))
        assert np.array_equal(obs, kept) and np.array_equal(rewards, drop_rewards)
        if t % 10 == 3:
            assert drop_infos[t % 6]["illegal_action"]
            assert np.array_equal(drop_infos[t % 6]["terminal_observation"], seen)
        del obs
    assert len(ids) == 1
