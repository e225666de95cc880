"""The heuristic's search hashes a position from its parent's hash and the move
(``heuristic.search._moved_hash``, issue 37): it must be ``turns.position_hash`` of the child,
whatever the move, under every preset and with complete piles cleared into the stock. Random
walks through turns of random-play deals, every move's hash checked against the full hash."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from kc_env import PRESETS, Rules, kings_corner_v0  # noqa: E402
from kc_env.agents import turns  # noqa: E402
from kc_env.agents.heuristic import search  # noqa: E402
from kc_env.vector import kernel as K  # noqa: E402

RULE_SETS = [Rules.coerce(name) for name in sorted(PRESETS)] + [
    Rules.coerce({"preset": "standard", "clear_complete_piles": True, "pile_moves": "partial"}),
    Rules.coerce({"preset": "pagat", "clear_complete_piles": True, "jokers": 2}),
]


def positions(rules: Rules, n: int, seed: int, count: int):
    """Observations of the seat to act, from deals played at random."""
    env = kings_corner_v0.raw_env(rules=rules, num_players=n, max_moves=400)
    rng = random.Random(seed)
    found = 0
    while found < count:
        env.reset(seed=rng.randrange(2**31))
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            if rng.random() < 0.2:
                yield obs["observation"]
                found += 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_moved_hash_is_the_position_hash():
    rng = random.Random(7)
    table = turns.alloc(turns.MAX_DEPTH + 1, True)
    scratch = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    moves = cleared = 0
    for k, rules in enumerate(RULE_SETS):
        for obs in positions(rules, 2 + k % 3, k, 60):
            turns.load(obs, table, turns.MAX_DEPTH + 1)
            h = turns.position_hash(table, 0)
            for d in range(turns.MAX_DEPTH):
                count = K.legal_actions(table, d, scratch)
                options = [int(a) for a in scratch[:count] if a != K.END_TURN_ACTION]
                if not options:
                    break
                a = rng.choice(options)
                turns.make_move(table, d, a)
                h = search._moved_hash(table, d, a, h)
                assert h == turns.position_hash(table, d + 1), f"{rules} move {a} at depth {d}"
                moves += 1
                cleared += int(table.S[d + 1, K.CLEARED] > table.S[d, K.CLEARED])
    assert moves > 1000 and cleared > 0, (moves, cleared)
