"""The envs' infos keep one type and shape in every episode (issue 36 item 4): stacks that store
infos in arrays (Tianshou's replay buffer, Gymnasium's vector envs) crashed when
``info["deal"]["winner"]`` was an int after a won deal and ``None`` after a blocked one. A deal
nobody won says ``winner == -1`` (``kings_corner_v0.NO_WINNER``); ``penalties`` always holds one
int per seat; a match's ``winners`` are seats padded with -1 to one entry per seat."""

from __future__ import annotations

import numpy as np
import pytest

from kc_env import kings_corner_v0
from kc_env.gym_env import KingsCornerEnv


def _deal_schema(deal: dict, players: int) -> tuple:
    """The types and shape of ``info["deal"]``, checking what every value may be."""
    assert set(deal) == {"winner", "blocked", "truncated", "penalties"}
    assert type(deal["winner"]) is int and -1 <= deal["winner"] < players
    assert type(deal["blocked"]) is bool and type(deal["truncated"]) is bool
    assert len(deal["penalties"]) == players and all(type(p) is int for p in deal["penalties"])
    if deal["winner"] >= 0:
        assert deal["penalties"][deal["winner"]] == 0
    return ("int", "bool", "bool", f"int[{players}]")


def _match_schema(match: dict, players: int) -> tuple:
    assert set(match) == {"winners", "totals"}
    winners = match["winners"]
    assert len(winners) == players and all(type(w) is int for w in winners)
    seats = [w for w in winners if w != -1]
    assert winners == seats + [-1] * (players - len(seats)) and len(set(seats)) == len(seats)
    assert all(0 <= w < players for w in seats)
    assert len(match["totals"]) == players and all(type(t) is int for t in match["totals"])
    return (f"int[{players}]", f"int[{players}]")


def _play_aec(kwargs: dict, seed: int) -> dict:
    """Each agent's info as ``last()`` gives it once the agent is done."""
    env = kings_corner_v0.env(**kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = {}
    for agent in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        if termination or truncation:
            final[agent] = info
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return final


@pytest.mark.parametrize("kwargs", [{}, {"max_moves": 30}, {"rules": "pagat", "num_players": 3},
                                    {"num_players": 4, "episode": "match", "max_deals": 3},
                                    {"rules": "german", "num_players": 3, "episode": "match", "max_moves": 40, "max_deals": 4}])
def test_aec_infos_have_one_shape_won_blocked_or_cut_off(kwargs):
    """Won, blocked and truncated deals (and matches) all give the same schema."""
    players = kwargs.get("num_players", 2)
    outcomes, schemas = set(), set()
    for seed in range(40):
        infos = _play_aec(kwargs, seed)
        assert set(infos) == {f"player_{i}" for i in range(players)}
        for info in infos.values():
            schema = (_deal_schema(info["deal"], players),)
            if "match" in info:
                schema += (_match_schema(info["match"], players),)
            schemas.add(schema)
            deal = info["deal"]
            outcomes.add("won" if deal["winner"] >= 0 else "truncated" if deal["truncated"] else "blocked")
    assert len(schemas) == 1
    if kwargs == {}:
        assert outcomes == {"won", "blocked"}  # the case that crashed Tianshou is covered
    if kwargs.get("max_moves") == 30:
        assert "truncated" in outcomes


def test_a_blocked_deal_says_minus_one_not_none():
    for seed in range(60):
        infos = _play_aec({}, seed)
        deal = infos["player_0"]["deal"]
        if deal["blocked"]:
            assert deal["winner"] == kings_corner_v0.NO_WINNER == -1
            return
    pytest.fail("no blocked deal in 60 random ones")


@pytest.mark.parametrize("kwargs", [{}, {"max_moves": 30}, {"num_players": 3, "episode": "match", "max_deals": 2}])
def test_gym_infos_have_one_shape(kwargs):
    players = kwargs.get("num_players", 2)
    env = KingsCornerEnv(**kwargs)
    schemas = set()
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        keys = set(info)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = terminated or truncated
        assert keys <= set(info) and type(info["learner_seat"]) is int
        assert info["action_mask"].shape == (497,) and info["action_mask"].dtype == np.int8
        schema = (_deal_schema(info["deal"], players),)
        if "match" in info:
            schema += (_match_schema(info["match"], players),)
        schemas.add(schema)
    assert len(schemas) == 1
