"""Interval estimates for the benchmark: a paired bootstrap over duplicate groups for one task,
and rliable's aggregates over tasks (IQM and mean with stratified bootstrap intervals,
probability of improvement).

Why a bootstrap over groups: a task plays each evaluation shuffle once from every seat of the
evaluated agent. Those seatings share the cards, so their outcomes are not independent: Wilson's
interval, which counts every deal as a coin of its own, is too narrow when they agree and too wide
when they cancel out. Resampling whole shuffles (a group: every seating of one shuffle, against
every pool member) keeps whatever dependence there is (Efron & Tibshirani 1993, ch. 6; the same
pairing as duplicate bridge's).

The aggregates follow Agarwal et al. 2021, "Deep RL at the edge of the statistical precipice"
(the ``rliable`` library, ``rliable.metrics`` and ``rliable.library``): the interquartile mean
is the mean of the middle half of the scores, pooled over runs and tasks (``scipy.stats.trim_mean``
at 0.25); an interval is the percentile interval of a bootstrap that resamples runs within each
task (stratified); the probability of improvement of X over Y is the Mann-Whitney statistic per
task, P(x > y) + P(x = y) / 2 over pairs of runs, averaged over tasks. With one evaluated agent
(no training runs) the samples within a task are its shuffles' group means instead of runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

REPS = 2000
"""Bootstrap replicates of every interval."""
CONFIDENCE = 0.95


def _percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_means(group_means: Sequence[float], reps: int = REPS, seed: int = 0) -> np.ndarray:
    """``reps`` means of ``group_means`` resampled with replacement, whole groups at a time."""
    means = np.asarray(group_means, dtype=np.float64)
    if means.size == 0:
        raise ValueError("an interval needs at least one group")
    rng = np.random.default_rng(seed)
    chunk = max(1, 4_000_000 // means.size)  # bounds the index array's memory
    return np.concatenate([means[rng.integers(means.size, size=(min(chunk, reps - start), means.size))].mean(axis=1)
                           for start in range(0, reps, chunk)])


def group_interval(group_means: Sequence[float], reps: int = REPS, seed: int = 0,
                   confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile interval of the mean of ``group_means`` by a bootstrap that resamples whole
    groups (each group: the mean over one shuffle's seatings)."""
    return _percentile_interval(bootstrap_means(group_means, reps, seed), confidence)


def iqm(scores) -> float:
    """The interquartile mean: the mean of the scores left after cutting a quarter from each end
    (``scipy.stats.trim_mean(scores, 0.25, axis=None)``, rliable's ``aggregate_iqm``)."""
    flat = np.sort(np.asarray(scores, dtype=np.float64).ravel())
    cut = int(0.25 * flat.size)
    return float(flat[cut:flat.size - cut].mean())


def mean(scores) -> float:
    return float(np.asarray(scores, dtype=np.float64).mean())


AGGREGATES: dict[str, Callable] = {"iqm": iqm, "mean": mean}
"""The aggregates over tasks a scorecard reports, by name."""


def stratified_interval(strata: Sequence[np.ndarray], statistic: Callable[[list[np.ndarray]], float],
                        reps: int = REPS, seed: int = 0, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile interval of ``statistic(strata)`` under a bootstrap that resamples the rows
    of each stratum with replacement, within the stratum (rliable's ``StratifiedBootstrap``)."""
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(s, dtype=np.float64) for s in strata]
    values = np.empty(reps)
    for r in range(reps):
        values[r] = statistic([a[rng.integers(len(a), size=len(a))] for a in arrays])
    return _percentile_interval(values, confidence)


def aggregate_over_runs(scores: np.ndarray, name: str, reps: int = REPS, seed: int = 0) -> dict[str, float]:
    """An aggregate of a ``runs x tasks`` score matrix with its stratified-bootstrap interval."""
    scores = np.asarray(scores, dtype=np.float64)
    aggregate = AGGREGATES[name]
    low, high = stratified_interval(list(scores.T), lambda cols: aggregate(np.stack(cols, axis=1)), reps, seed)
    return {"value": aggregate(scores), "low": low, "high": high}


def aggregate_over_groups(groups: Sequence[np.ndarray], name: str, reps: int = REPS, seed: int = 0
                          ) -> dict[str, float]:
    """An aggregate over tasks of one agent's task scores, each task's score the mean of its
    groups' scores; the interval resamples groups within each task."""
    aggregate = AGGREGATES[name]
    task_means = np.stack([bootstrap_means(g, reps, seed + t) for t, g in enumerate(groups)], axis=1)
    low, high = _percentile_interval(np.array([aggregate(row) for row in task_means]), CONFIDENCE)
    return {"value": aggregate([np.mean(g) for g in groups]), "low": low, "high": high}


def probability_of_improvement(x: np.ndarray, y: np.ndarray) -> float:
    """P(X > Y) averaged over tasks, for ``runs x tasks`` matrices ``x`` and ``y`` (ties count
    half): rliable's ``probability_of_improvement``."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"scores over {x.shape[1]} and {y.shape[1]} tasks cannot be compared")
    per_task = [(np.greater.outer(x[:, t], y[:, t]) + 0.5 * np.equal.outer(x[:, t], y[:, t])).mean()
                for t in range(x.shape[1])]
    return float(np.mean(per_task))


def improvement_interval(x: np.ndarray, y: np.ndarray, reps: int = REPS, seed: int = 0) -> dict[str, float]:
    """``probability_of_improvement`` with the interval of a bootstrap that resamples each
    algorithm's runs within each task, independently (rliable's ``StratifiedIndependentBootstrap``)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    tasks = x.shape[1]
    strata = list(x.T) + list(y.T)
    low, high = stratified_interval(
        strata, lambda cols: probability_of_improvement(np.stack(cols[:tasks], 1), np.stack(cols[tasks:], 1)),
        reps, seed)
    return {"value": probability_of_improvement(x, y), "low": low, "high": high}
