"""The env cards state the game's figures as ``GAME_INFO`` and the layouts have them (issue 32): the
PettingZoo card (``kings_corner_v0``'s docstring), the Gymnasium card (``gym_env``'s) and
docs/environments.md. Each figure is found where a card states it (``Discrete(497)``, ``layout 2``,
``(1599,) float32``, the action table's index ranges, the observation table's sizes...) and checked
against the module that owns it; a card's version history names every layout up to today's."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from kc_env import GAME_INFO, full_state, gym_env, kings_corner_v0, observation

ROOT = Path(__file__).resolve().parents[1]
CARDS = {
    "kings_corner_v0": lambda: kings_corner_v0.__doc__,
    "gym_env": lambda: gym_env.__doc__,
    "docs/environments.md": lambda: (ROOT / "docs" / "environments.md").read_text(),
}
MODULE_CARDS = ("kings_corner_v0", "gym_env")
"""The cards that are module docstrings: each has a version history (STYLE.md, 7)."""

G = GAME_INFO


def _box(match: re.Match, text: str) -> int:
    """``Box(N,)`` is the observation's, or the whole table's where the card names ``state``."""
    return full_state.STATE_SIZE if "state" in text[max(0, match.start() - 40):match.start()] else G.observation_size


STATED: list[tuple[str, str, object]] = [
    # (what, pattern: one group per figure, the true figures: a value, a tuple, or a function)
    ("actions", r"Discrete\((\d+)\)", G.num_distinct_actions),
    ("mask size", r"int8\[(\d+)\]", G.num_distinct_actions),
    ("mask shape", r"\((\d+),\) int8", G.num_distinct_actions),
    ("largest action", r"Action values\s*\|\s*\[0, (\d+)\]", G.num_distinct_actions - 1),
    ("end turn", r"end turn``? \((\d+)\)", G.end_turn_action),
    ("play actions", r"\|\s*(\d+)\.\.(\d+)\s*\|[^\n]*play card", (G.play_offset, G.move_offset - 1)),
    ("move actions", r"\|\s*(\d+)\.\.(\d+)\s*\|[^\n]*move pile", (G.move_offset, G.end_turn_action - 1)),
    ("end turn", r"\|\s*(\d+)\s*\|[^\n]*end the turn", G.end_turn_action),
    ("move index", r"(\d+) \+ s \* (\d+) \+ d", (G.move_offset, G.num_piles)),
    ("play index", r"c \* (\d+) \+ p", G.num_piles),
    ("action layout", r"kc_env\.actions``?, layout (\d+)", G.action_layout_version),
    ("action layout", r"Action layout \(version (\d+)\)", G.action_layout_version),
    ("observation size", r"float32\[(\d+)\]", G.observation_size),
    ("observation shape", r"\((\d+),\) float32", G.observation_size),
    ("observation size", r"(\d+) float32", G.observation_size),
    ("Box size", r"Box\((\d+),\)", _box),
    ("observation layout", r"kc_env\.observation``?, layout (\d+)", G.observation_layout_version),
    ("observation layout", r"Observation layout \(version (\d+)\)", G.observation_layout_version),
    ("a layout's size", r"layout (\d+)'s (\d+) values", lambda m, _: (int(m[1]), observation.LAYOUT_SIZES[int(m[1])])),
    ("players", r"n = (\d+) to (\d+)", (G.min_num_players, G.max_num_players)),
    ("players", r"`num_players` \((\d+) to (\d+)\)", (G.min_num_players, G.max_num_players)),
]


def stated(text: str) -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    """Every figure the card states: (what, as stated, as true)."""
    found = []
    for what, pattern, true in STATED:
        for m in re.finditer(pattern, text):
            value = true(m, text) if callable(true) else true
            found.append((what, tuple(int(g) for g in m.groups()), value if isinstance(value, tuple) else (value,)))
    return found


@pytest.mark.parametrize("card", CARDS)
def test_every_figure_a_card_states_is_true(card):
    figures = stated(CARDS[card]())
    wrong = [f"{what}: says {says}, is {true}" for what, says, true in figures if says != true]
    assert not wrong, f"{card}: {wrong}"
    whats = {what for what, _, _ in figures}
    assert "actions" in whats and whats & {"observation size", "observation shape", "Box size"}, \
        f"{card} states neither the action count nor the observation size where this test looks"
    assert whats & {"observation layout"}, f"{card} does not say which observation layout it describes"


def _size(cell: str) -> int:
    """A size cell of an observation table: ``54 + 1``, ``3 x 54 per pile``, ``46 + 3 + 14``."""
    per_pile = "per pile" in cell
    cell = cell.replace("per pile", "").replace("`", "").strip()
    assert re.fullmatch(r"\d+( *[+x] *\d+)*", cell), f"not a size: {cell!r}"
    total = sum(math.prod(int(f) for f in term.split("x")) for term in cell.replace(" ", "").split("+"))
    return total * (G.num_piles if per_pile else 1)


def observation_table(text: str) -> list[tuple[str, str]]:
    """(slice, size) of each row of the card's observation table (the table whose header has a
    size column after the slice column)."""
    head = re.search(r"^\| *slices? *\| *size *\|.*\n\|[-| ]+\|\n((?:\|.*\n)+)", text, re.M)
    assert head, "no observation table (| slice | size | meaning |)"
    return [tuple(c.strip() for c in row.strip("|").split("|")[:2]) for row in head[1].splitlines()]


@pytest.mark.parametrize("card", ["kings_corner_v0", "docs/environments.md"])
def test_the_observation_table_adds_up_to_the_observation(card):
    rows = observation_table(CARDS[card]())
    total = sum(_size(size) * (G.num_piles if name.startswith("per pile") and "per pile" not in size else 1)
                for name, size in rows)
    assert total == G.observation_size, f"{card}: the table's sizes add up to {total}, not {G.observation_size}"


@pytest.mark.parametrize("card", MODULE_CARDS)
def test_the_version_history_names_every_layout(card):
    text = CARDS[card]()
    history = re.search(r"#* *Version history:?\s*\n(.*)", text, re.S | re.I)
    assert history, f"{card} has no version history"
    history = history[1]
    for version in range(1, G.observation_layout_version + 1):
        assert f"observation layout {version}" in history, f"{card}'s version history does not name observation layout {version}"
    for version in range(1, G.action_layout_version + 1):
        assert f"action layout {version}" in history, f"{card}'s version history does not name action layout {version}"


def test_the_checks_find_a_wrong_figure():
    """A check of the checker: a card that says layout 1 and 1584 values, or an action table off
    by one, is caught."""
    bad = ("(``kc_env.observation``, layout 1, 1584 float32 values), ``Discrete(498)``, n = 2 to 7\n"
           "| 0..432 | play card ``c`` onto pile ``p`` |\n| 497 | end the turn |")
    says = {what: s for what, s, true in stated(bad) if s != true}
    assert set(says) == {"observation layout", "observation size", "actions", "players", "play actions", "end turn"}
    assert _size("3 x 54 per pile") == 3 * 54 * G.num_piles and _size("46 + 3 + 14") == 63
