"""PPO over whole turns (``trainer: turn_ppo``, ``training/turn_ppo``): its deals, its update, its
run folder and its checks."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training.turn_ppo import rollouts  # noqa: E402
from kc_env.training.turn_ppo.settings import TurnPPOSettings  # noqa: E402
from kc_env.training.turn_ppo.update import ppo_update  # noqa: E402

from kc_env import agents, engine  # noqa: E402
from kc_env.agents import turn_value as tv  # noqa: E402
from kc_env.agents.policy_model import other_table  # noqa: E402
from kc_env.agents.turn_value import FEATURES, SEAT_COUNT  # noqa: E402
from kc_env.play import play_deal  # noqa: E402
from kc_env.rules import Rules  # noqa: E402

CONFIG = Path(__file__).resolve().parents[1] / "research" / "configs" / "turn-ppo-2p.yaml"
STANDARD = Rules.preset("standard")
UNIFORM = [(np.zeros((1, FEATURES), np.float32), np.zeros(1, np.float32))]


def test_a_uniform_policy_samples_every_candidate_and_records_its_probability():
    seeds = np.arange(12, dtype=np.int64) + 500
    data = rollouts.generate(STANDARD, 2, seeds, np.full(12, 0b11), np.zeros(12), (UNIFORM, None), k=4, seed=1)
    assert len(data["picks"]) > 100
    assert (data["valid"] >= 2).all() and (data["valid"] <= 4).all()
    np.testing.assert_allclose(data["logps"], -np.log(data["valid"]), rtol=1e-5)
    assert set(np.unique(data["picks"])) == {0, 1, 2, 3}
    assert set(np.unique(data["outcomes"])) <= {0.0, 0.5, 1.0}
    again = rollouts.generate(STANDARD, 2, seeds, np.full(12, 0b11), np.zeros(12), (UNIFORM, None), k=4, seed=1)
    np.testing.assert_array_equal(data["picks"], again["picks"])


def test_a_seat_that_does_not_learn_records_nothing():
    seeds = np.arange(6, dtype=np.int64)
    data = rollouts.generate(STANDARD, 2, seeds, np.full(6, 0b01), np.zeros(6), (UNIFORM, None), k=4, seed=0)
    both = rollouts.generate(STANDARD, 2, seeds, np.full(6, 0b11), np.zeros(6), (UNIFORM, None), k=4, seed=0)
    assert 0 < len(data["picks"]) < len(both["picks"])


def test_every_other_seed_plays_the_same_deals_on_the_same_compiled_code():
    """The trainer deals a table every other seed (``seeds[i::tables]``, a strided view): the deals
    are those of the same seeds in a fresh array, and numba compiles no second version of the
    rollouts for the view's layout (once 26 s of each cold run)."""
    seeds = np.arange(12, dtype=np.int64)[::2]
    fresh = rollouts.generate(STANDARD, 2, seeds.copy(), np.full(6, 0b01), np.zeros(6), (UNIFORM, None), k=4, seed=0)
    compiled = len(rollouts.play.compiled.overloads)
    strided = rollouts.generate(STANDARD, 2, seeds, np.full(6, 0b01), np.zeros(6), (UNIFORM, None), k=4, seed=0)
    assert len(rollouts.play.compiled.overloads) == compiled
    np.testing.assert_array_equal(strided["shares"], fresh["shares"])


def synthetic_choices(n=4000, k=3, seed=0):
    """Decisions where the candidate whose first feature is set wins and every other loses."""
    rng = np.random.default_rng(seed)
    feats = rng.normal(0, 0.1, (n, k, FEATURES)).astype(np.float32)
    good = rng.integers(0, k, n)
    feats[np.arange(n), good, 0] = 1.0
    picks = rng.integers(0, k, n)
    return {"feats": feats, "valid": np.full(n, k), "picks": picks, "logps": np.full(n, -np.log(k), np.float32),
            "outcomes": (picks == good).astype(np.float32)}


@pytest.mark.parametrize("advantage", ["outcome", "expected"])
def test_updates_move_the_policy_towards_the_candidates_that_win(advantage):
    data = synthetic_choices()
    s = TurnPPOSettings(epochs=4, batch_size=500, learning_rate=0.01, advantage=advantage, critic_hidden=[16])
    actor, critic = UNIFORM, None
    for step in range(2):  # "expected" needs a critic: the first update trains it from scratch
        actor, critic, stats = ppo_update(actor, critic, data, s, seed=step, log=lambda _: None)
    assert actor[0][0][0, 0] > 0.05  # the policy's weight on the winning feature
    test = synthetic_choices(seed=1)
    z = np.einsum("nkf,f->nk", test["feats"], actor[0][0][0])
    good = test["feats"][:, :, 0].argmax(axis=1)
    assert (z.argmax(axis=1) == good).mean() > 0.9
    assert stats["other_than_heuristic"] == pytest.approx((data["picks"] != 0).mean())
    assert 0.0 <= stats["clip_fraction"] <= 1.0 and stats["entropy"] > 0


@pytest.mark.parametrize("key, value, message", [
    ("self_play", 1.5, "turn_ppo.self_play must be in"),
    ("against", ["search"], "turn_ppo.against must list some of heuristic, greedy, random"),
    ("candidates", 1, "turn_ppo.candidates must be 2 to 64"),
    ("critic_hidden", [0], "turn_ppo.hidden and critic_hidden must be positive widths"),
    ("advantage", "gae", "turn_ppo.advantage must be one of outcome, expected"),
    ("returns", "points", "turn_ppo.returns must be one of share, win, not 'points'"),
    ("careless_play", "sample", "turn_ppo.careless_play must be one of best, sample .sample: with gate careless"),
    ("careless_candidates", 2, "turn_ppo.careless_candidates must be null or an integer from 2 to "
                               "turn_ppo.candidates, with gate careless or uniform"),
    ("clip_range", 0.0, "clip_range in"),
    ("games", 0, "turn_ppo.iterations and games must be positive"),
    ("games", 10**12, "turn_ppo.games must be at most 50,000 deals an iteration, not 1,000,000,000,000"),
    ("batch_size", 10**12, "turn_ppo.batch_size must be at most 65,536, not 1,000,000,000,000"),
    ("tables", "pagat", "turn_ppo.tables: expected list"),
    ("tables", [{"rules": "pagat", "players": 3}], "turn_ppo.tables.0. must be a mapping of rules and num_players"),
    ("tables", [{"rules": "snap", "num_players": 3}], "turn_ppo.tables.0.: .*snap"),
    ("tables", [{"rules": "pagat", "num_players": [3, 3]}], "turn_ppo.tables names a table twice: pagat-3p and pagat-3p"),
    ("tables", [{"rules": "pagat", "num_players": []}], "turn_ppo.tables.0. names no table"),
    ("tables", [{"rules": [], "num_players": 3}], "turn_ppo.tables.0. names no table"),
    ("tables", [{"rules": [{"target": t} for t in range(10, 70)], "num_players": [2, 3, 4, 5, 6]}],
     "turn_ppo.tables names 300 tables; a model's card holds at most 256"),
])
def test_the_trainer_config_is_checked_up_front(key, value, message):
    with pytest.raises(config_mod.ConfigError, match=message):
        config_mod.load(CONFIG, None, {f"turn_ppo.{key}": value})


@pytest.mark.slow
@pytest.mark.parametrize("gate", ["none", "heuristic", "uniform"])
def test_the_trainer_runs_resumes_and_leaves_a_model_that_plays(tmp_path, gate):
    from kc_env.training.turn_ppo.train import train

    cfg = config_mod.load(CONFIG, "smoke", {"turn_ppo.gate": gate, "turn_ppo.patience": 2})
    cfg.turn_ppo.iterations = 1
    run = tmp_path / "run"
    train(cfg, run, log=lambda _: None)
    assert json.loads((run / "progress.json").read_text())["done"] == 1
    cfg.turn_ppo.iterations = 2
    result = train(cfg, run, resume=True, log=lambda _: None)
    assert [p["iteration"] for p in result.curve] == [0, 1, 2]
    assert {"heuristic", "greedy", "random", "explained_variance", "entropy"} <= set(result.curve[-1])
    agent = agents.load(str(run / "model"))
    assert json.loads((run / "model" / "model.json").read_text())["trained"]["trainer"] == "turn_ppo"
    play_deal(engine.new_deal("standard", 2, seed=3), [agent, agents.load("random")])
    card = json.loads((run / "model" / "model.json").read_text())
    assert (card.get("careless_layers"), card.get("patience")) == (([1], 2) if gate != "none" else (None, None))
    assert card.get("careless_play") == ("sample" if gate == "uniform" else None)
    with pytest.raises(FileExistsError, match="holds a run already"):
        train(cfg, run, log=lambda _: None)


def test_a_gated_policy_chooses_by_its_second_network_once_a_seat_has_been_careless():
    seeds = np.arange(16, dtype=np.int64) + 40
    random_code = rollouts.OTHERS.index("random")
    data = rollouts.generate(STANDARD, 2, seeds, np.full(16, 0b01), np.full(16, random_code), (UNIFORM, UNIFORM),
                             k=4, seed=2, patience=1)
    assert set(np.unique(data["nets"])) == {0, 1}  # random leaves pile moves open: the second takes over
    against_heuristic = rollouts.generate(STANDARD, 2, seeds, np.full(16, 0b01), np.zeros(16), (UNIFORM, UNIFORM),
                                          k=4, seed=2, patience=1)
    assert set(np.unique(against_heuristic["nets"])) == {0}


def test_under_the_heuristic_gate_careless_tables_get_the_heuristics_own_turn():
    seeds = np.arange(16, dtype=np.int64) + 40
    random_code = rollouts.OTHERS.index("random")
    kw = dict(k=4, seed=2, patience=1)
    gated = rollouts.generate(STANDARD, 2, seeds, np.full(16, 0b01), np.full(16, random_code), (UNIFORM, UNIFORM),
                              careless_heuristic=True, **kw)
    assert set(np.unique(gated["nets"])) == {0}  # nothing recorded once random has been careless
    learned = rollouts.generate(STANDARD, 2, seeds, np.full(16, 0b01), np.full(16, random_code), (UNIFORM, UNIFORM),
                                **kw)
    assert len(gated["picks"]) == (learned["nets"] == 0).sum()
    # the model's second network, zeros, plays the heuristic's own candidate in the greedy duel
    heuristic = rollouts.duel(STANDARD, 2, seeds, (UNIFORM, None), k=4, against="random", patience=99)
    assert rollouts.duel(STANDARD, 2, seeds, (UNIFORM, UNIFORM), k=4, against="random", patience=0,
                         careless_heuristic=True) == heuristic


def test_under_the_uniform_gate_careless_tables_get_a_draw_among_the_candidates():
    seeds = np.arange(16, dtype=np.int64) + 40
    kw = dict(k=4, patience=0, how=rollouts.BEST_THEN_SAMPLE)
    first = [(np.linspace(-1, 1, FEATURES, dtype=np.float32)[None, :], np.zeros(1, np.float32))]
    # the heuristic is never careless: the first network's best everywhere, as a model without a gate
    assert rollouts.duel(STANDARD, 2, seeds, (first, UNIFORM), against="heuristic", **kw) == \
        rollouts.duel(STANDARD, 2, seeds, (first, None), against="heuristic", k=4)
    # against random (careless) the second network, zeros, draws among the candidates instead of
    # playing its best, the heuristic's own candidate
    drawn = rollouts.episode_shares(STANDARD, 2, seeds, (first, UNIFORM), against="random", seed=1, **kw)
    best = rollouts.episode_shares(STANDARD, 2, seeds, (first, UNIFORM), against="random", k=4, seed=1)
    assert not np.array_equal(drawn, best)
    random_code = rollouts.OTHERS.index("random")
    played = rollouts.generate(STANDARD, 2, seeds, np.full(16, 0b01), np.full(16, random_code), (first, UNIFORM),
                               seed=1, **kw)
    assert len(played["picks"]) == 0  # a policy playing as a model records nothing


def test_the_second_network_chooses_among_the_heuristics_first_careless_candidates():
    seeds = np.arange(16, dtype=np.int64) + 40
    random_code = rollouts.OTHERS.index("random")
    kw = dict(k=6, seed=2, patience=0)
    every = rollouts.generate(STANDARD, 2, seeds, np.full(16, 0b01), np.full(16, random_code), (UNIFORM, UNIFORM), **kw)
    few = rollouts.generate(STANDARD, 2, seeds, np.full(16, 0b01), np.full(16, random_code), (UNIFORM, UNIFORM),
                            careless_k=2, **kw)
    assert every["valid"][every["nets"] == 1].max() > 2  # without the cap it chooses among more
    assert few["valid"][few["nets"] == 1].max() == 2 and few["picks"][few["nets"] == 1].max() <= 1
    assert few["valid"][few["nets"] == 0].max() > 2  # the first network keeps every candidate
    capped = rollouts.episode_shares(STANDARD, 2, seeds, (UNIFORM, UNIFORM), against="random", careless_k=2,
                                     how=rollouts.BEST_THEN_SAMPLE, k=6, seed=1)
    assert not np.array_equal(capped, rollouts.episode_shares(STANDARD, 2, seeds, (UNIFORM, UNIFORM), against="random",
                                                              how=rollouts.BEST_THEN_SAMPLE, k=6, seed=1))


def test_under_the_win_return_a_deal_nobody_won_is_worth_a_loss():
    from kc_env.training.turn_ppo.train import iteration_choices

    shares = iteration_choices(config_mod.load(CONFIG, "smoke", {"turn_ppo.games": 200}), 1, (UNIFORM, None))["outcomes"]
    wins = iteration_choices(config_mod.load(CONFIG, "smoke", {"turn_ppo.games": 200, "turn_ppo.returns": "win"}), 1,
                             (UNIFORM, None))["outcomes"]
    assert 0 < (shares == 0.5).sum() < len(shares)  # some choices were made in deals that blocked
    np.testing.assert_array_equal(wins, (shares == 1.0).astype(np.float32))


def test_the_deals_of_an_iteration_go_round_the_tables_and_the_model_lists_them(tmp_path):
    """turn_ppo.tables: deal j at table j mod tables, and the card names every table, so the
    model plays each without a warning."""
    from kc_env.training.turn_ppo.train import _save_model, iteration_choices

    tables = [{"rules": ["standard", "pagat"], "num_players": [3, 5]}]
    cfg = config_mod.load(CONFIG, "smoke", {"turn_ppo.games": 40, "turn_ppo.tables": tables})
    data = iteration_choices(cfg, 1, (UNIFORM, None))
    one_hot = data["feats"][:, 0, SEAT_COUNT]  # how many play, as each choice's first candidate says
    assert sorted({int(np.argmax(row)) + 2 for row in one_hot}) == [3, 5]
    rules = {tuple(row) for row in data["feats"][:, 0, SEAT_COUNT.stop:]}
    assert len(rules) == 2, "standard's and pagat's rules"
    agent = agents.load(str(_save_model(cfg, tmp_path / "model", (UNIFORM, None), [])))
    assert [t["name"] for t in agent.card["tables"]] == ["standard-3p", "standard-5p", "pagat-3p", "pagat-5p"]
    assert "num_players" not in agent.card and "rules" not in agent.card
    for rules, players in (("pagat", 5), ("standard", 3)):
        assert other_table(agent, Rules.preset(rules), players) is None
    assert "players: 3, 5 → 2" in other_table(agent, STANDARD, 2)


def test_a_policy_trained_at_one_named_table_says_that_table(tmp_path):
    """turn_ppo.tables with one table: the card names it, not the config's own (a newcomer's probe)."""
    from kc_env.training.turn_ppo.train import _save_model

    cfg = config_mod.load(CONFIG, "smoke", {"turn_ppo.tables": [{"rules": "pagat", "num_players": 3}]})
    card = tv.load(_save_model(cfg, tmp_path / "model", (UNIFORM, None), []))[0]
    assert (card["num_players"], card["rules"]) == (3, Rules.preset("pagat").to_dict())


def test_the_demo_config_trains_the_run_of_the_shipped_turn_ppo_model():
    """README: make demo (configs/default.yaml) is the run of models/turn-ppo-2p; only the torch
    threads are left to the machine in the demo."""
    from dataclasses import asdict

    configs = CONFIG.parents[2] / "configs"
    demo, shipped = (asdict(config_mod.load(configs / name, None)) for name in ("default.yaml", "turn-ppo-2p.yaml"))
    assert demo.pop("update_threads") is None and shipped.pop("update_threads") == 1
    assert demo == shipped


def test_a_network_started_from_a_loaded_model_copies_its_read_only_arrays_without_a_warning():
    """``--resume`` and ``start:`` begin from a model folder's arrays, which numpy loads read-only;
    torch warned on every resume that it cannot share them (the run's log of 2026-12-06)."""
    import warnings

    from kc_env.training.turn_value.learn import numpy_layers, torch_network

    start = [(np.ones((3, FEATURES), np.float32), np.zeros(3, np.float32)), (np.ones((1, 3), np.float32), np.ones(1, np.float32))]
    for w, b in start:
        w.flags.writeable = b.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, linears = torch_network(FEATURES, [3], 0, start)
    assert all((w == w2).all() and (b == b2).all() for (w, b), (w2, b2) in zip(start, numpy_layers(linears), strict=True))


POSITION = """N: 9H
E: -
S: 5C
W: KD
NE: -
SE: -
SW: -
NW: -
hand 0: 8S 4D 2C
hand 1: 8C 4H QS 7D
hand 2: KS 7C 3D
stock: 3H 3S
turn: 0 drawn
"""


def test_the_privileged_critic_reads_what_each_next_seat_holds_that_fits_each_pile_where_the_line_ends():
    """PerfectDou's privileged critic (``turn_ppo.privileged_critic``): for each other seat in the
    order they play, its hand's size and how many of its cards fit each pile after the line."""
    from kc_env.actions import play_action
    from kc_env.cards import parse_card
    from kc_env.vector.game import VecGame

    table = VecGame(1)
    table.load(0, engine.from_text(POSITION, STANDARD))
    lines = np.zeros((2, rollouts.turns.MAX_DEPTH), np.int64)
    lines[1, 0] = play_action(parse_card("8S"), 0)  # 8S onto N's 9H: N then takes a red 7
    out = np.zeros((2, rollouts.HAND_FEATURES), np.float32)
    rollouts.hand_features(table.observe([0], [0])[0], table.state, np.int64(0), lines, np.array([0, 1]), 2, out)
    N, E, S, W, NE = 0, 1, 2, 3, 4
    seat_1, seat_2 = out[:, :9], out[:, 9:18]
    assert (seat_1[:, 0] * 13, seat_2[:, 0] * 13) == (pytest.approx([4, 4]), pytest.approx([3, 3]))
    fits = lambda row, p: round(float(row[1 + p] * 4))  # noqa: E731
    assert [fits(seat_1[0], p) for p in (N, E, S, W, NE)] == [1, 4, 1, 1, 0]  # 8C on 9H; 4H on 5C; QS on KD; any on E
    assert [fits(seat_1[1], p) for p in (N, E, S, W)] == [1, 4, 1, 1]  # 7D now fits N's 8S; 8C no longer
    assert [fits(seat_2[0], p) for p in (N, S, NE)] == [0, 0, 1]  # the king alone goes to a corner
    assert [fits(seat_2[1], p) for p in (N, S)] == [0, 0]  # 7C is black, as the 8S
    assert not out[:, 18:rollouts.SEAT_FITS].any(), "three play: no fourth or fifth seat"
    hands = out[:, rollouts.SEAT_FITS:].reshape(2, rollouts.OTHER_SEATS, 54)
    for seat, names in ((0, "8C 4H QS 7D"), (1, "KS 7C 3D")):
        assert (set(np.flatnonzero(hands[0, seat])) == set(np.flatnonzero(hands[1, seat]))
                == {parse_card(c) for c in names.split()})
    assert not hands[:, 2:].any()


def test_a_run_with_the_privileged_critic_records_the_hands_and_its_critic_reads_them():
    from kc_env.training.turn_ppo.train import _update, critic_width, iteration_choices

    cfg = config_mod.load(CONFIG, "smoke", {"turn_ppo.games": 40, "turn_ppo.privileged_critic": True,
                                            "num_players": 3})
    data = iteration_choices(cfg, 1, (UNIFORM, None))
    assert data["hands"].shape == (*data["feats"].shape[:2], rollouts.HAND_FEATURES)
    assert data["hands"][:, 0, :18].any(axis=1).all() and not data["hands"][:, :, 18:rollouts.SEAT_FITS].any()
    _, critics, stats = _update(cfg, 1, (UNIFORM, None), (None, None), data, lambda _: None)
    assert critics[0][0][0].shape[1] == critic_width(cfg.turn_ppo) == FEATURES + rollouts.HAND_FEATURES
    assert "explained_variance" in stats
    assert "hands" not in iteration_choices(config_mod.load(CONFIG, "smoke", {"turn_ppo.games": 10}), 1, (UNIFORM, None))


@pytest.mark.slow
def test_a_run_with_the_privileged_critic_resumes_from_its_wider_critic(tmp_path):
    from kc_env.training.turn_ppo.train import train

    cfg = config_mod.load(CONFIG, "smoke", {"turn_ppo.privileged_critic": True, "num_players": 3})
    cfg.turn_ppo.iterations = 1
    train(cfg, tmp_path / "run", log=lambda _: None)
    cfg.turn_ppo.iterations = 2
    result = train(cfg, tmp_path / "run", resume=True, log=lambda _: None)
    assert [p["iteration"] for p in result.curve] == [0, 1, 2]
    card = json.loads((tmp_path / "run" / "model" / "model.json").read_text())
    assert card["trained"]["privileged_critic"] is True and card["features"] == FEATURES


@pytest.mark.parametrize("how", ["shipped name", "run folder"])
def test_the_start_resolves_a_shipped_models_name_and_a_run_folder_as_kc_reads_a_model(tmp_path, monkeypatch, how):
    """``turn_ppo.start: turn-ppo-2p`` (from any folder) and ``start: RUN`` (a turn trainer's run,
    whose model is ``RUN/model``) start from that model's networks."""
    import shutil

    from kc_env.training.turn_ppo.train import _networks

    from kc_env.agents.model_folder import shipped_models

    shipped = shipped_models()["turn-ppo-2p"]
    start = "turn-ppo-2p"
    if how == "run folder":
        shutil.copytree(shipped, tmp_path / "run" / "model")
        start = str(tmp_path / "run")
    monkeypatch.chdir(tmp_path)  # no models/ here
    cfg = config_mod.load(CONFIG, "smoke", {"turn_ppo.start": start, "turn_ppo.gate": "careless"})
    (first, second), _ = _networks(cfg, tmp_path / "new", 0)
    _, expected = tv.load(shipped)
    assert all((w == w2).all() and (b == b2).all() for (w, b), (w2, b2) in zip(first, expected, strict=True))
    assert second is not None


def test_a_start_that_names_no_model_is_one_line_naming_it(tmp_path):
    from kc_env.training.turn_ppo.train import _networks

    cfg = config_mod.load(CONFIG, "smoke", {"turn_ppo.start": "no-such-model"})
    with pytest.raises(config_mod.ConfigError, match="^turn_ppo.start: no-such-model is no model folder, turn "
                                                     "trainer's run folder or shipped model \\(.*turn-ppo-2p"):
        _networks(cfg, tmp_path / "new", 0)


def test_the_logged_kl_is_sb3s_estimator_which_is_never_negative():
    """``approx_kl`` is mean((ratio - 1) - log ratio) (SB3's, Schulman's k3): the plain mean of
    the log-ratio, logged before, went negative when the policy moved towards rarer picks."""
    from kc_env.training.turn_ppo.update import approx_kl

    torch = pytest.importorskip("torch")
    log_ratio = torch.tensor([1.0, -0.1])  # the plain mean of -log ratio: -0.45
    expected = ((np.exp(1.0) - 1 - 1.0) + (np.exp(-0.1) - 1 + 0.1)) / 2
    assert approx_kl(log_ratio) == pytest.approx(expected) and approx_kl(log_ratio) > 0
    assert approx_kl(torch.zeros(3)) == 0.0
    s = TurnPPOSettings(epochs=4, batch_size=500, learning_rate=0.05, critic_hidden=[16])
    _, _, stats = ppo_update(UNIFORM, None, synthetic_choices(), s, seed=0, log=lambda _: None)
    assert stats["approx_kl"] >= 0
