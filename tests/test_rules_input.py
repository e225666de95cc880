"""Hostile rule sets: files and mappings that must end in one short ``RulesError`` at once
(issue 31: M-1 billion laughs, M-9 a 5,000-digit number, L-3 numbers no table can hold)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from kc_env import Rules, RulesError
from kc_env.rules import RANK_KEYS

MAX_PENALTY, MAX_TARGET, MAX_CHIPS, MAX_HAND_SIZE = 100, 10_000, 10_000, 25  # RULES.md 5.1, 5, 2

LAUGHS = "[&a [" + ", ".join(["lol"] * 9) + "], " + ", ".join(
    f"&b{i} [{', '.join([f'*b{i - 1}' if i > 1 else '*a'] * 9)}]" for i in range(1, 10)) + "]"
"""A 'billion laughs' YAML value of 470 bytes: nine levels of nine aliases, about 3.5e9 strings once expanded."""


def refused(make, message: str) -> str:
    """The one-line message of the ``RulesError`` that ``make()`` raises, checked to hold ``message``."""
    start = time.perf_counter()
    with pytest.raises(RulesError) as caught:
        make()
    text = str(caught.value)
    assert time.perf_counter() - start < 5.0  # unbounded, M-1 took 29 s and 2.3 GB
    assert message in text and "\n" not in text and len(text) < 600, text
    return text


@pytest.mark.parametrize("key", ["preset", "draw", "hand_size", "target", "chips"])
def test_a_billion_laughs_rules_file_is_refused_at_once(tmp_path, key):
    """M-1: a small file whose one value stands for billions of strings; the message names the
    rule and the kind of value, never its expansion."""
    path = tmp_path / "laughs.yaml"
    path.write_text(f"{key}: {LAUGHS}\n")
    refused(lambda: Rules.from_yaml(path), f"laughs.yaml: rule {key!r} must be a single value, not a list")


def test_a_billion_laughs_in_a_custom_table_is_refused_at_once(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(f"scoring: custom\ncustom_table: {{A: {LAUGHS}}}\n")
    refused(lambda: Rules.from_yaml(path), "custom_table value for 'A' must be a whole number from 0 to 100, not a list")


@pytest.mark.parametrize("data, message", [
    ({"draw": "x" * 10**7}, "rule 'draw' cannot be 'xxxxxxxx"),
    ({"x" * 10**7: 1}, "unknown rule 'xxxxxxxx"),
    ({"preset": "x" * 10**7}, "unknown preset 'xxxxxxxx"),
    ({"hand_size": 10**5000}, "rule 'hand_size' must be a whole number from 1 to 25, not a number of 5,001 digits"),
    ({"jokers": {"a": [1] * 10**6}}, "rule 'jokers' must be a single value, not a dict"),
    ({"draw": b"x" * 10**7}, "rule 'draw' cannot be b'xxxxxxxx"),
    ({"hand_size": np.int64(5)}, "rule 'hand_size' must be a whole number from 1 to 25, not np.int64(5)"),
    ({"chips": set(range(10**6))}, "rule 'chips' must be a single value, not a set"),
])
def test_long_values_are_shown_cut_short(data, message):
    """A message shows at most a few dozen characters of a value (10 MB strings, 5,000 digits)."""
    refused(lambda: Rules.from_dict(data), message)


def test_a_number_of_5000_digits_in_a_rules_file_is_one_line(tmp_path):
    """M-9: YAML reads the number with ``int()``, whose limit is 4,300 digits (a raw ValueError)."""
    path = tmp_path / "big.yaml"
    path.write_text("hand_size: " + "9" * 5000 + "\n")
    text = refused(lambda: Rules.from_yaml(path), "big.yaml: not valid YAML: Exceeds the limit (4300 digits)")
    assert text.endswith("value has 5000 digits"), "not Python's advice to raise the limit"


def test_an_impossible_date_in_a_rules_file_is_one_line(tmp_path):
    """YAML reads 2026-13-45 as a date and raises a raw ValueError for it, as for a long number."""
    path = tmp_path / "date.yaml"
    path.write_text("target: 2026-13-45\n")
    refused(lambda: Rules.from_yaml(path), "date.yaml: not valid YAML: month must be in 1..12")


FULL_TABLE = dict.fromkeys(RANK_KEYS, 1)


@pytest.mark.parametrize("data, message", [
    ({"scoring": "custom", "custom_table": FULL_TABLE | {"K": MAX_PENALTY + 1}},
     "custom_table value for 'K' must be a whole number from 0 to 100, not 101"),
    ({"scoring": "custom", "custom_table": FULL_TABLE | {"JK": 2**63}},
     "custom_table value for 'JK' must be a whole number from 0 to 100, not 9223372036854775808"),
    ({"target": MAX_TARGET + 1}, "rule 'target' must be a whole number from 1 to 10000 with scoring 'standard', not 10001"),
    ({"chips": MAX_CHIPS + 1}, "rule 'chips' must be a whole number from 1 to 10000, not 10001"),
    ({"hand_size": MAX_HAND_SIZE + 1}, "rule 'hand_size' must be a whole number from 1 to 25, not 26"),
])
def test_numbers_beyond_what_a_table_holds_are_refused_naming_the_range(data, message):
    """L-3: the compiled kernel holds penalties as int64 and the observation holds them exactly up
    to 100 (RULES.md 5.1); targets and chips are bounded too (RULES.md 5)."""
    refused(lambda: Rules.from_dict(data), message)


def test_the_largest_numbers_allowed_make_a_table():
    rules = Rules(scoring="custom", custom_table=dict.fromkeys(RANK_KEYS, MAX_PENALTY) | {"JK": MAX_PENALTY},
                  target=MAX_TARGET, chips=MAX_CHIPS, jokers=2, hand_size=MAX_HAND_SIZE)
    rules.check_players(2)
    assert rules.penalty_table()["JK"] == MAX_PENALTY


def test_the_observation_holds_the_costliest_penalty_allowed_exactly():
    """No silent clip: a table of the largest penalties reads back from the observation."""
    from kc_env import engine, observation

    rules = Rules(scoring="custom", custom_table=dict.fromkeys(RANK_KEYS, MAX_PENALTY) | {"A": 0, "JK": 37}, jokers=2)
    state = engine.new_deal(rules, 2, seed=1)
    vec = observation.encode(state, 0)
    assert observation.decode_rules(vec).penalty_table() == rules.penalty_table()


@pytest.mark.parametrize("text, message", [
    ("standard,hand_size=" + "9" * 5000, "rule 'hand_size': not a value: Exceeds the limit (4300 digits) for "
                                         "integer string conversion: value has 5000 digits"),
    ("standard,target=2026-13-45", "rule 'target': not a value: month must be in 1..12"),
    ("standard,draw=[[1]]", "rule 'draw' must be a single value, not a list"),
])
def test_a_rules_argument_with_a_bad_value_is_one_line(text, message):
    """``kc --rules preset,key=value``: the value is read as YAML, which raised a raw ValueError
    (a traceback), and a 5,000-digit argument was taken for a file name that is too long."""
    refused(lambda: Rules.parse(text), message)
