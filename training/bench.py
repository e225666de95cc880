"""Training runs as benchmark entries (issue 33): at each evaluation a trainer scores the current
policy on the config's ``benchmark.tasks`` (``kc_env.benchmark.evaluate``) and adds the scores to the
run's ``benchmark.json`` (``kc_env.benchmark.runs.record``), which ``kc benchmark --runs RUN...``
aggregates over seeds (``kc train CONFIG --seeds 0-4``).

The scoring is deterministic (the policy's most likely legal action; the tasks' frozen deals and
seeds), so an exact resume gives the same rows: the SB3 trainer keeps ``benchmark.json`` in each
checkpoint and puts it back on ``--resume``. ``checks(cfg)`` refuses, before anything runs, an
unknown task id, a held-out table of the rule-generalisation track, and a task at another table
than the config's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from kc_env.agents import Agent
from kc_env.agents.base import legal_actions
from kc_env.agents.policy_model import PolicyNetwork


class NetworkAgent(Agent):
    """A policy network in training as an ``Agent``: its most likely legal action, as an exported
    model plays (``kc_env.agents.policy_model.PolicyAgent``)."""

    def __init__(self, network: PolicyNetwork, spec: str = "training policy") -> None:
        self.network, self.spec = network, spec

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        legal_actions(obs)
        masks = np.asarray(obs["action_mask"], dtype=bool)[None]
        logits = np.where(masks, self.network.logits(np.asarray(obs["observation"])[None], masks), -np.inf)
        return int(logits.argmax(axis=-1)[0])


def checks(cfg: Any) -> list[tuple[bool, str]]:
    """The config's ``benchmark:`` block: known tasks of the suite, none held out, each at the
    config's table (rules and players)."""
    b = cfg.benchmark
    if not b.tasks:
        return [(True, "")]
    from kc_env.benchmark import tasks as tasks_mod
    from kc_env.rules import RulesError

    if not all(isinstance(t, str) for t in b.tasks):
        return [(False, "benchmark.tasks must list task ids (strings), such as [kc/standard-2p-vs-heuristic-v1]")]
    try:
        chosen = tasks_mod.find(b.tasks, b.suite)
    except ValueError as exc:
        return [(False, f"benchmark.tasks: {exc}")]
    try:
        rules = cfg.rules_object()
    except (RulesError, ValueError, TypeError):
        return [(True, "")]  # the rules' own check says what is wrong
    held_out = [t.id for t in chosen if t.split == "held-out"]
    other = [f"{t.id} ({t.rules}, {t.num_players} players)" for t in chosen
             if t.num_players != cfg.num_players or t.table_rules != rules]
    return [
        (b.workers >= 0, "benchmark.workers must be 0 (every core) or more"),
        (not held_out, f"benchmark.tasks: {', '.join(held_out)} is a held-out table of the rule-generalisation "
                       f"track, which a run may never be evaluated on while it trains (docs/benchmark.md)"),
        (not other, f"benchmark.tasks: {', '.join(other)} is played at another table than this config's "
                    f"({cfg.num_players} players and its rules)"),
    ]


def score(agent: str | Agent, cfg: Any, folder: Path, step: int,
          log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Score ``agent`` on the config's benchmark tasks and record the scores at ``step`` in the run
    ``folder``; returns the scorecard's dict. One line per task goes to ``log`` (default: printed)."""
    from kc_env.benchmark import evaluate, runs

    b = cfg.benchmark
    card = evaluate(agent, tasks=list(b.tasks), suite_name=b.suite, quick=b.quick, workers=b.workers or None)
    runs.record(folder, step, card)
    say = log or (lambda line: print(line, flush=True))
    for s in card.scores:
        f = s.figures
        say(f"step {step:,}: {s.task.id}{' (quick)' if b.quick else ''}: win share {f['win_share']:.3f} "
            f"[{f['low']:.3f}, {f['high']:.3f}] over {f['deals']} deals")
    return card.to_dict()


def snapshot(folder: Path) -> bytes | None:
    """The run's ``benchmark.json`` as it is now (``None``: no rows yet), for a checkpoint."""
    from kc_env.benchmark import runs

    path = folder / runs.FILE
    return path.read_bytes() if path.is_file() else None


def restore(folder: Path, saved: bytes | None) -> None:
    """Put back the run's ``benchmark.json`` of a checkpoint (rows after it are scored again, to
    the same figures); none when the checkpoint had none."""
    from kc_env.benchmark import runs
    from kc_env.files import write_atomic

    path = folder / runs.FILE
    if saved is None:
        path.unlink(missing_ok=True)
    else:
        write_atomic(path, saved)
