"""The house rules of issue 19, one test per new value (RULES.md 2, 4, 5), positions as text.

Each test names the rule source it follows, as ``../shared/reports/rules-audit-2026-12.md``
numbers them: S0 the printed rules of a card maker, S1 a printable rules sheet, S2 a how-to
guide, S3 an online game, S4 a German rules page. The audit's reproducers (D1 to D4) are here
as positions.
"""

from __future__ import annotations

import pytest
from positions import assert_illegal, legal, pile, play, position

from kc_env import Rules, engine
from kc_env.match import score_card_chips, score_chips
from kc_env.rules import RulesError

# -- 4.8 blocked_when ------------------------------------------------------------------------

D1 = "N: 10S\nE: AS\nS: AD\nW: AC\nhand 0: 9D 5C\nhand 1: 5H 4S 3S\nturn: 0"


def test_blocked_when_idle_round_blocks_after_a_round_without_progress():
    """RULES.md 4.8 ``idle_round`` (the engine's own default): seat 0 passes on 9D, seat 1
    cannot play: the full round made no progress, the deal is blocked (audit D1, as it was)."""
    state = position(D1, blocked_when="idle_round")
    assert legal(state) == {"play 9D->N", "end turn"}
    play(state, "end", "end")
    assert state.is_over and state.blocked and state.winner is None
    assert engine.deal_penalties(state) == [2, 3]


def test_blocked_when_no_moves_blocks_only_once_nobody_can_move():
    """RULES.md 4.8 ``no_moves`` (S0 section 4 and FAQ, S1 FAQ, S3: a stalemate is when nobody
    *can* play): while 9D can still go on N the deal goes on; once it is played and nobody can
    move, the deal is blocked at the end of that turn (audit D1)."""
    state = position(D1, blocked_when="no_moves")
    play(state, "end", "end")
    assert not state.is_over and state.current_player == 0 and "play 9D->N" in legal(state)
    play(state, "9D N", "end")
    assert state.is_over and state.blocked


def test_blocked_when_no_moves_still_ends_when_everyone_passes():
    """RULES.md 4.8 ``no_moves``: two rounds in a row without progress block the deal, so
    passing on a card for ever still ends it."""
    state = position(D1, blocked_when="no_moves")
    play(state, "end", "end", "end")
    assert not state.is_over
    play(state, "end")
    assert state.is_over and state.blocked


# -- 4.5 king_first and must_play ------------------------------------------------------------

D3 = "N: 2S\nE: AS\nS: AD\nW: AC\nhand 0: KD QH\nhand 1: 5H"


def test_king_first_before_others_allows_only_kings_into_corners():
    """RULES.md 4.5 ``before_others`` (S3, the online game; ``true`` reads as it): while holding
    a king with a corner empty, the only card plays are kings into corners."""
    state = position("N: KS\nhand 0: KD QH\nhand 1: 5H", king_first="before_others")
    assert legal(state) == {"play KD->NE", "play KD->SE", "play KD->SW", "play KD->NW", "end turn"}
    assert Rules(king_first=True) == Rules(king_first="before_others")


def test_king_first_before_ending_forbids_saving_a_king():
    """RULES.md 4.5 ``before_ending`` (S0's house rule: "put down a king whenever a corner is
    open, instead of saving it"): the turn may not end while a king is in hand and a corner is
    empty; other plays stay free (audit D3)."""
    state = position(D3, king_first="before_ending")
    assert "end turn" not in legal(state) and "play KD->NE" in legal(state)
    assert_illegal(state, "end", "king_first is 'before_ending'")
    play(state, "KD NE")
    assert "end turn" in legal(state), "the king is down; the queen may be kept"
    play(state, "end")


def test_must_play_all_moves_forces_pile_moves_too():
    """RULES.md 4.5 ``all_moves`` (S0: "as long as you have legal moves"; S2 step 8: all possible
    piles): the turn may not end while a pile move is legal (audit D4)."""
    state = position("N: 3S\nE: 2H\nS: AD\nW: AC\nhand 0: 9D 5C\nhand 1: 5H 4S", must_play="all_moves")
    assert legal(state) == {"move E->N", "move W->E"}
    assert_illegal(state, "end", "must_play is 'all_moves'")
    play(state, "move E N")
    assert legal(state) == {"play 9D->E", "play 5C->E", "move W->N"}
    play(state, "move W N", "9D E", "5C W")
    assert state.is_over and state.winner == 0


def test_must_play_all_leaves_pile_moves_optional():
    """RULES.md 4.5 ``all``: card plays only are forced (audit D4, the value as it was)."""
    state = position("N: 3S\nE: 2H\nS: AD\nW: AC\nhand 0: 9D 5C\nhand 1: 5H 4S", must_play="all")
    assert legal(state) == {"move E->N", "move W->E", "end turn"}


# -- 5.2 chips -------------------------------------------------------------------------------

D2 = "N: 10S\nE: AS\nS: AD\nW: AC\nhand 0: 9D 5C\nhand 1: 4S\nturn: 0"


def test_extra_chip_could_not_play_costs_nothing_for_a_pass_by_choice():
    """RULES.md 5.2 ``extra_chip: could_not_play`` (S2: a chip only if the player *cannot*
    discard): 9D could go on N, so passing costs no chip; seat 1 cannot play and pays one
    (audit D2)."""
    state = position(D2, scoring="chips", extra_chip="could_not_play")
    play(state, "end")
    assert state.turns_without_play == [0, 0]
    play(state, "end")
    assert state.turns_without_play == [0, 1]


def test_extra_chip_did_not_play_costs_a_chip_for_any_turn_without_a_play():
    """RULES.md 5.2 ``extra_chip: did_not_play`` (the engine's reading before issue 19)."""
    state = position(D2, scoring="chips", extra_chip="did_not_play")
    play(state, "end")
    assert state.turns_without_play == [1, 0]


def finished(rules: Rules, *hands: str, winner: int | None = None) -> engine.GameState:
    over = "over: blocked" if winner is None else f"over: out winner {winner}"
    text = "\n".join([f"hand {i}: {h or '-'}" for i, h in enumerate(hands)] + ["turn: 0", over])
    return position(text, rules)


def test_chips_per_card_to_winner_pays_the_winner():
    """RULES.md 5.2 ``chips_per_card: to_winner`` (``true``, RULES.md before issue 19)."""
    rules = Rules(scoring="chips", chips=20, chips_per_card="to_winner")
    scored = score_chips((20, 20), finished(rules, "", "KS 2C", winner=0), rules, 0)
    assert scored.totals == (20 - 1 + 2 + 11, 20 - 1 - 11) and scored.pot == 0
    assert Rules(scoring="chips", chips_per_card=True) == Rules(scoring="chips", chips_per_card="to_winner")


def test_chips_per_card_to_pot_pays_into_the_pot():
    """RULES.md 5.2 ``chips_per_card: to_pot`` (S0: the penalty goes "into a pot"): the winner
    takes it with the pot; in a blocked deal it stays there for the next deal."""
    rules = Rules(scoring="chips", chips=20, chips_per_card="to_pot")
    won = score_chips((20, 20), finished(rules, "", "KS 2C", winner=0), rules, 0)
    assert won.totals == (20 - 1 + 2 + 11, 20 - 1 - 11) and won.pot == 0
    blocked = score_chips((20, 20), finished(rules, "KS", "2C"), rules, 0)
    assert blocked.totals == (20 - 1 - 10, 20 - 1 - 1) and blocked.pot == 2 + 11


def test_card_chips_is_the_per_card_payment_alone():
    """RULES.md 5.2 ``card_chips`` (S2's "one can also play so that..."): no ante, no pot, no
    extra chip; the losers pay the winner their penalty; a blocked deal costs nothing."""
    rules = Rules(scoring="card_chips", chips=20)
    won = score_card_chips((20, 20, 20), finished(rules, "", "KS 2C", "3C", winner=0), rules, 0)
    assert won.totals == (20 + 11 + 1, 20 - 11, 20 - 1) and won.pot == 0 and not won.over
    blocked = score_card_chips((20, 20), finished(rules, "KS", "2C"), rules, 0)
    assert blocked.totals == (20, 20)
    short = score_card_chips((20, 5), finished(rules, "", "KS KH", winner=0), rules, 0)
    assert short.totals == (25, 0) and short.over and short.winners == (0,)


# -- 5.1 targets -------------------------------------------------------------------------------

@pytest.mark.parametrize("scoring, usual", [("pip", 100), ("kleplek", 50), ("standard", 25), ("wikipedia", 25),
                                            ("kings_double", 25), ("per_card", 25), ("wins", 25)])
def test_each_table_has_its_usual_target_when_none_is_given(scoring, usual):
    """RULES.md 5.1 (S1, the printable sheet: pip to 100, Kleplek to 50, the others to 25): a
    target not given is the table's usual one; a target given stays."""
    assert Rules(scoring=scoring).target == usual
    assert Rules(scoring=scoring, target=250).target == 250
    assert Rules(scoring="winner_collects", table="pip").target == 100
    assert Rules().replace(scoring=scoring).target == usual, "a usual target follows the table"
    assert Rules(target=30).replace(scoring=scoring).target == 30, "a chosen one stays"


# -- 2.4 first_player ------------------------------------------------------------------------

def test_first_player_left_of_dealer_starts_at_the_dealers_left():
    """RULES.md 2.4 ``left_of_dealer`` (every source's default)."""
    for dealer in range(4):
        assert engine.new_deal(Rules(first_player="left_of_dealer"), 4, seed=5, dealer=dealer).current_player == \
            (dealer + 1) % 4


def test_first_player_random_draws_the_seat_that_starts():
    """RULES.md 2.4 ``random`` (S2 lists other ways to choose who starts): the deal's generator
    draws the first seat, after the cards are dealt (the same cards as the default's)."""
    starts = {engine.new_deal(Rules(first_player="random"), 4, seed=s).current_player for s in range(40)}
    assert starts == {0, 1, 2, 3}
    a = engine.new_deal(Rules(first_player="random"), 4, seed=7)
    b = engine.new_deal(Rules(draw="end"), 4, seed=7)
    assert a.piles == b.piles and a.hands[a.current_player][:7] == b.hands[a.current_player]


# -- 4.3 cross_king_move ---------------------------------------------------------------------

CROSS_KING = "N: KS\nE: 9H\nhand 0: 2C 8S\nhand 1: 3D\nhand 2: 4D\nturn: 0 drawn first"


def test_cross_king_move_any_time_lets_a_kings_side_move_later():
    """RULES.md 4.3 ``any_time`` (RULES.md before issue 19): the cross king's side may move into
    a corner in any turn."""
    state = position(CROSS_KING, cross_kings="stay", cross_king_move="any_time")
    play(state, "end")
    assert "move N->NE" in legal(state)


def test_cross_king_move_first_turn_only_in_the_first_turn():
    """RULES.md 4.3 ``first_turn`` (S1, the printable sheet: the player to the dealer's left may
    move it to a corner on their first turn): after the first turn the king stays on its side."""
    state = position(CROSS_KING, cross_kings="stay", cross_king_move="first_turn")
    assert "move N->NE" in legal(state)
    play(state, "end")
    assert not state.first_turn and "move N->NE" not in legal(state)
    assert_illegal(state, "move N NE", "cross_king_move is 'first_turn'")
    assert Rules.preset("printable").cross_king_move == "first_turn"


# -- 4.9 joker_on_empty_side -----------------------------------------------------------------

def test_joker_on_empty_side_false_keeps_jokers_off_empty_sides():
    """RULES.md 4.9 ``false`` (the engine's reading): a joker may not start a side pile."""
    state = position("N: 10S\nhand 0: JK 2C\nhand 1: 3D", jokers=2, joker_on_empty_side=False)
    assert "play JK->E" not in legal(state)
    assert_illegal(state, "JK E", "a joker may not start a side pile")


def test_joker_on_empty_side_true_lets_a_joker_start_a_side_as_a_king():
    """RULES.md 4.9 ``true`` (S0: a joker stands for any card, and any card fills a side): it
    starts a side as a king of no colour, on which any queen goes; such a side never moves into
    a corner."""
    state = position("N: 10S\nhand 0: JK QH QS\nhand 1: 3D", jokers=2, joker_on_empty_side=True)
    assert "play JK->E" in legal(state)
    play(state, "JK E", "QH E")
    assert pile(state, "E") == "JK QH"
    assert not any(m.startswith("move E->") for m in legal(state))
    dealt = [engine.new_deal(Rules(jokers=2, joker_on_empty_side=True), 2, seed=s) for s in range(300)]
    assert any(p and p[0] >= 52 for d in dealt for p in d.piles[:4]), "a joker turned up stays on its side"


def test_new_values_are_refused_when_misspelt():
    with pytest.raises(RulesError, match="rule 'blocked_when' cannot be 'never'; allowed: idle_round, no_moves"):
        Rules(blocked_when="never")


def test_extra_chip_could_not_play_judges_the_hand_before_the_end_turn_draw():
    """RULES.md 5.2 ``could_not_play`` under ``draw: end``: the card drawn with the end-turn move
    does not count, it was not in the hand while the player could play."""
    state = position("N: 10S\nE: AS\nS: AD\nW: AC\nhand 0: 5C\nhand 1: 4S\nstock: 9D 2C\nturn: 0",
                     scoring="chips", draw="end")
    play(state, "end")
    assert state.turns_without_play == [1, 0] and "9D" in [engine.card_name(c) for c in state.hands[0]]
