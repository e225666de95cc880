"""With every opponent random, ``LearnerGames.step`` is one compiled call (``kernel.learner_step``:
the moves, the endings kept, the next deals); with an outside opponent it is several
(``env_advance``, the opponents asked, ``keep_endings``, ``new_episodes``). Both must give the same
steps: the same games run through the second path (``_one_call`` off) return the same
observations, masks, rewards, dones and infos, and end in the same arrays."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from kc_env import Rules  # noqa: E402
from kc_env.vector import LearnerGames, learner_games  # noqa: E402


def comparable(info: dict) -> dict:
    info = dict(info, episode={k: v for k, v in info["episode"].items() if k != "t"})
    info["terminal_observation"] = info["terminal_observation"].tolist()
    return info


def play_both(make, steps: int, seed: int) -> int:
    """Step ``make()`` twice, one on each path, with the same actions (some illegal); returns
    how many episodes ended."""
    one, several = make(), make()
    several._one_call = False
    assert one._one_call
    rng = np.random.default_rng(seed)
    assert np.array_equal(one.reset(), several.reset())
    ended = 0
    for _ in range(steps):
        masks = one.action_masks()
        assert np.array_equal(masks, several.action_masks())
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        wrong = rng.random(len(acts)) < 0.01
        acts[wrong] = rng.integers(-1, 498, int(wrong.sum()))
        a, b = one.step(acts), several.step(acts)
        for x, y in zip(a[:3], b[:3], strict=True):
            assert np.array_equal(x, y)
        assert [comparable(i) for i in a[3] if i] == [comparable(i) for i in b[3] if i]
        ended += int(a[2].sum())
    for kind, arrays in one.state_arrays().items():
        for name, values in arrays.items():
            assert np.array_equal(values, several.state_arrays()[kind][name]), name
    return ended


@pytest.mark.parametrize("preset,n,max_moves", [("standard", 2, 1000), ("pagat", 3, 40), ("online", 5, 1000)])
def test_one_call_step_equals_the_outside_opponents_path(preset, n, max_moves):
    def make():
        return LearnerGames(16, rules=preset, num_players=n, seed=7, max_moves=max_moves, record=True)

    assert play_both(make, 150, seed=n) > 16


def test_a_deal_ending_before_the_learner_acts_is_dealt_again_on_both_paths(monkeypatch):
    """``learner_step`` deals an ended game again at most ``MAX_REDEALS`` times; a game still
    without a learner's turn goes on in ``_new_episodes``, drawing the deals the other path
    draws. Three deals a round, two cards a hand, six players: about one deal in four ends first."""
    monkeypatch.setattr(learner_games, "MAX_REDEALS", 3)
    rounds = []
    original = LearnerGames._new_episodes

    def counting(self, idx, rounds_left=3):
        rounds.append(rounds_left)
        return original(self, idx, rounds_left)

    monkeypatch.setattr(LearnerGames, "_new_episodes", counting)
    rules = Rules.preset("bicycle", hand_size=2)
    play_both(lambda: LearnerGames(16, rules=rules, num_players=6, seed=1), 150, seed=1)
    assert 2 in rounds, "no game of the one-call path needed dealing again after learner_step"
