"""Tuning the heuristic prior's evaluation weights against the league (``tune:``, training/sb3/tune.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training.export import TOLERANCE  # noqa: E402
from kc_env.training.sb3 import tune as tune_mod  # noqa: E402

from kc_env.agents.heuristic import weights as heuristic_weights  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = heuristic_weights.HEURISTIC_WEIGHTS


def tuned_config(**overrides):
    base = {"network": {"shared": [32], "hidden": [16], "prior": "heuristic", "prior_weight": 3.0},
            "league": {"agents": {"heuristic": 1.0}, "snapshot_every": 0, "snapshot_weight": 0.0},
            "tune": {"generations": 2, "pairs": 2, "deals": 6, "holdout_deals": 6, "weights": ["card", "opp"]}}
    return config_mod.load(ROOT / "research" / "configs" / "maskable-ppo-2p.yaml", "smoke", {**base, **overrides})


def against(agent: str, deals: int, num_players: int = 2) -> np.ndarray:
    return np.full((deals, num_players, num_players), tune_mod.AGENT_ROWS[agent], dtype=np.int64)


def weights(**scaled) -> np.ndarray:
    w = DEFAULT.copy()
    for name, factor in scaled.items():
        w[heuristic_weights.WEIGHT_NAMES.index(name)] *= factor
    return w


def test_the_heuristic_against_itself_wins_exactly_half_of_every_deal_over_both_seats():
    seeds = np.arange(40)
    won = tune_mod.seat_shares(DEFAULT, "standard", 2, seeds, against("heuristic", 40))
    assert won.shape == (1, 40, 2)
    assert np.allclose(won[0].sum(axis=1), 1.0)  # the same players in both seats: a mirror


def test_weights_that_ignore_the_others_chances_lose_to_the_heuristic_and_the_heuristic_beats_greedy():
    seeds = np.arange(100, 200)
    blind, default = tune_mod.seat_shares(np.stack([weights(opp=0.0), DEFAULT]), "standard", 2, seeds,
                                          against("heuristic", 100)).mean(axis=(1, 2))
    assert blind < 0.45 and default == 0.5
    assert tune_mod.seat_shares(DEFAULT, "standard", 2, seeds, against("greedy", 100)).mean() > 0.6


def test_the_wins_objective_counts_a_blocked_deal_as_nobodys_and_random_play_loses_most_deals():
    seeds = np.arange(200, 260)
    share = tune_mod.seat_shares(DEFAULT, "standard", 2, seeds, against("heuristic", 60))
    wins = tune_mod.seat_shares(DEFAULT, "standard", 2, seeds, against("heuristic", 60), objective="wins")
    blocked = share != wins
    assert blocked.any() and np.all(share[blocked] == 0.5) and np.all(wins[blocked] == 0.0)
    assert wins.mean() < share.mean() == 0.5
    assert tune_mod.seat_shares(DEFAULT, "standard", 2, seeds, against("random", 60), objective="wins").mean() > 0.75


def test_four_seats_share_one_deal_among_them():
    won = tune_mod.seat_shares(DEFAULT, "standard", 4, np.arange(10), against("heuristic", 10, 4))
    assert won.shape == (1, 10, 4) and np.allclose(won[0].sum(axis=1), 1.0)


def test_the_league_decides_who_sits_in_the_other_seats():
    rng = np.random.default_rng(0)
    drawn = tune_mod.draw_opponents({"heuristic": 0.5, "greedy": 0.25, "random": 0.25}, 3, 400, rng)
    assert drawn.shape == (400, 3, 3) and set(np.unique(drawn)) == {0, tune_mod.GREEDY, tune_mod.RANDOM}
    assert 0.4 < (drawn == 0).mean() < 0.6 and 0.2 < (drawn == tune_mod.RANDOM).mean() < 0.3
    assert set(np.unique(tune_mod.draw_opponents({"heuristic": 1.0}, 2, 10, rng))) == {0}


def test_ranks_are_centred_and_ties_share_them():
    assert tune_mod.centred_ranks(np.array([0.2, 0.9, 0.5])).tolist() == [-0.5, 0.5, 0.0]
    assert tune_mod.centred_ranks(np.array([0.5, 0.5, 0.1, 0.9])).tolist() == [0.0, 0.0, -0.5, 0.5]


def test_tuning_moves_only_the_named_weights_and_a_killed_run_goes_on_where_it_stopped(tmp_path):
    cfg = tuned_config()
    (tmp_path / "whole").mkdir()
    whole = tune_mod.tune(cfg, tmp_path / "whole", log=lambda _: None)
    state = json.loads((tmp_path / "whole" / "tune.json").read_text())
    assert len(state["generations"]) == 2 and state["holdout"]["weights"] == whole
    assert state["holdout"]["deals"] == 6 and state["holdout"]["interval"][0] <= state["holdout"]["share"]
    moved = [n for n in heuristic_weights.WEIGHT_NAMES if whole[n] != pytest.approx(DEFAULT[heuristic_weights.WEIGHT_NAMES.index(n)])]
    assert moved and set(moved) <= {"card", "opp"}
    # the same run killed after its first generation resumes with the second
    (tmp_path / "killed").mkdir()
    tune_mod.tune(tuned_config(tune={"generations": 1, "pairs": 2, "deals": 6, "holdout_deals": 0,
                                     "weights": ["card", "opp"]}), tmp_path / "killed", log=lambda _: None)
    assert tune_mod.tune(cfg, tmp_path / "killed", log=lambda _: None) == whole


def test_tuning_every_weight_leaves_a_weight_at_zero_there(tmp_path):
    """The search is in log weights: with ``tune.weights`` empty it tunes the weights above 0, and
    ``fit_close`` (0 in the shipped weights) stays 0 rather than turning into nan or -inf."""
    assert DEFAULT[heuristic_weights.WEIGHT_NAMES.index("fit_close")] == 0.0
    cfg = tuned_config(tune={"generations": 1, "pairs": 2, "deals": 4, "holdout_deals": 0, "weights": []})
    tuned = tune_mod.tune(cfg, tmp_path, log=lambda _: None)
    assert tuned["fit_close"] == 0.0 and all(np.isfinite(v) for v in tuned.values())
    assert tuned["card"] != pytest.approx(DEFAULT[heuristic_weights.WEIGHT_NAMES.index("card")])


def test_kc_train_tunes_the_prior_then_trains_and_exports_a_model_that_carries_the_weights(tmp_path):
    from kc_env.training.export import export
    from kc_env.training.sb3.train import train

    from kc_env.agents.policy_model import load_network

    cfg = tuned_config(total_timesteps=512, eval={"every": 0, "deals": 4})
    run = train(cfg, tmp_path / "run", progress=False, argv=["test"])
    tuned = json.loads((run.folder / "tune.json").read_text())["holdout"]["weights"]
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(run.folder / "final.zip", device="cpu")
    assert model.policy.heuristic_weights == tuned
    folder = export(model, tmp_path / "model", {"training_steps": model.num_timesteps}, cfg.rules_object(), 2)
    card = json.loads((folder / "model.json").read_text())
    assert card["network"]["heuristic_weights"] == tuned and card["export_check"]["max_probability_gap"] < TOLERANCE
    assert load_network(folder)[0].heuristic_weights == tuned
    with pytest.raises(FileExistsError, match="use --resume"):  # a folder with a tuning in it is not started over
        train(cfg, run.folder, progress=False, argv=["test"])


def test_a_tuning_config_that_cannot_work_is_refused():
    with pytest.raises(config_mod.ConfigError, match="tune needs network.prior: heuristic"):
        tuned_config(network={"prior": "greedy"})
    with pytest.raises(config_mod.ConfigError, match="league.agents may hold only heuristic, greedy and random"):
        tuned_config(league={"agents": {"heuristic": 0.5, "ppo-standard-2p": 0.5}, "snapshot_every": 0,
                             "snapshot_weight": 0.0})
    with pytest.raises(config_mod.ConfigError, match="tune.objective must be share or wins"):
        tuned_config(tune={"generations": 1, "objective": "glory"})
    with pytest.raises(config_mod.ConfigError, match=r"tune.weights: unknown weight names \['luck'\]"):
        tuned_config(tune={"generations": 1, "weights": ["luck"]})
    with pytest.raises(config_mod.ConfigError, match="tune.pairs, tune.deals, tune.sigma and tune.step must be positive"):
        tuned_config(tune={"generations": 1, "sigma": 0.0})
    with pytest.raises(config_mod.ConfigError, match="tune.generations must be 0"):
        tuned_config(tune={"generations": -1})


def test_weights_set_in_the_config_are_the_priors_without_tuning_and_tuning_starts_from_them(tmp_path):
    from kc_env.training.sb3.train import train
    from sb3_contrib import MaskablePPO

    chosen = {"fit": 0.375, "card": 0.9}
    cfg = tuned_config(network={"shared": [32], "hidden": [16], "prior": "heuristic", "prior_weight": 3.0,
                                "heuristic_weights": chosen},
                       tune={"generations": 0}, total_timesteps=256, eval={"every": 0, "deals": 2})
    run = train(cfg, tmp_path / "run", progress=False, argv=["test"])
    carried = MaskablePPO.load(run.folder / "final.zip", device="cpu").policy.heuristic_weights
    assert carried == heuristic_weights.weights_by_name(weights(fit=1.5, card=0.9))
    assert not (run.folder / "tune.json").exists()
    # with tuning on, the search starts from those weights, not the shipped ones
    tuning = tuned_config(network={"shared": [32], "hidden": [16], "prior": "heuristic", "prior_weight": 3.0,
                                   "heuristic_weights": chosen})
    assert tune_mod.start_weights(tuning) == carried


def test_weights_in_the_config_that_cannot_work_are_refused():
    net = {"shared": [32], "hidden": [16], "prior": "heuristic", "prior_weight": 3.0}
    with pytest.raises(config_mod.ConfigError, match="unknown heuristic weight 'luck'"):
        tuned_config(network={**net, "heuristic_weights": {"luck": 1.0}})
    with pytest.raises(config_mod.ConfigError, match="heuristic weight fit must be a finite number"):
        tuned_config(network={**net, "heuristic_weights": {"fit": "high"}})
    with pytest.raises(config_mod.ConfigError, match="network.heuristic_weights: expected dict"):
        tuned_config(network={**net, "heuristic_weights": [0.3]})
    with pytest.raises(config_mod.ConfigError, match="network.heuristic_weights needs network.prior: heuristic"):
        tuned_config(network={**net, "prior": "greedy", "heuristic_weights": {"fit": 0.3}}, tune={"generations": 0})
    with pytest.raises(config_mod.ConfigError, match="the weights it tunes must start above 0"):
        tuned_config(network={**net, "heuristic_weights": {"opp": 0.0}})
    # a zero weight is fine where nothing searches its log
    tuned_config(network={**net, "heuristic_weights": {"opp": 0.0}}, tune={"generations": 0})
    # ... and tune names it, or a weight the shipped heuristic leaves at 0, only once it is above 0
    with pytest.raises(config_mod.ConfigError, match=r"must start above 0, and \['fit_close'\] do not"):
        tuned_config(tune={"generations": 1, "weights": ["fit_close"]})
    tuned_config(network={**net, "heuristic_weights": {"fit_close": 0.1}}, tune={"generations": 1, "weights": ["fit_close"]})


def test_the_weight_scan_compares_candidates_with_the_shipped_weights_on_the_same_games(capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location("weight_scan", ROOT / "research" / "weight_scan.py")
    scan = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scan)
    out = scan.main(["--deals", "4", "--seed", "3", "fit=1.5", "opp=0"])
    shipped, blind = out["rows"]["shipped"], out["rows"]["opp=0"]
    assert shipped["heuristic"]["win_share"] == 0.5 and shipped["random"]["difference"] == 0.0
    assert set(out["rows"]) == {"shipped", "fit=1.5", "opp=0"} and "fit=1.5" in capsys.readouterr().out
    assert blind["heuristic"]["difference_interval"][0] <= blind["heuristic"]["difference"]
    with pytest.raises(SystemExit, match="unknown weight 'luck'"):
        scan.main(["--deals", "1", "luck=2"])
    with pytest.raises(SystemExit, match="unknown opponent 'champion'"):
        scan.main(["--deals", "1", "--against", "champion", "fit=2"])
    # a weight the shipped heuristic leaves at 0 is set rather than scaled
    set_close = scan.candidate("fit_close:=0.375,close:=4,fit=2")
    assert set_close[heuristic_weights.WEIGHT_NAMES.index("fit_close")] == 0.375
    assert set_close[heuristic_weights.WEIGHT_NAMES.index("close")] == 4.0
    assert set_close[heuristic_weights.WEIGHT_NAMES.index("fit")] == 2 * DEFAULT[heuristic_weights.WEIGHT_NAMES.index("fit")]
    with pytest.raises(SystemExit, match="is not name=factor or name:=value"):
        scan.candidate("fit_close:=much")


def test_a_teacher_cannot_teach_a_prior_with_other_weights():
    """Behaviour cloning and rollout labels play the shipped heuristic; a prior with other weights
    would learn toward moves that are not its own."""
    net = {"shared": [32], "hidden": [16], "prior": "heuristic", "prior_weight": 3.0}
    with pytest.raises(config_mod.ConfigError, match="pretrain.teacher plays the shipped heuristic"):
        tuned_config(network={**net, "heuristic_weights": {"fit": 0.3}}, tune={"generations": 0},
                     pretrain={"teacher": "heuristic"})
    with pytest.raises(config_mod.ConfigError, match="cannot teach the tuned prior"):
        tuned_config(pretrain={"teacher": "heuristic"})
