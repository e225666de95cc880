"""How kc_env fits the libraries around it (issue 20): pictures of the table (``rgb_array``),
Gymnasium's ``RecordVideo`` and ``make_vec``, SB3's ``make_vec_env``, one opponent spec for every
seat, PettingZoo's registry, ``render_test`` and global ``state()``."""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
import pytest

import kc_env
from kc_env import agents, engine, kings_corner_v0
from kc_env.render_image import image_size, render_image


def _random_moves(aec, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(n):
        if not aec.agents or aec.terminations[aec.agent_selection]:
            return
        aec.step(int(rng.choice(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"]))))


def test_rgb_array_is_a_picture_of_the_table_with_a_fixed_shape():
    aec = kings_corner_v0.raw_env(rules={"preset": "pagat", "jokers": 2}, num_players=3, render_mode="rgb_array")
    aec.reset(seed=0)
    first = aec.render()
    assert first.dtype == np.uint8 and first.shape == (*image_size(3), 3)
    _random_moves(aec, 45)
    later = aec.render()
    assert later.shape == first.shape and not np.array_equal(later, first)
    assert len(np.unique(later.reshape(-1, 3), axis=0)) > 50  # card faces, not a flat colour
    everyone = kings_corner_v0.raw_env(num_players=3, render_mode="rgb_array", render_view="all")
    everyone.reset(seed=0)
    assert everyone.render().shape == (*image_size(3, all_hands=True), 3)


def test_the_picture_hides_the_other_hands():
    state = engine.new_deal(kc_env.Rules.preset("standard"), num_players=2, seed=5)
    seen_by_0 = render_image(state, 0)
    other = state.copy()
    other.hands[1] = list(reversed(other.hands[1]))  # the same cards in another order...
    other.hands[1][0], other.stock[0] = other.stock[0], other.hands[1][0]  # ...and one swapped
    assert np.array_equal(render_image(other, 0), seen_by_0)
    assert not np.array_equal(render_image(other, 1), render_image(state, 1))


def test_pettingzoo_render_test():
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: kings_corner_v0.env(render_mode=render_mode))


def test_gymnasium_rgb_array_and_record_video(tmp_path):
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = gymnasium.make("KingsCorner-v0", opponents="heuristic", render_mode="rgb_array")
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda e: True, disable_logger=True)
    obs, info = env.reset(seed=1)
    me, done = agents.load("heuristic", seed=0), False
    while not done:
        obs, _, terminated, truncated, info = env.step(me.act({"observation": obs, "action_mask": info["action_mask"]}))
        done = terminated or truncated
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


def test_sb3_make_vec_env():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env("KingsCorner-v0", n_envs=4)  # asks for render_mode="rgb_array"
    assert venv.reset().shape == (4, 1599)
    assert venv.get_images()[0].shape == (*image_size(2), 3)
    venv.close()
    assert make_vec_env("kc_env:KingsCorner-v0", n_envs=2).reset().shape == (2, 1599)  # imports kc_env itself


@pytest.mark.parametrize("spec", ["heuristic", agents.load("greedy")])
def test_one_opponent_spec_fills_every_other_seat(spec):
    env = gymnasium.make("KingsCorner-v0", num_players=4, opponents=spec).unwrapped
    assert len(env.opponents) == 3
    names = {type(agent).__name__ for agent in env.opponents}
    assert len(names) == 1 and names != {"RandomAgent"}


def test_pettingzoo_make_finds_the_env():
    import pettingzoo

    env = pettingzoo.make("aec", "kc_env/kings_corner_v0", num_players=3)
    assert type(env) is type(kings_corner_v0.env()) and env.unwrapped.num_players == 3
    assert type(pettingzoo.make("aec", "kc_env/KingsCorner-v0").unwrapped) is kings_corner_v0.raw_env


def test_state_is_the_whole_table():
    from kc_env import full_state, observation

    env = kings_corner_v0.env(num_players=3)
    env.reset(seed=4)
    _random_moves(env.unwrapped, 20)
    game, st = env.unwrapped.game, env.state()
    assert env.state_space.contains(st) and st.shape == (full_state.STATE_SIZE,)
    assert np.array_equal(st[:observation.OBS_SIZE], observation.encode(game, 0, None))
    hands = st[full_state.HANDS].reshape(6, 54)
    for seat in range(3):
        assert sorted(np.flatnonzero(hands[seat])) == sorted(game.hands[seat])
    stock = st[full_state.STOCK]
    assert [int(c) for c in np.argsort(-stock)[:len(game.stock)]] == list(reversed(game.stock))


@pytest.mark.parametrize("players", [2, 4])
def test_redeal_unseen_keeps_the_seats_view_and_the_cards(players):
    import random

    from kc_env import observation

    rules = kc_env.Rules.preset("pagat", jokers=2)
    changed = 0
    for seed in range(20):
        state = engine.new_deal(rules, num_players=players, seed=seed)
        for move in engine.legal_moves(state)[:1]:
            engine.apply(state, move)
        seat = state.current_player if seed % 2 else (state.current_player + 1) % players
        before = state.snapshot()
        new = engine.redeal_unseen(state, seat, random.Random(seed))
        assert state.snapshot() == before  # the real deal untouched
        assert np.array_equal(observation.encode(new, seat), observation.encode(state, seat))
        assert sorted(engine.all_cards(new)) == sorted(engine.all_cards(state))
        assert new.hands[seat] == state.hands[seat] and new.piles == state.piles
        assert [len(h) for h in new.hands] == [len(h) for h in state.hands] and len(new.stock) == len(state.stock)
        if seat == state.current_player:
            assert engine.legal_moves(new) == engine.legal_moves(state)
        changed += new.hands != state.hands or new.stock != state.stock
    assert changed == 20
    again = engine.redeal_unseen(state, 0, 7), engine.redeal_unseen(state, 0, np.random.default_rng(7))
    assert again[0].snapshot() == engine.redeal_unseen(state, 0, 7).snapshot()
    assert sorted(engine.all_cards(again[1])) == sorted(engine.all_cards(state))
    with pytest.raises(ValueError, match="seat"):
        engine.redeal_unseen(state, players, 0)


@pytest.mark.parametrize("players", [2, 4])
def test_the_search_agents_compiled_redeal_deals_as_the_engines_does(players):
    """The search agent re-deals in compiled code from the observation alone
    (``agents.playouts.redeal``), the twin of ``engine.redeal_unseen``: both keep the seat's
    observation, give each other hand as many cards and the stock the rest, from the same unseen
    cards, and both deal them anew (each card reaches more than one place over the seeds)."""
    from kc_env import observation
    from kc_env.agents import playouts, turns, view
    from kc_env.vector import kernel as K

    rules = kc_env.Rules.preset("pagat", jokers=2)
    state = engine.new_deal(rules, num_players=players, seed=5)
    for move in engine.legal_moves(state)[:1]:
        engine.apply(state, move)
    seat = state.current_player
    obs = observation.encode(state, seat)
    unseen = sorted(c for s in range(players) if s != seat for c in state.hands[s]) + sorted(state.stock)
    places = {"compiled": {}, "engine": {}}
    for seed in range(12):
        table = turns.alloc(1, view.clears_piles(obs))
        hands, stock, S = table.hands, table.stock, table.S
        playouts.redeal(obs, table, np.int64(0), np.array([seed + 1], np.uint64), 1000)
        ob = np.zeros(K.OBS_SIZE, dtype=np.float32)
        K.encode(table, np.int64(0), np.int64(0), obs[K.RULES_START:].copy(), ob)
        assert np.array_equal(ob, obs)
        dealt = {j: [c for c in range(54) if (int(hands[0, j]) >> c) & 1] for j in range(1, players)}
        dealt[0] = [int(c) for c in stock[0, :S[0, K.SLEN]]]  # the stock as place 0
        new = engine.redeal_unseen(state, seat, seed)
        assert np.array_equal(observation.encode(new, seat), obs)
        by_engine = {j: new.hands[(seat + j) % players] for j in range(1, players)}
        by_engine[0] = new.stock
        for name, deal in (("compiled", dealt), ("engine", by_engine)):
            assert sorted(c for cards in deal.values() for c in cards) == sorted(unseen), name
            assert {j: len(c) for j, c in deal.items()} == {j: len(c) for j, c in by_engine.items()}, name
            for j, cards in deal.items():
                for c in cards:
                    places[name].setdefault(c, set()).add(j)
    for name in places:
        assert sum(len(p) > 1 for p in places[name].values()) > len(unseen) // 2, f"{name} does not re-deal"


def test_from_sb3_plays_as_an_agent_an_opponent_and_in_a_tournament():
    pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    from kc_env.tournament import run_tournament

    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", gymnasium.make("KingsCorner-v0"), seed=0, n_steps=64, batch_size=64,
                        policy_kwargs={"net_arch": [16]})
    mine = agents.from_sb3(model)
    env = gymnasium.make("KingsCorner-v0", opponents=mine)
    obs, info = env.reset(seed=0)
    assert info["action_mask"][mine.act({"observation": obs, "action_mask": info["action_mask"]})] == 1
    env.step(env.action_space.sample(info["action_mask"]))  # the model plays the other seat inside step
    result = run_tournament([mine, "random"], num_players=2, deals=8, seed=0, workers=1)
    assert [row.deals for row in result.stats] == [8, 8]
    with pytest.raises(TypeError, match="action_masks"):
        agents.from_sb3(object())


def test_from_sb3_plays_a_model_trained_on_the_dict_observation_everywhere():
    """A MultiInputPolicy of ``observation="dict"`` is given the dict it learnt on (it raised an
    IndexError inside SB3 on the vector); a model of another space is refused when made."""
    pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    from kc_env.tournament import run_tournament
    from kc_env.vector import KingsCornerVecEnv

    torch.set_num_threads(1)
    model = MaskablePPO("MultiInputPolicy", gymnasium.make("KingsCorner-v0", observation="dict"), seed=0,
                        n_steps=64, batch_size=64, policy_kwargs={"net_arch": [16]})
    mine = agents.from_sb3(model)
    env = gymnasium.make("KingsCorner-v0", opponents=mine)
    _, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))  # the model plays the other seat inside step
    vec = KingsCornerVecEnv(4, opponents=[mine], seed=0)
    vec.reset()
    vec.step(vec.action_masks().argmax(axis=1))
    result = run_tournament([mine, "random"], num_players=2, deals=2, seed=0, workers=1)
    assert [row.deals for row in result.stats] == [2, 2]
    model.observation_space = gymnasium.spaces.Box(0, 1, (3,))
    with pytest.raises(TypeError, match=r"not Box\(0\.0, 1\.0, \(3,\), float32\)$"):
        agents.from_sb3(model)
    model.observation_space = gymnasium.spaces.Tuple((gymnasium.spaces.Discrete(2),))  # a probe: "not Tuple None"
    with pytest.raises(TypeError, match=r"not Tuple\(Discrete\(2\)\)$"):
        agents.from_sb3(model)


def test_a_model_just_trained_plays_in_a_tournament():
    """run_tournament copies each Agent entry for its seats; after learn() the policy holds
    tensors torch refuses to deep-copy, so the copy shares the model (a reproducer from the
    newcomer's self-play recipe)."""
    pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    from kc_env.tournament import run_tournament

    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", gymnasium.make("KingsCorner-v0"), seed=0, n_steps=64, batch_size=64,
                        policy_kwargs={"net_arch": [16]})
    model.learn(64)
    mine = agents.from_sb3(model)
    result = run_tournament([mine, "random"], num_players=2, deals=4, seed=0, workers=1)
    assert [row.deals for row in result.stats] == [4, 4]
    assert copy.deepcopy(mine).model is model
