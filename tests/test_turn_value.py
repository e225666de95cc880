"""The turn-value agent (``kc_env.agents.turn_value``) and its trainer
(``kc_env.training.turn_value``, ``trainer: turn_value``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from positions import KING_TABLE, position

from kc_env import actions, agents, engine, observation
from kc_env.agents import turn_value as tv
from kc_env.play import play_deal

RESEARCH_CONFIGS = Path(__file__).resolve().parents[1] / "research" / "configs"
"""The experiments' configs (not shipped): the turn-value trainer's own tests train them."""


def random_model(folder, hidden=(8,), candidates=4, seed=0):
    rng = np.random.default_rng(seed)
    sizes = [tv.FEATURES, *hidden, 1]
    layers = [(rng.normal(0, 0.1, (sizes[i + 1], sizes[i])).astype(np.float32), np.zeros(sizes[i + 1], np.float32))
              for i in range(len(sizes) - 1)]
    return tv.save(folder, layers, {"candidates": candidates})


def obs_of(state):
    return {"observation": observation.encode(state, state.current_player), "action_mask": actions.legal_mask(state)}


def test_features_describe_the_hand_and_the_piles():
    state = position("""
        N: 5C
        E: 9H
        S: 2D
        W: -
        NE: KC
        hand 0: KH 4C 8D
        hand 1: 2C 3C 4D 6S 7S
        stock: 9D 10D AS AH 2H QS
    """)
    f = np.zeros(tv.FEATURES, np.float32)
    tv.features(observation.encode(state, 0), f)
    assert sorted(np.flatnonzero(f[:54]).tolist()) == sorted(state.hands[0])
    west, north = 56 + 3 * tv.PILE_FEATURES, 56
    assert f[west + 1] == 1.0 and f[west] == 0.0  # W is empty
    assert f[north + 2 + 5 - 1] == 1.0 and f[north + 15 + 0] == 1.0  # N's top is a black 5
    assert f[north + 19] == 0.0  # nothing in hand fits a black 5 (the 4C is black too)
    legal = set(np.flatnonzero(actions.legal_mask(state)).tolist())
    for p in range(8):
        fits = sum(actions.encode(engine.PlayCard(c, p)) in legal for c in state.hands[0])
        assert f[56 + p * tv.PILE_FEATURES + 19] == pytest.approx(fits / 4), p


@pytest.mark.slow  # three whole deals; test_it_takes_a_line_that_goes_out plays the agent by default
def test_a_saved_model_loads_by_folder_and_plays_legal_moves(tmp_path):
    folder = random_model(tmp_path / "tv")
    agent = agents.load(str(folder))
    assert isinstance(agent, tv.TurnValueAgent)
    for seed in range(3):
        state = engine.new_deal("standard", 2, seed=seed)
        play_deal(state, [agent, agents.load("heuristic")])  # raises on an illegal action
        assert state.is_over


def test_it_takes_a_line_that_goes_out():
    state = position("""
        N: 5C
        E: 9H
        S: 2D
        W: JC
        hand 0: 4D 8S
        hand 1: 2C 3C 4H 6S 7S
        stock: 9D 10D AS AH 2H QS
    """)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        agent = tv.TurnValueAgent(random_model(tmp, seed=3))
        while state.current_player == 0 and not state.is_over:
            engine.apply(state, actions.decode(agent.act(obs_of(state))))
    assert state.is_over and state.winner == 0


@pytest.mark.parametrize("change, message", [
    (lambda card, arrays: card.update(format="other"), "not a turn-value model card"),
    (lambda card, arrays: card.update(features_version=99), "features"),
    (lambda card, arrays: card.update(features=293), "'features' must be 294 .* not 293"),
    (lambda card, arrays: card.update(features="abc"), "'features' must be 294 .* not 'abc'"),
    (lambda card, arrays: card.update(candidates=1), "'candidates' must be an integer from 2 to 64"),
    (lambda card, arrays: card.update(layers=[8, 2]), "'layers' must list the layer sizes, ending in 1"),
    (lambda card, arrays: arrays.update(w0=np.zeros((8, 3), np.float32)), "array w0 has shape \\(8, 3\\)"),
    (lambda card, arrays: arrays.update(b0=np.zeros(8, np.float64)), "array b0 is float64"),
    (lambda card, arrays: arrays.pop("w1"), "missing arrays w1"),
])
def test_a_bad_model_folder_is_refused_saying_why(tmp_path, change, message):
    folder = random_model(tmp_path / "tv")
    card = json.loads((folder / tv.CARD_FILE).read_text())
    with np.load(folder / tv.WEIGHTS_FILE) as data:
        arrays = {k: data[k] for k in data.files}
    change(card, arrays)
    (folder / tv.CARD_FILE).write_text(json.dumps(card))
    np.savez(folder / tv.WEIGHTS_FILE, **arrays)
    with pytest.raises(tv.ModelError, match=message):
        tv.load(folder)


def test_weights_holding_a_pickle_are_refused_unread(tmp_path):
    folder = random_model(tmp_path / "tv")
    np.savez(folder / tv.WEIGHTS_FILE, w0=np.array([object()], dtype=object), b0=np.zeros(8, np.float32),
             w1=np.zeros((1, 8), np.float32), b1=np.zeros(1, np.float32))
    with pytest.raises(tv.ModelError, match="array w0 holds pickled objects; refusing to unpickle"):
        tv.load(folder)


def _first_iteration(config, tmp_path):
    """The smoke variant of ``config`` trained for one iteration in ``tmp_path / "run"``."""
    pytest.importorskip("torch")
    from kc_env.training import config as config_mod
    from kc_env.training.turn_value.train import train

    cfg = config_mod.load(config_mod.find(config), "smoke")
    cfg.turn_value.iterations = 1
    run = tmp_path / "run"
    train(cfg, run, log=lambda _: None)
    return cfg, run, train


@pytest.mark.slow  # about 100 s: compiling the self-play loop for a new network shape
def test_the_trainer_runs_resumes_and_leaves_a_model(tmp_path):
    cfg, run, train = _first_iteration(RESEARCH_CONFIGS / "turn-value-2p.yaml", tmp_path)
    first = json.loads((run / "progress.json").read_text())
    assert first["done"] == 1 and [p["iteration"] for p in first["curve"]] == [0, 1]
    cfg.turn_value.iterations = 2
    result = train(cfg, run, resume=True, log=lambda _: None)
    assert [p["iteration"] for p in result.curve] == [0, 1, 2]
    assert set(result.curve[-1]) >= {"heuristic", "greedy", "random"}
    agent = agents.load(str(run / "model"))
    state = engine.new_deal("standard", 2, seed=1)
    play_deal(state, [agent, agents.load("random")])
    with pytest.raises(FileExistsError, match="holds a run already"):
        train(cfg, run, log=lambda _: None)


@pytest.mark.parametrize("key, value, message", [
    ("epsilon", 1.5, "turn_value.epsilon must be in"),
    ("candidates", 1, "turn_value.candidates must be 2 to 64"),
    ("hidden", [0], "turn_value.hidden must be positive widths"),
    ("games", 0, "turn_value.iterations, games and epochs must be positive"),
    ("games", 10**9, "turn_value.games must be at most 200,000 deals an iteration"),
    ("learning_rate", -1.0, "turn_value.learning_rate must be positive"),
    ("method", "td", "turn_value.method must be one of monte_carlo, ranking"),
    ("redeals", 0, "turn_value.redeals must be 1 to 1024"),
    ("label_chunks", 0, "turn_value.label_chunks must be positive"),
    ("label_against", ["greedy"], "turn_value.label_against must list some of heuristic, random"),
    ("label_against", ["random", "random"], "turn_value.label_against must list some of heuristic, random, each once"),
    ("fit_steps", 0, "turn_value.fit_steps must be positive"),
    ("label_chunks", {"heuristic": 2}, "turn_value.label_chunks must be positive, or map each of label_against"),
    ("label_chunks", {"heuristic": {"heuristic": 1, "random": 1}, "random": 1},
     "turn_value.label_chunks must be positive, or map each of label_against"),
    ("label_chunks", {"heuristic": 2, "random": True}, "turn_value.label_chunks must be positive, or map each of"),
    ("gate", "always", "turn_value.gate must be one of none, careless"),
    ("gate", "careless", "turn_value.gate careless needs method ranking and label_against"),
    ("patience", -1, "turn_value.patience must be an integer from 0 to 100"),
])
def test_the_trainer_config_is_checked_up_front(key, value, message):
    pytest.importorskip("torch")
    from kc_env.training import config as config_mod

    with pytest.raises(config_mod.ConfigError, match=message):
        config_mod.load(RESEARCH_CONFIGS / "turn-value-2p.yaml", None, {f"turn_value.{key}": value})


def _first_turn(seed):
    """The observation and mask at the start of the first turn of deal ``seed`` (2 players)."""
    state = engine.new_deal("standard", 2, seed=seed)
    o = obs_of(state)
    return o["observation"].astype(np.float32), o["action_mask"].astype(np.int8)


def test_play_outs_seat_the_opponent_they_are_asked_for():
    """The heuristic's first turn of a deal, played out 64 times with the heuristic in the other
    seat, is worth about half a deal; with random there, most of a deal."""
    from kc_env.agents import turns
    from kc_env.agents.heuristic.weights import HEURISTIC_WEIGHTS
    from kc_env.agents.playouts import OTHERS, line_values

    ob, mask = _first_turn(5)
    lines, lengths = np.zeros((2, turns.MAX_DEPTH), np.int64), np.zeros(2, np.int64)
    feats = np.zeros((2, tv.FEATURES), np.float32)
    tv.candidate_features(ob, mask, 2, lines, lengths, feats)
    against = {who: line_values(ob, lines[:1], lengths[:1], 64, HEURISTIC_WEIGHTS.copy(), 7, 1000, OTHERS.index(who))[0]
               for who in ("heuristic", "random")}
    assert 0.3 < against["heuristic"] < 0.7 < 0.8 < against["random"]


def test_label_chunks_may_differ_by_opponent():
    pytest.importorskip("torch")
    from kc_env.training import config as config_mod

    cfg = config_mod.load(config_mod.find("turn-ranking-2p"), None,
                          {"turn_value.label_chunks": {"heuristic": 2, "random": 5}})
    assert (cfg.turn_value.chunks_against("heuristic"), cfg.turn_value.chunks_against("random")) == (2, 5)
    assert config_mod.load(config_mod.find("turn-ranking-2p"), "smoke").turn_value.chunks_against("random") == 1


@pytest.mark.slow  # deals on the vector env and play-outs; the ranking trainer's slow test labels too
def test_labelled_decisions_come_from_deals_against_the_opponent_and_repeat():
    """A chunk of labels against random: every decision has 2 or more candidates, each valued in
    [0, 1], and the same chunk labels the same again; against random the heuristic's own turn is
    worth far more than against the heuristic."""
    pytest.importorskip("torch")
    from kc_env.training.turn_value import learn as train_tv

    from kc_env.rules import Rules

    rules = Rules.preset("standard")
    rows = train_tv.label_chunk(rules, 2, 0, "random", k=3, redeals=2, deals=6)
    again = train_tv.label_chunk(rules, 2, 0, "random", k=3, redeals=2, deals=6)
    assert len(rows) > 4 and all(len(v) >= 2 and ((v >= 0) & (v <= 1)).all() for _, v in rows)
    assert all(np.array_equal(a[1], b[1]) and np.array_equal(a[0], b[0]) for a, b in zip(rows, again, strict=True))
    versus_heuristic = train_tv.label_chunk(rules, 2, 0, "heuristic", k=3, redeals=2, deals=6)
    assert np.mean([v[0] for _, v in rows]) > np.mean([v[0] for _, v in versus_heuristic]) + 0.2


@pytest.mark.slow  # play-outs twice over
def test_labels_against_several_opponents_are_a_column_each_on_the_same_redeals():
    """``others`` values every candidate once per play-out opponent, on the same re-deals: its
    column for the deal's own opponent is the single-opponent label, to the bit."""
    pytest.importorskip("torch")
    from kc_env.training.turn_value import learn as train_tv

    from kc_env.rules import Rules

    rules = Rules.preset("standard")
    single = train_tv.label_chunk(rules, 2, 0, "random", k=3, redeals=2, deals=4)
    both = train_tv.label_chunk(rules, 2, 0, "random", k=3, redeals=2, deals=4, others=("heuristic", "random"))
    assert len(both) == len(single) > 2
    assert all(v.shape == (len(x), 2) for x, v in both)
    assert all(np.array_equal(a[1], b[1][:, 1]) and np.array_equal(a[0], b[0]) for a, b in zip(single, both, strict=True))
    assert np.mean([v[0, 1] for _, v in both]) > np.mean([v[0, 0] for _, v in both])  # random is the easier opponent


@pytest.mark.slow  # about 2 minutes: four chunks of labels and the duels' compiled loop
def test_the_ranking_trainer_labels_fits_resumes_and_leaves_a_model(tmp_path):
    cfg, run, train = _first_iteration("turn-ranking-2p", tmp_path)
    from kc_env.training.turn_value import learn as train_tv

    rows, chunks = train_tv.load_labels(run / "labels_random.npz")
    assert chunks == 1 and rows
    cfg.turn_value.iterations = 2
    result = train(cfg, run, resume=True, log=lambda _: None)
    assert [p["iteration"] for p in result.curve] == [0, 1, 2]
    assert {"decisions", "held_out_gain_heuristic", "held_out_gain_random", "random"} <= set(result.curve[-1])
    again, chunks = train_tv.load_labels(run / "labels_random.npz")
    assert chunks == 2 and all(np.array_equal(a[1], b[1]) for a, b in zip(rows, again, strict=False))
    card = json.loads((run / "model" / tv.CARD_FILE).read_text())
    assert card["trained"]["method"] == "ranking" and card["layers"] == [1]
    assert card["trained"]["gate"] == "careless" and card["careless_layers"] == [1] and card["patience"] == 3
    assert card["trained"]["label_chunks_per_iteration"] == {"heuristic": 1, "random": 1}
    assert result.curve[-1]["seconds"] >= result.curve[-2]["seconds"] > 0
    agent = agents.load(str(run / "model"))
    state = engine.new_deal("standard", 2, seed=1)
    play_deal(state, [agent, agents.load("random")])


def gated_model(folder, patience=2):
    rng = np.random.default_rng(4)
    net = [(rng.normal(0, 0.1, (1, tv.FEATURES)).astype(np.float32), np.zeros(1, np.float32))]
    loose = [(rng.normal(0, 0.1, (1, tv.FEATURES)).astype(np.float32), np.zeros(1, np.float32))]
    return tv.save(folder, net, {"candidates": 4}, careless_layers=loose, patience=patience)


CAREFUL_TABLE = KING_TABLE  # no pile move open, no empty side


def careless_at(text, first_turn=False, moves=()):
    state = position(text)
    state.first_turn = first_turn
    for move in moves:
        engine.apply(state, engine.parse_move(move))
    o = obs_of(state)
    return tv.careless(o["observation"], o["action_mask"])


def test_a_table_with_no_pile_move_open_and_no_empty_side_is_not_careless():
    assert not careless_at(CAREFUL_TABLE)


def test_a_pile_move_left_open_at_the_start_of_the_turn_is_careless():
    assert careless_at(CAREFUL_TABLE.replace("E: 9H", "E: 4H"))  # the 4H may move onto the 5C


def test_an_empty_side_left_at_the_start_of_the_turn_is_careless():
    assert careless_at(CAREFUL_TABLE.replace("W: JC", "W: -"))


def test_nothing_is_careless_in_the_deals_first_turn_or_after_the_turns_first_move():
    open_move = CAREFUL_TABLE.replace("E: 9H", "E: 4H")
    assert not careless_at(open_move, first_turn=True)  # nobody else has played yet
    assert not careless_at(open_move, moves=["play KH->NE"])  # the seat's own turn is under way


def _turn_start(text, first_turn=False):
    state = position(text)
    state.first_turn = first_turn
    o = obs_of(state)
    return o["observation"], o["action_mask"]


def test_the_gate_plays_the_heuristic_then_the_first_network_then_the_second_for_the_rest_of_the_deal(tmp_path):
    agent = tv.TurnValueAgent(gated_model(tmp_path / "gated", patience=2))
    careful, loose = _turn_start(CAREFUL_TABLE), _turn_start(CAREFUL_TABLE.replace("W: JC", "W: -"))
    assert agent.gate(*careful) == "heuristic"  # one clean turn of two
    assert agent.gate(*careful) is None  # the first network
    assert agent.gate(*loose) is agent._loose
    assert agent.gate(*careful) is agent._loose  # for the rest of the deal
    assert agent.gate(*_turn_start(CAREFUL_TABLE, first_turn=True)) == "heuristic"  # a new deal forgets
    agent.gate(*loose)
    agent.reset()
    assert agent.gate(*careful) == "heuristic"


def test_a_gated_model_loads_and_a_bad_second_network_is_refused(tmp_path):
    folder = gated_model(tmp_path / "gated", patience=3)
    card, _ = tv.load(folder)
    assert card["careless_layers"] == [1] and card["patience"] == 3
    assert len(tv.load_careless(folder, card)) == 1
    card["patience"] = -1
    (folder / tv.CARD_FILE).write_text(json.dumps(card))
    with pytest.raises(tv.ModelError, match="'patience' must be an integer from 0 to 100"):
        tv.load(folder)
    card.update(patience=3, careless_layers=[8, 1])
    (folder / tv.CARD_FILE).write_text(json.dumps(card))
    with pytest.raises(tv.ModelError, match="weights.npz: missing arrays careless_w1, careless_b1"):
        tv.load(folder)


def test_the_gate_keeps_its_memory_while_the_table_keeps_its_number_of_cards(tmp_path):
    """Found in play: summing the piles' lengths as the observation's floats (n / 13) made a
    table of 1, 1, 1 and 2 cards (N E S W) look larger than one of 1, 1, 2 and 1, so the agent
    took the second for a new deal and forgot what it had seen."""
    agent = tv.TurnValueAgent(gated_model(tmp_path / "gated", patience=2))
    before = CAREFUL_TABLE.replace("W: JC", "W: JC 10H")
    after = before.replace("S: 2D", "S: 3S 2D").replace("W: JC 10H", "W: JC")
    assert agent.gate(*_turn_start(before)) == "heuristic"
    assert agent.gate(*_turn_start(after)) is None  # the same deal: its second clean turn


def test_kc_export_copies_a_turn_value_run_and_evaluates_it(tmp_path, capsys):
    pytest.importorskip("torch")
    from kc_env.training import config as config_mod

    from kc_env.cli import main

    run = tmp_path / "run"
    run.mkdir()
    config_mod.save(config_mod.load(config_mod.find("turn-ranking-2p"), "smoke"), run / "config.yaml")
    assert main(["export", str(run), str(tmp_path / "none"), "--deals", "2", "--against", "random"]) == 2
    assert "no turn-value model in" in capsys.readouterr().err
    gated_model(run / "model", patience=1)
    assert main(["export", str(run), str(tmp_path / "out"), "--deals", "2", "--against", "random",
                 "--no-progress"]) == 0
    card = json.loads((tmp_path / "out" / tv.CARD_FILE).read_text())
    assert card["careless_layers"] == [1] and card["evaluation"]["results"]
    assert isinstance(agents.load(str(tmp_path / "out")), tv.TurnValueAgent)


def test_the_ranking_trainer_evaluates_one_seat_against_the_rest_of_the_table(monkeypatch):
    """With four players the model (here the heuristic, before any iteration) sits against three
    of each opponent, as ``kc export`` and ``kc eval`` seat it, not two against two."""
    pytest.importorskip("torch")
    from kc_env.training import config as config_mod
    from kc_env.training.turn_value import train as turn_value_train

    from kc_env import tournament

    seatings, real = [], tournament.run_tournament

    def fake_tournament(specs, rules, num_players, **kwargs):
        seatings.append(list(specs))
        return real(["random"] * num_players, rules, num_players, deals=num_players, seed=0, workers=1)

    monkeypatch.setattr(tournament, "run_tournament", fake_tournament)
    cfg = config_mod.load(RESEARCH_CONFIGS / "turn-ranking-4p.yaml", "smoke")
    point = turn_value_train._evaluate(cfg, None, {"iteration": 0})
    assert seatings == [["heuristic", spec, spec, spec] for spec in ("heuristic", "greedy", "random")]
    assert set(point) == {"iteration", "heuristic", "greedy", "random"}


def test_a_pick_gains_what_the_labels_say_over_the_heuristics_first_candidate():
    """``pick_gains``: a network that reads the label off the features picks the best candidate
    (its gain is the best candidate's), one that reads it backwards picks the worst."""
    pytest.importorskip("torch")
    from kc_env.training.turn_value import learn as training

    rng = np.random.default_rng(3)
    rows = []
    for _ in range(50):
        values = rng.random(4).astype(np.float32)
        feats = np.zeros((4, tv.FEATURES), np.float32)
        feats[:, 0] = values
        rows.append((feats, values))
    w = np.zeros((1, tv.FEATURES), np.float32)
    w[0, 0] = 1.0
    reads, backwards = [(w, np.zeros(1, np.float32))], [(-w, np.zeros(1, np.float32))]
    best = training.pick_gains(reads, rows, range(50))
    worst = training.pick_gains(backwards, rows, range(50))
    expected = np.mean([v.max() - v[0] for _, v in rows])
    assert best["gain"] == best["best_candidate_gain"] == round(float(expected), 4) > 0
    assert worst["gain"] == round(float(np.mean([v.min() - v[0] for _, v in rows])), 4) < 0
    assert training.held_out(50) == training.held_out(50) and len(training.held_out(50)) == 10


def _with_card(folder, **changes):
    card = json.loads((folder / tv.CARD_FILE).read_text())
    (folder / tv.CARD_FILE).write_text(json.dumps(card | changes))
    return folder


@pytest.mark.parametrize("changes", [
    {"layers": [4096, 4096, 1]},
    {"layers": [1400, 1400, 1], "careless_layers": [1400, 1400, 1]},  # each alone fits, not both
])
def test_the_arrays_a_card_declares_are_capped_in_total_before_any_is_read(tmp_path, changes):
    """Issue 31 M-2: ``layers: [4096] * 20 + [1]`` held 1.2 GB from a 1.25 MB folder."""
    folder = _with_card(random_model(tmp_path / "tv"), **changes)
    with pytest.raises(tv.ModelError, match=r"model.json: the network's arrays would hold [\d,]+ bytes as float32, "
                                            r"more than the 16,777,216 a model may hold"):
        tv.load(folder)


def test_a_card_with_too_many_layers_is_refused(tmp_path):
    folder = _with_card(random_model(tmp_path / "tv"), layers=[1] * (tv.MAX_LAYERS + 1))
    with pytest.raises(tv.ModelError, match=f"'layers' must list at most {tv.MAX_LAYERS} layer sizes"):
        tv.load(folder)


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_weights_that_are_not_finite_are_refused(tmp_path, value):
    """Issue 31 L-2: all-NaN weights loaded and played arbitrary legal moves."""
    folder = random_model(tmp_path / "tv")
    with np.load(folder / tv.WEIGHTS_FILE) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["w1"][0, 3] = value
    np.savez(folder / tv.WEIGHTS_FILE, **arrays)
    with pytest.raises(tv.ModelError, match="array w1 is not finite"):
        tv.load(folder)


def sampling_model(folder, patience=0, careless_candidates=None):
    zeros = [(np.zeros((1, tv.FEATURES), np.float32), np.zeros(1, np.float32))]
    rng = np.random.default_rng(4)
    net = [(rng.normal(0, 0.1, (1, tv.FEATURES)).astype(np.float32), np.zeros(1, np.float32))]
    return tv.save(folder, net, {"candidates": 4}, careless_layers=zeros, patience=patience, careless_play="sample",
                   careless_candidates=careless_candidates)


def _drawn_turn(agent, text, seed):
    """The moves the agent makes in the turn of ``text`` after ``reset(seed)``, to its end."""
    agent.reset(seed=seed)
    state, moves = position(text), []
    while True:
        o = obs_of(state)
        a = agent.act(o)
        moves.append(a)
        if a == actions.END_TURN_ACTION:
            return tuple(moves)
        engine.apply(state, actions.decode(a))


def test_a_sampling_second_network_draws_a_line_at_the_turn_start_and_plays_it_to_the_end(tmp_path):
    agent = tv.TurnValueAgent(sampling_model(tmp_path / "sampling"))
    loose = CAREFUL_TABLE.replace("W: JC", "W: -")  # an empty side: the second network plays
    ob, mask = _turn_start(loose)
    k = 4
    lines, lengths = np.zeros((k, tv.turns.MAX_DEPTH), np.int64), np.zeros(k, np.int64)
    valid, _, _ = tv.candidate_features(ob, mask, k, lines, lengths, np.zeros((k, tv.FEATURES), np.float32))
    candidates = {tuple(int(m) for m in lines[i, :lengths[i]]) + (actions.END_TURN_ACTION,) for i in range(valid)}
    drawn = [_drawn_turn(agent, loose, seed) for seed in range(24)]
    assert set(drawn) <= candidates and len(set(drawn)) > 1  # whole candidate lines, not always the same
    assert _drawn_turn(agent, loose, 7) == drawn[7]  # the same seed draws the same line
    card = json.loads((tmp_path / "sampling" / tv.CARD_FILE).read_text())
    assert card["careless_play"] == "sample"


def _candidate_turns(text, k=4):
    ob, mask = _turn_start(text)
    lines, lengths = np.zeros((k, tv.turns.MAX_DEPTH), np.int64), np.zeros(k, np.int64)
    valid, _, _ = tv.candidate_features(ob, mask, k, lines, lengths, np.zeros((k, tv.FEATURES), np.float32))
    return [tuple(int(m) for m in lines[i, :lengths[i]]) + (actions.END_TURN_ACTION,) for i in range(valid)]


def test_careless_candidates_lets_the_second_network_draw_among_the_heuristics_first_few(tmp_path):
    agent = tv.TurnValueAgent(sampling_model(tmp_path / "few", careless_candidates=2))
    loose = CAREFUL_TABLE.replace("W: JC", "W: -")
    candidates = _candidate_turns(loose)
    assert len(candidates) > 2
    drawn = {_drawn_turn(agent, loose, seed) for seed in range(24)}
    assert drawn == set(candidates[:2])
    card = json.loads((tmp_path / "few" / tv.CARD_FILE).read_text())
    assert card["careless_candidates"] == 2
    assert "careless_candidates" not in json.loads((sampling_model(tmp_path / "all", careless_candidates=4) /
                                                    tv.CARD_FILE).read_text())


def test_a_careful_table_gets_the_first_networks_best_line_from_a_sampling_model(tmp_path):
    agent = tv.TurnValueAgent(sampling_model(tmp_path / "sampling"))
    best = {_drawn_turn(agent, CAREFUL_TABLE, seed) for seed in range(8)}
    assert len(best) == 1


def _refused(folder, changes, message):
    card = json.loads((folder / tv.CARD_FILE).read_text())
    card.update(changes)
    (folder / tv.CARD_FILE).write_text(json.dumps({k: v for k, v in card.items() if v is not None}))
    with pytest.raises(tv.ModelError, match=message):
        tv.load(folder)


@pytest.mark.parametrize("changes, message", [
    ({"careless_play": "often"}, "'careless_play' must be one of best, sample, or one for each seat count .* not 'often'"),
    ({"careless_layers": None, "patience": None}, "'careless_play' says how a second network plays, and the card "
                                                  "lists none \\('careless_layers'\\)"),
])
def test_a_bad_careless_play_is_refused(tmp_path, changes, message):
    _refused(sampling_model(tmp_path / "sampling"), changes, message)


@pytest.mark.parametrize("changes, message", [
    ({"careless_candidates": 5}, "'careless_candidates' must be an integer from 2 to 'candidates' .4., with "
                                 "'careless_layers', not 5"),
    ({"careless_candidates": 1}, "'careless_candidates' must be an integer from 2"),
    ({"careless_candidates": True}, "'careless_candidates' must be an integer from 2"),
    ({"careless_candidates": 2, "careless_layers": None, "patience": None, "careless_play": None},
     "'careless_candidates' must be an integer from 2 to 'candidates' .4., with 'careless_layers', not 2"),
])
def test_a_bad_careless_candidates_is_refused(tmp_path, changes, message):
    _refused(sampling_model(tmp_path / "sampling"), changes, message)
