"""The one interface every agent follows (DESIGN.md, Agents).

An agent is made by ``kc_env.agents.load(spec, seed=None)`` and asked for moves with
``agent.act(obs) -> int``, where ``obs`` is the PettingZoo observation of the seat to act:
``{"observation": float32 vector (kc_env.observation), "action_mask": int8 vector of 497}``.
The answer is an action index of ``kc_env.actions`` whose mask entry is 1. An agent sees
nothing but ``obs``; a rule-based agent reads its seat's view with
``kc_env.observation.decode(obs["observation"])``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping

import numpy as np

from ..actions import NUM_ACTIONS
from ..observation import OBS_SIZE

RULE_BASED: tuple[str, ...] = ("heuristic", "greedy", "random")
"""The specs of the rule-based agents, strongest first: the one list of them.
``kc_env.agents.SPECS`` builds each; the vector env, the model cards and the training configs
read it."""
COMPILED: tuple[str, ...] = tuple(spec for spec in RULE_BASED if spec != "random")
"""The rule-based agents with a compiled policy over the observation vector: what the vector
env batches as opponents, and what an exported network may take as its prior or pretraining
imitate. ``random`` is played inside the vector kernel's own loop instead."""


OBJECTIVES = ("win_share", "points")
"""What a seat can play for (``Agent.play_for``): ``win_share``, the deals it wins (what the envs
reward and every evaluation here counts), or ``points``, the lowest total of a penalty table's
points (how a match scored by penalties is won, RULES.md 5.1)."""


def objective_of(rules, keeps_points: bool) -> str:
    """What a seat plays for at a table of ``rules``: ``points`` where the table keeps the points of a
    penalty table (``Rules.lowest_wins``), else ``win_share``. ``keeps_points``: a whole match
    (its totals decide it), or a person's table (``kc play``, the web table), which shows them."""
    return "points" if keeps_points and rules.lowest_wins else "win_share"


class Agent(ABC):
    """A player: ``act`` picks a legal action from a seat's observation."""

    spec: str = "agent"
    """The spec string that ``kc_env.agents.load`` knows this agent by."""

    def reset(self, seed: int | None = None) -> None:
        """Called at the start of each episode; ``seed`` (when given) reseeds any randomness.

        Does nothing by default: an agent without state or randomness need not override it.
        """
        return None

    def play_for(self, objective: str) -> None:
        """Tells the agent what its table scores, one of ``OBJECTIVES`` (``win_share`` until told).
        An agent that plays the same either way keeps the default, which only checks the name."""
        if objective not in OBJECTIVES:
            raise ValueError(f"an agent plays for one of {', '.join(OBJECTIVES)}, not {objective!r}")

    @abstractmethod
    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        """The action index to play, one whose ``obs["action_mask"]`` entry is 1."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(spec={self.spec!r})"


def legal_actions(obs: Mapping[str, np.ndarray]) -> np.ndarray:
    """The legal action indices of an observation; raises ``ValueError`` in one line when ``obs``
    is no observation dict (``action_mask``) or there are no legal actions (the seat is not to
    act, or the deal is over)."""
    legal = np.flatnonzero(action_mask(obs))
    if legal.size == 0:
        raise ValueError("the action mask has no legal action: this seat is not to act")
    return legal


def action_mask(obs: Mapping[str, np.ndarray]) -> np.ndarray:
    """``obs["action_mask"]`` as an array, checked: ``obs`` a mapping of ``observation`` and
    ``action_mask``, the mask ``NUM_ACTIONS`` numbers, the vector one row of at least ``OBS_SIZE``
    numbers (an agent may read more: a prior appended); else ``ValueError`` in one line naming what
    it got."""
    if not isinstance(obs, Mapping) or not {"observation", "action_mask"} <= obs.keys():
        got = f"a dict without {sorted({'observation', 'action_mask'} - obs.keys())}" if isinstance(obs, Mapping) \
            else type(obs).__name__
        raise ValueError(f"an agent acts on an observation dict {{'observation', 'action_mask'}}, not {got}")
    mask = np.asarray(obs["action_mask"])
    if mask.shape != (NUM_ACTIONS,) or mask.dtype.kind not in "biuf":
        raise ValueError(f"an action mask is {NUM_ACTIONS} numbers, not shape {mask.shape} of {mask.dtype}")
    vector = np.asarray(obs["observation"])  # the compiled agents read it without bounds checks
    if vector.ndim != 1 or vector.size < OBS_SIZE or vector.dtype.kind not in "biuf":
        raise ValueError(f"an observation vector is at least {OBS_SIZE} numbers, not shape {vector.shape} "
                         f"of {vector.dtype}")
    return mask


def spec_parts(spec: str, prefix: str, noun: str, form: str) -> dict[str, str]:
    """The ``name=value`` parts of ``spec`` after ``prefix`` (e.g. ``search:redeals=16``), values
    as written, by name: the one parser of an agent spec's settings. Refuses, in one line naming
    it, a part that is not ``form`` (what a part must be, with an example) or a ``noun`` (what the
    names are) given twice."""
    out: dict[str, str] = {}
    for part in spec.removeprefix(prefix).split(","):
        name, equals, value = (s.strip() for s in part.partition("="))
        if not (name and equals and value):
            raise ValueError(f"agent spec {spec!r}: {part!r} is not {form}")
        if name in out:
            raise ValueError(f"agent spec {spec!r}: the {noun} {name} is given twice")
        out[name] = value
    return out


def spec_number(spec: str, name: str, value: str, kind: type = float):
    """A setting's ``value`` (as written in ``spec``) as ``kind`` (int or float), or one line
    naming the setting: what ``spec_parts``' values are read with."""
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"agent spec {spec!r}: {name} must be {'a whole number' if kind is int else 'a number'}, "
                         f"not {value!r}") from None
