"""Tournaments between agents: seats rotated, deals played in parallel, reproducible by seed.

``run_tournament(["heuristic", "greedy", "random"], rules, num_players=2, deals=2000, seed=0)``
plays deals (or whole matches, ``match=True``) between agent specs (``kc_env.agents.load``) or
``Agent`` objects, and returns a ``TournamentResult``: per agent the deals it sat in, its wins,
win rate with a Wilson 95% interval, mean penalty points and blocked share, openskill ratings
and a pairwise table. ``kc eval`` prints it, draws it and writes it as JSON.

How the table is filled (choices where nothing else says):

- **Lineups.** With k entries and n seats: k == n seats every entry once; k < n repeats the
  entries in order to fill the seats, once starting from each entry (so each appears equally
  often); k > n takes every set of n entries. Each lineup is played in all n rotations, so every
  entry sits in every seat equally often. ``deals`` is rounded up to a multiple of the number of
  seatings so the rotation is complete.
- **Duplicate deals.** All seatings of one round play the same shuffle: deal ``i`` is shuffled
  with ``match.deal_seed(seed, i // seatings)`` and dealt by seat 0 (the rotation moves the
  agents, not the dealer). Each agent thus gets the same cards from every seat, which removes
  much of the luck of the deal from the comparison.
- **Seeds.** Each process makes one agent per (entry, seat) and calls ``reset(seed)`` before
  every episode with a seed from ``(seed, i, s)`` for episode ``i`` at seat ``s``, so a run
  gives the same results with any number of workers (an agent's ``reset`` must reseed it fully).
- **Outcome of a deal** for one seat: the winner first, then the others by penalty points
  (``engine.deal_penalties``: a blocked deal costs every hand). A deal cut off after
  ``max_moves`` moves counts as blocked (``match.truncate``). ``blocked`` is the share of an
  entry's deals that ended blocked or cut off. With ``match=True`` an episode is a whole match
  (``kc_env.match``): its winners win, ``mean penalty`` is the mean final total (points, deals
  won or chips, as the scoring system counts them) and ``blocked`` the share of blocked deals.
- **Win share** counts a win as 1 (a win shared by several winners of a match splits it) and
  gives every seat of a deal (or match) nobody won an equal share, 1/n with n seats; a fair
  share is 1/n. Blocked deals end with no winner under ``blocked: no_winner``, so two equal
  agents each win less than half of their deals but hold half the win share; the interval is
  Wilson's on the fractional count (conservative, since a share varies less than a win).
- **Ratings** are openskill's Plackett-Luce model, updated deal by deal in deal order with the
  seats' outcomes as ranks; an entry that holds two seats of one deal is ranked by its better
  seat. ``ordinal`` is mu - 3 sigma.
- **Agents never choose for another seat's view**: each seat has its own agent object, which
  gets only ``{"observation", "action_mask"}`` of the seat to act (the deals are played by
  ``kc_env.play``). An action whose mask entry is 0 is an error (``IllegalAgentAction``), never
  replaced by a legal one.
- **Ctrl-C** stops the workers quietly and raises ``TournamentInterrupted`` with the tally of
  the whole rounds of seatings played so far (``kc eval`` prints it).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import math
import multiprocessing
import os
import signal
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from . import engine
from .agents import Agent, load, objective_of
from .match import DEFAULT_MAX_MOVES, Match, deal_seed, deal_winners, win_share
from .play import IllegalAgentAction, ask, observe, play_deal, play_match, tell
from .rules import Rules

CHUNK = 16
"""Deals handed to a worker at a time."""
Z95 = 1.959963984540054


# -- the schedule ----------------------------------------------------------------------------------

def lineups(num_entries: int, num_players: int) -> list[tuple[int, ...]]:
    """The seatings of one round: each lineup of entry indices in all its rotations."""
    k, n = num_entries, num_players
    if k < 1:
        raise ValueError("a tournament needs at least one agent")
    if k == n:
        bases = [tuple(range(n))]
    elif k < n:
        bases = [tuple((start + j) % k for j in range(n)) for start in range(k)]
    else:
        bases = list(itertools.combinations(range(k), n))
    return [base[r:] + base[:r] for base in bases for r in range(n)]


def labels_for(specs: Sequence[str | Agent]) -> list[str]:
    """A unique label per entry: its spec, with ``#2``, ``#3``... for repeats."""
    out: list[str] = []
    for spec in specs:
        base = spec if isinstance(spec, str) else getattr(spec, "label", None) or spec.spec
        label, k = base, 1
        while label in out:
            k += 1
            label = f"{base}#{k}"
        out.append(label)
    return out


def agent_seed(seed: int, deal: int, seat: int) -> int:
    """The seed of the agent in ``seat`` at the ``deal``-th deal of a tournament seeded ``seed``
    (the same in every process, so a diagnostic can meet the tournament's agents again)."""
    digest = hashlib.sha256(f"kc_env/tournament/{seed}/{deal}/{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


# -- playing ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class EpisodeResult:
    """One deal (or match) of the tournament, by seat."""

    index: int
    lineup: tuple[int, ...]  # entry index per seat
    winners: tuple[int, ...]  # seats
    scores: tuple[float, ...]  # penalty points (deal) or final totals (match), by seat
    outcome: tuple[float, ...]  # lower is better: 0 for a winner, else 1 + penalty (see _outcome)
    blocked: int  # deals that ended blocked or cut off
    deals: int  # deals played (1 for a deal episode)
    moves: int
    pid: int


@dataclass
class _Job:
    entries: list[str | Agent]
    rules: Rules
    num_players: int
    seed: int
    seatings: list[tuple[int, ...]]
    match: bool
    max_moves: int
    max_deals: int
    shuffles: tuple[int, ...] | None = None


_JOB: _Job | None = None
_AGENTS: dict[tuple[int, int], Agent] = {}


def _init_worker(job: _Job, quiet: bool = False) -> None:
    """Hold ``job`` in this process; ``quiet`` (a pool worker) leaves Ctrl-C to the parent, which
    stops the pool, so that no worker prints a traceback of its own."""
    global _JOB
    _JOB = job
    _AGENTS.clear()
    if quiet:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not a parent's handler (Ray's prints a trace when the pool stops)


def make_agent(entry: str | Agent, seed: int) -> Agent:
    """A new agent of a tournament's ``entry`` (a spec is loaded, an ``Agent`` copied: each seat
    plays its own), seeded."""
    if isinstance(entry, str):
        return load(entry, seed=seed)
    agent = copy.deepcopy(entry)
    agent.reset(seed=seed)
    return agent


def _seat_agent(job: _Job, entry: int, seat: int, seed: int) -> Agent:
    """The agent of ``entry`` at ``seat`` in this process, made once (an exported model is read
    from disk once) and reseeded for each episode with ``reset(seed)``."""
    key = (entry, seat)
    if key not in _AGENTS:
        _AGENTS[key] = make_agent(job.entries[entry], seed)
        tell(_AGENTS[key], objective_of(job.rules, keeps_points=job.match))
    agent = _AGENTS[key]
    agent.reset(seed=seed)
    return agent


def _episode(job: _Job, index: int) -> EpisodeResult:
    lineup = job.seatings[index % len(job.seatings)]
    rnd = index // len(job.seatings)
    round_seed = job.shuffles[rnd] if job.shuffles is not None else deal_seed(job.seed, rnd)
    agents = [_seat_agent(job, e, s, agent_seed(job.seed, index, s)) for s, e in enumerate(lineup)]
    if job.match:
        return _play_match(job, index, lineup, round_seed, agents)
    state = engine.new_deal(job.rules, job.num_players, seed=round_seed, dealer=0)
    truncated = play_deal(state, agents, job.max_moves)
    penalties = engine.deal_penalties(state)
    winners = deal_winners(state)
    outcome = tuple(0.0 if s in winners else 1.0 + p for s, p in enumerate(penalties))
    return EpisodeResult(index, lineup, winners, tuple(map(float, penalties)), outcome,
                         int(state.blocked or truncated), 1, state.move_count, os.getpid())


def _play_match(job: _Job, index: int, lineup: tuple[int, ...], seed: int, agents: list[Agent]) -> EpisodeResult:
    match = Match(job.rules, job.num_players, seed=seed)
    moves = play_match(match, agents, job.max_moves, job.max_deals)
    blocked = sum(int(d.blocked or d.truncated) for d in match.history)
    winners = tuple(match.winners)
    lowest = job.rules.lowest_wins
    totals = tuple(float(t) for t in match.totals)
    outcome = tuple(0.0 if s in winners else 1.0 + (t if lowest else -t + 1e6) for s, t in enumerate(totals))
    return EpisodeResult(index, lineup, winners, totals, outcome, blocked, match.deal_number, moves, os.getpid())


def _run_chunk(indices: Sequence[int]) -> list[EpisodeResult]:
    assert _JOB is not None
    return [_episode(_JOB, i) for i in indices]


# -- the result ------------------------------------------------------------------------------------

def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / n`` (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class AgentStats:
    """One entry's line of the results table."""

    agent: str
    deals: int = 0  # seats it held (a deal where it holds two seats counts twice)
    wins: int = 0
    penalty: float = 0.0
    blocked: int = 0
    episodes_deals: int = 0  # deals inside its episodes (differs from ``deals`` with match=True)
    win_rate: float = 0.0
    ci_low: float = 0.0
    ci_high: float = 0.0
    share: float = 0.0  # wins, plus an equal share of every episode nobody won (see the docstring)
    win_share: float = 0.0
    share_low: float = 0.0
    share_high: float = 0.0
    mean_penalty: float = 0.0
    blocked_share: float = 0.0
    mu: float = 0.0
    sigma: float = 0.0
    ordinal: float = 0.0


@dataclass
class TournamentResult:
    """Everything a tournament measured; ``to_dict`` gives the JSON of ``kc eval --json``."""

    agents: list[str]
    rules: Rules
    num_players: int
    episodes: int
    seed: int
    match: bool
    seatings: list[tuple[int, ...]]
    stats: list[AgentStats]
    pairwise: list[list[float | None]]  # [a][b]: share of shared episodes a finished ahead of b
    workers: int
    worker_pids: int  # distinct processes that played episodes
    seconds: float
    moves: int
    results: list[EpisodeResult] = field(repr=False, default_factory=list)
    rated: bool = True  # whether the openskill ratings were computed (else mu, sigma, ordinal are 0)

    def to_dict(self, episodes: bool = False) -> dict[str, Any]:
        """Plain data for JSON (``episodes=True`` adds every episode's result)."""
        out = {
            "agents": self.agents, "rules": self.rules.to_dict(), "num_players": self.num_players,
            "episode": "match" if self.match else "deal", "episodes": self.episodes, "seed": self.seed,
            "seatings": [list(s) for s in self.seatings],
            "table": [asdict(s) for s in self.stats],
            "pairwise": {a: {b: self.pairwise[i][j] for j, b in enumerate(self.agents) if i != j}
                         for i, a in enumerate(self.agents)},
            "workers": self.workers, "worker_processes": self.worker_pids,
            "seconds": round(self.seconds, 3), "moves": self.moves, "rated": self.rated,
        }
        if episodes:
            out["results"] = [{k: v for k, v in asdict(r).items() if k != "pid"} for r in self.results]
        return out


def _tally(labels: list[str], results: list[EpisodeResult], rate: bool = True
           ) -> tuple[list[AgentStats], list[list[float | None]]]:
    stats = [AgentStats(a) for a in labels]
    model = _rating_model() if rate else None
    ratings = [model.rating(name=a) for a in labels] if model else []
    k = len(labels)
    ahead = np.zeros((k, k))
    shared = np.zeros((k, k))
    for r in results:
        best: dict[int, float] = {}
        for seat, e in enumerate(r.lineup):
            s = stats[e]
            s.deals += 1
            s.wins += seat in r.winners
            s.share += win_share(seat, r.winners, len(r.lineup))
            s.penalty += r.scores[seat]
            s.blocked += r.blocked
            s.episodes_deals += r.deals
            best[e] = min(best.get(e, math.inf), r.outcome[seat])
        present = sorted(best)
        for a, b in itertools.permutations(present, 2):
            shared[a, b] += 1
            ahead[a, b] += 1.0 if best[a] < best[b] else 0.5 if best[a] == best[b] else 0.0
        if model and len(present) > 1:
            new = model.rate([[ratings[e]] for e in present], ranks=[best[e] for e in present])
            for e, team in zip(present, new, strict=True):
                ratings[e] = team[0]
    for e, s in enumerate(stats):
        if s.deals:
            s.win_rate = s.wins / s.deals
            s.ci_low, s.ci_high = wilson(s.wins, s.deals)
            s.win_share = s.share / s.deals
            s.share_low, s.share_high = wilson(s.share, s.deals)
            s.mean_penalty = s.penalty / s.deals
            s.blocked_share = s.blocked / (s.episodes_deals or 1)
        if model:
            s.mu, s.sigma = ratings[e].mu, ratings[e].sigma
            s.ordinal = s.mu - 3 * s.sigma
    pairwise = [[None if i == j or not shared[i, j] else float(ahead[i, j] / shared[i, j]) for j in range(k)]
                for i in range(k)]
    return stats, pairwise


def _rating_model():
    from openskill.models import PlackettLuce

    return PlackettLuce()


# -- running ---------------------------------------------------------------------------------------

def _warm_up(entries: Sequence[str | Agent], rules: Rules, num_players: int) -> None:
    """Compile compiled agents once here, so that forked workers inherit them; each gets its own
    copy of the first position (an agent may write on what it is given)."""
    state = engine.new_deal(rules, num_players, seed=0)
    for entry in entries:
        ask(make_agent(entry, 0), observe(state), state.current_player)


def _chunks(episodes: range, size: int) -> Iterator[list[int]]:
    for start in range(episodes.start, episodes.stop, size):
        yield list(range(start, min(episodes.stop, start + size)))


def run_tournament(specs: Sequence[str | Agent], rules: Rules | str | None = None, num_players: int = 2,
                   deals: int = 1000, seed: int = 0, workers: int | None = None, match: bool = False,
                   max_moves: int = DEFAULT_MAX_MOVES, max_deals: int = 500, progress: bool = False,
                   labels: Sequence[str] | None = None, shuffles: Sequence[int] | None = None,
                   ratings: bool = True, rounds: range | None = None) -> TournamentResult:
    """Play a tournament between ``specs`` (see the module docstring) and tally it.

    ``deals`` is the number of episodes (deals, or matches with ``match=True``), rounded up to a
    whole number of rounds of seatings. ``workers`` processes play them (default: every core);
    the result does not depend on ``workers``. ``progress`` shows a tqdm bar on stderr.
    ``shuffles`` gives the rounds' shuffle seeds instead of ``deal_seed(seed, round)`` (a
    benchmark's evaluation shuffles): one round per shuffle, and ``deals`` is ignored.
    ``ratings=False`` leaves the openskill ratings out (0), and openskill need not be installed.
    ``rounds`` plays only those rounds, each episode with the index (so the agents' seeds) it has
    in the whole tournament: a tournament played in pieces plays the same episodes.
    """
    from importlib.util import find_spec

    if ratings and find_spec("openskill") is None:  # before playing: the ratings are computed at the end
        raise ImportError("run_tournament rates the agents with openskill: pip install 'kc_env[eval]'")
    rules = Rules.coerce(rules)
    rules.check_players(num_players)
    entries = list(specs)
    for entry in entries:  # fail early, naming a bad spec
        if isinstance(entry, str):
            load(entry, seed=0)
    labels = list(labels) if labels is not None else labels_for(entries)
    seatings = lineups(len(entries), num_players)
    if shuffles is not None:
        shuffles = tuple(int(s) for s in shuffles)
        deals = len(shuffles) * len(seatings)
    total = -(-max(1, deals) // len(seatings)) * len(seatings)
    episodes = range(total)
    if rounds is not None:
        episodes = range(rounds.start * len(seatings), min(total, rounds.stop * len(seatings)))
    total = len(episodes)
    workers = max(1, workers or os.cpu_count() or 1)
    job = _Job(entries, rules, num_players, seed, seatings, match, max_moves, max_deals, shuffles)
    _warm_up(entries, rules, num_players)
    started = time.perf_counter()
    results: list[EpisodeResult] = []
    bar = _progress(total, progress, "matches" if match else "deals")
    try:
        _play(job, episodes, workers, results, bar)
    except KeyboardInterrupt:  # the tally of the whole rounds played, for the caller to show
        whole = len(results) // len(seatings) * len(seatings)
        partial = (_result(labels, rules, job, whole, workers, started, results[:whole], ratings) if whole else None)
        raise TournamentInterrupted(partial, total) from None
    finally:
        bar.close()
    return _result(labels, rules, job, total, workers, started, results, ratings)


def _play(job: _Job, episodes: range, workers: int, results: list[EpisodeResult], bar) -> None:
    """Play the ``episodes`` of ``job`` on ``workers`` processes, appending each chunk's
    results to ``results`` in episode order."""
    if workers == 1:
        _init_worker(job)
        for chunk in _chunks(episodes, CHUNK):
            results.extend(_run_chunk(chunk))
            bar.update(len(chunk))
        return
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with ctx.Pool(workers, initializer=_init_worker, initargs=(job, True)) as pool:
        for part in pool.imap(_run_chunk, _chunks(episodes, CHUNK)):
            results.extend(part)
            bar.update(len(part))


def _result(labels: list[str], rules: Rules, job: _Job, total: int, workers: int, started: float,
            results: list[EpisodeResult], ratings: bool) -> TournamentResult:
    stats, pairwise = _tally(labels, results, ratings)
    return TournamentResult(labels, rules, job.num_players, total, job.seed, job.match, job.seatings, stats, pairwise,
                            workers, len({r.pid for r in results}), time.perf_counter() - started,
                            sum(r.moves for r in results), results, ratings)


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a tournament; ``result`` tallies the whole rounds of seatings played before
    it (None when not one was), ``planned`` the episodes it was to play."""

    def __init__(self, result: TournamentResult | None, planned: int) -> None:
        super().__init__("interrupted")
        self.result, self.planned = result, planned


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, show: bool, unit: str):
    if not show:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit=unit[:-1], desc="kc eval", smoothing=0.1)


def one_against_the_table(player: str | Agent, opponent: str | Agent, rules: Rules | str | None = None,
                          num_players: int = 2, **kwargs) -> AgentStats:
    """``player`` in one seat against ``num_players - 1`` of ``opponent`` (``run_tournament``'s
    seat-rotated duplicate deals, ``kwargs`` passed on): the player's stats."""
    labels = ["player"] + [f"opp{i}" for i in range(1, num_players)]
    return run_tournament([player] + [opponent] * (num_players - 1), rules, num_players, labels=labels,
                          **kwargs).stats[0]


__all__ = ["run_tournament", "one_against_the_table", "TournamentResult", "AgentStats", "EpisodeResult", "IllegalAgentAction",
           "TournamentInterrupted",
           "lineups", "labels_for", "wilson", "win_share"]
