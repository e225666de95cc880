"""The turn search walks the vector kernel from what a seat sees, and reaches exactly the
positions the reference engine reaches (``kc_env.agents.turns``, ``kc_env.agents.view``).

Positions come from random play under random rules: every field of ``Rules`` that has a list of
values (``rules.CHOICES``) drawn at random, 2 to 6 players, so a new variant is covered without
anyone listing it here.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from kc_env import actions, engine, observation
from kc_env.agents import turns
from kc_env.engine import EndTurn, GameState
from kc_env.rules import CHOICES, PRESETS, Rules, RulesError
from kc_env.vector import VecGame
from kc_env.vector import kernel as K


def random_rules(rng: random.Random) -> Rules:
    """A preset with every variant of ``CHOICES`` overridden at random (half of the time each);
    one table in three plays jokers, same-suit corners and partial pile moves, where a rule
    model is easiest to get wrong."""
    while True:
        overrides = {k: rng.choice(v) for k, v in CHOICES.items() if rng.random() < 0.5}
        if rng.random() < 1 / 3:
            overrides.update(jokers=2, corner_build="same_suit", pile_moves="partial")
        try:
            return Rules.preset(rng.choice(sorted(PRESETS)), **overrides)
        except RulesError:
            continue


def random_positions(count: int, seed: int) -> list[GameState]:
    """``count`` positions, each a few random moves into a deal, with a turn under way."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = engine.new_deal(random_rules(rng), rng.randint(2, 6), seed=rng.randrange(10**9))
        for _ in range(rng.randrange(120)):
            if state.is_over:
                break
            engine.apply(state, rng.choice(engine.legal_moves(state)))
        if not state.is_over:
            out.append(state)
    return out


def key(state: GameState, seat: int) -> tuple:
    """What a position is, for the seat: its hand, every pile in order and the turn's flags (the
    two jokers are alike: which is which never changes a move)."""
    def same(c: int) -> int:
        return 52 if c >= 52 else c

    return (tuple(sorted(same(c) for c in state.hands[seat])), tuple(tuple(same(c) for c in p) for p in state.piles),
            bool(state.played), bool(state.moved))


def engine_ends(state: GameState, limit: int) -> set[tuple] | None:
    """Every position where the seat to act may end its turn (or has gone out), walked with the
    reference engine from the full state; None if there are more than ``limit`` positions."""
    seat = state.current_player
    seen, ends, todo = {key(state, seat)}, set(), [state]
    while todo:
        if len(seen) > limit:
            return None
        s = todo.pop()
        moves = engine.legal_moves(s)
        if s.is_over or any(isinstance(m, EndTurn) for m in moves):
            ends.add(key(s, seat))
        for move in moves if not s.is_over else ():
            if isinstance(move, EndTurn):
                continue
            t = engine.apply(s.copy(), move)
            k = key(t, seat)
            if k not in seen:
                seen.add(k)
                todo.append(t)
    return ends


def jokers_alike(vec: np.ndarray) -> np.ndarray:
    """The vector with the two jokers merged into one column wherever a card is one-hot: which
    joker is which inside a pile is not in the vector (``observation``'s one loss), so a walk
    from it may put the other joker on top after a part has moved."""
    out = np.array(vec)
    starts = [observation.SLICES["hand"].start] + [
        observation.SLICES[f"pile_{name}_{part}"].start for name in engine.PILE_NAMES for part in ("cards", "top", "bottom")]
    for at in starts:
        out[at + 52] += out[at + 53]
        out[at + 53] = 0
    return out


LIMIT = 3000
"""Positions a walk may visit: moving parts of piles back and forth under ``pile_moves: partial``
can reach millions of positions in one turn; those turns are left out here (the heuristic's
search filters such moves)."""


@pytest.mark.parametrize("seed", range(4))
def test_the_turn_search_reaches_exactly_the_positions_the_engine_reaches(seed):
    compared = 0
    for state in random_positions(60, seed):
        seat = state.current_player
        expected = engine_ends(state, LIMIT)
        if expected is None:
            continue
        found, complete = turns.turn_ends(observation.encode(state, seat), max_nodes=2 * LIMIT)
        assert complete, engine.to_text(state)
        compared += 1
        reached = []
        for end in found:
            s = state.copy()
            for a in end.actions:  # each line is legal in the engine, move by move
                assert engine.why_illegal(s, actions.decode(a)) is None, (engine.to_text(state), end.actions)
                engine.apply(s, actions.decode(a))
            reached.append(key(s, seat))
            np.testing.assert_array_equal(jokers_alike(end.observation), jokers_alike(observation.encode(s, seat)))
        assert len(reached) == len(set(reached)), "a position listed twice"
        assert set(reached) == expected, engine.to_text(state)
    assert compared >= 45


def test_the_seat_row_is_the_kernels_own_row_of_the_game():
    """Built from the observation alone, the row holds the seat's hand, every pile in order with
    the value of each joker, the cached tops and fits, the stock's size and the turn's flags,
    as the kernel holds them for the real game."""
    positions = random_positions(300, seed=11)
    game = VecGame(len(positions))
    tab = turns.alloc(1, True)
    for b, state in enumerate(positions):
        game.load(b, state)
        seat = state.current_player
        turns.load(observation.encode(state, seat), tab, 1)
        assert tab.hands[0, 0] == game.hands[b, seat]
        assert tab.S[0, K.SLEN] == game.S[b, K.SLEN] and tab.S[0, K.NP] == game.S[b, K.NP]
        for col in (K.DRAWN, K.PLAYED, K.MOVED):
            assert tab.S[0, col] == game.S[b, col]
        for p in range(8):
            n = game.pinfo[b, p, K.LEN]
            assert (tab.pinfo[0, p] == game.pinfo[b, p]).all(), (engine.to_text(state), p)
            both_inside = {52, 53} <= set(game.piles[b, p, 1:n - 1].tolist())
            if not both_inside:  # which joker is which inside a pile is not in the vector
                assert (tab.piles[0, p, :n] == game.piles[b, p, :n]).all(), (engine.to_text(state), p)
                for c in game.piles[b, p, :n]:
                    if c >= 52:
                        assert tab.S[0, K.JR + c - 52] == game.S[b, K.JR + c - 52]
                        assert tab.S[0, K.JC + c - 52] == game.S[b, K.JC + c - 52]
        for col in range(K.NUM_R):
            if col not in (K.R_MAX_MOVES, K.R_REWARD):
                assert tab.R[0, col] == game.R[b, col], col


def test_turn_ends_lists_ending_at_once_and_refuses_what_is_not_a_turn():
    state = engine.new_deal("standard", 2, seed=3)
    found, complete = turns.turn_ends(observation.encode(state, state.current_player))
    assert complete and () in [end.actions for end in found]
    with pytest.raises(ValueError, match="the seat to act"):
        turns.turn_ends(observation.encode(state, 1 - state.current_player))
    with pytest.raises(ValueError, match="one observation vector"):
        turns.turn_ends(np.zeros(7, np.float32))
