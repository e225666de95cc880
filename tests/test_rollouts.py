"""Rollout rewards (training/sb3/rollouts.py): play-outs on copies of the real deal, exact for it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training.sb3.rollouts import RolloutReward, copy_games, move_values, play_out  # noqa: E402
from kc_env.training.sb3.wrappers import PriorAction  # noqa: E402

from kc_env.agents.batch import rule_based  # noqa: E402
from kc_env.match import NO_WINNER  # noqa: E402
from kc_env.vector import KingsCornerVecEnv, VecGame  # noqa: E402
from kc_env.vector import kernel as K  # noqa: E402


def test_a_copied_game_plays_on_exactly_like_the_original():
    game = VecGame(8)
    game.deal(range(4), "standard", 3, seeds=[11, 12, 13, 14], dealers=[0, 1, 2, 0])
    copy_games(game, np.arange(4), game, np.arange(4, 8))
    heuristic = rule_based("heuristic")
    first = play_out(game, np.arange(4), heuristic)
    second = play_out(game, np.arange(4, 8), heuristic)
    assert first.tolist() == second.tolist()
    assert np.array_equal(game.S[:4], game.S[4:]) and np.array_equal(game.hands[:4], game.hands[4:])


@pytest.mark.parametrize("blocked", ["no_winner", "fewest_cards"])
def test_a_play_out_cut_off_after_max_moves_ends_as_a_blocked_deal(blocked):
    """RULES.md 4.8: a truncated deal counts as blocked, so under ``fewest_cards`` the one seat
    with the fewest cards wins it; the play-out agrees with ``match.truncate`` on the engine."""
    from kc_env import match
    from kc_env.rules import Rules

    rules = Rules.preset("standard", blocked=blocked)
    game = VecGame(12)
    game.deal(range(12), rules, 2, seeds=list(range(40, 52)), dealers=[0] * 12, max_moves=9)
    expected = []
    for b in range(12):
        probe = VecGame(1)
        copy_games(game, np.array([b]), probe, np.array([0]))
        play_out(probe, np.array([0]), rule_based("greedy"))
        state = probe.to_state(0)
        state.is_over, state.blocked, state.winner = False, False, None  # as cut off, before ending
        expected.append(match.truncate(state).winner)
    winners = play_out(game, np.arange(12), rule_based("greedy"))
    assert [None if w < 0 else int(w) for w in winners] == expected
    assert (game.S[:12, K.OVER] == 1).all()
    if blocked == "fewest_cards":
        assert any(w >= 0 for w in winners), "some cut-off deal had a fewest-cards winner"


def outcomes_playing_the_prior(wrapped, obs: np.ndarray) -> np.ndarray:
    """The learner's win share of each game's deal when it plays the prior's move (the column
    ``PriorAction`` appends) until the deal ends."""
    outcome = np.full(len(obs), np.nan)
    while np.isnan(outcome).any():
        obs, _, dones, infos = wrapped.step(obs[:, K.OBS_SIZE].astype(np.int64))
        for i in np.flatnonzero(dones & np.isnan(outcome)):
            deal = infos[i]["deal"]
            outcome[i] = 0.5 if deal["winner"] == NO_WINNER else float(deal["winner"] == deal["learner_seat"])
    return outcome


def test_the_prior_moves_play_out_is_what_happens_when_everyone_plays_the_prior():
    """The value of the heuristic's own move, played out on a copy, is the learner's real
    outcome when it goes on playing the heuristic's moves against heuristic opponents; the
    play-out leaves the real games untouched."""
    env = KingsCornerVecEnv(16, num_players=2, opponents="heuristic", seed=7)
    wrapped = PriorAction(env, "heuristic")
    obs = wrapped.reset()
    games = np.arange(16)
    before = env.game.S.copy(), env.game.hands.copy(), env.game.stock.copy()
    predicted = move_values(env.game, games, obs[:, K.OBS_SIZE].astype(np.int64), "heuristic")
    assert all(np.array_equal(a, b) for a, b in zip(before, (env.game.S, env.game.hands, env.game.stock), strict=True))
    outcome = outcomes_playing_the_prior(wrapped, obs)
    assert predicted.tolist() == outcome.tolist()


def test_a_tuned_priors_play_out_is_what_happens_when_it_plays_on_against_the_leagues_heuristic():
    """With tuned evaluation weights (network.heuristic_weights), the play-out lets the seat that
    moved play the tuned prior and every other seat the shipped heuristic, as the league's
    ``heuristic`` opponents do: the value of the tuned prior's move is the learner's real outcome
    when it goes on playing the tuned prior's moves."""
    from kc_env.agents.heuristic.weights import HEURISTIC_WEIGHTS, weights_by_name

    tuned = {"fit": 1.0, "opp": 6.0, "card": 0.5}
    env = KingsCornerVecEnv(16, num_players=2, opponents="heuristic", seed=11)
    wrapped = PriorAction(env, "heuristic", weights=tuned)
    obs = wrapped.reset()
    first = obs[:, K.OBS_SIZE].astype(np.int64)
    predicted = move_values(env.game, np.arange(16), first, "heuristic", weights=tuned)
    shipped_mover = move_values(env.game, np.arange(16), first, "heuristic")
    shipped = weights_by_name(HEURISTIC_WEIGHTS)  # by name, the shipped heuristic itself
    assert move_values(env.game, np.arange(16), first, "heuristic", weights=shipped).tolist() == shipped_mover.tolist()
    outcome = outcomes_playing_the_prior(wrapped, obs)
    assert predicted.tolist() == outcome.tolist()
    assert predicted.tolist() != shipped_mover.tolist(), "the tuned seat plays otherwise than the shipped one"


def test_the_reward_is_zero_for_the_priors_move_and_the_difference_of_play_outs_otherwise():
    env = KingsCornerVecEnv(32, num_players=2, opponents="heuristic", seed=3)
    wrapped = RolloutReward(PriorAction(env, "heuristic"), "heuristic")
    obs = wrapped.reset()
    masks = wrapped.action_masks()
    prior = obs[:, K.OBS_SIZE].astype(np.int64)
    other = np.array([next((a for a in np.flatnonzero(m) if a != p), p) for m, p in zip(masks, prior, strict=True)])
    acts = np.where(np.arange(32) % 2 == 0, prior, other)
    expected = (move_values(env.game, np.arange(32), acts, "heuristic")
                - move_values(env.game, np.arange(32), prior, "heuristic"))
    _, rewards, _, _ = wrapped.step(acts)
    assert np.all(rewards[acts == prior] == 0)
    assert np.allclose(rewards, expected) and np.abs(rewards).max() <= 1
    stats = wrapped.take_stats()
    assert stats["deviation_share"] == np.mean(acts != prior)
    assert stats["mean_move_gain"] == pytest.approx(rewards.mean())
    assert wrapped.take_stats()["deviation_share"] == 0, "counted since the last call"


def test_rollout_rewards_need_the_prior_as_the_whole_league(tmp_path):
    import yaml

    def load(block: dict):
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump({"default": block}))
        return config_mod.load(path)

    base = {"rollout_reward": True, "network": {"prior": "heuristic"},
            "league": {"agents": {"heuristic": 1.0}, "snapshot_weight": 0.0}}
    assert load(base).rollout_reward
    for bad in ({"network": {"prior": None}}, {"league": {"agents": {"heuristic": 0.5, "random": 0.5}}},
                {"league": {"agents": {"heuristic": 1.0}, "snapshot_weight": 0.2}}):
        with pytest.raises(config_mod.ConfigError, match="rollout_reward needs network.prior"):
            load(base | bad)
