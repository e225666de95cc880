"""``KingsCorner-v0`` on the kernel, its ``random`` opponents drawn inside the compiled step
(``raw_env.step_drawing``), against the same Gymnasium env on the reference engine
(``engine_env``) whose opponents all act in Python (issue 37).

Same seeds and learner actions: every observation, reward, ending and info must be equal, bit
for bit, after every step, and the opponents' generators must end in the same state (the compiled
draws are the ``random`` agent's own ``rng.choice``). Also: the compiled draw itself against
numpy's ``Generator.choice`` on several bit generators.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from test_vector_diff import aec_config  # noqa: E402

from kc_env import actions, kings_corner_v0  # noqa: E402
from kc_env.agents.random_agent import RandomAgent  # noqa: E402
from kc_env.engine import IllegalMove  # noqa: E402
from kc_env.gym_env import KingsCornerEnv  # noqa: E402
from kc_env.vector import numpy_draws  # noqa: E402


class EngineGym(KingsCornerEnv):
    """The reference: ``KingsCorner-v0`` on ``engine_env``, every opponent through ``act``."""

    aec_class = kings_corner_v0.engine_env


OPPONENT_MIXES = (("random",), ("random",), ("random", "greedy"), ("heuristic", "random"), ("greedy",))


def gym_config(k: int) -> dict:
    """Episode ``k``'s arguments: ``aec_config``'s rules, players, episode and rewards, with
    opponents from ``OPPONENT_MIXES``, the learner's seat and the observation kind varied."""
    kwargs, _ = aec_config(k)
    rng = random.Random(9000 + k)
    n = kwargs["num_players"]
    mix = OPPONENT_MIXES[k % len(OPPONENT_MIXES)]
    kwargs["opponents"] = [mix[j % len(mix)] for j in range(n - 1)]
    kwargs["learner_seat"] = rng.choice(["random", rng.randrange(n)])
    kwargs["observation"] = rng.choice(["vector", "dict"])
    return kwargs


def same(got, want, where: str) -> None:
    """Equal values of equal types, arrays by dtype and content, dicts key by key in order."""
    assert type(got) is type(want), f"types differ {where}: {type(got)} vs {type(want)}"
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and np.array_equal(got, want), f"arrays differ {where}"
    elif isinstance(want, dict):
        assert list(got) == list(want), f"keys differ {where}: {list(got)} vs {list(want)}"
        for key in want:
            same(got[key], want[key], f"{where}[{key!r}]")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), f"lengths differ {where}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            same(g, w, f"{where}[{i}]")
    else:
        assert got == want, f"differ {where}: {got!r} vs {want!r}"


def rng_states(env: KingsCornerEnv) -> list:
    return [agent.rng.bit_generator.state for agent in env.opponents if isinstance(agent, RandomAgent)]


def play_gym_episodes(k: int, episodes: int = 2) -> dict[str, int]:
    """``episodes`` episodes of config ``k`` through both envs, one action stream: the learner's
    legal actions drawn at random, now and then an illegal one (the episode ends, or under
    ``raise`` the same error), now and then an opponent reset with a new seed mid-episode."""
    kwargs = gym_config(k)
    kwargs["illegal_action"] = "raise" if k % 4 == 1 else "terminate"
    env, ref = KingsCornerEnv(**kwargs), EngineGym(**kwargs)
    assert env._drawing and not ref._drawing
    rng = random.Random(k)
    stats = {"steps": 0, "illegal": 0, "reseeded": 0}
    for e in range(episodes):
        where = f"in config {k} ({kwargs}), episode {e}"
        got, want = env.reset(seed=100 * k + e), ref.reset(seed=100 * k + e)
        same(got, want, f"{where} after reset")
        info = want[1]
        while True:
            if rng.random() < 0.01:
                action = rng.choice([rng.randrange(actions.NUM_ACTIONS), 497, np.int64(3)])
            else:
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            if rng.random() < 0.03:
                seed = rng.randrange(2**32)
                for a, b in zip(env.opponents, ref.opponents, strict=True):
                    a.reset(seed=seed)
                    b.reset(seed=seed)
                stats["reseeded"] += 1
            outcomes = []
            for gym in (env, ref):
                try:
                    outcomes.append(gym.step(action))
                except IllegalMove as exc:
                    outcomes.append(str(exc))
            same(outcomes[0], outcomes[1], f"{where} after step {stats['steps']} (action {action!r})")
            stats["steps"] += 1
            if isinstance(outcomes[1], str):
                stats["illegal"] += 1
                break
            _, _, terminated, truncated, info = outcomes[1]
            stats["illegal"] += "illegal_action" in info
            if terminated or truncated:
                break
        assert rng_states(env) == rng_states(ref), f"the opponents' generators {where}"
        if not isinstance(outcomes[1], str) and "illegal_action" not in info:
            assert env.aec.move_log == ref.aec.move_log, f"the move log {where}"
            for name in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
                assert getattr(env.aec, name) == getattr(ref.aec, name), f"{name} {where}"
    return stats


def test_gym_env_equals_engine_gym_env():
    """Every preset and player count (``aec_config``'s cycle), matches and both rewards, mixes of
    random, greedy and heuristic opponents, both observation kinds, both illegal-action rules."""
    totals: dict[str, int] = {}
    for k in range(70):
        for key, value in play_gym_episodes(k).items():
            totals[key] = totals.get(key, 0) + value
    print(totals)
    assert totals["steps"] > 2000 and totals["illegal"] > 0 and totals["reseeded"] > 0


def test_random_opponents_are_drawn_in_the_kernel():
    """With random opponents the Python ``act`` is not called once a game is under way (the
    speed of issue 37), and the game is still the reference's."""
    calls = []

    class Counted(RandomAgent):  # not exactly RandomAgent: acts in Python
        def act(self, obs):
            calls.append(1)
            return super().act(obs)

    env = KingsCornerEnv(opponents="random")
    _, info = env.reset(seed=3)
    for agent in env.opponents:
        agent.act = None  # drawn inside the kernel: never called
    for _ in range(50):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated or truncated:
            _, info = env.reset()
    counted = KingsCornerEnv(opponents=[Counted()])
    counted.reset(seed=3)
    for _ in range(5):
        counted.step(int(np.flatnonzero(counted.action_masks())[-1]))  # end turn when it may
    assert calls


@pytest.mark.parametrize("make", [np.random.PCG64, np.random.MT19937, np.random.SFC64, np.random.Philox])
def test_compiled_draw_is_generator_choice(make):
    """``numpy_draws.below`` draws what ``Generator.choice`` of as many items draws, from the
    generator's own stream, interleaved with Python draws, and leaves the same state."""
    sizes = random.Random(1)
    for seed in range(20):
        python, compiled = np.random.Generator(make(seed)), np.random.Generator(make(seed))
        function, state = numpy_draws.pointers(compiled)
        for i in range(2000):
            k = sizes.choice([1, 2, 3, sizes.randrange(1, 498), sizes.randrange(1, 2**31)])
            items = np.arange(k) if k < 1000 else None
            want = int(python.choice(items)) if items is not None else int(python.integers(0, k))
            if i % 11 == 0:
                got = int(compiled.choice(items)) if items is not None else int(compiled.integers(0, k))
            else:
                got = numpy_draws.draw_below(function, state, k)
            assert got == want, f"{make.__name__}({seed}), draw {i} of {k}"
        same(compiled.bit_generator.state, python.bit_generator.state, f"{make.__name__}({seed})'s state")


def test_pointers_refuse_what_is_not_a_generator():
    with pytest.raises(TypeError, match="numpy Generator"):
        numpy_draws.pointers(random.Random(1))
