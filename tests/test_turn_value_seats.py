"""Turn-value models for different seat counts folded into one network
(``training/turn_value/seats.py``), and a card's patience for each seat count."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kc_env import agents, engine
from kc_env.agents import turn_value as tv
from kc_env.agents.policy_model import other_table
from kc_env.play import play_deal
from kc_env.rules import Rules

seats = pytest.importorskip("kc_env.training.turn_value.seats")

STANDARD = Rules.preset("standard")


def model(folder, num_players, seed, patience=0, rules="standard", hidden=(8,)):
    rng = np.random.default_rng(seed)
    sizes = [tv.FEATURES, *hidden, 1]
    net = [(rng.normal(0, 0.3, (sizes[i + 1], sizes[i])).astype(np.float32),
            rng.normal(0, 0.1, sizes[i + 1]).astype(np.float32)) for i in range(len(sizes) - 1)]
    zeros = [(np.zeros((1, tv.FEATURES), np.float32), np.zeros(1, np.float32))]
    card = {"candidates": 8, "num_players": num_players, "rules": Rules.preset(rules).to_dict()}
    return tv.save(folder, net, card, careless_layers=zeros, patience=patience)


@pytest.fixture
def two_and_four(tmp_path):
    two, four = model(tmp_path / "two", 2, 1, patience=5), model(tmp_path / "four", 4, 2, rules="pagat")
    return seats.write(tmp_path / "both", [([2], two), ([3, 4, 5, 6], four)]), two, four


def decisions(num_players, seed):
    """The observations of a deal the heuristic plays at ``num_players``."""
    out = []
    play_deal(engine.new_deal("standard", num_players, seed=seed), [agents.load("heuristic")] * num_players,
              on_move=lambda state, seat, obs, action: out.append(obs))
    return out


def test_at_each_seat_count_the_folded_network_scores_candidates_as_its_model_does(two_and_four):
    both, two, four = two_and_four
    folded = tv.load(both)[1]
    rng = np.random.default_rng(0)
    for players, own in ((2, two), (4, four), (6, four)):
        x = rng.random((32, tv.FEATURES)).astype(np.float32)
        x[:, tv.SEAT_COUNT] = 0
        x[:, tv.SEAT_COUNT.start + players - 2] = 1
        mine = tv.scores(x, *tv.layer_arrays(tv.load(own)[1]))
        theirs = tv.scores(x, *tv.layer_arrays(folded))
        np.testing.assert_allclose(theirs - theirs[0], mine - mine[0], atol=1e-4)  # one constant apart
        assert np.argmax(theirs) == np.argmax(mine)


@pytest.mark.parametrize("players", [2, 4])
def test_the_folded_model_plays_each_seat_count_as_its_own_model(two_and_four, players):
    both, two, four = two_and_four
    own = tv.TurnValueAgent(two if players == 2 else four)
    folded = tv.TurnValueAgent(both)
    for obs in decisions(players, seed=7):
        assert folded.act(obs) == own.act(obs)


def test_the_folded_card_lists_every_table_and_each_seat_counts_patience(two_and_four):
    both, _, _ = two_and_four
    card = json.loads((both / tv.CARD_FILE).read_text())
    assert [t["name"] for t in card["tables"]] == ["standard-2p", "pagat-4p"]
    assert card["patience"] == {"2": 5, "3": 0, "4": 0, "5": 0, "6": 0}
    assert [part["seats"] for part in card["trained"]["seats_of"]] == [[2], [3, 4, 5, 6]]
    agent = agents.load(str(both))
    assert other_table(agent, STANDARD, 4) is None and other_table(agent, Rules.preset("pagat"), 2) is None
    assert "players: 2, 4 → 3" in other_table(agent, STANDARD, 3)


def test_a_cards_patience_may_be_one_for_each_seat_count(tmp_path):
    assert tv.patience_at({"2": 9, "4": 1}, 2) == 9 and tv.patience_at({"2": 9, "4": 1}, 3) == 0
    assert tv.patience_at(4, 6) == 4
    folder = model(tmp_path / "m", 2, 3, patience={"2": 2, "5": 1})
    assert tv.TurnValueAgent(folder).patience == {"2": 2, "5": 1}
    for bad in ({"7": 1}, {"2": -1}, {"2": True}, [1, 2]):
        card = json.loads((folder / tv.CARD_FILE).read_text())
        card["patience"] = bad
        (folder / tv.CARD_FILE).write_text(json.dumps(card))
        with pytest.raises(tv.ModelError, match="'patience' must be an integer from 0 to 100, or one for each seat"):
            tv.load(folder)


@pytest.mark.parametrize("args, message", [
    (["2=A", "2,4=B"], "seat count 2 is given to two models"),
    (["2-1=A"], "'2-1': seat counts are 2 to 6"),
    (["7=A"], "'7': seat counts are 2 to 6"),
    (["two=A"], "'two': seat counts are written 2, 3-6 or 2,4"),
    (["A"], "'A': write SEATS=MODEL"),
    (["2=A", "4=DEEP"], "DEEP: 2 hidden layers; only models with one fold"),
    (["2=A", "4=WIDE_K"], "WIDE_K: its candidates differ from "),
])
def test_the_fold_names_what_cannot_be_folded(tmp_path, capsys, args, message):
    model(tmp_path / "A", 2, 1)
    model(tmp_path / "DEEP", 4, 2, hidden=(8, 4))
    wide = model(tmp_path / "WIDE_K", 4, 3)
    card = json.loads((wide / tv.CARD_FILE).read_text())
    card["candidates"] = 6
    (wide / tv.CARD_FILE).write_text(json.dumps(card))
    with pytest.raises(SystemExit) as exit_:
        seats.main([str(tmp_path / "out"), *(a.replace("=", f"={tmp_path}/", 1) if "=" in a else a for a in args)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / tv.CARD_FILE).exists()
