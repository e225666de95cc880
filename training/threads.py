"""How many torch threads a run's gradient updates use (``update_threads``), shared by the SB3 and
turn-value trainers.

Torch's threads are only worth having on cores nothing else uses: on a 2-core machine with other
work, 150 behaviour-cloning steps took 3.4 to 3.7 s on one thread and 16 to 32 s on two (issue 36),
because a thread that waits for a busy core holds up every step. So a config that leaves
``update_threads`` unset (null, the default) gets ``choose(cores, load)``: the whole cores left
free by the 1-minute load average, less one for the rollouts' and the system's work, at least 1
and at most ``MAX_AUTO`` (one on a 2-core machine). The run prints its choice once.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable

MAX_AUTO = 4
MAX_THREADS = 1024
"""The most update threads a config or a run's progress may name."""
"""The most threads chosen on their own: the networks are small (layers a few hundred wide), and
beyond about four threads an update gains little while taking cores from everything else."""


def choose(cores: int, load: float) -> int:
    """The update threads for ``cores`` usable cores under a 1-minute load average of ``load``."""
    return max(1, min(MAX_AUTO, math.floor(cores - load) - 1))


def usable_cores() -> tuple[int, float]:
    """The cores this process may run on (its affinity) and the machine's 1-minute load average
    (0 where the system keeps none)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    return cores, load


def update_threads(configured: int | None, kept: int | None = None, say: Callable[[str], None] | None = None) -> int:
    """The threads for ``configured`` (a config's ``update_threads``): itself when set; else
    ``kept`` (the choice a resumed run made at its start, so that it goes on bit for bit); else
    chosen now from the free cores, and said once through ``say`` (default: printed)."""
    if configured is not None:
        return configured
    if kept is not None:
        return kept
    cores, load = usable_cores()
    threads = choose(cores, load)
    (say or _print)(f"torch: {threads} thread{'s' if threads > 1 else ''} for gradient updates ({cores} cores, "
                    f"load {load:.1f}; set update_threads to choose)")
    return threads


def _print(line: str) -> None:
    print(line, flush=True)
