"""OpenSpiel's tools on kc_env agents and back (``kc_env.openspiel``): the re-deal that IS-MCTS
takes keeps the seat's information state, a seat's position rebuilt from its observation alone
is the one it sees, kc_env agents play as ``pyspiel.Bot``s and OpenSpiel bots as kc_env agents."""

from __future__ import annotations

import pickle
import random
import re

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots  # noqa: E402

from kc_env import actions, engine, kings_corner_v0, observation  # noqa: E402
from kc_env.openspiel import (  # noqa: E402
    SHORT_NAME,
    AgentBot,
    BotAgent,
    ISMCTSAgent,
    ISMCTSMaker,
    resample,
    resampler,
    seat_position,
)
from kc_env.tournament import run_tournament  # noqa: E402


def load(rules: str = "standard", players: int = 2) -> pyspiel.Game:
    return pyspiel.load_game(SHORT_NAME, {"players": players, "rules": rules})


def random_state(game: pyspiel.Game, seed: int, moves: int):
    """A state after the deal and ``moves`` random steps (chance ones included), at a decision."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while (moves > 0 or state.is_chance_node()) and not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        moves -= state.table.deal is not None
    return random_state(game, seed + 1000, moves // 2) if state.is_terminal() else state


@pytest.mark.parametrize("rules, players", [("standard", 2), ("pagat", 3), ("standard;jokers:2", 5)])
def test_a_resample_keeps_what_the_seat_knows_and_deals_the_rest_anew(rules, players):
    game = load(rules, players)
    hands_seen = set()
    for seed in range(20):
        state = random_state(game, seed, moves=seed * 3)
        seat = state.current_player()
        other = resample(state, seat, random.Random(seed))
        assert other.current_player() == seat and not other.is_chance_node()
        assert other.information_state_string(seat) == state.information_state_string(seat)
        np.testing.assert_array_equal(other.observation_tensor(seat), state.observation_tensor(seat))
        assert other.legal_actions() == state.legal_actions()
        assert other.history() == state.history()
        hands_seen.add(tuple(map(tuple, other.table.deal.hands)) != tuple(map(tuple, state.table.deal.hands)))
        assert state.table.deal.hands[seat] == other.table.deal.hands[seat]
    assert hands_seen == {True}


def test_a_resampler_is_reproducible_and_resamples_a_deal_being_made():
    state = load().new_initial_state()
    state.apply_action(7)
    first, second = resampler(5)(state, 0), resampler(5)(state, 0)
    assert first.table.top == second.table.top and first.is_chance_node() and state.table.top == [7]
    assert len({tuple(resampler(seed)(state, 0).table.top) for seed in range(10)}) > 1


@pytest.mark.parametrize("rules, players", [("standard", 2), ("printable", 4), ("standard;jokers:2", 3),
                                            ("pagat;pile_moves:partial", 6)])
def test_a_position_from_an_observation_is_the_one_the_seat_sees(rules, players):
    game, swaps = load(rules, players), set()
    for seed in range(40 if "jokers" in rules else 15):
        state = random_state(game, seed, moves=seed * 4)
        seat = state.current_player()
        vec = observation.encode(state.table.deal, seat)
        position = seat_position(vec, random.Random(seed))
        seen = observation.encode(position.state.table.deal, 0)
        np.testing.assert_array_equal(swap_jokers(seen) if position.jokers_swapped else seen, vec)
        assert sorted(map(position.real_action, position.state.legal_actions())) == state.legal_actions()
        assert position.state.current_player() == 0
        swaps.add(position.jokers_swapped)
    assert swaps == ({False, True} if "jokers" in rules else {False})


def swap_jokers(vec: np.ndarray) -> np.ndarray:
    """``vec`` with the one-hot places of the two jokers swapped in every card block."""
    out = vec.copy()
    starts = [0] + [observation.PILE_START + p * observation.PILE_BLOCK + k * 54 for p in range(8) for k in range(3)]
    for start in starts:
        out[[start + 52, start + 53]] = vec[[start + 53, start + 52]]
    return out


def test_kc_env_agents_play_as_openspiel_bots():
    game = load("pagat", 3)
    rng = np.random.RandomState(0)
    for deal in range(3):
        bots = [AgentBot("heuristic", seed=deal), AgentBot("random", seed=deal), AgentBot("greedy", seed=deal)]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert len(returns) == 3 and abs(sum(returns)) < 1e-9


def test_an_openspiel_bot_plays_a_whole_deal_as_a_kc_env_agent():
    """IS-MCTS with a few simulations, seated in the PettingZoo env through its observations."""
    env = kings_corner_v0.env(rules="standard", num_players=2)
    env.reset(seed=3)
    players = {"player_0": ISMCTSAgent(seed=0, simulations=3), "player_1": AgentBot("random").agent}
    decisions = 0
    for agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        decisions += agent == "player_0" and not (termination or truncation)
        env.step(None if termination or truncation else players[agent].act(obs))
    assert env.unwrapped.game.is_over and decisions >= 10


def test_a_bot_agent_refuses_an_illegal_choice():
    class Stubborn(pyspiel.Bot):
        def __init__(self):
            pyspiel.Bot.__init__(self)

        def step(self, state):
            return actions.END_TURN_ACTION - 1  # move NW->NW: never legal

    agent = BotAgent(lambda game, seat, seed: Stubborn(), seed=0, label="stubborn")
    deal = engine.new_deal("standard", 2, seed=0)
    obs = {"observation": observation.encode(deal, deal.current_player), "action_mask": actions.legal_mask(deal)}
    with pytest.raises(ValueError, match="stubborn chose move NW->NW, which is not legal here"):
        agent.act(obs)


def _seat_obs() -> dict:
    deal = engine.new_deal("standard", 2, seed=0)
    return {"observation": observation.encode(deal, deal.current_player), "action_mask": actions.legal_mask(deal)}


@pytest.mark.parametrize("garbage, said", [
    (lambda obs: obs["observation"], "^an agent acts on an observation dict .*, not ndarray$"),
    (lambda obs: {"observation": obs["observation"]}, "^an agent acts on an observation dict .*, not a dict without"),
    (lambda obs: {**obs, "action_mask": obs["action_mask"][:3]}, r"^an action mask is 497 numbers, not shape \(3,\)"),
    (lambda obs: {**obs, "action_mask": obs["action_mask"][None]}, r"^an action mask is 497 numbers, not shape \(1, 497\)"),
    (lambda obs: {**obs, "action_mask": obs["action_mask"].astype(str)}, "^an action mask is 497 numbers, not .* of <U"),
    (lambda obs: {**obs, "observation": obs["observation"][:5]}, r"^an observation vector is at least 1599 numbers, not shape \(5,\)"),
])
def test_a_bot_agent_refuses_a_garbage_observation_in_one_line(garbage, said):
    agent = ISMCTSAgent(seed=0, simulations=2)
    with pytest.raises(ValueError, match=said) as caught:
        agent.act(garbage(_seat_obs()))
    assert "\n" not in str(caught.value)


def test_a_tournament_seats_an_openspiel_bot():
    """Copied into two worker processes, as ``kc eval`` and ``kc benchmark`` seat agents."""
    result = run_tournament([ISMCTSAgent(seed=0, simulations=2), "random"], "standard", 2, deals=2, seed=0,
                            workers=2, ratings=False)
    assert result.episodes == 2 and result.agents == ["ismcts:2", "random"] and result.workers == 2
    agent = pickle.loads(pickle.dumps(ISMCTSAgent(seed=1, simulations=2)))
    assert agent.maker == ISMCTSMaker(2)


@pytest.mark.slow
def test_ismcts_beats_random():
    """IS-MCTS (50 simulations a decision, random roll-outs) against random, 20 deals."""
    game = load()
    wins = 0
    for deal in range(20):
        seats = [ISMCTSMaker(50)(game, 0, deal), AgentBot("random", seed=deal)]
        seats = seats if deal % 2 == 0 else seats[::-1]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), seats, np.random.RandomState(deal))
        wins += returns[deal % 2] > 0
    assert wins >= 14


@pytest.mark.parametrize("settings, said", [
    ({"simulations": 0}, "simulations must be a whole number from 1 to 1,000,000, not 0"),
    ({"simulations": -1}, "simulations must be a whole number from 1 to 1,000,000, not -1"),
    ({"simulations": "5"}, "simulations must be a whole number from 1 to 1,000,000, not '5'"),
    ({"simulations": True}, "simulations must be a whole number from 1 to 1,000,000, not True"),
    ({"rollouts": 0}, "rollouts must be a whole number from 1 to 1,000,000, not 0"),
    ({"uct_c": -1.0}, "uct_c must be a number of at least 0, not -1.0"),
    ({"uct_c": float("nan")}, "uct_c must be a number of at least 0, not nan"),
])
def test_ismcts_settings_are_checked_when_made(settings, said):
    """The integrations probe: ``ISMCTSAgent(simulations=-1)`` (0, "5") was made, then its first
    move raised an empty AssertionError or a TypeError inside OpenSpiel."""
    with pytest.raises(ValueError, match=re.escape(said)):
        ISMCTSMaker(**settings)
    if "simulations" in settings:
        with pytest.raises(ValueError, match=re.escape(said)):
            ISMCTSAgent(simulations=settings["simulations"])


def test_ismcts_takes_numpy_whole_numbers():
    assert ISMCTSMaker(np.int64(3), np.float32(1.5), np.int32(2)) == ISMCTSMaker(3, 1.5, 2)
