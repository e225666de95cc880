"""``kings_corner_v0.env()`` wraps ``raw_env`` in one ``kc_env.wrappers.ClassicWrapper``; here it
plays side by side with PettingZoo's own classic chain around a second ``raw_env``, built here,
and must agree at every step: observations, masks, rewards, terminations, truncations, infos,
warnings, illegal-action endings, bounds and order errors."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from kc_env import GAME_INFO, Rules, kings_corner_v0, observation
from kc_env.wrappers import ClassicWrapper


class TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's, and then the infos of an ended episode (``raw_env.abandon_infos``), which
    ``env()`` gives on an illegal action (the environments probe: the chain leaves every info
    ``{}``, against the env's one shape of infos)."""

    def step(self, action):
        ended = self._terminated
        super().step(action)
        if self._terminated and not ended:
            self.env.unwrapped.abandon_infos()


def pettingzoo_chain(**kwargs):
    """What ``env()`` stands for: PettingZoo's three classic wrappers around ``raw_env`` (with
    the infos of an ended episode after an illegal action, above)."""
    raw = kings_corner_v0.raw_env(**kwargs)
    aec = TerminateIllegalWrapper(raw, illegal_reward=kings_corner_v0.ILLEGAL_REWARD)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(aec))


def same_result(call):
    """``call(env)`` on the chain and on ``env()`` must raise alike or log the same warnings."""

    def outcome(aec):
        EnvLogger.flush()
        try:
            call(aec)
        except Exception as exc:  # noqa: BLE001 - the two must fail the same way
            return type(exc), str(exc)
        finally:
            logged = list(EnvLogger.mqueue)
            EnvLogger.flush()
        return logged

    return outcome


def assert_same_view(ref, ours, agent: str) -> None:
    assert ours.agent_selection == ref.agent_selection == agent
    a, b = ref.last(), ours.last()
    assert np.array_equal(a[0]["observation"], b[0]["observation"])
    assert np.array_equal(a[0]["action_mask"], b[0]["action_mask"])
    assert a[1:] == b[1:]
    assert ref.agents == ours.agents and ref.rewards == ours.rewards
    assert ref.terminations == ours.terminations and ref.truncations == ours.truncations
    assert ref._cumulative_rewards == ours._cumulative_rewards


def play_both(kwargs: dict, seed: int, illegal_every: int = 0, observe_every: int = 1,
              illegal_when_owed: bool = False) -> int:
    """Play the chain and ``env()`` with the same actions, three episodes: every
    ``illegal_every``-th action illegal (with ``illegal_when_owed``, also every action of an
    agent with rewards it has not collected yet), and ``last()`` only every ``observe_every``-th
    step (so that the wrappers also judge actions they did not show a mask for). Returns how
    many episodes an illegal action ended."""
    ref, ours = pettingzoo_chain(**kwargs), kings_corner_v0.env(**kwargs)
    rng = random.Random(seed)
    illegal_ends = 0
    for episode in range(3):
        ref.reset(seed=seed + episode)
        ours.reset(seed=seed + episode)
        for steps, agent in enumerate(ref.agent_iter(3000)):
            done = ref.terminations[agent] or ref.truncations[agent]
            mask = ref.unwrapped.action_mask(agent)
            if steps % observe_every == 0:
                assert_same_view(ref, ours, agent)
            if done:
                action = None
            elif (illegal_every and steps % illegal_every == illegal_every - 1
                  or illegal_when_owed and ref._cumulative_rewards[agent]):
                action = int(np.flatnonzero(mask == 0)[0])
                illegal_ends += 1
            else:
                legal = np.flatnonzero(mask)
                action = int(legal[rng.randrange(len(legal))])
            step = same_result(lambda aec, action=action: aec.step(action))
            assert step(ref) == step(ours)
        assert not ours.agents and ours.rewards == ref.rewards and ours.infos == ref.infos
        step_after_the_end = same_result(lambda aec: aec.step(None))
        assert step_after_the_end(ref) == step_after_the_end(ours) != []
    return illegal_ends


@pytest.mark.parametrize("kwargs", [
    {"rules": "standard", "num_players": 2},
    {"rules": "wikihow", "num_players": 4, "reward": "score"},
    {"rules": Rules.preset("pagat", jokers=2, pile_moves="partial"), "num_players": 3, "max_moves": 80},
    {"rules": "german", "num_players": 3, "episode": "match", "max_deals": 3},
    {"rules": "online", "num_players": 6, "episode": "match", "reward": "score", "max_deals": 2},
])
def test_env_plays_like_pettingzoos_classic_wrappers(kwargs):
    play_both(kwargs, seed=7)


@pytest.mark.parametrize("observe_every", [1, 3])
def test_illegal_actions_end_the_game_the_same_way(observe_every):
    assert play_both({"rules": "standard", "num_players": 3}, seed=3, illegal_every=25,
                     observe_every=observe_every) == 3


def test_an_illegal_action_forfeits_rewards_not_yet_collected_the_same_way():
    """In a match with ``score`` rewards every agent earns a reward at the end of each deal; an
    illegal action before the offender collected it replaces it with -1, as in the chain."""
    kwargs = {"rules": "german", "num_players": 3, "episode": "match", "reward": "score"}
    assert play_both(kwargs, seed=5, illegal_when_owed=True) == 3


def test_order_and_bounds_are_enforced_the_same_way():
    ref, ours = pettingzoo_chain(num_players=2), kings_corner_v0.env(num_players=2)
    before_reset = [lambda aec, name=name: getattr(aec, name) for name in
                    ("agent_selection", "agents", "num_agents", "rewards", "terminations", "truncations", "infos")]
    before_reset += [lambda aec: aec.step(0), lambda aec: aec.observe("player_0"), lambda aec: aec.agent_iter(),
                     lambda aec: aec.possible_agents, lambda aec: aec._cumulative_rewards, lambda aec: aec._secret]
    for call in before_reset:
        assert same_result(call)(ref) == same_result(call)(ours)
    ref.reset(seed=0)
    ours.reset(seed=0)
    past, end = GAME_INFO.num_distinct_actions, GAME_INFO.end_turn_action
    for action in (past, -1, None, 2**40, 1.0, "end", np.int64(past), np.int64(-1), np.True_):
        outcome = same_result(lambda aec, action=action: aec.step(action))
        assert outcome(ref) == outcome(ours) == (AssertionError, "action is not in action space")
    bool_outcome = same_result(lambda aec: aec.step(True))  # the chain takes True for 1, then fails on the mask
    assert bool_outcome(ours) == (AssertionError, "action is not in action space")
    assert bool_outcome(ref)[0] is ValueError
    for action in (np.int64(end), np.int32(end)):  # numpy integers are in bounds
        outcome = same_result(lambda aec, action=action: aec.step(action))
        assert outcome(ref) == outcome(ours)
        assert_same_view(ref, ours, ref.agent_selection)
    assert str(ours) == str(ref) and type(ours.unwrapped) is kings_corner_v0.raw_env
    assert isinstance(ours, ClassicWrapper)


def test_observations_are_fresh_writable_arrays():
    aec = kings_corner_v0.env(num_players=3)
    aec.reset(seed=1)
    first = aec.last()[0]
    vec, mask = first["observation"], first["action_mask"]
    assert vec.dtype == np.float32 and vec.shape == (observation.OBS_SIZE,) and vec.flags.writeable
    assert mask.dtype == np.int8 and mask.shape == (GAME_INFO.num_distinct_actions,) and mask.flags.writeable
    vec[:] = 9
    mask[:] = 0
    again = aec.last()[0]
    assert not np.array_equal(again["observation"], vec) and again["action_mask"].any()


def test_env_passes_the_pettingzoo_api_test():
    api_test(kings_corner_v0.env(rules="wikihow", num_players=3), num_cycles=200)


def test_self_play_wrapper_is_a_gymnasium_env_giving_the_movers_own_reward():
    """PettingZoo's SB3 tutorial wrapper failed under Gymnasium 1.x (``ActionMasker`` asserts a
    ``gymnasium.Env``) and returned the next agent's reward (issue 36 item 7): the mended one
    is a ``gymnasium.Env``, gives the next agent's observation and mask, and the reward and
    termination of the agent that acted: +1 for the winning move."""
    import gymnasium

    from kc_env.wrappers import SelfPlayWrapper

    ActionMasker = pytest.importorskip("sb3_contrib.common.wrappers").ActionMasker

    env = SelfPlayWrapper(kings_corner_v0.env())
    assert isinstance(env, gymnasium.Env) and env.observation_space.shape == (1599,)
    ActionMasker(env, lambda e: e.action_masks())  # accepted: no assertion
    rng = np.random.default_rng(0)
    outcomes = set()
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            raw = env.unwrapped
            np.testing.assert_array_equal(obs, raw.observe(raw.agent_selection)["observation"])
            np.testing.assert_array_equal(env.action_masks(), raw.action_mask(raw.agent_selection).astype(bool))
            mover = raw.agent_selection
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = terminated or truncated
            if not done:
                assert reward == 0.0
        winner = info["deal"]["winner"]
        assert reward == (1.0 if winner == raw.agent_seat[mover] else 0.0)
        outcomes.add(winner >= 0)
    assert True in outcomes  # a won deal was among them


@pytest.mark.parametrize("num_players", [2, 4])
def test_self_play_passes_gymnasiums_own_checker(num_players):
    """The environments probe: an illegal action ended the episode as terminated *and* truncated
    (PettingZoo's convention for every agent), which Gymnasium's check_env refuses ("truncates
    after 1 step"): a Gymnasium episode that terminated was not cut off."""
    from gymnasium.utils.env_checker import check_env

    from kc_env.wrappers import SelfPlayWrapper

    env = SelfPlayWrapper(kings_corner_v0.env(num_players=num_players))
    check_env(env, skip_render_check=True)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    assert env.step(illegal)[1:4] == (-1.0, True, False)


@pytest.mark.parametrize("make, got", [
    (lambda: __import__("gymnasium").make("KingsCorner-v0"), "OrderEnforcing"),
    (lambda: "x", "'x'"),
])
def test_self_play_wrapper_refuses_what_is_not_a_pettingzoo_env_in_one_line(make, got):
    """The newcomer's probe: ``SelfPlayWrapper(gymnasium.make("KingsCorner-v0"))`` and
    ``SelfPlayWrapper("x")`` were AttributeErrors."""
    import kc_env  # noqa: F401  (registers KingsCorner-v0)
    from kc_env.wrappers import SelfPlayWrapper

    with pytest.raises(TypeError) as caught:
        SelfPlayWrapper(make())
    said = str(caught.value)
    assert said.startswith("SelfPlayWrapper wraps a kings_corner_v0 PettingZoo env (kings_corner_v0.env()), not ")
    assert got in said and "\n" not in said
