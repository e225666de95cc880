"""Random rule sets for the fuzz tests, derived from ``Rules`` itself.

Every field of ``Rules`` is drawn: a field of ``rules.CHOICES`` among its allowed values, any
other field by its generator in ``FREE``. So a variant added to ``Rules`` is fuzzed (against the
kernel in ``test_vector_diff.py``, by the engine's invariants in ``test_properties.py``, by the
agents in ``test_agents.py``) without anyone listing it again; a field with neither is an error
here, and ``test_vector_diff.py::test_the_fuzzer_draws_every_field_of_rules`` fails on it.
"""

from __future__ import annotations

import dataclasses
import random

from hypothesis import strategies as st

from kc_env import GAME_INFO, PRESETS, Rules
from kc_env.rules import CHOICES, RANK_KEYS

FIELDS = tuple(f.name for f in dataclasses.fields(Rules))
"""Every field of ``Rules``, in order."""


def _custom_table(rng: random.Random) -> dict[str, int]:
    """A penalty per rank (and, half the time, one for the joker) within what the observation
    holds exactly (up to 100)."""
    table = {rank: rng.randrange(26) for rank in RANK_KEYS}
    if rng.random() < 0.5:
        table["JK"] = rng.randrange(51)
    return table


FREE = {
    "hand_size": lambda rng: rng.choice([1, 2, 3, 5, 8, 10]),
    "custom_table": _custom_table,  # kept only when scoring or table is custom, and then required
    "target": lambda rng: rng.choice([None, 1, 10, 25, 100, 1000, 1500]),  # None: the usual one
    "chips": lambda rng: rng.choice([1, 5, 50, 1000, 1500]),
}
"""How each field of ``Rules`` without a fixed list of values is drawn."""


def draw_value(name: str, rng: random.Random):
    """A random value of the ``Rules`` field ``name``."""
    if name in CHOICES:
        return rng.choice(CHOICES[name])
    if name in FREE:
        return FREE[name](rng)
    raise KeyError(f"the Rules field {name!r} has no generator: give it one in tests/rule_fuzz.py FREE")


def random_rules(rng: random.Random, preset: str | None = None, p: float = 0.5,
                 num_players: int | None = None) -> Rules:
    """``preset`` (default: drawn), every field of ``Rules`` overridden with probability ``p``.
    A custom table is drawn whenever the scoring or the table is ``custom``; with
    ``num_players``, the hand size is lowered until the deal fits."""
    preset = preset or rng.choice(sorted(PRESETS))
    overrides = {name: draw_value(name, rng) for name in FIELDS if rng.random() < p}
    merged = {**Rules.preset(preset).to_dict(), **overrides}
    if "custom" in (merged["scoring"], merged["table"]):
        overrides.setdefault("custom_table", merged["custom_table"] or _custom_table(rng))
    else:
        overrides.pop("custom_table", None)
    rules = Rules.preset(preset, **overrides)
    while num_players is not None and num_players * rules.hand_size + 4 > rules.deck_size:
        rules = rules.replace(hand_size=rules.hand_size - 1)
    return rules


@st.composite
def any_rules(draw, p: float = 0.5, num_players: int = GAME_INFO.max_num_players) -> Rules:
    """A hypothesis strategy: ``random_rules`` from a generator hypothesis controls, with hands
    small enough to deal to ``num_players`` (default: any table)."""
    return random_rules(draw(st.randoms(use_true_random=False)), p=p, num_players=num_players)


__all__ = ["FIELDS", "FREE", "any_rules", "draw_value", "random_rules"]
