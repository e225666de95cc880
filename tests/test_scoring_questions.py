"""The scoring system's questions (has a target? lowest total wins? one deal? chips?), answered
by ``Rules`` alone and asked the same way by the match, the text render, the tournament, the
demo and the web table's header, for every scoring system."""

from __future__ import annotations

import pytest

from kc_env import Rules, engine
from kc_env.match import SCORERS, Match, play_deal, score_penalties
from kc_env.render import render
from kc_env.rules import PENALTY_TABLES, SCORING_VALUES, SYSTEMS

CUSTOM = {r: 2 for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()}


def rules_of(scoring: str) -> Rules:
    return Rules(scoring=scoring, custom_table=CUSTOM if scoring == "custom" else None)


def finished_match(rules: Rules) -> Match:
    """A match of first legal moves, played to its end."""
    match = Match(rules, 2, seed=4)
    while not match.is_over and match.deal_number < 400:
        state = match.new_deal()
        moves, cut = play_deal(state, lambda state, moves: moves[0])
        match.record_deal(state, truncated=cut, moves=moves)
    assert match.is_over
    return match


@pytest.mark.parametrize("scoring", SCORING_VALUES)
def test_each_system_answers_the_questions_as_the_match_plays_it(scoring):
    rules = rules_of(scoring)
    assert rules.lowest_wins == (scoring in PENALTY_TABLES or scoring == "custom")
    assert rules.lowest_wins == (SCORERS[scoring] is score_penalties)
    assert rules.single_deal == (scoring == "single")
    assert rules.plays_for_chips == (scoring in ("chips", "card_chips"))
    assert rules.has_target == (scoring not in ("single", "chips", "card_chips"))
    assert rules.counts_wins == (scoring in ("wins", "single"))
    match = finished_match(rules.replace(target=1) if rules.has_target else rules)
    if rules.single_deal:
        assert match.deal_number == 1
    if rules.has_target:
        assert max(match.totals) >= 1  # a target of 1 ends the match at the first total that reaches it


@pytest.mark.parametrize("scoring", SCORING_VALUES)
def test_the_render_shows_a_target_only_where_the_match_has_one(scoring):
    rules = rules_of(scoring)
    text = render(engine.new_deal(rules, 2, seed=1), 0, totals=[0, 0])
    assert ("(target" in text) == rules.has_target, scoring


@pytest.mark.parametrize("scoring", SYSTEMS + ("standard", "custom"))
def test_the_web_header_names_each_system_as_it_is_scored(scoring):
    from kc_env.web.views import scoring_text

    rules = rules_of(scoring)
    text = scoring_text(rules)
    assert ("single deal" in text) == rules.single_deal, text
    assert ("chips" in text) == rules.plays_for_chips, text
    assert (str(rules.target) in text) == rules.has_target, text
    assert ("lowest total wins" in text) == rules.lowest_wins, text
    if scoring == "card_chips":
        assert "no pot" in text and "penalty" in text, text
