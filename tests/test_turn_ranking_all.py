"""One turn ranking for every table (issue 35, part 2): the turn-value trainer's ``turn_value.tables``
(``training/turn_value/settings.py``), a card that lists the tables it was trained for
(``model_folder.check_table``, ``tables_differences``, ``trained_for``), and what the envs,
``kc eval`` and ``kc serve`` say of such a model at a table."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from kc_env import agents
from kc_env.agents import model_folder as folders
from kc_env.agents import turn_value as tv
from kc_env.agents.policy_model import other_table
from kc_env.rules import PRESETS, Rules

EVERY_TABLE = [(preset, n) for preset in PRESETS for n in range(2, 7)]


def ranking_model(folder, tables=None, **card):
    """A linear ranking's folder whose card lists ``tables`` (pairs of a preset and players)."""
    rng = np.random.default_rng(0)
    net = [(rng.normal(0, 0.1, (1, tv.FEATURES)).astype(np.float32), np.zeros(1, np.float32))]
    if tables is not None:
        card["tables"] = [{"name": f"{p}-{n}p", "num_players": n, "rules": Rules.preset(p).to_dict()}
                          for p, n in tables]
    return tv.save(folder, net, {"candidates": 4, **card})


def smoke_config(**turn_value):
    from kc_env.training import config as config_mod

    cfg = config_mod.load(config_mod.find("turn-ranking-all"), "smoke")
    for key, value in turn_value.items():
        setattr(cfg.turn_value, key, value)
    return cfg


# -- the config -------------------------------------------------------------------------------------

def test_tables_expand_every_list_of_rules_and_players_in_order():
    pytest.importorskip("torch")
    from kc_env.training.turn_value.settings import tables_of

    cfg = smoke_config(tables=[{"rules": ["standard", "pagat"], "num_players": [2, 4], "label_chunks": 3},
                               {"rules": "online", "num_players": 5, "label_chunks": {"heuristic": 2, "random": 1}}])
    tables = tables_of(cfg)
    assert [t.name for t in tables] == ["standard-2p", "standard-4p", "pagat-2p", "pagat-4p", "online-5p"]
    assert tables[3].rules == Rules.preset("pagat") and tables[3].num_players == 4
    assert tables[0].chunks == {"heuristic": 3, "random": 3} and tables[4].chunks == {"heuristic": 2, "random": 1}
    assert [t.name for t in tables_of(smoke_config(tables=[]))] == ["standard-2p"], "none: the config's own table"


def test_the_shipped_config_names_every_preset_at_2_to_6_players():
    pytest.importorskip("torch")
    from kc_env.training import config as config_mod
    from kc_env.training.turn_value.settings import tables_of

    tables = tables_of(config_mod.load(config_mod.find("turn-ranking-all")))
    assert sorted((t.name.rsplit("-", 1)[0], t.num_players) for t in tables) == sorted(EVERY_TABLE)


@pytest.mark.parametrize("tables, message", [
    ([{"rules": "standard", "players": 2}], "must be a mapping of rules, num_players and label_chunks"),
    ([{"rules": "nowhere", "num_players": 2}], "tables[0]"),
    ([{"rules": "standard", "num_players": 7}], "tables[0]"),
    ([{"rules": "standard", "num_players": "2"}], "num_players must be 2 to 6"),
    ([{"rules": ["standard", "pagat"], "num_players": 2}, {"rules": "pagat", "num_players": 2}], "a table twice"),
    ([{"rules": "standard", "num_players": 2, "label_chunks": 0}], "label_chunks must be positive"),
    ([{"rules": "standard", "num_players": [2, 3], "label_chunks": 60}], "at most 100 chunks"),
])
def test_a_bad_table_is_refused_up_front(tables, message):
    pytest.importorskip("torch")
    from kc_env.training import config as config_mod

    with pytest.raises(config_mod.ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        config_mod.validate(smoke_config(tables=tables))


# -- the card ---------------------------------------------------------------------------------------

def test_a_model_of_every_table_plays_at_any_of_them_without_a_note(tmp_path):
    model = agents.load(str(ranking_model(tmp_path / "all", EVERY_TABLE)))
    for preset, n in EVERY_TABLE:
        assert other_table(model, Rules.preset(preset), n) is None, (preset, n)
    assert other_table(model, Rules.preset("pagat", draw="start", scoring="wins", target=5), 3) is None, \
        "a mix of the presets' variants was trained, variant by variant"
    note = other_table(model, Rules.preset("standard", jokers=2), 4)
    assert note and "jokers: 0 → 2" in note and "players" not in note


def test_a_model_of_some_tables_names_what_none_of_them_had_at_that_player_count(tmp_path):
    """Variants are compared with the tables of the same player count (with every table when none
    has it): trained at standard with 2 and pagat with 3 is not trained at pagat with 2."""
    model = agents.load(str(ranking_model(tmp_path / "some", [("standard", 2), ("pagat", 3)])))
    assert other_table(model, Rules.preset("pagat"), 3) is None
    assert "draw: start → end" in other_table(model, Rules.preset("pagat"), 2)
    note = other_table(model, Rules.preset("online"), 4)
    assert "players: 2, 3 → 4" in note and "kings_on_sides: True → False" in note and "draw" not in note


def test_a_standard_two_player_model_still_says_it_was_trained_for_another_table():
    note = other_table(agents.load("turn-ranking-2p"), Rules.preset("pagat"), 4)
    assert note and "players: 2 → 4" in note and "draw: start → end" in note


@pytest.mark.parametrize("tables, message", [
    ([], "must list 1 to"),
    ("standard", "must list 1 to"),
    ([{"num_players": 2}], r"tables\[0\] must hold the num_players and rules"),
    ([{"num_players": 9, "rules": {}}], r"tables\[0\]: num_players, the players it was trained for, must be 2 to 6"),
    ([{"num_players": 2, "rules": {"draw": "never"}}], r"tables\[0\]: the rules it was trained for are not valid"),
])
def test_a_card_with_bad_tables_is_refused_saying_why(tmp_path, tables, message):
    folder = ranking_model(tmp_path / "m")
    card = json.loads((folder / tv.CARD_FILE).read_text())
    (folder / tv.CARD_FILE).write_text(json.dumps({**card, "tables": tables}))
    with pytest.raises(folders.ModelError, match=message):
        agents.load(str(folder))


def test_the_web_table_offers_a_model_of_every_table_as_one(tmp_path):
    from kc_env.web.store import Store

    folder = ranking_model(tmp_path / "all", EVERY_TABLE)
    about = {a["spec"]: a["about"] for a in Store(models=[folder]).offered()}
    assert about[str(folder)] == "an exported model, for 35 tables: 7 rule sets at 2 to 6 players"
    assert about["turn-ranking-2p"] == "an exported model, for 2 players"


def test_the_envs_and_kc_eval_say_nothing_of_a_model_of_every_table(tmp_path, capsys):
    from kc_env.commands.common import note_other_tables
    from kc_env.gym_env import KingsCornerEnv

    folder = str(ranking_model(tmp_path / "all", EVERY_TABLE))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KingsCornerEnv(rules="pagat", num_players=4, opponents=folder)
    note_other_tables("eval", [agents.load(folder)], Rules.preset("pagat"), 4)
    assert capsys.readouterr().err == ""
    with pytest.warns(UserWarning, match="was trained for another table"):
        KingsCornerEnv(rules="pagat", num_players=4, opponents="turn-ranking-2p")


# -- the trainer ------------------------------------------------------------------------------------

@pytest.mark.slow  # about 2 minutes: eight chunks of labels at two tables, the fits and the duels
def test_the_smoke_config_trains_across_two_tables_resumes_and_lists_them_in_its_card(tmp_path):
    pytest.importorskip("torch")
    from kc_env.training.turn_value import learn as train_tv
    from kc_env.training.turn_value.train import train

    cfg = smoke_config(iterations=1)
    run = tmp_path / "run"
    train(cfg, run, log=lambda _: None)
    rows, chunks = train_tv.load_labels(run / "labels_pagat-3p_random.npz")
    assert chunks == 1 and rows
    cfg.turn_value.iterations = 2
    result = train(cfg, run, resume=True, log=lambda _: None)
    assert [p["iteration"] for p in result.curve] == [0, 1, 2]
    last = result.curve[-1]
    assert set(last["tables"]) == {"standard-2p", "pagat-3p"}
    assert {"heuristic", "random", "held_out_gain_heuristic", "held_out_gain_random"} <= set(last["tables"]["pagat-3p"])
    assert last["heuristic"] == last["tables"]["standard-2p"]["heuristic"], "the curve's own table: the config's"
    for name in ("standard-2p", "pagat-3p"):
        for against in ("heuristic", "random"):
            assert train_tv.load_labels(run / f"labels_{name}_{against}.npz")[1] == 2
    card = json.loads((run / "model" / tv.CARD_FILE).read_text())
    assert "num_players" not in card and "rules" not in card
    assert [(t["name"], t["num_players"], t["rules"]) for t in card["tables"]] == \
        [("standard-2p", 2, Rules.preset("standard").to_dict()), ("pagat-3p", 3, Rules.preset("pagat").to_dict())]
    model = agents.load(str(run / "model"))
    assert other_table(model, Rules.preset("pagat"), 3) is None and other_table(model, Rules.preset("pagat"), 4)


# -- the model as it ships, compiled ----------------------------------------------------------------

@pytest.mark.slow  # compiles the duel's loop
@pytest.mark.parametrize("preset, num_players, opponent", [("pagat", 2, "random"), ("standard", 3, "heuristic"),
                                                          ("wikihow", 2, "random")])
def test_the_compiled_duel_moves_as_the_shipped_agent_decision_by_decision(preset, num_players, opponent):
    """``shipped.gate`` and ``shipped.model_action`` against ``TurnValueAgent.act`` on every decision
    of the model's seat in a few deals (the gate's two networks both play against random)."""
    pytest.importorskip("torch")
    from kc_env.training.turn_value import shipped

    from kc_env.agents.batch import rule_based
    from kc_env.vector import VecGame
    from kc_env.vector import kernel as K

    folder = folders.model_folder("turn-ranking-2p")
    agent = agents.load(str(folder))
    card, layers = tv.load(folder)
    first, loose = tv.layer_arrays(layers), tv.layer_arrays(tv.load_careless(folder, card))
    heuristic, rng, rules = rule_based("heuristic"), np.random.default_rng(3), Rules.preset(preset)
    nets, checked = set(), 0
    for seed in range(4):
        g = VecGame(1)
        g.deal(np.arange(1), rules, num_players, seeds=[seed], dealers=[seed % num_players])
        agent.reset()
        memory = np.zeros(tv.GATE_MEMORY, np.int64)
        while not (g.S[0, K.OVER] or g.S[0, K.TRUNC]):
            seat = int(g.S[0, K.CUR])
            ob, mask = g.observe(np.arange(1), np.array([seat]))[0], g.legal_masks(np.arange(1))[0]
            if seat == 0:
                want = agent.act({"observation": ob, "action_mask": mask})
                net = shipped.gate(ob.astype(np.float32), mask.astype(np.int8), memory, card["patience"], True)
                got = shipped.model_action(ob.astype(np.float32), mask.astype(np.int8), net, card["candidates"],
                                           *first, *loose, card["candidates"])
                assert got == want, (seed, net)
                nets.add(int(net))
                checked += 1
                action = want
            elif opponent == "random":
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = int(heuristic(ob[None], mask[None])[0])
            g.step(np.arange(1), np.array([action]))
    assert checked > 50
    if opponent == "random":
        assert nets == {0, 1, 2} or nets >= {0, 2}, nets
    share, half, per_deal = shipped.duel(folder, rules, num_players, np.arange(6), against=opponent)
    assert len(per_deal) == 6 and 0 <= share <= 1 and half >= 0


@pytest.mark.slow  # compiles the duel's loop
def test_the_compiled_duel_without_a_model_is_the_heuristic_itself():
    """Against itself on duplicate deals the heuristic wins exactly half of every deal (each deal is
    the same game from both seats), at any table: no move of the duel's heuristic seat differs."""
    pytest.importorskip("torch")
    from kc_env.training.turn_value import shipped

    for preset in ("wikihow", "german", "bicycle"):
        share, half, per_deal = shipped.duel(None, Rules.preset(preset), 2, np.arange(40), against="heuristic")
        assert share == 0.5 and np.all(per_deal == 0.5), preset


@pytest.mark.slow  # compiles the duel's loop
def test_the_compiled_duel_draws_a_sampling_cards_careless_lines_from_its_softmax(tmp_path):
    """A card with ``careless_play: sample`` (models/turn-ppo-ensemble-2p) draws its second
    network's line at careless tables, as ``TurnValueAgent._draw`` does: each drawn line is one of
    the agent's first ``careless_candidates`` lines with the end of the turn after it, drawn as
    often as the softmax of the second network's scores says. Until 2026-12-06 the duel played
    the best line there, so its figure against random was not the card's."""
    pytest.importorskip("torch")
    import shutil

    from kc_env.training.turn_value import shipped

    from kc_env.agents import turns
    from kc_env.vector import VecGame
    from kc_env.vector import kernel as K

    folder = folders.model_folder("turn-ppo-ensemble-2p")
    card, layers = tv.load(folder)
    assert card["careless_play"] == "sample"
    loose = tv.layer_arrays(tv.load_careless(folder, card))
    k, few = card["candidates"], card["careless_candidates"]
    rng, g = np.random.default_rng(5), VecGame(1)
    g.deal(np.arange(1), Rules.preset("standard"), 2, seeds=[11], dealers=[1])
    for step in range(200):  # random play to a turn's start, some turns in, that leaves a choice
        ob = g.observe(np.arange(1), g.S[:1, K.CUR])[0].astype(np.float32)
        mask = g.legal_masks(np.arange(1))[0].astype(np.int8)
        lines = np.zeros((k, turns.MAX_DEPTH), np.int64)
        lengths = np.zeros(k, np.int64)
        feats = np.zeros((k, tv.FEATURES), np.float32)
        valid, _, wins = tv.candidate_features(ob, mask, k, lines, lengths, feats)
        valid = tv.careless_shown(valid, wins, few)
        if step > 6 and not (g.S[0, K.PLAYED] or g.S[0, K.MOVED]) and wins < 0 and valid > 2:
            break
        g.step(np.arange(1), np.array([int(rng.choice(np.flatnonzero(mask)))]))
    assert wins < 0 and valid > 2, "the position must leave the second network a choice"
    z = tv.scores(feats[:valid], *loose).astype(np.float64)
    softmax = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    drawn = np.zeros(valid)
    held = np.zeros(turns.MAX_DEPTH + 1, np.int64)
    gen = np.arange(4000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    for b in range(len(gen)):
        n = shipped.drawn_line(ob, mask, k, *loose, few, gen, b, held)
        line = [j for j in range(valid) if lengths[j] == n - 1 and list(lines[j, :n - 1]) == list(held[:n - 1])]
        assert line and held[n - 1] == K.END_TURN_ACTION
        drawn[line[0]] += 1
    assert np.abs(drawn / len(gen) - softmax).max() < 0.03, (drawn / len(gen), softmax)
    best = tmp_path / "best"
    shutil.copytree(folder, best)
    best_card = json.loads((best / tv.CARD_FILE).read_text())
    del best_card["careless_play"]
    (best / tv.CARD_FILE).write_text(json.dumps(best_card))
    seeds, standard = np.arange(300), Rules.preset("standard")
    sampled = shipped.duel(folder, standard, 2, seeds, against="random")[2]
    assert not np.array_equal(sampled, shipped.duel(best, standard, 2, seeds, against="random")[2])


def test_the_models_table_gives_a_model_of_every_table_its_span_of_players(tmp_path):
    folder = ranking_model(tmp_path / "all", EVERY_TABLE)
    (tmp_path / "bare").mkdir()
    ranking_model(tmp_path / "bare", [("standard", 2), ("pagat", 4)])
    card = json.loads((folder / tv.CARD_FILE).read_text())
    card["evaluation"] = {"command": "kc export runs/x models/x --deals 2 --against heuristic --seed 0", "results": [
        {"player": "model", "opponent": "heuristic", "deals": 2, "win_share": 0.6, "share_interval": [0.5, 0.7],
         "fair_share": 0.5}]}
    (folder / tv.CARD_FILE).write_text(json.dumps(card))
    table = folders.models_table({"all": folder, "bare": tmp_path / "bare"}).splitlines()
    assert table[2].startswith("| `models/all` | turn-value | 2-6 (35 tables), figures at 2 | 0.600 [0.500, 0.700] |")
    assert table[3] == "| `models/bare` | turn-value | 2-4 (2 tables) | no evaluation in its card | | | | |"


def test_a_table_with_too_few_labels_to_hold_any_out_leaves_the_pooled_gain_a_number():
    """Seen in the first run: bicycle at 6 players had fewer than 5 decisions against random, none held
    out, and its NaN made the pooled gain NaN."""
    pytest.importorskip("torch")
    from kc_env.training.turn_value.train import _pooled_gain

    empty = {"held_out": 0, "gain": float("nan"), "half_width": float("nan")}
    pooled = _pooled_gain([{"held_out": 30, "gain": 0.01, "half_width": 0.02},
                           {"held_out": 10, "gain": 0.03, "half_width": 0.04}, empty])
    assert pooled == [0.015, round(float(np.sqrt((0.75 * 0.02) ** 2 + (0.25 * 0.04) ** 2)), 4)]


# -- the shipped model ------------------------------------------------------------------------------

def test_the_shipped_model_of_every_table_lists_them_and_plays_at_pagat_with_4_players_without_a_note():
    folder = folders.model_folder("turn-ranking-all")
    card = folders.read_card(folder)
    assert "num_players" not in card and "rules" not in card
    assert sorted((t["name"].rsplit("-", 1)[0], t["num_players"]) for t in card["tables"]) == sorted(EVERY_TABLE)
    assert all(Rules.from_dict(t["rules"]) == Rules.preset(t["name"].rsplit("-", 1)[0]) for t in card["tables"])
    assert card["careless_layers"] == [1] and card["layers"] == [1]
    assert sum(f.stat().st_size for f in folder.iterdir()) < 10 * 2**20
    model = agents.load("turn-ranking-all")
    for preset, n in EVERY_TABLE:
        assert other_table(model, Rules.preset(preset), n) is None, (preset, n)


def test_the_compiled_duels_command_names_an_unknown_opponent(capsys):
    pytest.importorskip("torch")
    from kc_env.training.turn_value import shipped

    with pytest.raises(SystemExit) as stop:
        shipped.main(["models/turn-ppo-ensemble-2p", "--tables", "standard-2p", "--seed", "1", "--against", "heuristc"])
    assert stop.value.code == 2
    assert "--against 'heuristc': not one of heuristic, greedy, random" in capsys.readouterr().err
