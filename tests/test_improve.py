"""Policy improvement by play-outs before PPO (``pretrain.method: rollouts``, training/sb3/improve.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training.sb3 import improve  # noqa: E402
from kc_env.training.sb3.rollouts import redeal_unseen  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def smoke(**overrides):
    return config_mod.load(ROOT / "research" / "configs" / "maskable-ppo-2p.yaml", "smoke", overrides)


def rollout_config(**overrides):
    base = {"network": {"shared": [32], "hidden": [16], "prior": "heuristic", "prior_weight": 3.0},
            "league": {"agents": {"heuristic": 1.0}, "snapshot_every": 0, "snapshot_weight": 0.0},
            "pretrain": {"teacher": "heuristic", "method": "rollouts", "samples": 200, "epochs": 2,
                         "holdout": 0.25}}
    return smoke(**{**base, **overrides})


def labelled(folder: Path, positions: int) -> improve.Positions:
    from kc_env.vector import KingsCornerVecEnv

    env = KingsCornerVecEnv(16, opponents="heuristic", illegal_action="raise")
    return improve.label(env, "heuristic", positions, folder, chunk_size=100, log=lambda _: None)


@pytest.fixture(scope="module")
def positions(tmp_path_factory) -> improve.Positions:
    return labelled(tmp_path_factory.mktemp("labels") / "improve", 300)


def test_every_legal_move_is_valued_and_the_priors_own_move_is_what_the_deal_came_to(positions):
    """Each labelled position has a choice (two legal moves or more) and a win share for every
    legal move. The prior plays the learner's seat, so after its own move the play-out is the
    real deal: every position of a deal values the prior's move alike, and as 0, 1/2 or 1."""
    data = positions
    assert len(data) >= 300
    legal = ~np.isnan(data.values.astype(np.float32))
    assert (legal.sum(axis=1) >= 2).all()
    own = data.values[np.arange(len(data)), data.prior.astype(np.int64)].astype(np.float32)
    assert not np.isnan(own).any() and set(np.unique(own)) <= {0.0, 0.5, 1.0}
    for deal in np.unique(data.deal):
        assert len(set(own[data.deal == deal].tolist())) == 1, f"deal {deal} valued the prior's move two ways"
    assert np.nanmax(data.values.astype(np.float32)) <= 1.0 and np.nanmin(data.values.astype(np.float32)) >= 0.0


def test_labelling_resumes_from_its_chunks(tmp_path, positions):
    folder = tmp_path / "improve"
    folder.mkdir()
    positions.take(np.arange(100)).save(folder / improve.CHUNK.format(0))
    first = improve.Positions.load(folder / improve.CHUNK.format(0))
    chunks = sorted(folder.glob("chunk_*.npz"))
    kept = [improve.Positions.load(p).obs.copy() for p in chunks]
    more = labelled(folder, 200)
    assert len(more) >= 200 and np.array_equal(more.obs[:len(first)], first.obs)
    for path, obs in zip(chunks, kept, strict=True):
        assert np.array_equal(improve.Positions.load(path).obs, obs), "a resumed labelling rewrote a chunk"
    assert more.deal[len(first):].min() > first.deal.max(), "new deals get new numbers"


def test_the_fit_learns_a_better_move_and_sets_the_priors_weight_from_held_out_deals(tmp_path, positions):
    """Labels where ending the turn is worth half a deal more than the prior's move wherever it
    is legal (and every other move as much as the prior's): the actor learns to end the turn,
    and the prior's weight is set below that advantage, so the policy plays it."""
    from kc_env.training.sb3.league import League
    from kc_env.training.sb3.train import make_env, make_model

    from kc_env import GAME_INFO

    data, end_turn = positions, GAME_INFO.end_turn_action
    values = np.where(np.isnan(data.values.astype(np.float32)), np.nan, 0.25).astype(np.float32)
    end = ~np.isnan(values[:, end_turn]) & (data.prior != end_turn)
    values[end, end_turn] = 0.75
    data = improve.Positions(data.obs, data.prior, values.astype(np.float16), data.deal)
    cfg = rollout_config()
    model = make_model(cfg, make_env(cfg, League(cfg.league, seed=0)), tmp_path)
    stats = improve.fit(model, data, epochs=30, learning_rate=3e-3, scale=10.0, holdout=0.25, batch_size=128)
    assert stats["held_gain_per_position"] > 0 and stats["held_deviation_share"] > 0
    assert 0 <= stats["prior_weight"] < 5.0
    assert model.policy.action_net.weight.item() == pytest.approx(stats["prior_weight"])
    _, held = improve.split(data, 0.25)
    scores = improve.predicted(model.policy, held)
    rows = np.flatnonzero(~np.isnan(held.values[:, end_turn].astype(np.float32)) & (held.prior != end_turn))
    assert (scores[rows, end_turn] > stats["prior_weight"]).mean() > 0.9
    assert stats["epochs"][-1]["loss"] < stats["epochs"][1]["loss"] and stats["kept_epoch"] > 0


def test_kc_train_improves_on_the_prior_before_ppo_and_resumes_its_labelling(tmp_path):
    from kc_env.training.sb3.train import train

    cfg = rollout_config(total_timesteps=1024, eval={"every": 0, "deals": 8})
    run = train(cfg, tmp_path / "run", progress=False, argv=["test"])
    stats = json.loads((run.folder / "pretrain.json").read_text())
    assert stats["positions"] >= 200 and stats["held_positions"] > 0 and len(stats["epochs"]) == 3
    assert list((run.folder / "improve").glob("chunk_*.npz"))
    # a run killed while labelling (no checkpoint yet) resumes from its chunks
    folder = tmp_path / "killed"
    folder.mkdir()
    config_mod.save(cfg, folder / "config.yaml")
    (folder / "improve").mkdir()
    for chunk in (run.folder / "improve").glob("chunk_*.npz"):
        (folder / "improve" / chunk.name).write_bytes(chunk.read_bytes())
    with pytest.raises(FileExistsError, match="use --resume"):
        train(cfg, folder, progress=False, argv=["test"])
    resumed = train(cfg, folder, resume=True, progress=False, argv=["test"])
    assert json.loads((resumed.folder / "pretrain.json").read_text())["positions"] == stats["positions"]


def test_rollouts_pretraining_is_refused_without_the_prior_as_teacher():
    with pytest.raises(config_mod.ConfigError, match="pretrain.method rollouts needs pretrain.teacher equal to"):
        rollout_config(pretrain={"teacher": "greedy", "method": "rollouts"})
    with pytest.raises(config_mod.ConfigError, match="pretrain.method must be clone or rollouts"):
        smoke(pretrain={"method": "dagger"})


def unseen(hands, stock, b, seat, n):
    """The cards seat ``seat`` of game ``b`` cannot see: the other hands and the ``n`` stock cards."""
    return sorted([c for s in range(3) if s != seat for c in range(54) if hands[b, s] >> c & 1] + stock[b, :n].tolist())


def test_a_redeal_changes_only_what_the_seat_cannot_see():
    from kc_env.vector import VecGame
    from kc_env.vector import kernel as K

    game = VecGame(6)
    game.deal(range(6), "standard", 3, seeds=range(6), dealers=[0] * 6)
    before = {name: getattr(game, name).copy() for name in ("hands", "stock", "piles", "pinfo", "S")}
    rows = np.arange(6, dtype=np.int64)
    redeal_unseen(game.hands, game.stock, game.S, rows, rows * 11)
    moved = 0
    for b in range(6):
        seat, n = int(game.S[b, K.CUR]), int(game.S[b, K.SLEN])
        assert game.hands[b, seat] == before["hands"][b, seat]
        assert unseen(game.hands, game.stock, b, seat, n) == unseen(before["hands"], before["stock"], b, seat, n)
        for s in range(3):
            assert bin(int(game.hands[b, s])).count("1") == bin(int(before["hands"][b, s])).count("1")
        moved += int(not np.array_equal(game.stock[b, :n], before["stock"][b, :n]))
    assert moved == 6
    for name in ("piles", "pinfo", "S"):
        assert np.array_equal(getattr(game, name), before[name])
    again = VecGame(6)
    again.deal(range(6), "standard", 3, seeds=range(6), dealers=[0] * 6)
    redeal_unseen(again.hands, again.stock, again.S, rows, rows * 11)
    assert np.array_equal(again.hands, game.hands) and np.array_equal(again.stock, game.stock), "same keys, same deals"


def test_redealt_values_average_over_deals_the_seat_cannot_tell_apart(tmp_path):
    from kc_env.vector import KingsCornerVecEnv

    env = KingsCornerVecEnv(8, opponents="heuristic", illegal_action="raise")
    data = improve.label(env, "heuristic", 40, tmp_path / "improve", chunk_size=40, redeals=4, log=lambda _: None)
    values = data.values.astype(np.float32)
    legal = ~np.isnan(values)
    assert (legal.sum(axis=1) >= 2).all() and np.nanmin(values) >= 0 and np.nanmax(values) <= 1
    assert set(np.unique(values[legal] * 8).round(3)) <= set(np.arange(9.0)), "means of 4 shares of 0, 1/2, 1"
    assert len(np.unique(values[legal])) > 3


def test_labels_with_nothing_to_learn_leave_the_network_as_it_was(tmp_path, positions):
    """Labels where every move is worth exactly the prior's: no epoch gains on held-out deals,
    so the fit keeps the starting network and the config's prior weight (the policy stays the
    prior's), not a margin chosen on noise."""
    import torch
    from kc_env.training.sb3.league import League
    from kc_env.training.sb3.train import make_env, make_model

    values = np.where(np.isnan(positions.values.astype(np.float32)), np.nan, 0.5).astype(np.float16)
    data = improve.Positions(positions.obs, positions.prior, values, positions.deal)
    cfg = rollout_config()
    model = make_model(cfg, make_env(cfg, League(cfg.league, seed=0)), tmp_path)
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    stats = improve.fit(model, data, epochs=3, learning_rate=3e-3, scale=10.0, holdout=0.25, batch_size=128)
    assert stats["kept_epoch"] == 0 and stats["prior_weight"] == 3.0
    after = model.policy.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
