"""The benchmark's interval estimates (kc_env.benchmark.intervals, docs/benchmark.md).

The paired bootstrap resamples whole shuffles; on synthetic duplicate groups whose seatings are
correlated it covers the true win share at its nominal rate, where Wilson's interval, which
counts every deal as independent, does not, and it is the wider of the two.
"""

from __future__ import annotations

import numpy as np
import pytest

from kc_env.benchmark import intervals
from kc_env.tournament import wilson

TRUE_SHARE = 0.5


def correlated_groups(rng: np.random.Generator, groups: int, seatings: int = 4) -> np.ndarray:
    """Win shares of ``seatings`` seatings per shuffle: a shuffle's cards favour the agent by a
    chance ``p`` drawn per shuffle (mean 0.5, mostly near 0 or 1), each seating a coin of ``p``."""
    p = rng.beta(0.4, 0.4, size=groups)
    return (rng.random((groups, seatings)) < p[:, None]).astype(float)


def coverage(interval, experiments: int = 300, groups: int = 120) -> float:
    rng = np.random.default_rng(20261203)
    hits = 0
    for _ in range(experiments):
        low, high = interval(correlated_groups(rng, groups))
        hits += low <= TRUE_SHARE <= high
    return hits / experiments


def paired(outcomes: np.ndarray) -> tuple[float, float]:
    return intervals.group_interval(outcomes.mean(axis=1), reps=400, seed=1)


def wilson_of(outcomes: np.ndarray) -> tuple[float, float]:
    return wilson(outcomes.sum(), outcomes.size)


def test_the_paired_bootstrap_covers_the_true_share_at_its_nominal_rate():
    assert 0.92 <= coverage(paired) <= 0.98


def test_wilson_counting_every_seating_as_independent_covers_too_rarely_on_the_same_groups():
    assert coverage(wilson_of) < 0.85


def test_the_paired_interval_is_wider_than_wilsons_when_the_seatings_agree():
    outcomes = correlated_groups(np.random.default_rng(5), 500)
    low, high = paired(outcomes)
    w_low, w_high = wilson_of(outcomes)
    assert high - low > 1.4 * (w_high - w_low)


def test_seatings_that_cancel_out_give_a_narrower_interval_than_wilsons():
    rng = np.random.default_rng(6)
    first = (rng.random(500) < 0.5).astype(float)
    outcomes = np.stack([first, 1 - first], axis=1)  # one seat's cards win whoever holds them
    low, high = paired(outcomes)
    assert low == high == 0.5
    w_low, w_high = wilson_of(outcomes)
    assert w_low < 0.5 < w_high


def test_the_interval_is_the_same_for_the_same_seed():
    means = np.random.default_rng(7).random(300)
    assert intervals.group_interval(means, seed=3) == intervals.group_interval(means, seed=3)


def test_iqm_is_the_mean_of_the_middle_half():
    scipy_stats = pytest.importorskip("scipy.stats")
    scores = np.random.default_rng(8).random((5, 7))
    assert intervals.iqm(scores) == pytest.approx(scipy_stats.trim_mean(scores, 0.25, axis=None))
    assert intervals.iqm([1, 2, 3, 100]) == pytest.approx(2.5)
    assert intervals.iqm([0.3]) == pytest.approx(0.3)


def test_probability_of_improvement_counts_ties_half_and_averages_tasks():
    x = np.array([[1.0, 0.5], [2.0, 0.5]])  # 2 runs x 2 tasks
    y = np.array([[0.0, 0.5], [3.0, 0.5]])
    # task 0: pairs (1>0, 1<3, 2>0, 2<3) -> 0.5; task 1: all ties -> 0.5
    assert intervals.probability_of_improvement(x, y) == pytest.approx(0.5)
    x[:, 0] += 10  # task 0 now always ahead: (1 + 0.5) / 2
    assert intervals.probability_of_improvement(x, y) == pytest.approx(0.75)


def test_the_stratified_interval_of_runs_holds_the_point_estimate():
    scores = np.random.default_rng(9).random((5, 4))
    for name in intervals.AGGREGATES:
        agg = intervals.aggregate_over_runs(scores, name, reps=300)
        assert agg["low"] <= agg["value"] <= agg["high"]


def test_an_aggregate_over_groups_resamples_within_each_task():
    constant = [np.full(50, 1.0), np.full(80, 2.0)]  # no spread inside a task: no spread at all
    agg = intervals.aggregate_over_groups(constant, "mean", reps=200)
    assert agg == {"value": 1.5, "low": 1.5, "high": 1.5}
