"""Matches (RULES.md 5 and 2.4): every scoring system, targets, tie-breaks, chips, dealer rotation.

Finished deals are written as text (``engine.from_text`` with an ``over:`` line) so each test
states exactly which hands are left; whole matches are played with seeded random moves.
"""

from __future__ import annotations

import random

import pytest

from kc_env import PRESETS, Rules, engine
from kc_env.cards import parse_card
from kc_env.engine import PILE_NAMES
from kc_env.match import (
    SCORERS,
    Match,
    MatchError,
    best_seats,
    deal_seed,
    play_deal,
    play_match,
    score_chips,
    score_penalties,
    score_single,
    score_winner_collects,
    score_wins,
    target_outcome,
    truncate,
)
from kc_env.rules import SCORING_VALUES


def finished(rules: Rules, *hands: str, winner: int | None = None, blocked: bool = False,
             without_play: list[int] | None = None):
    """A finished deal whose seats hold ``hands`` (``""`` for an empty hand)."""
    lines = [f"{p}: -" for p in PILE_NAMES]
    lines += [f"hand {i}: {h or '-'}" for i, h in enumerate(hands)]
    lines += ["stock: -", "turn: 0"]
    lines.append(("over: blocked" if blocked else "over: out") + ("" if winner is None else f" winner {winner}"))
    state = engine.from_text("\n".join(lines), rules)
    if without_play is not None:
        state.turns_without_play = list(without_play)
    return state


def random_chooser(seed: int):
    rng = random.Random(seed)
    return lambda state, moves: rng.choice(moves)


# -- RULES.md 7: penalty examples ---------------------------------------------------------------

def penalty(rules: Rules, hand: str) -> int:
    return engine.hand_penalty([parse_card(c) for c in hand.split()], rules.penalty_table())


def test_rules_7_standard_examples():
    rules = Rules()
    assert penalty(rules, "KS 7H 4C 2D") == 13
    assert penalty(rules, "5C") == 1


def test_rules_7_pip_example():
    assert penalty(Rules(scoring="pip", target=100), "AS KH 7C") == 42


@pytest.mark.parametrize("table, hand, expected", [
    ("standard", "KS QH JC 10D AC", 14),
    ("wikipedia", "KS QH JC 10D AC", 16),
    ("pip", "KS QH JC 10D AC 2S", 67),
    ("kleplek", "KS QH JC 10D 6C 5S AC", 42),
    ("kings_double", "KS KH QC AC", 6),
    ("per_card", "KS KH QC AC", 4),
])
def test_named_tables(table, hand, expected):
    assert penalty(Rules(scoring=table), hand) == expected


def test_custom_table_and_joker_price():
    custom = {r: 3 for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q")} | {"K": 7}
    rules = Rules(scoring="custom", custom_table=custom)
    assert penalty(rules, "KS 2C") == 10
    joker_rules = Rules(scoring="custom", custom_table=custom | {"JK": 20}, jokers=2)
    state = finished(joker_rules, "", "JK KS", winner=0)
    assert score_penalties((0, 0), state, joker_rules).points == (0, 27)
    no_jk = Rules(jokers=2)  # no joker value in the table: a joker costs a king
    assert score_penalties((0, 0), finished(no_jk, "", "JK", winner=0), no_jk).points == (0, 10)


# -- penalty tables: a deal ------------------------------------------------------------------------

def test_penalties_winner_adds_nothing():
    rules = Rules()
    scored = score_penalties((0, 0, 0), finished(rules, "", "KS 7H 4C 2D", "5C", winner=0), rules)
    assert scored.points == (0, 13, 1)
    assert scored.totals == (0, 13, 1)
    assert not scored.over and scored.winners == ()


def test_penalties_blocked_no_winner_everyone_pays_own_hand():
    rules = Rules()
    scored = score_penalties((1, 2), finished(rules, "KS", "5C 6D", blocked=True), rules)
    assert scored.points == (10, 2)
    assert scored.totals == (11, 4)


def test_penalties_blocked_fewest_cards_winner_adds_nothing():
    rules = Rules(blocked="fewest_cards")
    scored = score_penalties((0, 0), finished(rules, "KS", "5C 6D", winner=0, blocked=True), rules)
    assert scored.points == (0, 2)


def test_unfinished_deal_cannot_be_scored():
    rules = Rules()
    state = engine.new_deal(rules, 2, seed=1)
    for scorer in set(SCORERS.values()):
        with pytest.raises(MatchError, match="not over"):
            scorer((0, 0), state, rules, 0)


def test_every_scoring_value_has_a_scorer():
    assert set(SCORERS) == set(SCORING_VALUES)


# -- penalty tables: target and tie-breaks ---------------------------------------------------------

def test_target_reached_exactly_ends_and_lowest_wins():
    rules = Rules(target=25)
    scored = score_penalties((20, 15), finished(rules, "", "KS 2C 3C 4C 5C", winner=0), rules)
    assert scored.totals == (20, 29)
    assert scored.over and scored.winners == (0,)
    scored = score_penalties((20, 12), finished(rules, "", "KS 2C 3C 4C", winner=0), rules)
    assert scored.totals == (20, 25) and scored.over  # 25 reaches the target of 25


def test_below_target_goes_on():
    rules = Rules(target=25)
    scored = score_penalties((20, 10), finished(rules, "", "KS 2C 3C 4C", winner=0), rules)
    assert scored.totals == (20, 23) and not scored.over


def test_the_player_at_the_target_loses_and_the_lowest_wins():
    rules = Rules(target=15)
    scored = score_penalties((3, 9, 5), finished(rules, "2C", "", "KS", winner=1), rules)
    assert scored.totals == (4, 9, 15)
    assert scored.winners == (0,)


def test_tie_extra_deal_plays_on_until_broken():
    rules = Rules(target=25, tie_break="extra_deal")
    match = Match(rules, 3, seed=1)
    match.record_deal(finished(rules, "2C", "KS 9C 8C 7C 6C 5C 4C 3C", "AC", winner=None, blocked=True))
    assert match.totals == (1, 17, 1) and not match.is_over
    match.record_deal(finished(rules, "", "KH", "", winner=0))
    assert match.totals == (1, 27, 1)
    assert not match.is_over and match.winners == []  # target reached, but the lowest is tied
    match.record_deal(finished(rules, "", "2D", "3D", winner=0))
    assert match.totals == (1, 28, 2)
    assert match.is_over and match.winners == [0]


def test_tie_shared_all_lowest_win():
    rules = Rules(target=25, tie_break="shared")
    scored = score_penalties((5, 20, 5), finished(rules, "", "KS", "", winner=0), rules)
    assert scored.over and scored.winners == (0, 2)


def test_target_outcome_directly():
    assert target_outcome((3, 24), 25, "extra_deal", lowest=True) == (False, ())
    assert target_outcome((3, 25), 25, "extra_deal", lowest=True) == (True, (0,))
    assert target_outcome((30, 30, 2), 25, "extra_deal", lowest=False) == (False, ())
    assert target_outcome((30, 30, 2), 25, "shared", lowest=False) == (True, (0, 1))


# -- winner_collects ---------------------------------------------------------------------------------

def test_winner_collects_sums_the_others_penalties_by_table():
    rules = Rules(scoring="winner_collects", table="pip", target=100)
    scored = score_winner_collects((0, 0, 0), finished(rules, "AS KH 7C", "", "5C", winner=1), rules)
    assert scored.points == (0, 47, 0)
    assert not scored.over


def test_winner_collects_blocked_no_winner_scores_nothing():
    rules = Rules(scoring="winner_collects")
    scored = score_winner_collects((3, 4), finished(rules, "KS", "2C", blocked=True), rules)
    assert scored.points == (0, 0) and scored.totals == (3, 4)


def test_winner_collects_highest_wins_at_target():
    rules = Rules(scoring="winner_collects", target=25)
    scored = score_winner_collects((20, 10), finished(rules, "", "KS 2C", winner=0), rules)
    assert scored.totals == (31, 10) and scored.over and scored.winners == (0,)


def test_winner_collects_ties():
    extra = Rules(scoring="winner_collects", target=25)
    state = finished(extra, "KS", "", winner=1)
    assert not score_winner_collects((30, 20), state, extra).over
    shared = extra.replace(tie_break="shared")
    state = finished(shared, "KS", "", winner=1)
    scored = score_winner_collects((30, 20), state, shared)
    assert scored.over and scored.winners == (0, 1)


# -- wins ------------------------------------------------------------------------------------------

def test_wins_one_point_first_to_target():
    rules = Rules.preset("german")  # wins, target 5
    scored = score_wins((3, 4), finished(rules, "KS", "", winner=1), rules)
    assert scored.points == (0, 1) and scored.totals == (3, 5)
    assert scored.over and scored.winners == (1,)
    assert not score_wins((3, 3), finished(rules, "KS", "", winner=1), rules).over


def test_wins_blocked_no_winner_scores_nothing():
    rules = Rules.preset("german")
    scored = score_wins((4, 4), finished(rules, "KS", "2C", blocked=True), rules)
    assert scored.totals == (4, 4) and not scored.over


# -- single ----------------------------------------------------------------------------------------

def test_single_first_out_wins():
    rules = Rules.preset("bicycle")
    scored = score_single((0, 0, 0), finished(rules, "KS", "", "2C", winner=1), rules)
    assert scored.over and scored.winners == (1,) and scored.totals == (0, 1, 0)


def test_single_blocked_extra_deal_deals_again():
    rules = Rules.preset("bicycle")  # tie_break extra_deal by default
    match = Match(rules, 2, seed=3)
    match.record_deal(finished(rules, "KS", "2C", blocked=True))
    assert not match.is_over
    assert match.next_dealer == 1  # the redeal is the next deal, dealt by the next seat
    match.record_deal(finished(rules, "KS", "", winner=1))
    assert match.is_over and match.winners == [1]


def test_single_blocked_shared_everyone_wins():
    rules = Rules.preset("bicycle", tie_break="shared")
    scored = score_single((0, 0, 0), finished(rules, "KS", "2C", "3C", blocked=True), rules)
    assert scored.over and scored.winners == (0, 1, 2)


def test_single_blocked_fewest_cards_has_a_winner():
    rules = Rules.preset("bicycle", blocked="fewest_cards")
    scored = score_single((0, 0), finished(rules, "KS", "2C 3C", winner=0, blocked=True), rules)
    assert scored.over and scored.winners == (0,)


# -- chips -----------------------------------------------------------------------------------------

def test_chips_ante_and_winner_takes_pot():
    rules = Rules(scoring="chips", chips=10)
    state = finished(rules, "", "KS", "2C", winner=0, without_play=[0, 0, 0])
    scored = score_chips((10, 10, 10), state, rules, 0)
    assert scored.totals == (12, 9, 9) and scored.pot == 0
    assert scored.points == (2, -1, -1)


def test_chips_a_turn_without_a_play_costs_one_more():
    rules = Rules(scoring="chips", chips=10)
    state = finished(rules, "", "KS", "2C", winner=0, without_play=[1, 3, 0])
    scored = score_chips((10, 10, 10), state, rules, 0)
    # ante 3 + turns 1 + 3 + 0 = pot of 7, the winner paid 2 of it
    assert scored.totals == (15, 6, 9)


def test_chips_blocked_deal_carries_pot():
    rules = Rules(scoring="chips", chips=10)
    match = Match(rules, 2, seed=0)
    match.record_deal(finished(rules, "KS", "2C", blocked=True, without_play=[2, 1]))
    assert match.totals == (7, 8) and match.pot == 5 and not match.is_over
    match.record_deal(finished(rules, "", "3C", winner=0, without_play=[0, 1]))
    assert match.totals == (7 - 1 + 5 + 3, 8 - 2) and match.pot == 0  # 5 carried + 3 new
    assert sum(match.totals) + match.pot == 20


def test_chips_per_card_losers_pay_the_winner():
    rules = Rules(scoring="chips", chips=20, chips_per_card=True, table="standard")
    state = finished(rules, "", "KS 2C", "3C", winner=0, without_play=[0, 0, 0])
    scored = score_chips((20, 20, 20), state, rules, 0)
    assert scored.totals == (20 + 2 + 11 + 1, 20 - 1 - 11, 20 - 1 - 1)


def test_chips_per_card_not_paid_in_a_blocked_deal():
    rules = Rules(scoring="chips", chips=20, chips_per_card=True)
    scored = score_chips((20, 20), finished(rules, "KS", "2C", blocked=True, without_play=[0, 0]), rules, 0)
    assert scored.totals == (19, 19) and scored.pot == 2


def test_chips_cannot_pay_ends_the_match_and_chips_stay_at_zero():
    rules = Rules(scoring="chips", chips=20, chips_per_card=True)
    state = finished(rules, "", "KS KH", winner=0, without_play=[0, 0])
    scored = score_chips((20, 5), state, rules, 0)
    # seat 1: ante 1, then owes 20 with 4 left: pays 4 and cannot pay
    assert scored.totals == (25, 0) and scored.short == (1,)
    assert scored.over and scored.winners == (0,)


def test_chips_short_on_turn_chips_ends_even_if_the_short_seat_wins():
    rules = Rules(scoring="chips", chips=10)
    state = finished(rules, "", "KS", winner=0, without_play=[5, 0])
    scored = score_chips((3, 10), state, rules, 0)
    # seat 0 antes 1, owes 5 with 2 left: pays 2, short; then takes the pot 1 + 1 + 2
    assert scored.short == (0,) and scored.totals == (4, 9)
    assert scored.over and scored.winners == (1,)


def test_chips_zero_left_cannot_ante_next_deal():
    rules = Rules(scoring="chips", chips=10)
    match = Match(rules, 2, seed=0)
    match.totals = (1, 10)
    match.record_deal(finished(rules, "KS", "", winner=1, without_play=[0, 0]))
    assert match.totals == (0, 11) and match.history[-1].scored.short == ()
    assert match.is_over and match.winners == [1]
    with pytest.raises(MatchError, match="over"):
        match.new_deal()


def test_chips_tie_is_shared():
    rules = Rules(scoring="chips", chips=10)
    state = finished(rules, "KS", "", "2C", winner=1, without_play=[0, 0, 0])
    scored = score_chips((5, 3, 1), state, rules, 0)
    assert scored.totals == (4, 5, 0) and scored.winners == (1,)
    state = finished(rules, "KS", "", "2C", winner=1, without_play=[0, 0, 0])
    scored = score_chips((7, 4, 1), state, rules, 0)
    assert scored.totals == (6, 6, 0) and scored.winners == (0, 1)


# -- the match: dealer, seeds, books -----------------------------------------------------------------

def test_dealer_rotates_one_seat_left_each_deal():
    rules = Rules()
    match = Match(rules, 3, seed=4, dealer=2)
    dealers = []
    for _ in range(4):
        state = match.new_deal()
        dealers.append(state.dealer)
        assert state.current_player == (state.dealer + 1) % 3
        play_deal(state, random_chooser(0))
        match.record_deal(state)
        if match.is_over:
            break
    assert dealers == [2, 0, 1, 2][: len(dealers)] and len(dealers) >= 2
    assert [d.dealer for d in match.history] == dealers


def test_deal_seeds_are_fixed_and_differ_by_deal():
    assert deal_seed(7, 0) == deal_seed(7, 0)
    assert len({deal_seed(7, k) for k in range(50)} | {deal_seed(8, 0)}) == 51
    assert 0 <= deal_seed(2**70, 3) < 2**63


def test_new_deal_repeats_until_recorded():
    match = Match(Rules(), 2, seed=5)
    a, b = match.new_deal(), match.new_deal()
    assert a.snapshot() == b.snapshot() and a.seed == deal_seed(5, 0)


def test_match_without_seed_keeps_the_one_it_drew():
    match = Match(Rules(), 2)
    assert isinstance(match.seed, int)
    assert match.new_deal().seed == deal_seed(match.seed, 0)


def test_record_deal_refuses_wrong_deals():
    rules = Rules()
    match = Match(rules, 2, seed=1)
    with pytest.raises(MatchError, match="not over"):
        match.record_deal(match.new_deal())
    with pytest.raises(MatchError, match="3 players"):
        match.record_deal(finished(rules, "", "KS", "2C", winner=0))
    with pytest.raises(MatchError, match="other rules"):
        match.record_deal(finished(Rules(target=50), "", "KS", winner=0))


def test_match_rejects_bad_setup():
    with pytest.raises(ValueError, match="num_players"):
        Match(Rules(), 7, seed=0)
    with pytest.raises(ValueError, match="dealer"):
        Match(Rules(), 2, seed=0, dealer=2)
    with pytest.raises(ValueError, match="seed"):
        Match(Rules(), 2, seed="x")


def test_match_accepts_preset_name():
    assert Match("german", 2, seed=0).rules == Rules.preset("german")


def test_chips_match_starts_with_chips():
    assert Match(Rules(scoring="chips", chips=30), 3, seed=0).totals == (30, 30, 30)
    assert Match(Rules(), 3, seed=0).totals == (0, 0, 0)


# -- whole matches -----------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_play_match_every_preset_ends_and_books_add_up(preset):
    rules = Rules.preset(preset)
    match = play_match(rules, 3, seed=11, choose=random_chooser(11), max_deals=500)
    assert match.is_over and match.winners
    totals = [0, 0, 0]
    for record in match.history:
        totals = [t + p for t, p in zip(totals, record.scored.points, strict=True)]
        assert record.moves is not None
    assert tuple(totals) == match.totals


@pytest.mark.parametrize("scoring, extra", [
    ("winner_collects", {"target": 40}), ("pip", {"target": 100}), ("wins", {"target": 3}),
    ("chips", {"chips": 15}), ("chips", {"chips": 15, "chips_per_card": True}),
])
def test_play_match_other_systems(scoring, extra):
    rules = Rules(scoring=scoring, **extra)
    match = play_match(rules, 4, seed=3, choose=random_chooser(3), max_deals=2000)
    assert match.is_over and match.winners
    if scoring == "chips":
        assert sum(match.totals) + match.pot == 4 * rules.chips  # chips are only moved, never made
        assert min(match.totals) >= 0


def test_play_match_is_deterministic():
    a = play_match(Rules(), 3, seed=9, choose=random_chooser(1))
    b = play_match(Rules(), 3, seed=9, choose=random_chooser(1))
    assert a.totals == b.totals and [d.moves for d in a.history] == [d.moves for d in b.history]


def test_truncated_deals_count_as_blocked():
    rules = Rules()
    match = play_match(rules, 2, seed=2, choose=lambda s, m: m[-1], max_moves=5, max_deals=3)
    for record in match.history:
        assert record.truncated and record.blocked and record.winner is None
        assert len(record.moves) == 5
        assert sum(record.scored.points) == sum(record.penalties) > 0  # everyone pays own hand


def test_truncate_fewest_cards_names_a_winner():
    rules = Rules(blocked="fewest_cards")
    state = engine.from_text("\n".join([f"{p}: -" for p in PILE_NAMES] + [
        "hand 0: 2C", "hand 1: 3C 4C", "stock: 5C", "turn: 0 drawn"]), rules)
    truncate(state)
    assert state.is_over and state.blocked and state.winner == 0


def test_max_deals_stops_a_match():
    match = play_match(Rules(target=1000), 2, seed=1, choose=random_chooser(1), max_deals=2)
    assert match.truncated and not match.is_over and match.winners == []
    assert match.deal_number == 2
    assert match.leaders == list(best_seats(match.totals, lowest=True))
