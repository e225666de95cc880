"""The PettingZoo AEC env (kc_env.kings_corner_v0): PettingZoo's api_test and seed_test for every
preset and 2 to 6 players, turns, rewards, episodes, illegal actions, positions, rendering."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from kc_env import PRESETS, IllegalMove, Rules, actions, engine
from kc_env import kings_corner_v0 as kc
from kc_env import observation as obs_mod
from kc_env.cards import parse_card

PLAYERS = range(2, 7)
# PettingZoo's api_test warns about Dict observations for every env not on its own list of
# classic games; the Dict {"observation", "action_mask"} is the classic convention itself. Its
# reset with options={"options": 1} gets the env's note of an unknown option (the env's own test below).
KNOWN_WARNINGS = ("Observation space for each agent probably", "Observation is not a NumPy array",
                  "unknown reset option 'options'")


@pytest.fixture(autouse=True)
def _quiet_known_warnings():
    with warnings.catch_warnings():
        for text in KNOWN_WARNINGS:
            warnings.filterwarnings("ignore", message=text)
        yield


@pytest.mark.parametrize("num_players", PLAYERS)
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_api_and_seed(preset, num_players):
    api_test(kc.env(rules=preset, num_players=num_players), num_cycles=300)
    seed_test(lambda: kc.env(rules=preset, num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("episode,reward,num_players", [("match", "win_loss", 3), ("match", "score", 2),
                                                        ("deal", "score", 5), ("match", "win_loss", 6)])
def test_api_and_seed_raw_env_and_matches(episode, reward, num_players):
    make = lambda: kc.raw_env(rules="german", num_players=num_players, episode=episode, reward=reward)  # noqa: E731
    api_test(make(), num_cycles=300)
    seed_test(make, num_cycles=300)


def play(aec, seed: int = 0, policy_seed: int = 0, limit: int = 100_000) -> list[tuple]:
    """Play random legal actions to the end; returns (agent, action, reward, term, trunc) per step."""
    aec.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    log = []
    for agent in aec.agent_iter(limit):
        ob, reward, term, trunc, info = aec.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(ob["action_mask"])))
        log.append((agent, action, reward, term, trunc))
        aec.step(action)
    return log


def test_same_seed_same_game_and_other_seed_other_game():
    a = play(kc.raw_env(num_players=3), seed=5)
    b = play(kc.raw_env(num_players=3), seed=5)
    c = play(kc.raw_env(num_players=3), seed=6)
    assert a == b and a != c


def test_agent_keeps_the_turn_until_end_turn():
    aec = kc.raw_env(num_players=3)
    aec.reset(seed=1)
    for _ in range(200):
        agent = aec.agent_selection
        mask = aec.observe(agent)["action_mask"]
        assert all(not aec.observe(a)["action_mask"].any() for a in aec.agents if a != agent)
        legal = np.flatnonzero(mask)
        others = [i for i in legal if i != actions.END_TURN_ACTION]
        action = int(others[0]) if others else actions.END_TURN_ACTION
        seat = aec.game.current_player
        aec.step(action)
        if aec.terminations[agent]:
            break
        if action == actions.END_TURN_ACTION:
            assert aec.agent_selection == f"player_{(seat + 1) % 3}"
        else:
            assert aec.agent_selection == agent


def test_observe_gives_each_agent_its_own_seat():
    aec = kc.raw_env(num_players=4)
    aec.reset(seed=2)
    for seat, agent in enumerate(aec.possible_agents):
        vec = aec.observe(agent)["observation"]
        np.testing.assert_array_equal(vec, obs_mod.encode(aec.game, seat))
        assert obs_mod.decode(vec).hand == tuple(sorted(aec.game.hands[seat]))


@pytest.mark.parametrize("num_players", PLAYERS)
def test_win_loss_rewards(num_players):
    for seed in range(8):
        aec = kc.raw_env(num_players=num_players)
        log = play(aec, seed=seed, policy_seed=seed)
        final = {agent: reward for agent, action, reward, term, trunc in log if term}
        assert set(final) == set(aec.possible_agents)
        state = aec.game
        if state.winner is None:
            assert all(r == 0 for r in final.values())
        else:
            for seat, agent in enumerate(aec.possible_agents):
                expected = 1.0 if seat == state.winner else -1.0 / (num_players - 1)
                assert final[agent] == pytest.approx(expected)
        assert sum(final.values()) == pytest.approx(0)


def test_score_rewards_are_minus_the_normalised_penalty():
    for seed in range(10):
        aec = kc.raw_env(rules="pagat", num_players=3, reward="score")
        log = play(aec, seed=seed)
        final = {agent: reward for agent, action, reward, term, trunc in log if term}
        norm = 7 * 10  # hand_size x the costliest card (K, 10) of the standard table
        penalties = engine.deal_penalties(aec.game)
        assert [final[a] for a in aec.possible_agents] == pytest.approx([-p / norm for p in penalties])


def test_match_episode_plays_deals_until_the_match_is_over():
    aec = kc.raw_env(rules="german", num_players=2, episode="match")
    log = play(aec, seed=3)
    assert log[-1][3] and aec.agents == []  # every agent stepped out after the match
    aec2 = kc.raw_env(rules="german", num_players=2, episode="match")
    aec2.reset(seed=3)
    rng = np.random.default_rng(0)
    while not any(aec2.terminations.values()):
        aec2.step(int(rng.choice(np.flatnonzero(aec2.observe(aec2.agent_selection)["action_mask"]))))
    match = aec2.match
    assert match.is_over and max(match.totals) >= 5 and len(match.history) >= 5
    winners = match.winners
    for seat, agent in enumerate(aec2.agents):
        padded = list(winners) + [kc.NO_WINNER] * (2 - len(winners))  # one entry a seat (issue 36)
        assert aec2.infos[agent]["match"] == {"winners": padded, "totals": list(match.totals)}
        assert aec2._cumulative_rewards[agent] == pytest.approx(1.0 if seat in winners else -1.0)
        assert obs_mod.decode(aec2.observe(agent)["observation"]).scores[0] == pytest.approx(match.totals[seat] / 5)


def test_score_rewards_in_a_match_add_up_to_the_totals():
    aec = kc.raw_env(rules="standard", num_players=3, episode="match", reward="score")
    aec.reset(seed=4)
    earned = dict.fromkeys(aec.possible_agents, 0.0)
    rng = np.random.default_rng(1)
    while not any(aec.terminations.values()):
        aec.step(int(rng.choice(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"]))))
        for agent, reward in aec.rewards.items():
            earned[agent] += reward
    assert aec.match.is_over
    assert [earned[a] for a in aec.possible_agents] == pytest.approx([-t / 70 for t in aec.match.totals])


def test_truncation_after_max_moves():
    aec = kc.raw_env(num_players=2, max_moves=5)
    log = play(aec, seed=0)
    assert sum(1 for entry in log if entry[1] is not None) == 5
    assert all(trunc and not term and reward == 0 for _, action, reward, term, trunc in log if action is None)


def test_match_truncation_after_max_deals():
    aec = kc.raw_env(rules="standard", num_players=2, episode="match", max_deals=1, max_moves=3)
    log = play(aec, seed=0)
    assert all(trunc for _, action, _, _, trunc in log if action is None)
    assert aec.match.truncated and len(aec.match.history) == 1 and aec.match.history[0].truncated


def test_raw_env_raises_on_an_illegal_action_and_changes_nothing():
    aec = kc.raw_env(num_players=2)
    aec.reset(seed=0)
    agent = aec.agent_selection
    mask = aec.observe(agent)["action_mask"]
    before = aec.game.snapshot()
    for bad in (int(np.flatnonzero(mask == 0)[0]), actions.MOVE_OFFSET, actions.NUM_ACTIONS, -1):  # move N->N, past the end
        with pytest.raises(IllegalMove):
            aec.step(bad)
    assert aec.game.snapshot() == before and aec.agent_selection == agent
    assert not any(aec.terminations.values())


def test_env_ends_the_game_on_an_illegal_action_with_minus_one_for_the_offender():
    aec = kc.env(num_players=3)
    aec.reset(seed=0)
    offender = aec.agent_selection
    illegal = int(np.flatnonzero(aec.observe(offender)["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        aec.step(illegal)
    assert all(aec.terminations.values())
    rewards = {}
    for agent in aec.agent_iter():
        ob, reward, term, trunc, info = aec.last()
        assert term and not ob["action_mask"].any()
        rewards[agent] = reward
        aec.step(None)
    assert rewards == {a: (-1 if a == offender else 0) for a in ("player_0", "player_1", "player_2")}


def test_env_asserts_on_an_action_outside_the_space():
    aec = kc.env()
    aec.reset(seed=0)
    with pytest.raises(AssertionError):
        aec.step(actions.NUM_ACTIONS)


def test_reset_from_a_position():
    text = "N: 9H\nE: 4C\nS: 10S\nW: 7D\nNE: -\nSE: -\nSW: -\nNW: -\nhand 0: 8S KD QC\nhand 1: KS 5H 2C\nstock: 2D 9C\nturn: 1 drawn\n"
    aec = kc.raw_env(num_players=2)
    aec.reset(seed=0, options={"position": text})
    assert aec.agent_selection == "player_1"
    assert engine.to_text(aec.game) == text
    aec.step(actions.parse("play KS->NE"))
    assert aec.game.piles[4] == [parse_card("KS")]
    with pytest.raises(ValueError, match="2 hands"):
        kc.raw_env(num_players=3).reset(options={"position": text})


def test_options_are_checked():
    for kwargs in ({"episode": "season"}, {"reward": "points"}, {"max_moves": 0}, {"num_players": 7},
                   {"dealer": 2}, {"render_mode": "rgb"}, {"rules": "nope"}):
        with pytest.raises(ValueError):
            kc.raw_env(**kwargs)
    aec = kc.raw_env(rules={"preset": "pagat", "jokers": 2}, num_players=6, dealer=5)
    aec.reset(seed=0)
    assert aec.rules == Rules.preset("pagat", jokers=2) and aec.game.dealer == 5


@pytest.mark.parametrize("make", [kc.raw_env, kc.engine_env])
def test_numpy_whole_numbers_are_taken_for_num_players_and_max_moves(make):
    aec = make(num_players=np.int64(3), max_moves=np.int64(50), max_deals=np.array(2), dealer=np.int64(1))
    assert (aec.num_players, aec.max_moves, aec.max_deals, aec.dealer) == (3, 50, 2, 1)
    assert type(aec.num_players) is type(aec.max_moves) is type(aec.dealer) is int
    aec.reset(seed=0)
    assert aec.num_agents == 3


@pytest.mark.parametrize("kwargs, said", [
    ({"num_players": True}, "^num_players must be 2 to 6, not True$"),
    ({"num_players": np.bool_(True)}, "^num_players must be 2 to 6, not "),
    ({"num_players": 3.0}, "^num_players must be 2 to 6, not 3.0$"),
    ({"max_moves": True}, "^max_moves must be a whole number from 1 to 2,147,483,647, not True$"),
    ({"max_moves": 50.0}, "^max_moves must be a whole number from 1 to 2,147,483,647, not 50.0$"),
])
def test_bools_and_floats_are_still_refused_for_num_players_and_max_moves(kwargs, said):
    with pytest.raises(ValueError, match=said):
        kc.raw_env(**kwargs)


def test_render_ansi_shows_the_acting_seat_only():
    aec = kc.raw_env(num_players=3, render_mode="ansi")
    aec.reset(seed=7)
    aec.step(actions.END_TURN_ACTION)
    text = aec.render()
    seat = aec.game.current_player
    for name in ("NW", "NE", "SW", "SE", "stock", "player_0", "last moves", "end turn"):
        assert name in text
    assert "(you)" in text.splitlines()[6 + seat]
    for other in range(3):
        line = text.splitlines()[6 + other]
        assert (":" in line) == (other == seat)
    everything = kc.raw_env(num_players=3, render_mode="ansi", render_view="all")
    everything.reset(seed=7)
    assert all(":" in line for line in everything.render().splitlines()[6:9])


def test_render_human_prints(capsys):
    aec = kc.raw_env(render_mode="human")
    aec.reset(seed=0)
    assert aec.render() is None
    assert "stock" in capsys.readouterr().out


def test_true_is_not_action_one_and_odd_reset_options_are_refused():
    """Issue 18 item 18: True was taken as action 1; options={"position": 5} was an AttributeError;
    step after every agent was done was a KeyError."""
    env = kc.raw_env()
    env.reset(seed=1)
    with pytest.raises(IllegalMove, match="an action is a whole number 0..496, not True"):
        env.step(True)
    for options, message in (({"position": 5}, "must be a position written as text"), (5, "options must be a dict")):
        with pytest.raises(ValueError, match=message):
            env.reset(options=options)
    env.agents = []
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(496)


@pytest.mark.parametrize("action", [True, False, np.True_])
def test_a_bool_is_outside_the_action_space_of_env(action):
    """Issue 31 L-5: ``env().step(True)`` indexed the mask with a bool and raised numpy's "truth
    value ... is ambiguous"; a bool is no action, refused as a float or a string is."""
    env = kc.env()
    env.reset(seed=1)
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(action)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[-1]))  # the env goes on


@pytest.mark.parametrize("make", [kc.raw_env, kc.engine_env])
@pytest.mark.parametrize("call", [lambda aec: aec.step(0), lambda aec: aec.last(), lambda aec: aec.state(),
                                  lambda aec: aec.observe("player_0"), lambda aec: next(iter(aec.agent_iter()))])
def test_calls_before_reset_say_call_reset_first(make, call):
    """The newcomer's probe: ``raw_env().step(0)`` and ``raw_env().last()`` before ``reset`` were
    AttributeErrors, where ``state()`` said "call reset() first"."""
    with pytest.raises(RuntimeError, match=r"^call reset\(\) first$"):
        call(make())


@pytest.mark.parametrize("make, called", [(kc.env, "kings_corner_v0.env"), (kc.raw_env, "kings_corner_v0.raw_env")])
def test_an_unknown_keyword_names_the_env_called_and_its_options(make, called):
    """The newcomer's probe: ``env(num_player=3)`` and ``env(opponents="random")`` said
    "engine_env.__init__() got an unexpected keyword argument", naming an internal class."""
    with pytest.raises(TypeError) as caught:
        make(num_player=3)
    said = str(caught.value)
    assert said.startswith(f"{called} got an unexpected keyword argument 'num_player'; its options: rules, num_players, ")
    assert "render_view" in said and "\n" not in said
    with pytest.raises(TypeError) as caught:
        make(opponents="random")
    said = str(caught.value)
    assert said.startswith(f"{called} got an unexpected keyword argument 'opponents' (an option of the Gymnasium and "
                           "vector envs, KingsCorner-v0: every seat of this AEC env is an agent); its options: rules, ")
    assert "\n" not in said


@pytest.mark.parametrize("make", [kc.raw_env, kc.engine_env])
def test_an_unknown_reset_option_is_named_in_a_one_line_warning(make):
    """The newcomer's probe: ``reset(options={"positon": text})`` dealt a random deal, silently. It
    warns rather than refuses: PettingZoo's own ``api_test`` resets with ``{"options": 1}``."""
    text = engine.to_text(engine.new_deal("standard", 2, seed=1))
    aec = make(num_players=2)
    with pytest.warns(UserWarning, match=r"^unknown reset option 'positon'; the options are: position \(ignored\)$"):
        aec.reset(seed=0, options={"positon": text})
    with pytest.raises(ValueError, match="must be a position written as text"):  # a known key is still checked
        aec.reset(seed=0, options={"position": 5})


@pytest.mark.parametrize("episode", ["deal", "match"])
def test_an_episode_ended_by_an_illegal_action_has_the_infos_of_every_ended_episode(episode):
    """The newcomer's probe: after ``env()`` ended a game on an illegal action every agent's info
    was ``{}``, where every other ending (won, blocked, cut off) gives ``info["deal"]`` (and in a
    match ``info["match"]``): the docs promise one shape in every episode. As ``KingsCorner-v0``
    gives them: nobody won, nothing paid."""
    env = kc.env(num_players=3, episode=episode)
    env.reset(seed=1)
    obs = env.last()[0]
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    deal = {"winner": -1, "blocked": False, "truncated": False, "penalties": [0, 0, 0]}
    seen = 0
    for agent in env.agent_iter():
        info = env.last()[4]
        assert info["deal"] == deal and env.infos[agent] is info
        assert ("match" in info) == (episode == "match")
        if episode == "match":
            assert info["match"]["winners"] == [-1, -1, -1] and len(info["match"]["totals"]) == 3
        seen += 1
        env.step(None)
    assert seen == 3


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("make", [kc.env, kc.raw_env])
def test_a_copy_of_an_env_in_play_is_a_fresh_env_that_asks_for_reset(make, how):
    """The integrations probe: a copy of ``env()`` in mid-deal believed it had been reset around a
    fresh raw env (EzPickle makes the raw env again from its arguments), so reading
    ``agent_selection`` or stepping it raised AttributeError: the copy now asks for reset, as
    ``KingsCorner-v0``'s copy does."""
    import copy
    import pickle

    env = make()
    env.reset(seed=1)
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    with pytest.raises((RuntimeError, AssertionError), match="reset"):
        twin.step(legal)
    twin.reset(seed=1)
    env.reset(seed=1)
    assert twin.agent_selection == env.agent_selection
    assert np.array_equal(twin.observe(twin.agent_selection)["observation"], env.observe(env.agent_selection)["observation"])
