"""RLCard drives Kings in the Corner (``kc_env.rlcard``): as an env of its own (``rlcard.make``), and
by its PettingZoo path, where its DQN, through ``wrap_state``, learns from whole deals and its loops
finish deals cut off at ``max_moves``."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("rlcard")
torch = pytest.importorskip("torch")

from rlcard.agents.pettingzoo_agents import DQNAgentPettingZoo, RandomAgentPettingZoo  # noqa: E402
from rlcard.utils.pettingzoo_utils import reorganize_pettingzoo, run_game_pettingzoo  # noqa: E402
from test_docs import run  # noqa: E402

from kc_env import actions, kings_corner_v0, rlcard  # noqa: E402
from kc_env.game_info import GAME_INFO  # noqa: E402


def randoms(env) -> dict:
    return {agent: RandomAgentPettingZoo(num_actions=GAME_INFO.num_distinct_actions) for agent in env.possible_agents}


def test_rlcards_dqn_learns_from_whole_deals():
    torch.manual_seed(0)
    env = rlcard.env(rules="standard", num_players=2)
    env.reset(seed=0)
    learner = DQNAgentPettingZoo(num_actions=GAME_INFO.num_distinct_actions, state_shape=[GAME_INFO.observation_size],
                                 mlp_layers=[32], replay_memory_init_size=20, batch_size=8, train_every=4,
                                 device=torch.device("cpu"))
    agents = randoms(env) | {"player_0": learner}
    for _ in range(2):
        transitions = reorganize_pettingzoo(run_game_pettingzoo(env, agents, is_training=True))["player_0"]
        for transition in transitions:
            learner.feed(transition)
        assert transitions[-1][4] and transitions[-1][2] in (-1.0, 0.0, 1.0)
    assert learner.total_t > learner.replay_memory_init_size
    env.reset(seed=1)
    obs, *_ = env.last()
    assert obs["action_mask"][learner.eval_step(obs)[0]]


def test_rlcards_loop_finishes_a_deal_cut_off():
    """Every deal is cut off after 10 moves: the raw env fails RLCard's loop, the adapter ends it."""
    raw = kings_corner_v0.env(rules="standard", num_players=2, max_moves=10)
    raw.reset(seed=0)
    with pytest.raises(ValueError):
        run_game_pettingzoo(raw, randoms(raw))
    env = rlcard.env(rules="standard", num_players=2, max_moves=10)
    env.reset(seed=0)
    trajectories = run_game_pettingzoo(env, randoms(env))
    assert all(trajectory[-1] is None for trajectory in trajectories.values())
    assert all(env.truncations.values())


def test_the_modules_example_runs():
    for code in re.findall(r"```python\n(.*?)```", rlcard.__doc__, re.S):
        run(code)


class FirstLegal:
    """An RLCard agent (ids, not raw actions) that plays the first legal action: deterministic."""

    use_raw = False

    def step(self, state):
        return next(iter(state["legal_actions"]))

    def eval_step(self, state):
        return self.step(state), {}


def native(**config):
    import rlcard as rlcard_lib

    return rlcard_lib.make(rlcard.ENV_ID, config=config)


@pytest.mark.parametrize("players", [2, 4])
def test_rlcard_make_gives_the_game_as_an_rlcard_env_of_its_own(players):
    env = native(seed=0, game_num_players=players)
    assert (env.num_players, env.num_actions) == (players, 497)
    assert env.state_shape == [[GAME_INFO.observation_size]] * players and env.action_shape == [None] * players
    env.set_agents([FirstLegal() for _ in range(players)])
    trajectories, payoffs = env.run(is_training=False)
    assert env.is_over() and len(trajectories) == players
    assert sorted(payoffs.tolist()) in ([-1 / (players - 1)] * (players - 1) + [1.0], [0.0] * players)
    state = trajectories[0][0]
    assert state["obs"].shape == (GAME_INFO.observation_size,)
    assert set(state["legal_actions"].values()) == {None}
    assert state["raw_legal_actions"] == [actions.name(a) for a in state["legal_actions"]]


def test_the_same_seed_deals_the_same_games_and_another_seed_others():
    def first_states(seed):
        env = native(seed=seed)
        env.set_agents([FirstLegal(), FirstLegal()])
        return [env.run()[0][0][0]["obs"] for _ in range(3)]

    same, again, other = first_states(5), first_states(5), first_states(6)
    assert all(np_equal(a, b) for a, b in zip(same, again, strict=True))
    assert not all(np_equal(a, b) for a, b in zip(same, other, strict=True))


def np_equal(a, b) -> bool:
    return bool((a == b).all())


def test_a_raw_action_is_played_by_its_name():
    env = native(seed=1)
    state, player = env.reset()
    assert env._get_legal_actions() == list(state["legal_actions"])
    name = state["raw_legal_actions"][0]
    after, _ = env.step(name, raw_action=True)
    assert env.action_recorder == [(player, name)] and not np_equal(after["obs"], state["obs"])


def test_rlcards_dqn_trains_on_the_native_env():
    from rlcard.agents import DQNAgent, RandomAgent
    from rlcard.utils import reorganize

    torch.manual_seed(0)
    env = native(seed=0)
    learner = DQNAgent(num_actions=env.num_actions, state_shape=env.state_shape[0], mlp_layers=[32],
                       replay_memory_init_size=20, batch_size=8, train_every=4, device=torch.device("cpu"))
    env.set_agents([learner, RandomAgent(num_actions=env.num_actions)])
    for _ in range(2):
        trajectories, payoffs = env.run(is_training=True)
        for transition in reorganize(trajectories, payoffs)[0]:
            learner.feed(transition)
    assert learner.total_t > learner.replay_memory_init_size


@pytest.mark.parametrize("config, message", [
    ({"allow_step_back": True}, "kings-corner has no step_back"),
    ({"game_num_players": 7}, "7"),
])
def test_what_the_native_env_cannot_do_is_refused_in_one_line(config, message):
    with pytest.raises(ValueError, match=message):
        native(**config)


def test_an_unknown_game_key_is_named_as_written_with_the_game_keys_once():
    """It said "kings-corner: kings_corner_v0.raw_env got an unexpected keyword argument 'players';
    its options: rules, ...; its game_ keys are kings_corner_v0.raw_env's options": the key without
    its prefix, and the options twice over."""
    with pytest.raises(ValueError) as caught:
        native(game_players=3)
    assert str(caught.value) == ("kings-corner: unknown config key 'game_players'; its game_ keys: game_rules, "
                                 "game_num_players, game_episode, game_reward, game_max_moves, game_max_deals, "
                                 "game_dealer, game_render_mode, game_render_view")


def test_a_matchs_payoffs_sum_every_deals_rewards():
    """Under ``reward: score`` a match pays at the end of every deal, not only the last."""
    env = native(seed=2, game_episode="match", game_reward="score", game_rules={"preset": "standard", "target": 8})
    env.set_agents([FirstLegal(), FirstLegal()])
    rewards = []
    state, player = env.reset()
    while not env.is_over():
        state, player = env.step(env.agents[player].step(state))
        rewards.append([env.game.table.rewards[a] for a in env.game.table.possible_agents])
    deals_paid = sum(1 for r in rewards if any(r))
    assert deals_paid > 1 and np_equal(env.get_payoffs(), np.sum(rewards, axis=0))


def test_a_refused_step_records_nothing_and_leaves_the_env_as_it_was():
    env = native(seed=1)
    state, player = env.reset()
    illegal = next(a for a in range(actions.NUM_ACTIONS) if a not in state["legal_actions"])
    for bad, refusal in ((illegal, "is not legal for player"), (1.7, "not '1.7'"), (True, "not 'True'"),
                         (np.float64(3), "not '3.0'"), (actions.NUM_ACTIONS, "not '497'")):
        with pytest.raises(ValueError, match=refusal):  # IllegalMove is a ValueError
            env.step(bad)
    with pytest.raises(ValueError, match=r"not a move: 'aaa.*\(1,000,000 characters"):
        env.step("a" * 10**6, raw_action=True)
    assert env.timestep == 0 and env.action_recorder == []
    first = list(state["legal_actions"])[0]
    env.step(np.array(first))  # SB3-style 0-d array
    assert env.action_recorder == [(player, actions.name(first))]


def test_a_step_after_the_game_is_over_asks_for_a_reset():
    env = native(seed=2, game_max_moves=3)
    from rlcard.agents import RandomAgent

    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    env.run()
    with pytest.raises(ValueError, match="the game is over: reset"):
        env.step(0)


def test_a_move_limit_past_what_the_tables_hold_is_one_line():
    with pytest.raises(ValueError, match="max_moves must be a whole number from 1 to 2,147,483,647, not 9223372036854775808"):
        native(game_max_moves=2**63)


def test_the_perfect_information_is_the_whole_deal_every_hand_the_piles_and_the_stock():
    from kc_env import engine
    from kc_env.cards import unique_name as card_name

    env = native(seed=0, game_num_players=3)
    env.reset()
    env.step(env._get_legal_actions()[0])
    info, deal = env.get_perfect_information(), env.game.table.game
    assert info["num_players"] == 3 and info["current_player"] == env.get_player_id() == deal.current_player
    assert info["hand_cards"] == [[card_name(c) for c in hand] for hand in deal.hands]
    assert info["piles"] == {name: [card_name(c) for c in pile] for name, pile in zip(engine.PILE_NAMES, deal.piles, strict=True)}
    assert info["stock"] == [card_name(c) for c in reversed(deal.stock)]  # top first
    assert sum(map(len, info["hand_cards"])) + sum(map(len, info["piles"].values())) + len(info["stock"]) == 52
    assert info["legal_actions"] == env._get_legal_actions()
    assert info["raw_legal_actions"] == [actions.name(a) for a in info["legal_actions"]]
    assert info["position"] == engine.to_text(deal)


@pytest.mark.parametrize("player", [-1, 2, True, 1.0, "0"])
def test_a_state_for_a_player_outside_the_seats_is_refused_in_one_line(player):
    env = native(seed=0)
    env.reset()
    with pytest.raises(ValueError, match=rf"^kings-corner: player {re.escape(repr(player))} is not a seat 0..1$"):
        env.get_state(player)
    assert np_equal(env.get_state(np.int64(1))["obs"], env.get_state(1)["obs"])


@pytest.mark.parametrize("call", [
    lambda env: env.get_state(0), lambda env: env.get_player_id(), lambda env: env.is_over(),
    lambda env: env.get_payoffs(), lambda env: env.step(0), lambda env: env.get_perfect_information(),
    lambda env: env._get_legal_actions(),
])
def test_a_call_before_reset_asks_for_reset_in_one_line(call):
    with pytest.raises(RuntimeError, match=r"^kings-corner: no game yet: call reset\(\) first$"):
        call(native(seed=0))


def test_a_name_is_a_raw_action_and_the_record_holds_names_as_rlcards_games_do():
    """The integrations probe: ``env.step("end turn")`` without ``raw_action=True`` was taken, and
    the record mixed ids and names; RLCard decodes an id to its raw action before recording it."""
    env = native(seed=1)
    state, player = env.reset()
    name = state["raw_legal_actions"][0]
    with pytest.raises(ValueError, match=re.escape(f"{name!r} is a raw action (a name): step({name!r}, raw_action=True)")):
        env.step(name)
    assert env.action_recorder == []
    first = list(state["legal_actions"])[0]
    env.step(first)
    assert env.action_recorder == [(player, actions.name(first))]


def test_kc_rules_text_as_game_rules_says_how_to_give_it():
    with pytest.raises(ValueError, match=re.escape("game_rules 'pagat,jokers=2' is kc --rules text; give a preset "
                                                   "name, a dict or a Rules: Rules.parse('pagat,jokers=2')")):
        native(game_rules="pagat,jokers=2")


def test_the_perfect_information_names_the_second_joker_as_moves_and_positions_do():
    """A late probe: ``get_perfect_information`` called both jokers ``JK`` while its own
    ``position`` (``engine.to_text``) wrote the second ``JK2``."""
    env = native(seed=0, game_rules={"jokers": 2})
    env.reset()
    info = env.get_perfect_information()
    cards = [c for hand in info["hand_cards"] for c in hand] + info["stock"] + [c for p in info["piles"].values() for c in p]
    assert sorted(c for c in cards if c.startswith("JK")) == ["JK", "JK2"] and len(set(cards)) == 54


def test_a_config_key_that_is_neither_rlcards_nor_a_game_key_is_refused():
    """A late probe: ``config={"num_players": 3}`` dealt two players without a word; RLCard reads
    ``seed`` and ``allow_step_back``, the game its ``game_`` keys, and nothing reads any other key."""
    with pytest.raises(ValueError) as caught:
        native(num_players=3)
    assert str(caught.value) == ("kings-corner: unknown config key 'num_players' (the game's options are game_ keys: "
                                 "game_num_players); its keys: seed, allow_step_back, game_rules, game_num_players, "
                                 "game_episode, game_reward, game_max_moves, game_max_deals, game_dealer, "
                                 "game_render_mode, game_render_view")


def test_the_legal_actions_are_read_from_the_mask_without_building_an_observation(monkeypatch):
    """``_get_legal_actions`` (every step) and ``get_perfect_information`` built the acting seat's
    whole observation (1599 values) to read its action mask."""
    env = native(seed=2, game_num_players=3)
    state, _ = env.reset()
    table = env.game.table

    def no_observation(*args):
        raise AssertionError("an observation was built to read the mask")

    monkeypatch.setattr(table, "observe", no_observation)
    assert env._get_legal_actions() == list(state["legal_actions"])
    assert env.get_perfect_information()["legal_actions"] == list(state["legal_actions"])
