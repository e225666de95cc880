"""The observation vector (kc_env.observation): a fixed, documented layout; it shows a seat only
what that seat may see; decode(encode(...)) gives the seat's view back."""

from __future__ import annotations

import dataclasses
import random
import re

import numpy as np
import pytest

from kc_env import PRESETS, Rules, engine
from kc_env import observation as obs
from kc_env.engine import NUM_PILES
from kc_env.rules import ALIASES, CHOICES, DEAL_RULES, RULE_CODES

RULE_SETS = [Rules.preset(name) for name in sorted(PRESETS)] + [
    Rules.preset("standard", jokers=2, pile_moves="partial"),
    Rules.preset("online", jokers=2, corner_build="same_suit", draw="stuck", king_first=True),
    Rules.preset("pagat", scoring="custom", custom_table={r: 3 for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()}
                 | {"K": 40, "JK": 60}, jokers=2, hand_size=5, target=300),
    Rules.preset("standard", scoring="chips", chips=80, chips_per_card=True, table="pip", tie_break="shared"),
]


def positions(count_per_case: int = 6, seed: int = 0):
    """(state, seat, totals) along random games over every rule set and 2 to 6 players."""
    rng = random.Random(seed)
    for rules in RULE_SETS:
        for n in range(2, 7):
            if n * rules.hand_size + 4 > rules.deck_size:
                continue
            for k in range(count_per_case):
                state = engine.new_deal(rules, n, seed=rng.randrange(2**32), dealer=k % n)
                for _ in range(rng.randrange(150)):
                    if state.is_over:
                        break
                    engine.apply(state, rng.choice(engine.legal_moves(state)))
                totals = [rng.randrange(60) for _ in range(n)] if k % 2 else None
                yield state, rng.randrange(n), totals


def test_layout_is_contiguous_and_sized():
    assert obs.OBS_LAYOUT_VERSION == 2
    assert obs.OBS_SIZE == sum(size for _, size, _ in obs.LAYOUT) == obs.LAYOUT_SIZES[2] == 1599
    start = 0
    for name, size, meaning in obs.LAYOUT:
        assert obs.SLICES[name] == slice(start, start + size) and meaning
        start += size
    assert len({name for name, _, _ in obs.LAYOUT}) == len(obs.LAYOUT)
    assert obs.LOW.shape == obs.HIGH.shape == (obs.OBS_SIZE,)


def test_docstring_table_matches_the_layout():
    """Every row of the module docstring's table names a slice at its true offset and size."""
    rows = re.findall(r"^\| ([0-9k +]+) \| (\S+) \| (\d+) \|", obs.__doc__, flags=re.M)
    assert len(rows) >= 20
    for offset, name, size in rows:
        if "{P}" in name:
            for k, pile in enumerate(engine.PILE_NAMES):
                real = name.replace("{P}", pile)
                base, step = re.fullmatch(r"(\d+) \+ (\d+) k", offset).groups()
                assert obs.SLICES[real].start == int(base) + int(step) * k, real
                assert obs.SLICES[real].stop - obs.SLICES[real].start == int(size), real
        elif name == "rule_{variant}":
            first = obs.SLICES[f"rule_{next(iter(obs.RULE_CHOICES))}"].start
            assert first == int(offset) and sum(map(len, obs.RULE_CHOICES.values())) == int(size)
        elif name == "rule_{variant}_more":
            first = obs.SLICES[f"rule_{next(iter(obs.MORE_CHOICES))}_more"].start
            assert first == int(offset) == obs.LAYOUT_SIZES[1] and sum(map(len, obs.MORE_CHOICES.values())) == int(size)
        else:
            assert obs.SLICES[name] == slice(int(offset), int(offset) + int(size)), name


def test_frozen_rule_choices_match_the_rules_module():
    """A new variant or value in rules.CHOICES needs a new observation layout version: layout 1's
    values (true read by its alias) and those layout 2 added are exactly the allowed values."""
    def named(key, value):
        return ALIASES[key] if key in ALIASES and value is True else value

    values = {key: [named(key, v) for v in choices] for key, choices in obs.RULE_CHOICES.items()}
    for key, more in obs.MORE_CHOICES.items():
        values[key] = values.get(key, []) + list(more)
    assert {key: tuple(v) for key, v in values.items()} == CHOICES
    assert all(obs.LEGACY.get(key, {}).get(v, v) in obs.RULE_CHOICES[key] for key in obs.RULE_CHOICES
               for v in CHOICES[key]), "every value of a layout-1 variant sets a layout-1 slot"
    encoded = set(values) | {"hand_size", "target", "chips", "custom_table"}
    assert {f.name for f in dataclasses.fields(Rules)} == encoded


def test_fixed_length_and_in_bounds_for_every_rule_set_and_player_count():
    for state, seat, totals in positions(3):
        vec = obs.encode(state, seat, totals)
        assert vec.dtype == np.float32 and vec.shape == (obs.OBS_SIZE,)
        assert np.all(vec >= obs.LOW) and np.all(vec <= obs.HIGH)


def _hide_test_cases(state: engine.GameState, seat: int, rng: random.Random) -> engine.GameState:
    """The same position for ``seat`` with the other hands' cards and the stock shuffled
    together (every hand keeps its size)."""
    other = state.copy()
    seats = [s for s in range(state.num_players) if s != seat]
    pool = [c for s in seats for c in other.hands[s]] + other.stock
    rng.shuffle(pool)
    for s in seats:
        size = len(other.hands[s])
        other.hands[s], pool = pool[:size], pool[size:]
    other.stock = pool
    return other


def test_hidden_cards_do_not_show():
    rng = random.Random(1)
    changed = 0
    for state, seat, totals in positions(4):
        other = _hide_test_cases(state, seat, rng)
        changed += other.hands != state.hands or other.stock != state.stock
        np.testing.assert_array_equal(obs.encode(state, seat, totals), obs.encode(other, seat, totals))
        reversed_stock = state.copy()
        reversed_stock.stock.reverse()
        np.testing.assert_array_equal(obs.encode(state, seat, totals), obs.encode(reversed_stock, seat, totals))
    assert changed > 100


def test_own_hand_and_piles_do_show():
    rng = random.Random(2)
    checked = 0
    for state, seat, totals in positions(3):
        before = obs.encode(state, seat, totals)
        others = [c for s in range(state.num_players) if s != seat for c in state.hands[s]] + state.stock
        if state.hands[seat] and others:
            swapped = state.copy()
            mine = rng.randrange(len(swapped.hands[seat]))
            theirs = rng.choice(others)
            for s in range(state.num_players):
                if theirs in swapped.hands[s]:
                    swapped.hands[s][swapped.hands[s].index(theirs)] = swapped.hands[seat][mine]
            if theirs in swapped.stock:
                swapped.stock[swapped.stock.index(theirs)] = swapped.hands[seat][mine]
            swapped.hands[seat][mine] = theirs
            assert not np.array_equal(before, obs.encode(swapped, seat, totals))
            checked += 1
        full = [p for p in range(NUM_PILES) if state.piles[p] and state.piles[p][-1] < 52]
        if full and state.stock:
            moved = state.copy()
            p = rng.choice(full)
            moved.stock.append(moved.piles[p].pop())
            assert not np.array_equal(before, obs.encode(moved, seat, totals))
    assert checked > 50


def test_turn_flags_totals_and_seats_are_relative_to_the_viewer():
    state = engine.new_deal("standard", 4, seed=3, dealer=2)
    vec = obs.encode(state, 1, [10, 20, 30, 40])
    view = obs.decode(vec)
    assert state.current_player == 3
    assert view.to_act == 2 and view.dealer == 1 and not view.my_turn
    assert view.others_hand_sizes == (len(state.hands[2]), len(state.hands[3]), len(state.hands[0]))
    assert view.scores == pytest.approx((20 / 25, 30 / 25, 40 / 25, 10 / 25))
    assert obs.decode(obs.encode(state, 3)).my_turn and obs.decode(obs.encode(state, 3)).drawn


def _joker_blind(pile: tuple[int, ...]) -> tuple[int, ...]:
    """A pile with the two jokers inside it (not top, not bottom) made alike."""
    if len(pile) < 3:
        return pile
    return (pile[0], *(min(c, 52) for c in pile[1:-1]), pile[-1])


def test_decode_gives_the_seat_view_back():
    for state, seat, totals in positions(4):
        view = obs.decode(obs.encode(state, seat, totals))
        n = state.num_players
        assert view.num_players == n
        assert view.hand == tuple(sorted(state.hands[seat]))
        assert [_joker_blind(p) for p in view.piles] == [_joker_blind(tuple(p)) for p in state.piles]
        assert list(view.top_values) == [
            None if not p else (state.joker_value[p[-1]] if p[-1] >= 52 else (engine.RANK[p[-1]], engine.COLOUR[p[-1]]))
            for p in state.piles
        ]
        assert view.others_hand_sizes == tuple(len(state.hands[(seat + k) % n]) for k in range(1, n))
        assert view.stock_size == len(state.stock)
        assert (view.drawn, view.played, view.moved) == (state.drawn, state.played, state.moved)
        assert view.idle_turns == state.idle_turns
        assert view.my_turn == (not state.is_over and state.current_player == seat)
        assert view.to_act == (state.current_player - seat) % n
        assert view.dealer == (state.dealer - seat) % n
        assert view.rules.to_dict() | {"custom_table": None} == state.rules.to_dict() | {"custom_table": None}
        assert view.rules.penalty_table() == state.rules.penalty_table()
        scale = obs.score_scale(state.rules)
        expected = [0.0] * n if totals is None else [totals[(seat + k) % n] / scale for k in range(n)]
        assert view.scores == pytest.approx([max(-2, min(2, x)) for x in expected], abs=1e-6)
        assert str(view)


def test_decode_rules_for_every_preset():
    for rules in RULE_SETS:
        state = engine.new_deal(rules, 2, seed=0)
        assert obs.decode_rules(obs.encode(state, 0)) == rules


def test_decode_rejects_a_vector_of_another_size():
    with pytest.raises(ValueError, match=f"[(]{obs.OBS_SIZE},[)]"):
        obs.decode(np.zeros(100, dtype=np.float32))


def test_decode_rules_gives_back_every_value_of_every_variant():
    """Layout 2 holds every value of ``rules.CHOICES``: the ones layout 1 knew where they were,
    the new ones after them; ``decode_rules`` reads each back."""
    table = {r: 2 for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()}
    for key, values in CHOICES.items():
        for value in values:
            if (key, value) == ("table", "custom"):
                continue  # the penalty slice holds the table of the scoring in force, not this one
            extra = {"custom_table": table} if value == "custom" else {}
            rules = Rules(**{key: value}, **extra)
            assert obs.decode_rules(obs.encode(engine.new_deal(rules, 2, seed=1), 0)) == rules, (key, value)


def test_the_rule_code_table_names_every_rule_and_every_rule_slice_once():
    """``rules.RULE_CODES`` is the one declaration the observation, the kernel's rules row and
    the compiled agents' reading loop over: every rule field (``custom_table`` shows only as the
    penalty table), every rule slice but the penalty table's, each exactly once; an in-deal
    rule's kernel codes are exactly its allowed values."""
    fields = [rule.field for rule in RULE_CODES]
    assert sorted(fields) == sorted(f.name for f in dataclasses.fields(Rules) if f.name != "custom_table")
    shown = [name for rule in RULE_CODES for name in rule.shown]
    rule_slices = [name for name, _, _ in obs.LAYOUT if name.startswith("rule_") and name != "rule_penalty"]
    assert sorted(shown) == sorted(rule_slices)
    for rule in RULE_CODES:
        if rule.values is not None:
            assert sorted(map(str, rule.values)) == sorted(map(str, CHOICES[rule.field])), rule.field
            assert [rule.code(v) for v in rule.values] == list(range(len(rule.values)))


def test_the_seat_view_reads_back_the_kernels_rules_row_for_every_value_of_every_rule():
    """``agents.view.read_rules`` (a loop over the table) gives, from the observation alone, the
    row ``vector.rules_row`` writes (a loop over the same table), for every value of every rule
    a deal reads."""
    from kc_env.agents import view
    from kc_env.vector import kernel as K
    from kc_env.vector import rules_row

    cases = [Rules(**{rule.field: v}) for rule in DEAL_RULES if rule.values for v in rule.values]
    cases += [Rules(jokers=2), Rules(hand_size=3), Rules(hand_size=25, jokers=2)]
    R = np.zeros((1, K.NUM_R), dtype=np.int64)
    for rules in cases:
        view.read_rules(obs.encode(engine.new_deal(rules, 2, seed=3), 0), R, np.int64(0))
        want = rules_row(rules)
        keep = [c for c in range(K.NUM_R) if c not in (K.R_MAX_MOVES, K.R_REWARD)]
        assert R[0, keep].tolist() == want[keep].tolist(), rules
