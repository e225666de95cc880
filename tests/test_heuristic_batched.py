"""The heuristic made faster for issue 37 (its evaluation worked out once per decision, a desk
of scratch arrays kept from row to row, a lone legal action played without a search, small
batches on one core) plays exactly the moves it played before: the kc-bench-v1 suite freezes it
as an opponent (tests/test_benchmark_frozen.py), and the search agent and the turn-value agent
read its candidate lines and their values.

``DIGEST`` was made by the code before the change (commit 587a27e) from the positions below;
the same positions give it now, bit for bit (the candidates' values compared as float64 bits).
Positions: deals of every preset and of rules drawn at random (partial pile moves, jokers,
same-suit corners, complete piles cleared...), 2 to 6 players, each move the heuristic's or a
random legal one. The speed itself is measured by ``kc bench --only batched``, not here."""

from __future__ import annotations

import functools
import hashlib
import random

import numpy as np
import pytest

pytest.importorskip("numba")

from rule_fuzz import random_rules  # noqa: E402

from kc_env import PRESETS, Rules, actions, engine, observation  # noqa: E402
from kc_env.agents import greedy  # noqa: E402
from kc_env.agents.heuristic import search  # noqa: E402
from kc_env.agents.heuristic.weights import HEURISTIC_WEIGHTS, evaluation_weights  # noqa: E402
from kc_env.agents.turns import MAX_DEPTH  # noqa: E402

POSITIONS = 1500
CANDIDATES = 4
DIGEST = "927d181f8d4fee93aa83fda64771fe84a6517e149542ef5f7a4d3a641a779b40"
OTHER_WEIGHTS = {"fit_close": 0.375, "card": 1.1, "level": 2.0, "level_card": 1.3}


@functools.lru_cache(maxsize=1)
def positions() -> tuple[np.ndarray, np.ndarray]:
    """The observations and masks of ``POSITIONS`` decisions (see the module docstring)."""
    rng = random.Random(37)
    presets = sorted(PRESETS)
    obs, masks = [], []
    deal = 0
    while len(obs) < POSITIONS:
        n = 2 + deal % 5
        rules = Rules.preset(presets[deal % len(presets)]) if deal % 2 else random_rules(rng, p=0.6, num_players=n)
        deal += 1
        try:
            rules.check_players(n)
        except ValueError:
            continue
        state = engine.new_deal(rules, n, seed=deal, dealer=deal % n)
        heuristic_share = rng.choice([0.5, 0.8, 0.95])
        while not state.is_over and state.move_count < 300 and len(obs) < POSITIONS:
            o = observation.encode(state, state.current_player).astype(np.float32)
            m = actions.legal_mask(state).astype(np.int8)
            obs.append(o)
            masks.append(m)
            if rng.random() < heuristic_share:
                a = int(search.heuristic_action_w(o, m, HEURISTIC_WEIGHTS.copy()))
            else:
                legal = np.flatnonzero(m)
                a = int(legal[rng.randrange(len(legal))])
            engine.apply(state, actions.decode(a))
    return np.array(obs), np.array(masks)


def decisions_digest(obs: np.ndarray, masks: np.ndarray) -> str:
    """A hash of the heuristic's choices on the positions: batched with the shipped weights, with
    two weight tables row by row, and its best lines with their values (every third position)."""
    table = np.stack([HEURISTIC_WEIGHTS, evaluation_weights(OTHER_WEIGHTS)])
    plain = search.weighted_heuristic(HEURISTIC_WEIGHTS[None, :])(obs, masks)
    mixed = search.weighted_heuristic(table)(obs, masks, np.arange(len(obs)) % 2)
    digest = hashlib.sha256(plain.astype(np.int64).tobytes() + mixed.astype(np.int64).tobytes())
    for i in range(0, len(obs), 3):
        top_v = np.zeros(CANDIDATES)
        top_line = np.zeros((CANDIDATES, MAX_DEPTH), dtype=np.int64)
        top_len = np.zeros(CANDIDATES, dtype=np.int64)
        own = search.turn_candidates(obs[i], masks[i], HEURISTIC_WEIGHTS.copy(), top_v, top_line, top_len)
        digest.update(np.int64(own).tobytes() + top_v.tobytes() + top_line.tobytes() + top_len.tobytes())
    return digest.hexdigest()


def test_the_heuristic_plays_the_moves_it_played_before():
    assert decisions_digest(*positions()) == DIGEST


def test_batched_and_one_at_a_time_agree_in_batches_of_every_size():
    """Row ``i`` of a batch is the one-at-a-time answer whatever the batch around it: rows of
    other rules and table sizes decided before it on the same desk (kept from call to call),
    batches on one core (fewer than ``SERIAL_ROWS`` rows) and on all of them."""
    obs, masks = positions()
    one = np.array([search.heuristic_action_w(o, m, HEURISTIC_WEIGHTS.copy()) for o, m in zip(obs, masks, strict=True)])
    batched = search.weighted_heuristic(HEURISTIC_WEIGHTS[None, :])
    for size in (1, 3, search.SERIAL_ROWS - 1, search.SERIAL_ROWS, 64, len(obs)):
        got = np.concatenate([batched(obs[s:s + size], masks[s:s + size]) for s in range(0, len(obs), size)])
        assert (got == one).all(), f"batches of {size}"
    backwards = batched(obs[::-1], masks[::-1])[::-1]
    assert (backwards == one).all()
    lone = masks.sum(axis=1) == 1
    assert lone.any() and (one[lone] == masks[lone].argmax(axis=1)).all()


def test_greedy_on_one_core_and_on_all_agrees_with_one_at_a_time(monkeypatch):
    obs, masks = positions()
    one = np.array([greedy.greedy_action(o, m) for o, m in zip(obs, masks, strict=True)])
    for serial_rows in (0, len(obs) + 1):
        monkeypatch.setattr(greedy, "SERIAL_ROWS", serial_rows)
        assert (greedy.greedy_actions(obs, masks) == one).all()


def test_kc_bench_times_the_batched_opponents(capsys):
    """``kc bench``'s ``batched_*`` rows: the compiled opponents' decisions in the vector env."""
    import json

    from kc_env.cli import main

    assert main(["bench", "--only", "batched", "--runs", "1", "--seconds", "0.05", "--json", "-n", "3"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert set(results) == {"batched_heuristic", "batched_greedy"}
    assert all(row["min"] > 0 for row in results.values())
    assert main(["bench", "--only", "batched", "--runs", "1", "--seconds", "0.05"]) == 0
    table = capsys.readouterr().out
    assert "batched_heuristic" in table and "batched_greedy" in table and "decisions/s" in table
