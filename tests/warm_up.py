"""Before the first test, each pytest-xdist worker compiles a different family of kc_env's largest
compiled functions (``conftest.pytest_sessionstart``), so that on a cold numba cache the two
workers do not compile the same ones side by side.

On a cold cache (a fresh clone, 2 workers) compiling takes about half of the suite's worker time,
and which functions both workers compile depends on how the tests fall to them: in one measured
run the functions both compiled (the vector env's compiled opponents and the turn-PPO rollouts
among them) took 310 s of the two workers' 400 s of compiling; in another, 113 s of 336 s. numba caches machine code on disk
(``kc_env.compiled``) and a dispatcher looks there before it compiles, so a family one worker
compiled here is loaded, not compiled again, when the other's tests reach it. Each family takes
about 90 s to compile and a second to load: the two are about equal, because xdist hands out no
test before every worker has collected, which is after this. What both families call (the
kernel, the heuristic's search) is still compiled in both.
"""

from __future__ import annotations

import numpy as np


def vector_opponents() -> None:
    """The vector env against the compiled heuristic: its step on the calling core (fewer games than
    ``search.SERIAL_ROWS``) and shared among the cores (more)."""
    from kc_env.vector import KingsCornerVecEnv

    for games in (2, 16):
        env = KingsCornerVecEnv(games, num_players=2, opponents="heuristic", seed=0)
        env.reset()
        for _ in range(3):
            env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))


def turn_policies() -> None:
    """PPO over whole turns' deals, with a linear policy (as most of tests/test_turn_ppo.py)."""
    from kc_env.training.turn_ppo import rollouts

    from kc_env.agents import turn_value as tv
    from kc_env.rules import Rules

    linear = [(np.zeros((1, tv.FEATURES), np.float32), np.zeros(1, np.float32))]
    rollouts.generate(Rules(), 2, np.arange(2, dtype=np.int64), np.full(2, 0b01), np.zeros(2), (linear, None), k=4)


FAMILIES = (vector_opponents, turn_policies)


def warm_up(worker: str) -> None:
    """Compile the family of the xdist worker ``worker`` (``gw0``, ``gw1``, ...: one family each,
    round the families)."""
    FAMILIES[int(worker.removeprefix("gw")) % len(FAMILIES)]()
