"""The flat action layout (kc_env.actions): formula, round trips, names, and the legal mask
against the engine's legal moves over thousands of random games."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kc_env import PRESETS, IllegalMove, Rules, actions, engine
from kc_env.cards import parse_card
from kc_env.engine import END_TURN, MovePile, PlayCard

VARIANT_MIXES = {
    "jokers_partial": Rules.preset("standard", jokers=2, pile_moves="partial", draw="stuck"),
    "forced": Rules.preset("pagat", king_first=True, fill_spaces_first=True, must_play="all",
                           kings_on_sides=False),
    "same_suit_jokers": Rules.preset("bicycle", corner_build="same_suit", jokers=2, pile_moves="none",
                                     clear_complete_piles=True, blocked="fewest_cards"),
}
RULE_SETS = {name: Rules.preset(name) for name in sorted(PRESETS)} | VARIANT_MIXES
GAMES_PER_CASE = 40  # x (7 presets + 3 mixes) x 5 player counts = 2000 games
PROBE_EVERY = 8  # moves between two probes with an illegal action
MAX_MOVES = 300  # a random game that long is looping pile moves; its masks are checked already


def test_named_offsets_and_size():
    assert (actions.PLAY_OFFSET, actions.MOVE_OFFSET, actions.END_TURN_ACTION, actions.NUM_ACTIONS) == (0, 432, 496, 497)
    assert actions.ACTION_LAYOUT_VERSION == 1


def test_index_formula():
    for c in range(54):
        for p in range(8):
            assert actions.encode(PlayCard(c, p)) == c * 8 + p
    for s in range(8):
        for d in range(8):
            assert actions.encode(MovePile(s, d)) == 432 + s * 8 + d
    assert actions.encode(END_TURN) == 496


def test_round_trips_for_every_index():
    for i in range(actions.NUM_ACTIONS):
        move = actions.decode(i)
        assert actions.encode(move) == i
        assert actions.parse(actions.name(i)) == i
        assert actions.parse(engine.move_name(move)) == i
        assert actions.decode(np.int64(i)) == move
        assert actions.name(i) == engine.move_name(move)


def test_names_are_unique_and_readable():
    assert len(set(actions.NAMES)) == actions.NUM_ACTIONS
    assert actions.name(9 * 8 + 0) != actions.name(0)
    assert actions.name(actions.parse("play 9H->N")) == "play 9H->N"
    assert actions.name(actions.MOVE_OFFSET + 3 * 8 + 0) == "move W->N"
    assert actions.name(actions.MOVE_OFFSET + 2 * 8 + 2) == "move S->S"
    assert actions.name(actions.END_TURN_ACTION) == "end turn"
    assert actions.name(52 * 8 + 4) == "play JK->NE"
    assert actions.name(53 * 8 + 4) == "play JK2->NE"


def test_parse_accepts_the_engine_forms():
    nine_hearts_n = actions.encode(PlayCard(parse_card("9H"), 0))
    assert actions.parse("9H N") == actions.parse("play 9H N") == actions.parse("play 9♥->N") == nine_hearts_n
    assert actions.parse("end") == actions.parse("end turn") == actions.END_TURN_ACTION
    assert actions.parse("move W N") == actions.parse("move W->N") == actions.MOVE_OFFSET + 3 * 8 + 0
    with pytest.raises(ValueError):
        actions.parse("play 9H X")


def test_parse_joker_follows_the_hand_it_is_played_from():
    text = "N: 9H\nE: 4C\nS: 10S\nW: 7D\nNE: -\nSE: -\nSW: -\nNW: -\nhand 0: JK JK\nhand 1: KS\nstock: 2D\nturn: 0 drawn\n"
    state = engine.from_text(text, Rules.preset("standard", jokers=2))
    engine.apply(state, PlayCard(52, 4))
    assert actions.parse("play JK->N") == 52 * 8
    assert actions.parse("play JK->N", state) == 53 * 8


def test_bad_indices_and_moves():
    for bad in (-1, actions.NUM_ACTIONS, 10**6):
        with pytest.raises(ValueError):
            actions.decode(bad)
        with pytest.raises(ValueError):
            actions.name(bad)
    for bad in (1.5, "3", None):
        with pytest.raises(TypeError):
            actions.decode(bad)
    with pytest.raises(TypeError):
        actions.encode((1, 2))
    with pytest.raises(ValueError):
        actions.encode(PlayCard(54, 0))
    with pytest.raises(ValueError):
        actions.encode(MovePile(0, 8))


def test_self_moves_are_never_legal():
    for s in range(8):
        state = engine.new_deal("standard", 2, seed=s)
        with pytest.raises(IllegalMove):
            engine.apply(state, actions.decode(actions.MOVE_OFFSET + s * 9))


def _check_mask(state: engine.GameState, legal: list[int]) -> None:
    mask = actions.legal_mask(state)
    assert mask.dtype == np.int8 and mask.shape == (actions.NUM_ACTIONS,)
    assert np.flatnonzero(mask).tolist() == sorted(legal)
    assert mask.any(), "all-zero mask on a live turn:\n" + engine.to_text(state)


def _probe_illegal(state: engine.GameState, legal: list[int], rng: random.Random) -> None:
    """A masked-out action is refused by the engine and leaves the state as it was."""
    allowed = set(legal)
    illegal = rng.choice([i for i in range(actions.NUM_ACTIONS) if i not in allowed])
    before = state.snapshot()
    with pytest.raises(IllegalMove):
        engine.apply(state, actions.decode(illegal))
    assert state.snapshot() == before


@pytest.mark.parametrize("num_players", range(2, 7))
@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_mask_matches_legal_moves_in_random_games(rules_name, num_players):
    rules = RULE_SETS[rules_name]
    for seed in range(GAMES_PER_CASE):
        rng = random.Random(seed)
        state = engine.new_deal(rules, num_players, seed=seed, dealer=seed % num_players)
        while not state.is_over and state.move_count < MAX_MOVES:
            legal = [actions.encode(m) for m in engine.legal_moves(state)]
            _check_mask(state, legal)
            if state.move_count % PROBE_EVERY == 0:
                _probe_illegal(state, legal, rng)
            engine.apply(state, actions.decode(rng.choice(legal)))
        if state.is_over:
            assert not actions.legal_mask(state).any()
