"""``kc compare``: the kinds of disagreement between two agents, named in the game's words."""

from __future__ import annotations

import json

import pytest
from positions import move, position

from kc_env.cli import main
from kc_env.compare import compare, kind_of

TABLE = """
N: 10S
E: 5D
S: -
NE: KS
hand 0: 9H 4C KH QD
hand 1: 2C
stock: 3H
"""


@pytest.mark.parametrize(("mine", "theirs", "kind"), [
    ("end", "9H N", "holds back"),
    ("9H N", "end", "plays on"),
    ("9H N", "9H S", "other pile for the card (side vs empty side)"),
    ("4C E", "9H N", "another card (side vs side)"),
    ("KH S", "QD NE", "another card (empty side vs corner)"),
    ("KH SE", "4C E", "another card (empty corner vs side)"),
])
def test_each_kind_of_disagreement_is_named(mine, theirs, kind):
    state = position(TABLE)
    assert kind_of(state, move(mine), move(theirs)) == kind


def test_pile_moves_against_plays_and_ends():
    state = position("N: 9H\nE: 10S\nhand 0: 8S 3D\nhand 1: 2C\nstock: 3H")
    assert kind_of(state, move("move N E"), move("8S N")) == "pile move first"
    assert kind_of(state, move("8S N"), move("move N E")) == "card first"
    assert kind_of(state, move("end"), move("move N E")) == "ends before a pile move"
    assert kind_of(state, move("move N E"), move("end")) == "moves a pile instead of ending"


def test_an_agent_agrees_with_itself_and_differs_from_another():
    same = compare("heuristic", "heuristic", deals=6, seed=1)
    assert same.decisions > 0 and same.agreed == same.decisions and not same.kinds
    other = compare("greedy", "heuristic", deals=20, seed=1)
    assert other.agreed < other.decisions
    assert sum(k.count for k in other.kinds.values()) == other.decisions - other.agreed
    rows = other.rows()
    assert rows[0]["count"] >= rows[-1]["count"] and all(0 <= r["win_share_in_those_deals"] <= 1 for r in rows)


def test_kc_compare_prints_the_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "c.json"
    assert main(["compare", "greedy", "heuristic", "--deals", "10", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "kind of disagreement" in text and "the same as heuristic" in text
    data = json.loads(out.read_text())
    assert data["deals"] == 10 and data["kinds"] and data["decisions"] > data["agreed"]
    assert main(["compare", "greedy", "nosuch"]) == 2
    assert "unknown agent spec 'nosuch'" in capsys.readouterr().err


def test_an_example_says_what_each_agent_would_do_in_plain_words(capsys):
    assert main(["compare", "greedy", "heuristic", "--deals", "4"]) == 0
    examples = [line for line in capsys.readouterr().out.splitlines() if " heuristic " in line and "->" in line]
    assert examples and all(": greedy would " in line and " where heuristic would " in line for line in examples)
    assert not any(" plays play " in line or " heuristic play " in line for line in examples)


def test_kc_compare_checks_its_json_file_before_playing(tmp_path, capsys, monkeypatch):
    """As kc eval checks its --json: the deals were played, then the file could not be written."""
    import kc_env.compare

    monkeypatch.setattr(kc_env.compare, "compare", lambda *a, **k: pytest.fail("played before checking"))
    path = tmp_path / "no" / "c.json"
    assert main(["compare", "greedy", "heuristic", "--deals", "2", "--json", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"kc compare: --json {path}: the folder {path.parent} does not exist"
