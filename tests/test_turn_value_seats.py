"""Turn-value models for different seat counts folded into one network
(``training/turn_value/seats.py``), and a card's patience for each seat count."""

from __future__ import annotations

import json
import re

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
    assert "careless_play" not in card, "best at every seat count: one value, not written"
    assert [part["seats"] for part in card["trained"]["seats_of"]] == [[2], [3, 4, 5, 6]]
    assert "num_players" not in card and "rules" not in card, "its tables say where it plays, not one table"
    agent = agents.load(str(both))
    assert other_table(agent, STANDARD, 2) is None and other_table(agent, Rules.preset("pagat"), 4) is None
    assert "players: 2, 4 → 3" in other_table(agent, STANDARD, 3)
    assert "draw: start → end" in other_table(agent, Rules.preset("pagat"), 2), "pagat at 2: never trained"


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


def test_how_the_second_network_plays_may_be_set_for_some_seat_counts(tmp_path):
    two, four = model(tmp_path / "two", 2, 1), model(tmp_path / "four", 4, 2)
    both = seats.write(tmp_path / "both", [([2], two), ([3, 4, 5, 6], four)], careless_play={2: "sample"})
    agent = tv.TurnValueAgent(both)
    assert agent.careless_play == {"2": "sample", "3": "best", "4": "best", "5": "best", "6": "best"}
    assert tv.samples_at(agent.careless_play, 2) and not tv.samples_at(agent.careless_play, 4)
    card = json.loads((both / tv.CARD_FILE).read_text())
    card["careless_play"] = {"2": "often"}
    (both / tv.CARD_FILE).write_text(json.dumps(card))
    with pytest.raises(tv.ModelError, match="'careless_play' must be one of best, sample, or one for each seat"):
        tv.load(both)


@pytest.mark.parametrize("args, message", [
    (["2=A", "4=B", "--careless-play", "4=often"], "--careless-play 4=often: the play is one of best, sample"),
    (["2=A", "--careless-play", "4=best"], "--careless-play 4=best: no model is given seat count 4"),
    (["2=A", "--careless-play", "3-6"], "--careless-play '3-6': write SEATS=PLAY"),
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
    model(tmp_path / "B", 4, 4)
    model(tmp_path / "DEEP", 4, 2, hidden=(8, 4))
    wide = model(tmp_path / "WIDE_K", 4, 3)
    card = json.loads((wide / tv.CARD_FILE).read_text())
    card["candidates"] = 6
    (wide / tv.CARD_FILE).write_text(json.dumps(card))
    with pytest.raises(SystemExit) as exit_:
        seats.main([str(tmp_path / "out"), *(re.sub(r"=([A-Z_]+)$", f"={tmp_path}/\\1", a) for a in args)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / tv.CARD_FILE).exists()


def test_the_shipped_model_for_every_table_is_at_home_at_every_preset_and_player_count():
    """Its part at each seat count was trained at all seven presets: no preset gets the note."""
    from kc_env.rules import PRESETS

    agent = agents.load("turn-ppo-all")
    assert agent.card["patience"]["2"] == 9 and agent.card["patience"]["4"] == 0
    for preset in PRESETS:
        for players in range(2, 7):
            assert other_table(agent, Rules.preset(preset), players) is None, (preset, players)
    assert "jokers: 0 → 2" in other_table(agent, Rules.preset("standard", jokers=2), 2)


def test_the_shipped_model_for_every_table_is_the_fold_its_config_describes():
    """configs/turn-ppo-all.yaml: its two-player variants are the model's part at 2 players (four
    runs folded), its every-table run the part at 3 to 6 players."""
    pytest.importorskip("torch")
    from pathlib import Path

    from kc_env.training import config as config_mod
    from kc_env.training.turn_ppo.settings import tables_of

    path = Path(__file__).resolve().parents[1] / "configs" / "turn-ppo-all.yaml"
    card = agents.load("turn-ppo-all").card
    two, rest = card["trained"]["seats_of"]
    assert two["seats"] == [2] and two["trainer"] == "ensemble"
    runs = [config_mod.load(path, "two-players")] + [
        config_mod.load(path, "two-players-wide", {"seed": seed}) for seed in (0, 1, 2)]
    for cfg, run in zip(runs, two["ensemble_of"], strict=True):
        assert (run["seed"], run["iterations"], run["gate"], run["start"]) == (
            cfg.seed, cfg.turn_ppo.iterations, cfg.turn_ppo.gate, cfg.turn_ppo.start)
    assert [cfg.turn_ppo.hidden for cfg in runs] == [[64], [128], [128], [128]]
    every = config_mod.load(path, "every-table")
    assert rest["seats"] == [3, 4, 5, 6] and rest["start"] == every.turn_ppo.start
    assert (rest["iterations"], rest["gate"]) == (every.turn_ppo.iterations, every.turn_ppo.gate)
    names = [name for name, _, _ in tables_of(runs[0])] + [name for name, _, _ in tables_of(every)]
    assert [t["name"] for t in card["tables"]] == names


@pytest.mark.parametrize("text, message", [
    ("2-", "'2-': seat counts are written 2, 3-6 or 2,4"),
    ("6-3", "'6-3': a range of seat counts goes up .3-6."),
    ("2,2", "'2,2': names a seat count twice"),
    ("7", "'7': seat counts are 2 to 6"),
])
def test_seat_counts_are_written_as_a_count_a_range_or_a_list(text, message):
    assert seats.seat_counts("3-6") == [3, 4, 5, 6] and seats.seat_counts("2,4") == [2, 4]
    with pytest.raises(ValueError, match=message):
        seats.seat_counts(text)


def test_a_folded_model_folds_again_and_a_model_is_not_given_seats_it_never_played(tmp_path, two_and_four):
    both, two, four = two_and_four
    again = seats.write(tmp_path / "again", [([2], two), ([3, 4, 5, 6], both)])
    assert json.loads((again / tv.CARD_FILE).read_text())["patience"] == {"2": 5, "3": 0, "4": 0, "5": 0, "6": 0}
    with pytest.raises(ValueError, match="two: trained at 2 players, none of the seat counts it is given .3, 4."):
        seats.write(tmp_path / "never", [([3, 4], two)])


def test_the_web_table_says_which_rule_sets_the_model_for_every_table_played_at_each_player_count():
    from kc_env.web.store import Store

    about = {a["spec"]: a["about"] for a in Store().offered()}
    assert about["turn-ppo-all"] == "an exported model, for 35 tables: 7 rule sets at 2 to 6 players"
