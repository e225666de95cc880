"""``VecGame``'s reading API (``to_act``, ``over``, ``cut_off``, ``winners``, ``turn_started``,
``num_players``, ``stock_sizes``, ``end_cut_off``, ``copy_to``) agrees with the engine state of
every game at every move, and its state is the kernel's ``Games`` structure."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from kc_env import match  # noqa: E402
from kc_env.rules import Rules  # noqa: E402
from kc_env.vector import VecGame  # noqa: E402
from kc_env.vector import kernel as K  # noqa: E402


def check_against_engine(game: VecGame, idx: np.ndarray) -> None:
    states = [game.to_state(b) for b in idx.tolist()]
    cut = [bool(game.truncated(b)) and not s.is_over for b, s in zip(idx.tolist(), states, strict=True)]
    expected = {
        "to_act": [s.current_player for s in states],
        "over": [s.is_over or c for s, c in zip(states, cut, strict=True)],
        "cut_off": cut,
        "winners": [-1 if s.winner is None else s.winner for s in states],
        "turn_started": [not (s.played or s.moved) for s in states],
        "num_players": [s.num_players for s in states],
        "stock_sizes": [len(s.stock) for s in states],
    }
    for name, want in expected.items():
        got = getattr(game, name)(idx)
        assert isinstance(got, np.ndarray) and got.tolist() == want, name
        assert [getattr(game, name)(b) for b in idx.tolist()] == want, name  # one game: a Python scalar
        assert all(type(getattr(game, name)(int(b))) in (int, bool) for b in idx[:1].tolist())


@pytest.mark.parametrize("preset,players", [("standard", 2), ("pagat", 3), ("standard", 4)])
def test_the_reading_api_follows_the_engine_state(preset, players):
    rules = Rules.preset(preset, blocked="fewest_cards")
    game = VecGame(6)
    idx = np.arange(6)
    game.deal(idx, rules, players, seeds=list(range(70, 76)), dealers=[b % players for b in range(6)], max_moves=60)
    rng = random.Random(5)
    live = idx
    while live.size:
        check_against_engine(game, idx)
        masks = game.legal_masks(live)
        game.step(live, [rng.choice(np.flatnonzero(m).tolist()) for m in masks])
        live = live[~game.over(live)]
    check_against_engine(game, idx)
    cut = idx[game.cut_off(idx)]
    assert cut.size, "max_moves 60 cuts some deals off"
    expected = [match.truncate(game.to_state(b)).winner for b in cut.tolist()]
    game.end_cut_off(idx)
    assert not game.cut_off(idx).any() and game.over(idx).all()
    assert [None if w < 0 else w for w in game.winners(cut).tolist()] == expected
    check_against_engine(game, idx)


def test_copy_to_copies_whole_deals_and_the_state_is_one_structure():
    game, other = VecGame(3), VecGame(5)
    game.deal([0, 1, 2], "pagat", 3, seeds=[1, 2, 3], dealers=[0, 1, 2])
    game.copy_to([2, 0], other, [4, 1])
    for src, dst in ((2, 4), (0, 1)):
        assert other.to_state(dst).snapshot() == game.to_state(src).snapshot()
        assert other.rules[dst] == game.rules[src] and other.seeds[dst] == game.seeds[src]
    assert np.array_equal(other.observe([4, 1], [0, 0]), game.observe([2, 0], [0, 0]))
    assert isinstance(game.state, K.Games)
    for name in K.Games._fields:
        assert getattr(game, name) is getattr(game.state, name)
    with pytest.raises(AttributeError):
        game.S = np.zeros_like(game.S)
