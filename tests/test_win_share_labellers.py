"""The trainers' labellers score a deal as ``match.win_share`` does (1 a win, 1/n to every seat of
a deal nobody won, 0 a loss), on every way a deal ends: won, blocked, cut off after
``max_moves`` (ended as blocked: under ``blocked: fewest_cards`` the one seat with the fewest
cards wins it, RULES.md 4.8) and, for the rollout rewards, ended or cut off by the very move being
valued. The reference is the engine: ``play.play_deal`` with the heuristic agent in every seat,
``match.truncate`` for a cut-off deal, then ``match.win_share``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from kc_env import agents, engine, match  # noqa: E402
from kc_env.play import play_deal  # noqa: E402
from kc_env.rules import CHOICES, Rules  # noqa: E402

BLOCKED = CHOICES["blocked"]
"""Every ``blocked`` rule RULES.md 4.8 defines."""

PLAYERS = 3


def engine_shares(state: engine.GameState, max_moves: int) -> tuple[list[float], str]:
    """Every seat's ``match.win_share`` of ``state`` played on to its end by the heuristic agent in
    every seat (cut off after ``max_moves`` moves in all), and how the deal ended."""
    ended = state.is_over or state.move_count >= max_moves  # by the move just made
    cut_off = play_deal(state, [agents.load("heuristic", seed=0) for _ in range(state.num_players)], max_moves)
    kind = "cut off" if cut_off else "blocked" if state.blocked else "won"
    kind += ", won" if cut_off and state.winner is not None else ""
    kind += " by the move" if ended else ""
    winners = match.deal_winners(state)
    return [match.win_share(seat, winners, state.num_players) for seat in range(state.num_players)], kind


# -- the rollout rewards (training/sb3/rollouts.py) ------------------------------------------------

def _positions(rules: Rules):
    """A ``VecGame`` of positions and the heuristic's move in each, four from each deal: at its
    start with 1000 moves to go and with 30, a few moves in with one move to go (the move valued
    is cut off), and where the heuristic's move ends the deal. Returns (game, rows, moves, each
    row's ``max_moves``)."""
    from kc_env.training.sb3.rollouts import copy_games

    from kc_env.agents.batch import rule_based
    from kc_env.vector import VecGame

    heuristic = rule_based("heuristic")
    seeds = list(range(300, 310))
    game = VecGame(4 * len(seeds) + 1)
    probe, caps = game.size - 1, []

    def step(b: int) -> bool:
        """The heuristic's move in game ``b`` on the probe; played in ``b`` too unless it ends the deal."""
        copy_games(game, np.array([b]), game, np.array([probe]))
        game.step([probe], heuristic(game.observe([probe], game.to_act([probe])), game.legal_masks([probe])))
        ends = bool(game.over(probe) or game.cut_off(probe))
        if not ends:
            copy_games(game, np.array([probe]), game, np.array([b]))
        return ends

    for i, seed in enumerate(seeds):
        for j, (cap, moves_in) in enumerate([(1000, 0), (30, 0), (2 + i % 5, 1 + i % 5), (1000, None)]):
            b = 4 * i + j
            game.deal([b], rules, PLAYERS, seeds=[seed], dealers=[seed % PLAYERS], max_moves=cap)
            caps.append(cap)
            if moves_in is None:
                while not step(b):
                    pass
            for _ in range(moves_in or 0):
                assert not step(b)
    rows = np.arange(probe, dtype=np.int64)
    moves = heuristic(game.observe(rows, game.to_act(rows)), game.legal_masks(rows)).astype(np.int64)
    return game, rows, moves, caps


@pytest.mark.parametrize("blocked", BLOCKED)
def test_rollout_values_are_the_win_share_of_the_deal_however_it_ends(blocked):
    from kc_env.training.sb3.rollouts import copy_games, move_values

    from kc_env.vector import VecGame

    rules = Rules.preset("standard", blocked=blocked)
    game, rows, moves, caps = _positions(rules)
    values = move_values(game, rows, moves, "heuristic")
    one = VecGame(1)
    kinds = set()
    for i, b in enumerate(rows.tolist()):
        copy_games(game, np.array([b]), one, np.array([0]))
        seat = int(one.to_act(0))
        one.step([0], [moves[i]])
        shares, kind = engine_shares(one.to_state(0), caps[i])
        kinds.add(kind)
        assert values[i] == pytest.approx(shares[seat]), (b, kind)
    cut = "cut off, won" if blocked == "fewest_cards" else "cut off"
    expected = {"won", "blocked", "won by the move", cut, cut + " by the move"}
    assert expected <= kinds, kinds


def test_rollout_shares_are_match_win_share():
    """``rollouts.shares`` (the tuner's too) gives ``match.win_share`` seat by seat, for a deal
    won, nobody's, at 2 to 4 players."""
    from kc_env.training.sb3.rollouts import shares

    winners = np.array([-1, 0, 1, 2, -1, 3, 1])
    seats = np.array([0, 0, 0, 1, 3, 3, 2])
    players = np.array([2, 2, 3, 3, 4, 4, 4])

    def share(w, s, n):
        return match.win_share(int(s), () if w < 0 else (int(w),), int(n))

    assert shares(winners, seats, players).tolist() == [share(*x) for x in zip(winners, seats, players, strict=True)]
    assert shares(winners, seats, 4).tolist() == [share(w, s, 4) for w, s in zip(winners, seats, strict=True)]


# -- the turn-value trainer's self-play labels (training/turn_value/learn.py) ----------------------

@pytest.mark.parametrize("blocked", BLOCKED)
def test_turn_value_labels_are_the_win_share_of_the_deal_however_it_ends(blocked):
    """Every seat played by the heuristic (no learner): ``generate``'s shares are the engine's
    deal, cut off after 40 moves or played to its end. No preset uses ``fewest_cards``: the rules
    are built here."""
    from kc_env.training.turn_value.learn import generate

    rules = Rules.preset("standard", blocked=blocked)
    seeds = np.arange(100, 130)
    kinds = set()
    for cap in (40, 1000):
        _, _, _, shares = generate(rules, PLAYERS, seeds, np.zeros(len(seeds), np.int64), max_moves=cap)
        for i, seed in enumerate(seeds.tolist()):
            deal = engine.new_deal(rules, PLAYERS, seed=seed, dealer=seed % PLAYERS)
            expected, kind = engine_shares(deal, cap)
            kinds.add(kind)
            assert shares[i].tolist() == pytest.approx(expected), (seed, cap, kind)
    assert {"won", "cut off, won" if blocked == "fewest_cards" else "cut off"} <= kinds, kinds
