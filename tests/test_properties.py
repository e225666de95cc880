"""Property tests over random games (hypothesis): the invariants of the engine hold for every
preset, random overrides of every field of ``Rules`` (``rule_fuzz``) and 2 to 6 players."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rule_fuzz import any_rules as variant_rules

from kc_env import GAME_INFO, PRESETS, IllegalMove, Rules, engine
from kc_env.engine import END_TURN, MovePile, PlayCard
from kc_env.invariants import violations

MAX_MOVES = 600

presets = st.sampled_from(sorted(PRESETS))
players = st.integers(min_value=GAME_INFO.min_num_players, max_value=GAME_INFO.max_num_players)
seeds = st.integers(min_value=0, max_value=2**32)
any_rules = st.one_of(presets.map(Rules.preset), variant_rules())  # hands that deal to any table
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_game(rules: Rules, n: int, seed: int, each_move=None):
    """Play random legal moves until the deal ends or MAX_MOVES; returns (state, moves)."""
    state = engine.new_deal(rules, n, seed=seed)
    rng = random.Random(seed)
    moves = []
    while not state.is_over and len(moves) < MAX_MOVES:
        move = rng.choice(engine.legal_moves(state))
        engine.apply(state, move)
        moves.append(move)
        if each_move:
            each_move(state, rng)
    return state, moves


@SETTINGS
@given(any_rules, players, seeds)
def test_invariants_hold_after_every_move(rules, n, seed):
    """All cards accounted for, every pile legal, a legal move on every live turn."""
    state = engine.new_deal(rules, n, seed=seed)
    assert violations(state) == []

    def check(state, rng):
        assert violations(state) == [], engine.to_text(state)

    random_game(rules, n, seed, check)


def random_move(rng: random.Random):
    kind = rng.random()
    if kind < 0.6:
        return PlayCard(rng.randrange(54), rng.randrange(8))
    if kind < 0.95:
        return MovePile(rng.randrange(8), rng.randrange(8))
    return END_TURN


@SETTINGS
@given(any_rules, players, seeds)
def test_illegal_moves_raise_and_change_nothing(rules, n, seed):
    """An illegal move raises IllegalMove naming the reason and leaves the state as it was;
    every listed legal move is accepted."""

    def probe(state, rng):
        legal = set(engine.legal_moves(state))
        for _ in range(8):
            move = random_move(rng)
            if move in legal:
                assert engine.why_illegal(state, move) is None
                continue
            before = state.snapshot()
            try:
                engine.apply(state, move)
            except IllegalMove as exc:
                assert ": " in str(exc) and len(str(exc).split(": ", 1)[1]) > 5
            else:
                raise AssertionError(f"{move} was applied but is not in legal_moves")
            assert state.snapshot() == before

    random_game(rules, n, seed, probe)


@SETTINGS
@given(any_rules, players, seeds)
def test_same_seed_and_moves_give_the_same_game(rules, n, seed):
    """Determinism: replaying the moves from the same seed gives the identical state."""
    state, moves = random_game(rules, n, seed)
    again = engine.new_deal(rules, n, seed=seed)
    for move in moves:
        engine.apply(again, move)
    assert again.snapshot() == state.snapshot()


@SETTINGS
@given(any_rules, players, seeds)
def test_every_random_game_ends(rules, n, seed):
    """Every deal ends by going out or blocking, or is cut off by truncation (MAX_MOVES)."""
    state, moves = random_game(rules, n, seed)
    if state.is_over:
        assert state.blocked or (state.winner is not None and not state.hands[state.winner])
    else:
        assert len(moves) == MAX_MOVES


@SETTINGS
@given(any_rules, players, seeds)
def test_position_text_round_trips(rules, n, seed):
    """to_text then from_text gives back the same position, at every point of a game."""

    def round_trip(state, rng):
        text = engine.to_text(state)
        assert engine.to_text(engine.from_text(text, state.rules)) == text

    random_game(rules, n, seed, round_trip)


@SETTINGS
@given(any_rules, players, seeds)
def test_copy_is_independent(rules, n, seed):
    """A copy plays on without touching the original."""
    state = engine.new_deal(rules, n, seed=seed)
    before = state.snapshot()
    clone = state.copy()
    assert clone.snapshot() == before
    rng = random.Random(seed)
    while not clone.is_over and clone.move_count < 200:
        engine.apply(clone, rng.choice(engine.legal_moves(clone)))
    assert state.snapshot() == before
