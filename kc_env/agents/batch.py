"""The rule-based agents over a batch of observations, by name: how the vector env, the trainers
and the exported models' priors play greedy and the heuristic (each in one compiled loop on all
cores, ``greedy.greedy_actions`` and ``heuristic.search.weighted_heuristic``).

``rule_based("greedy")`` is a function ``(obs [k, OBS_SIZE] float32, masks [k, NUM_ACTIONS]
int8) -> actions [k]``; ``rule_based("heuristic", weights)`` plays the heuristic with its
evaluation weights set (a mapping, ``heuristic.weights.evaluation_weights``);
``weighted_heuristic(table, rows)`` plays row ``i`` with the weights ``table[rows[i]]``.
Each row reads only its own observation, and what a heuristic decision leaves on its core's
scratch arrays (``search.Desk``, kept from call to call) is never read by the next, so the
answers are those of the one-at-a-time functions in any batch (``tests/test_heuristic_batched.py``).
A small batch is decided on the calling core (``greedy.SERIAL_ROWS``, ``search.SERIAL_ROWS``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .base import COMPILED
from .greedy import greedy_actions
from .heuristic import WEIGHTED, HeuristicAgent
from .heuristic.search import weighted_heuristic
from .heuristic.weights import HEURISTIC_WEIGHTS, evaluation_weights

BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]
RULE_BASED_BATCHED = COMPILED
"""The agents that have a batched compiled form here (``base.COMPILED``, declared once)."""
_MADE: dict[tuple, BatchPolicy] = {}


def rule_based(name: str, weights=None) -> BatchPolicy:
    """The batched ``greedy`` or ``heuristic`` (with its evaluation ``weights``, a mapping, when
    given); refuses another name, or weights for greedy."""
    if name not in RULE_BASED_BATCHED:
        raise ValueError(f"no batched rule-based agent {name!r}; known: {', '.join(RULE_BASED_BATCHED)}")
    if weights is not None and name != "heuristic":
        raise ValueError(f"only the heuristic has evaluation weights, not {name!r}")
    if name == "greedy":
        return greedy_actions
    table = HEURISTIC_WEIGHTS if weights is None else evaluation_weights(weights)
    key = tuple(table.tolist())  # rollouts ask for the same prior at every step
    if key not in _MADE:
        _MADE[key] = weighted_heuristic(table[None, :])
    return _MADE[key]


def compiled_form(spec: Any) -> tuple[str, np.ndarray | None] | None:
    """How the vector env can play ``spec`` inside its compiled step: ``("greedy", None)``,
    ``("heuristic", weights)`` (float64, ``weights.WEIGHT_NAMES`` order) for ``"heuristic"`` and
    ``"heuristic:name=value,..."``, or None for anything else (asked through ``act_batch``). Only
    spec strings: an agent object's weights could change after (``play_for``)."""
    if not isinstance(spec, str):
        return None
    if spec == "greedy":
        return "greedy", None
    if spec == "heuristic":
        return "heuristic", HEURISTIC_WEIGHTS.copy()
    if spec.startswith(WEIGHTED):
        return "heuristic", HeuristicAgent.from_spec(spec).weights
    return None


def actions(name: str, obs: np.ndarray, masks: np.ndarray, weights=None) -> np.ndarray:
    """The actions of ``greedy`` or ``heuristic`` for every row of a batch (or one row)."""
    return rule_based(name, weights)(obs, masks)
