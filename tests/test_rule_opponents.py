"""Greedy and the heuristic as the vector env's opponents are played inside its compiled step
(``kc_env.vector.rule_opponents``): the whole step in one call when no opponent is asked from
Python, else each waiting game's compiled opponents in one call between the outside ones. Both
must play exactly what the same agents play when the env asks them from Python, batch by batch
(``act_batch``, the path every other opponent takes): the same observations, masks, rewards,
dones, infos and moves, and the same arrays at the end."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from kc_env.agents.batch import compiled_form, rule_based  # noqa: E402
from kc_env.agents.heuristic.weights import HEURISTIC_WEIGHTS  # noqa: E402
from kc_env.compiled import njit, take_next  # noqa: E402
from kc_env.vector import LearnerGames  # noqa: E402


class Asked:
    """The same batched agent, but an object: the env asks it from Python."""

    def __init__(self, name: str, weights=None) -> None:
        self.policy = rule_based(name, weights)

    def act_batch(self, obs, masks):
        return self.policy(obs, masks)


def comparable(info: dict) -> dict:
    info = dict(info, episode={k: v for k, v in info["episode"].items() if k != "t"})
    info["terminal_observation"] = info["terminal_observation"].tolist()
    return info


def play_side_by_side(envs: list[LearnerGames], steps: int, seed: int) -> int:
    """Step every env with the same actions (a few illegal); all must return the same. Returns
    how many episodes ended."""
    rng = np.random.default_rng(seed)
    first = [env.reset() for env in envs]
    assert all(np.array_equal(first[0], o) for o in first[1:])
    ended = 0
    for _ in range(steps):
        masks = envs[0].action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        wrong = rng.random(len(acts)) < 0.01
        acts[wrong] = rng.integers(-1, 498, int(wrong.sum()))
        results = [env.step(acts) for env in envs]
        for other in results[1:]:
            for x, y in zip(results[0][:3], other[:3], strict=True):
                assert np.array_equal(x, y)
            assert [comparable(i) for i in results[0][3] if i] == [comparable(i) for i in other[3] if i]
        for env in envs[1:]:
            assert np.array_equal(envs[0].action_masks(), env.action_masks())
        ended += int(results[0][2].sum())
    for kind, arrays in envs[0].state_arrays().items():
        for env in envs[1:]:
            for name, values in arrays.items():
                assert np.array_equal(values, env.state_arrays()[kind][name]), name
    return ended


SEATS = {  # per table: the compiled specs, and the same agents asked from Python
    "heuristic": (["heuristic"], [Asked("heuristic")]),
    "greedy": (["greedy"], [Asked("greedy")]),
    "weighted": (["heuristic:card=1.3,block=2"], [Asked("heuristic", {"card": 1.3, "block": 2.0})]),
    "two heuristics": (["heuristic", "heuristic:card=1.3"], [Asked("heuristic"), Asked("heuristic", {"card": 1.3})]),
}


@pytest.mark.parametrize("preset,n,table,games", [("standard", 2, "heuristic", 24), ("standard", 2, "greedy", 24),
                                                  ("pagat", 3, "weighted", 24), ("online", 4, "heuristic", 24),
                                                  ("bicycle", 3, "greedy", 24), ("standard", 3, "two heuristics", 24),
                                                  ("standard", 2, "heuristic", 5), ("pagat", 3, "greedy", 3)])
def test_compiled_opponents_play_what_they_play_when_asked(preset, n, table, games):
    """24 games are shared among the cores; 5 and 3 are played on the calling core."""
    compiled, asked = SEATS[table]

    def make(opponents, one_call=True):
        seats = opponents if len(opponents) == n - 1 else opponents * (n - 1)
        env = LearnerGames(games, rules=preset, num_players=n, opponents=seats, seed=5, record=True)
        env._one_call = env._one_call and one_call
        return env

    one_call, between_calls, from_python = make(compiled), make(compiled, one_call=False), make(asked)
    assert one_call._one_call and not from_python._one_call
    assert play_side_by_side([from_python, one_call, between_calls], 120, seed=n) > games


def test_a_table_mixing_compiled_random_and_outside_opponents():
    """Seats asked from Python between compiled ones: each game's compiled opponents play on
    until its outside opponent is to choose, then on again after it."""
    outside = Asked("heuristic", {"fit_close": 0.5})
    mixed = LearnerGames(20, rules="standard", num_players=4, opponents=["greedy", outside, "heuristic"], seed=9,
                         record=True)
    asked = LearnerGames(20, rules="standard", num_players=4, opponents=[Asked("greedy"), outside,
                                                                         Asked("heuristic")], seed=9, record=True)
    assert not mixed._one_call
    assert play_side_by_side([asked, mixed], 100, seed=4) > 10
    assert mixed.rule_based_decisions > 0 and asked.rule_based_decisions == 0


def test_the_decisions_of_compiled_opponents_are_counted():
    env = LearnerGames(8, num_players=3, opponents="heuristic", seed=2)
    env.reset()
    dealt = env.rule_based_decisions
    env.step(np.full(8, 496))  # every learner ends its turn: both opponents play theirs
    assert env.rule_based_decisions >= dealt + 2 * 8


def test_compiled_form_names_what_the_env_can_play_inside_its_step():
    assert compiled_form("greedy") == ("greedy", None)
    name, weights = compiled_form("heuristic")
    assert name == "heuristic" and np.array_equal(weights, HEURISTIC_WEIGHTS)
    name, weights = compiled_form("heuristic:card=1.3")
    assert name == "heuristic" and not np.array_equal(weights, HEURISTIC_WEIGHTS)
    assert compiled_form("random") is None and compiled_form("search") is None
    assert compiled_form(Asked("greedy")) is None  # an object's weights could change after
    with pytest.raises(ValueError, match="agent spec"):
        compiled_form("heuristic:nonsense=1")


@njit
def _take_all(counter, n):
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = take_next(counter)
    return out


def test_take_next_hands_out_each_number_once():
    counter = np.array([5], dtype=np.int64)
    assert _take_all(counter, 4).tolist() == [5, 6, 7, 8]
    assert counter[0] == 9
