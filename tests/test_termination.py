"""RULES.md 4.8, "Every deal ends": under every combination of the rules and 2 to 6 players, a
deal ends (a player goes out, or it is blocked) within ``move_bound`` moves whatever the players
do, with no truncation at all. Adversarial policies try to keep a deal going: always pass,
shuttle pile parts back and forth, pass while a card fits (under ``draw: stuck`` such a player
never draws), cling to the last card, or play at random.

The bound is the one RULES.md 4.8 proves; the small run is in the default suite, ``-m slow``
plays many more deals.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import play, position
from rule_fuzz import any_rules

from kc_env import engine
from kc_env.engine import END_TURN, EndTurn, MovePile, PlayCard

POLICIES = ("pass", "shuttle", "cling", "random")


def move_bound(num_players: int, idle_limit: int) -> int:
    """RULES.md 4.8: the most moves a deal can take. Between two cleared piles (an *epoch*) at
    most 54 cards are drawn and 54 played, and at most 20 + 3 x 54 pile moves leave a space
    (2 x the piles in use + the sides in use is at most 20, falls by one at least with each such
    move and grows by 3 at most with a card play), so at most 290 turns per epoch make
    progress; with at most ``MAX_CLEARED - 1`` piles cleared before the last turn and 4 in it
    there are at most ``MAX_CLEARED + 4`` epochs, E = 290 x that. At most ``idle_limit - 1``
    turns in a row make no progress, and a turn holds at most one move that is no progress (a
    part moved from pile to pile) besides its end."""
    del num_players  # the bound holds for any table; kept to say so at the call
    events = (engine.MAX_CLEARED + 4) * (54 + 54 + 20 + 3 * 54)
    turns = (events + 1) * idle_limit
    return 2 * turns + events


def choose(policy: str, state: engine.GameState, rng: random.Random):
    """The move an adversarial ``policy`` makes (always a legal one)."""
    moves = engine.legal_moves(state)
    ends = [m for m in moves if isinstance(m, EndTurn)]
    piles = [m for m in moves if isinstance(m, MovePile)]
    if policy == "pass":
        return ends[0] if ends else moves[0]
    if policy == "shuttle":  # a part to and fro when it can, else pass
        partial = [m for m in piles if state.piles[m.dst] and engine._part_start(state, m.src, m.dst) not in (None, 0)]
        return rng.choice(partial or piles or ends or moves)
    if policy == "cling":  # random, but never the last card, and pass often
        hand = state.hands[state.current_player]
        keep = [m for m in moves if not (isinstance(m, PlayCard) and len(hand) == 1)]
        if ends and rng.random() < 0.3:
            return ends[0]
        return rng.choice(keep or moves)
    return rng.choice(moves)


def play_out(rules, n: int, seed: int, policies: tuple[str, ...]) -> engine.GameState:
    """One deal with seat ``s`` played by ``policies[s]``, until it ends or passes the bound."""
    state = engine.new_deal(rules, n, seed=seed)
    rng = random.Random(seed)
    bound = move_bound(n, engine.idle_limit(state))
    while not state.is_over and state.move_count <= bound:
        engine.apply(state, choose(policies[state.current_player], state, rng))
    return state


def check_ends(rules, n: int, seed: int, policies: tuple[str, ...]) -> None:
    state = play_out(rules, n, seed, policies)
    assert state.is_over, (f"{rules.to_dict()}, {n} players, seed {seed}, {policies}: not over after "
                           f"{state.move_count} moves\n{engine.to_text(state)}")
    assert state.blocked or not state.hands[state.winner]


@st.composite
def tables(draw):
    n = draw(st.integers(2, 6))
    rules = draw(any_rules(num_players=n))
    policies = tuple(draw(st.sampled_from(POLICIES)) for _ in range(n))
    return rules, n, draw(st.integers(0, 2**32)), policies


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_every_deal_ends_within_the_bound(table):
    check_ends(*table)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_every_deal_ends_within_the_bound_large(table):
    check_ends(*table)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("overrides", [
    {"pile_moves": "partial"}, {"draw": "stuck"}, {"draw": "stuck", "pile_moves": "partial"},
    {"clear_complete_piles": True, "hand_size": 12}, {"must_play": "all", "pile_moves": "partial"},
])
def test_the_loops_the_audit_found_end(policy, overrides):
    """The audit's loops (M1): parts shuttled under ``partial``, passes under ``stuck``; every
    seat plays the same adversarial policy."""
    for n in (2, 6):
        rules = engine.Rules(**overrides)
        if n * rules.hand_size + 4 > rules.deck_size:
            rules = rules.replace(hand_size=7)
        check_ends(rules, n, 11 * n, (policy,) * n)


# -- the rule, position by position (audit M1) -----------------------------------------------

SHUTTLE = "N: 9H\nE: QH\nS: JD\nNE: KC QD JS 10H\nhand 0: 2S 5D\nhand 1: 5H\nturn: 0"


def test_a_part_shuttled_between_piles_is_no_progress():
    """RULES.md 4.8 (audit M1): a part moved from pile to pile leaves cards behind and can go
    back, so it is no progress: NE->E, end, E->NE, end blocks the deal after the full round."""
    state = position(SHUTTLE, pile_moves="partial")
    play(state, "move NE E", "end")
    assert state.idle_turns == 1 and not state.is_over
    play(state, "move E NE", "end")
    assert state.is_over and state.blocked and state.winner is None


def test_a_part_may_move_only_as_the_first_pile_move_of_a_turn():
    """RULES.md 4.4 ``partial``: a part that leaves cards behind is the turn's first pile move or
    none, so no part goes back and forth within one turn."""
    state = position(SHUTTLE, pile_moves="partial")
    play(state, "move NE E")
    assert "move E->NE" not in {engine.move_name(m) for m in engine.legal_moves(state)}
    with pytest.raises(engine.IllegalMove, match="only be the first pile move of a turn"):
        engine.apply(state, engine.parse_move("move E NE"))


def test_a_whole_pile_moved_is_progress():
    """RULES.md 4.8: a pile move that leaves its place empty opens a space: progress."""
    state = position("N: 10S\nE: 9H\nhand 0: 2C\nhand 1: 3C\nturn: 0", pile_moves="partial")
    play(state, "move E N", "end")
    assert state.idle_turns == 0


def test_passing_while_a_card_fits_under_draw_stuck_blocks_the_deal():
    """RULES.md 4.8 (audit M1): under ``draw: stuck`` a player who passes while a card fits does
    not draw; a full round of such turns blocks the deal though the stock is not empty."""
    state = position("N: 10S\nhand 0: 9H 2C\nhand 1: 9D 3C\nstock: 5C 6C 7C\nturn: 0", draw="stuck")
    play(state, "end")
    assert not state.is_over and len(state.stock) == 3
    play(state, "end")
    assert state.is_over and state.blocked and len(state.stock) == 3


def test_the_52nd_cleared_pile_ends_the_deal_with_the_turn():
    """RULES.md 4.7: cards of cleared piles go round again, so the deal ends (blocked) with the
    turn in which the 52nd pile is cleared."""
    corner = "NE: KS QH JS 10H 9S 8H 7S 6H 5S 4H 3S 2H\nhand 0: AS 2C\nhand 1: 3D\nturn: 0 drawn\ncleared: 51"
    state = position(corner, clear_complete_piles=True)
    play(state, "AS NE")
    assert state.cleared == 52 and not state.is_over, "the turn goes on"
    engine.apply(state, END_TURN)
    assert state.is_over and state.blocked
