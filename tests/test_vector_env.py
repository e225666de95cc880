"""``KingsCornerVecEnv`` as an SB3 ``VecEnv``: MaskablePPO trains on it directly, seeds replay,
illegal actions are priced as in ``KingsCorner-v0``, bad arguments are refused, and ``kc_env``
imports without numba. (Equality with the reference engine: ``test_vector_diff.py``.)"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("stable_baselines3")

from kc_env import IllegalMove, engine  # noqa: E402
from kc_env.vector import KingsCornerVecEnv  # noqa: E402
from kc_env.vector import kernel as K  # noqa: E402


def random_actions(env: KingsCornerVecEnv, seed: int) -> np.ndarray:
    out = np.zeros(env.num_envs, dtype=np.int64)
    K.sample_masks(env.action_masks(), np.arange(env.num_envs, dtype=np.uint64) + np.uint64(seed), out)
    return out


def test_maskable_ppo_trains_on_the_vec_env_directly():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = KingsCornerVecEnv(8, rules="pagat", num_players=3, opponents=["greedy", "random"], seed=0)
    assert is_masking_supported(env)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]})
    assert model.get_env() is env  # used as it is, not wrapped in a DummyVecEnv
    model.learn(256)
    assert model.num_timesteps >= 256
    obs = env.reset()
    masks = get_action_masks(env)
    assert masks.shape == (8, K.NUM_ACTIONS) and masks.dtype == bool and masks.any(axis=1).all()
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert masks[np.arange(8), actions].all()


def test_same_seed_same_episodes():
    def run(seed):
        env = KingsCornerVecEnv(16, rules="wikihow", num_players=4, seed=seed, record=True)
        out = [env.reset()]
        for step in range(200):
            obs, rewards, dones, infos = env.step(random_actions(env, step))
            out += [obs, rewards, dones, [i.get("deal") for i in infos]]
        return out

    a, b, c = run(5), run(5), run(6)
    assert all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])


def test_seed_method_applies_at_next_reset():
    env = KingsCornerVecEnv(4, seed=1)
    first = env.reset()
    env.seed(1)
    assert np.array_equal(env.reset(), KingsCornerVecEnv(4, seed=1).reset())
    assert np.array_equal(first, KingsCornerVecEnv(4, seed=1).reset())


def test_illegal_action_ends_the_episode_with_minus_one():
    env = KingsCornerVecEnv(4, seed=0)
    env.reset()
    actions = random_actions(env, 0)
    masks = env.action_masks()
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    _, rewards, dones, infos = env.step(actions)
    assert dones[2] and rewards[2] == -1.0 and infos[2]["illegal_action"] is True
    assert infos[2]["terminal_observation"].shape == (K.OBS_SIZE,)
    assert not infos[0].get("illegal_action")


def test_episode_length_counts_the_illegal_action_that_ends_it():
    """``episode["l"]`` is every learner step, the ending illegal one too, as SB3's ``Monitor``
    counts them (it was one short: only the legal actions were counted)."""
    env = KingsCornerVecEnv(4, seed=0)
    env.reset()
    for step in range(2):
        assert not env.step(random_actions(env, step))[2].any()
    actions = random_actions(env, 2)
    actions[2] = int(np.flatnonzero(~env.action_masks()[2])[0])
    _, _, dones, infos = env.step(actions)
    assert dones[2] and infos[2]["episode"]["l"] == 3


def test_illegal_action_raises_when_asked():
    env = KingsCornerVecEnv(2, seed=0, illegal_action="raise")
    env.reset()
    actions = random_actions(env, 0)
    actions[1] = 431 if not env.action_masks()[1, 431] else 440
    with pytest.raises(IllegalMove, match="game 1"):
        env.step(actions)


def test_episode_info_and_autoreset():
    env = KingsCornerVecEnv(8, num_players=2, learner_seat=1, dealer=0, seed=3)
    env.reset()
    assert (env.learner_seats() == 1).all()
    ended = 0
    for step in range(400):
        obs, rewards, dones, infos = env.step(random_actions(env, step))
        for b in np.flatnonzero(dones):
            info = infos[b]
            ended += 1
            assert info["deal"]["learner_seat"] == 1 and info["deal"]["dealer"] == 0
            assert info["episode"]["r"] == rewards[b] and rewards[b] in (-1.0, 0.0, 1.0)
            assert env.action_masks()[b].any()  # already dealt again
            assert not np.array_equal(info["terminal_observation"], obs[b])
    assert ended > 10


def test_a_deal_nobody_won_has_winner_minus_one_as_in_the_pettingzoo_env():
    # the infos of one type every deal (Tianshou's buffer stacks them): a seat, or NO_WINNER
    from kc_env.match import NO_WINNER

    env = KingsCornerVecEnv(16, num_players=2, seed=5, max_moves=40)  # short deals: many are cut off
    env.reset()
    winners = []
    for step in range(300):
        _, rewards, dones, infos = env.step(random_actions(env, step))
        for b in np.flatnonzero(dones):
            deal = infos[b]["deal"]
            assert type(deal["winner"]) is int
            assert (deal["winner"] == NO_WINNER) == (rewards[b] == 0.0 and not infos[b]["episode"]["r"])
            winners.append(deal["winner"])
    assert NO_WINNER in winners and any(w >= 0 for w in winners)


def test_set_opponents_after_a_deal_and_forgetting_unused_policies():
    from kc_env.agents import GreedyAgent

    env = KingsCornerVecEnv(4, num_players=3, opponents="greedy", seed=2)
    env.reset()
    agents = []
    for step in range(300):
        _, _, dones, _ = env.step(random_actions(env, step))
        for b in np.flatnonzero(dones):
            agent = GreedyAgent()
            agents.append(agent)
            env.set_opponents([int(b)], [agent, "random"])  # a new object each time, like a league's snapshots
            seat = env.learner_seats()[b]
            assert env._opp_kind[b, (seat + 2) % 3] == 0 and env._opp_kind[b, seat] == 0
    assert len(agents) > 40
    assert len(env._policy_index) <= 2 * len(np.unique(env._game_kinds)) + 33  # old agents let go
    with pytest.raises(ValueError, match="need 2 opponents"):
        env.set_opponents([0], ["random"])


@pytest.mark.parametrize("kwargs,message", [
    ({"num_envs": 0}, "num_envs"),
    ({"num_players": 7}, "num_players"),
    ({"num_players": 3, "opponents": ["random"]}, "need 2 opponents"),
    ({"opponents": ["nobody"]}, "unknown agent spec"),
    ({"learner_seat": 2}, "learner_seat"),
    ({"reward": "points"}, "reward"),
    ({"max_moves": 0}, "max_moves"),
    ({"illegal_action": "ignore"}, "illegal_action"),
    ({"rules": {"draw": "never"}}, "draw"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        KingsCornerVecEnv(**kwargs)


def test_numpy_whole_numbers_are_taken_for_num_players_and_max_moves():
    env = KingsCornerVecEnv(np.int64(4), num_players=np.int64(3), max_moves=np.int64(50), opponents=["random", "random"],
                            learner_seat=np.int64(1), dealer=np.int64(2))
    assert (env.num_envs, env.num_players, env.max_moves) == (4, 3, 50) and type(env.num_players) is type(env.max_moves) is int
    env.reset()
    for kwargs, said in (({"learner_seat": True}, r"^learner_seat must be a seat 0\.\.1 or 'random', not True$"),
                         ({"dealer": 1.0}, r"^dealer must be a seat 0\.\.1 or 'random', not 1.0$")):
        with pytest.raises(ValueError, match=said):
            KingsCornerVecEnv(4, **kwargs)
    for kwargs, said in (({"num_players": True}, "^num_players must be 2 to 6, not True$"),
                         ({"max_moves": 50.0}, "^max_moves must be a whole number from 1 to 2,147,483,647, not 50.0$")):
        with pytest.raises(ValueError, match=said):
            KingsCornerVecEnv(4, **kwargs)


class ConstantOpponent:
    """An outside opponent that always answers ``value`` (``reliability-2026-12.md`` item 1)."""

    def __init__(self, value) -> None:
        self.value = value

    def act_batch(self, obs, masks):
        out = np.empty(len(obs), dtype=object)
        out[:] = [self.value] * len(obs)
        return out


def highest_legal(env: KingsCornerVecEnv) -> np.ndarray:
    return np.array([np.flatnonzero(row)[-1] for row in env.action_masks()])


@pytest.mark.parametrize("value, why", [(0, "which is illegal"), (-1, "outside 0..496"),
                                        (2.5, "not an action"), ("496", "not an action"), (True, "not an action")])
def test_an_opponents_bad_action_is_never_played(value, why):
    """Item 1: an opponent's masked-off action corrupted games; -1 segfaulted; 0 corrupted the
    heap. Each is refused with IllegalMove naming the game, the seat and the action; the game's
    episode ends and is dealt again, the others finish their step, and the env goes on."""
    from kc_env.invariants import violations

    env = KingsCornerVecEnv(8, opponents=ConstantOpponent(value), seed=3, learner_seat=0)
    try:
        env.reset()
    except IllegalMove:
        pass
    refusals = 0
    for _ in range(30):
        try:
            env.step(highest_legal(env))
        except IllegalMove as exc:
            refusals += 1
            assert str(exc).startswith("game ") and "the opponent at seat 1 (ConstantOpponent) chose" in str(exc)
            assert why in str(exc)
            obs, rewards, dones, infos = exc.step_return
            assert obs.shape == (8, K.OBS_SIZE) and any(i.get("opponent_illegal_action") for i in infos)
        assert not any(violations(env.state(b)) for b in range(8))
    assert refusals > 0 and env.action_masks().any(axis=1).all()


def test_a_learners_illegal_action_is_refused_before_any_game_moves():
    """Item 6: with illegal_action="raise" the other games had already moved, and the offending
    game was left with an all-False mask until reset()."""
    env = KingsCornerVecEnv(3, seed=3, illegal_action="raise")
    env.reset()
    masks = env.action_masks()
    before = [engine.to_text(env.state(b)) for b in range(3)]
    acts = highest_legal(env)
    acts[0] = int(np.flatnonzero(~masks[0])[0])
    with pytest.raises(IllegalMove, match=r"^game 0: the learner \(seat \d\) chose action \d+ .*which is illegal"):
        env.step(acts)
    assert [engine.to_text(env.state(b)) for b in range(3)] == before, "no game moved"
    assert (env.action_masks() == masks).all(), "nothing moved, no mask cleared"
    env.step(highest_legal(env))  # the env goes on


@pytest.mark.parametrize("action", [496.9, 3.7, "496", True, np.nan, np.inf, None, 2**63])
def test_a_learner_action_that_is_not_a_whole_number_is_illegal_not_cast(action):
    """Items 7 and 18: 496.9 and '496' were taken as end turn, 3.7 as 3, True as 1; None, NaN and
    2**63 raised raw numpy errors."""
    env = KingsCornerVecEnv(2, seed=1)
    env.reset()
    acts = np.empty(2, dtype=object)
    acts[:] = [action, int(highest_legal(env)[1])]
    _, rewards, dones, infos = env.step(acts)
    assert dones[0] and rewards[0] == -1.0 and infos[0]["illegal_action"] is True
    assert not infos[1].get("illegal_action")
    env = KingsCornerVecEnv(2, seed=1, illegal_action="raise")
    env.reset()
    with pytest.raises(IllegalMove, match="which is not an action 0..496"):
        env.step(np.array([action, action], dtype=object))


@pytest.mark.slow
def test_adversarial_soak_of_the_vector_env():
    """benchmarks/soak.py --vector-steps: opponents and learner mixing in illegal actions, -1,
    floats, strings, bools and NaN; every game's invariants checked after every step."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("soak", Path(__file__).parents[1] / "benchmarks" / "soak.py")
    soak = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(soak)
    result = soak.vector_soak(3000, seed=7)
    assert result["violations"] == 0 and result["crashes"] == 0, result["examples"]
    assert result["refused"] > 100


def test_an_opponent_refused_before_every_first_action_is_named():
    """Issue 31 L-5: with the learner at seat 0 and the dealer at seat 0 the outside opponent acts
    first in every deal; its refused actions ended 100 deals in a row and the error, "deals in a
    row ended before the learner's first action", did not say why."""
    env = KingsCornerVecEnv(2, opponents=ConstantOpponent(-1), seed=3, learner_seat=0, dealer=0)
    with pytest.raises(IllegalMove, match=r"^100 deals in a row ended before the learner's first action; outside "
                                          r"opponents' actions were refused 200 times, the first: game 0: the "
                                          r"opponent at seat 1 \(ConstantOpponent\) chose -1, which is outside 0..496"):
        env.reset()


def test_a_penalty_the_kernel_cannot_hold_is_refused_by_the_rules():
    """Issue 31 L-3: a custom table of 2**63 was a raw OverflowError when the kernel took the rules."""
    from kc_env.rules import RANK_KEYS, RulesError

    with pytest.raises(RulesError, match="^custom_table value for 'A' must be a whole number from 0 to 100, "
                                         "not 9223372036854775808$"):
        KingsCornerVecEnv(2, rules={"scoring": "custom", "custom_table": dict.fromkeys(RANK_KEYS, 2**63)})


@pytest.mark.parametrize("kwargs,said", [
    ({"episode": "match"}, "the vector env plays one deal per episode: episode must be 'deal', not 'match'"),
    ({"render_mode": "ansi"}, "the vector env does not render: render_mode must be None, not 'ansi'"),
    ({"observation": "dict"}, "observation must be 'vector', not 'dict'"),
    ({"opponent": "random"}, "KingsCornerVecEnv got an unexpected keyword argument 'opponent'; its options: "
                             "num_envs, rules, num_players, opponents,"),
])
def test_keywords_of_kingscorner_v0_it_cannot_take_and_typos_are_explained_in_one_line(kwargs, said):
    """The newcomer's probe: ``episode``, ``render_mode`` and a typo'd keyword all gave "LearnerGames.__init__()
    got an unexpected keyword argument", naming a class the user never called."""
    with pytest.raises((ValueError, TypeError)) as caught:
        KingsCornerVecEnv(2, **kwargs)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_opponents_that_are_neither_a_spec_nor_a_list_are_refused_in_one_line():
    """As ``KingsCorner-v0`` refuses them (the newcomer's probe: "'int' object is not iterable")."""
    with pytest.raises(ValueError, match=r"^opponents must be one agent spec \(or Agent\) for every other seat, or a "
                                        r"list of one per other seat \(3 players need 2\), not 3$"):
        KingsCornerVecEnv(2, num_players=3, opponents=3)


def test_reset_options_are_refused_in_one_line_as_the_gymnasium_vector_env_refuses_them():
    """SB3's ``set_options`` kept them for the next ``reset``, which dropped them silently."""
    env = KingsCornerVecEnv(2)
    with pytest.raises(ValueError, match=r"^the vector env takes no reset options \(None, \{\}, or a list of them\), got \{'positon': 'x'\}$"):
        env.set_options({"positon": "x"})
    env.set_options(None)
    env.set_options([{}, {}])
    assert env.reset().shape == (2, 1599)


def test_num_envs_has_an_upper_bound_and_is_kept_as_an_int():
    """A late probe: ``KingsCornerVecEnv(10**12)`` tried to allocate 116 TiB, and a numpy
    ``num_envs`` stayed a numpy integer in both vector envs."""
    import gymnasium

    for make in (KingsCornerVecEnv, lambda n: gymnasium.make_vec("KingsCorner-v0", num_envs=n,
                                                                 vectorization_mode="vector_entry_point")):
        with pytest.raises(ValueError, match="^num_envs must be a whole number from 1 to 100,000, not 1000000000000$"):
            make(10**12)
        assert type(make(np.int64(2)).num_envs) is int


@pytest.mark.parametrize("options", [np.array([1, 2]), "", 0, [{}, "x"]])
def test_reset_options_that_are_not_empty_dicts_are_refused_in_one_line(options):
    """A late probe: a numpy array as options hit numpy's "truth value ... is ambiguous", and
    ``""`` or ``0`` were taken silently."""
    with pytest.raises(ValueError, match="^the vector env takes no reset options"):
        KingsCornerVecEnv(2).set_options(options)
    KingsCornerVecEnv(2).set_options([{}, None])
