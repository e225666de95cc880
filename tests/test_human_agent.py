"""The person's seat (``agents.human``): typed moves read against the legal ones."""

from __future__ import annotations

import pytest
from positions import position

from kc_env import actions, engine
from kc_env.agents.human import HumanAgent
from kc_env.cards import JOKERS
from kc_env.play import observe


@pytest.mark.parametrize(("held", "typed"), [(JOKERS[1], "JK N"), (JOKERS[0], "JK N"), (JOKERS[1], "JK2 N")])
def test_jk_names_the_joker_the_player_holds(held, typed):
    state = position("N: 9H\nhand 0: JK 4C\nhand 1: 2C\nstock: 3H", jokers=2)
    state.hands[0][0] = held  # the position text reads every joker as the first
    answers = iter([typed])
    agent = HumanAgent(read=lambda prompt: next(answers), write=lambda text: None)
    action = agent.act(observe(state))
    assert actions.is_play(action) and actions.play_card_of(action) == held
    assert actions.play_pile_of(action) == engine.PILE_INDEX["N"]
