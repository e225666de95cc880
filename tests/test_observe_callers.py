"""A seat's observation is built one way, ``kc_env.play.observe``: the OpenSpiel ``AgentBot`` and
the benchmark's frozen-opponent lock (``benchmark.freeze.opponent_moves``) ask it, so whatever
an agent is shown there is what the tournament, ``kc play`` and the web table show it."""

from __future__ import annotations

import numpy as np
import pytest

from kc_env import engine, play
from kc_env.agents import Agent
from kc_env.rules import Rules


class Watcher(Agent):
    """Plays the first legal action and keeps every observation it is given."""

    spec = "watcher"

    def __init__(self) -> None:
        self.seen: list[dict[str, np.ndarray]] = []

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, obs) -> int:
        self.seen.append(obs)
        return int(np.flatnonzero(obs["action_mask"])[0])


@pytest.fixture
def observed(monkeypatch) -> list[dict[str, np.ndarray]]:
    """Every observation ``play.observe`` makes while the test runs."""
    made, real = [], play.observe

    def spy(state, seat=None, totals=None):
        made.append(real(state, seat, totals))
        return made[-1]

    monkeypatch.setattr(play, "observe", spy)
    return made


def test_an_agent_bot_is_shown_what_play_observe_makes(observed):
    pytest.importorskip("pyspiel")
    import pyspiel

    from kc_env.openspiel import AgentBot
    from kc_env.openspiel.game import KingsCornerGame

    state = pyspiel.load_game("python_kings_corner", {"players": 3, "rules": "pagat"}).new_initial_state()
    assert isinstance(state.get_game(), KingsCornerGame)
    rng = np.random.RandomState(0)
    while state.is_chance_node():
        state.apply_action(int(rng.choice(state.legal_actions())))
    watcher = Watcher()
    bot = AgentBot(watcher)
    for _ in range(5):
        state.apply_action(bot.step(state))
        assert observed and watcher.seen[-1] is observed[-1], "the bot's agent was not shown play.observe's dict"
    assert len(observed) == len(watcher.seen) == 5


def test_the_frozen_opponents_are_shown_what_play_observe_makes(observed, monkeypatch):
    from kc_env.benchmark import freeze

    watcher = Watcher()
    monkeypatch.setattr(freeze, "load", lambda spec, seed=None: watcher)
    positions = freeze.draw_positions("standard", 2)[:4]
    freeze.opponent_moves("watcher", "standard", positions)
    assert len(observed) == len(watcher.seen) == 4
    assert all(a is b for a, b in zip(watcher.seen, observed, strict=True))
    first = engine.from_text(positions[0], Rules.preset("standard"))
    want = play.observe(first)
    assert all(np.array_equal(want[k], watcher.seen[0][k]) for k in ("observation", "action_mask"))
