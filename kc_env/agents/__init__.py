"""Agents behind one interface (``base.Agent``): ``load(spec, seed=None)`` then ``agent.act(obs)``.

Specs are strings; ``SPECS`` maps each known spec to the class that builds it (called with
``seed=``). To add a rule-based agent, write its class in its own module, add it to ``SPECS``
and its spec to ``base.RULE_BASED`` (the one list of their names, which every other module reads).
``heuristic:name=value,...`` is the heuristic with some evaluation weights set
(``heuristic.spec_weights``); ``search`` and ``search:name=value,...`` are the search agent
(``search_agent``; not in ``SPECS``, which holds the cheap rule-based agents). Any other spec
that names a folder is loaded as a model folder of the format its card names
(``model_folder.FORMATS``: ``policy_model``, ``turn_value`` for a turn-value model,
``search_folder`` for a search model folder); else a bare name such as ``ppo-standard-2p`` names a
model shipped in the package (``kc_env.models``, the repository's ``models/``). A bad model folder
of any format raises ``ModelError`` (``model_folder.ModelError``, the one class of it). ``from_sb3(model)`` makes an agent of a user's own MaskablePPO model (``sb3_agent``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import model_folder as folders
from .base import COMPILED, OBJECTIVES, RULE_BASED, Agent, legal_actions, objective_of
from .greedy import GreedyAgent
from .heuristic import WEIGHTED, HeuristicAgent
from .model_folder import ModelError, shipped_models
from .policy_model import PolicyAgent
from .random_agent import RandomAgent
from .sb3_agent import SB3Agent, from_sb3
from .search_agent import PREFIX as SEARCH_OPTIONS
from .search_agent import SEARCH, SearchAgent
from .turn_value import TurnValueAgent

SPECS: dict[str, Callable[..., Agent]] = {cls.spec: cls for cls in (HeuristicAgent, GreedyAgent, RandomAgent)}
"""Every known agent spec and what builds it: ``SPECS[spec](seed=seed)``; its keys are
``base.RULE_BASED``, in that order."""
if tuple(SPECS) != RULE_BASED:  # pragma: no cover - a new agent named in one place only
    raise ImportError(f"kc_env.agents.SPECS builds {tuple(SPECS)}, base.RULE_BASED names {RULE_BASED}")


def load(spec: str | Agent, seed: int | None = None) -> Agent:
    """The agent named by ``spec`` (an ``Agent`` is returned as it is).

    Raises ``ValueError`` naming the known specs when ``spec`` is not one of them, and
    ``ModelError`` (a ``ValueError``) naming the fault when it names a folder that is not a
    sound model folder.
    """
    if isinstance(spec, Agent):
        return spec
    if isinstance(spec, str) and spec in SPECS:
        return SPECS[spec](seed=seed)
    if isinstance(spec, str) and spec.startswith(WEIGHTED):
        return HeuristicAgent.from_spec(spec, seed=seed)
    if isinstance(spec, str) and (spec == SEARCH or spec.startswith(SEARCH_OPTIONS)):
        return SearchAgent.from_spec(spec, seed=seed)
    if isinstance(spec, str) and (folder := folders.model_folder(spec)) is not None:
        return folders.load(folder, seed=seed, spec=spec)
    name = spec.split(":", 1)[0] if isinstance(spec, str) else None
    if name in SPECS or name in shipped_models():  # greedy:x, random:seed=3, turn-ppo-2p:foo=1
        own = (f" (for your own {name}.py, give its file: {name}.py:{spec.split(':', 1)[1]})"
               if Path(f"{name}.py").is_file() else "")
        raise ValueError(f"agent spec {spec!r}: {name} takes no options; only heuristic:name=value,... and "
                         f"search:name=value,... do{own}")
    raise ValueError(f"unknown agent spec {spec!r}; known specs: {', '.join(sorted(SPECS))}, "
                     "heuristic:name=value,... (the heuristic with evaluation weights set), "
                     "search or search:redeals=16,candidates=4,margin=0.0 (the heuristic's turns valued by play-outs), "
                     f"or the folder of an exported model, or a shipped one: {', '.join(shipped_models())}")


def opponent_specs(opponents: Any, num_players: int) -> list[Any]:
    """The envs' ``opponents`` as one spec per other seat: one spec (or ``Agent``, or an object
    with ``act_batch``; None for ``random``) fills every seat, a list must have one per other
    seat. Anything else, or a list of another length, is a one-line ``ValueError``."""
    if opponents is None or isinstance(opponents, (str, Agent)) or hasattr(opponents, "act_batch"):
        return ["random" if opponents is None else opponents] * (num_players - 1)
    need = f"{num_players} players need {num_players - 1}"
    if not isinstance(opponents, Iterable) or isinstance(opponents, bytes):
        raise ValueError(f"opponents must be one agent spec (or Agent) for every other seat, or a list of one per "
                        f"other seat ({need}), not {opponents!r}"[:300])
    opponents = list(opponents)
    if len(opponents) != num_players - 1:
        raise ValueError(f"{need} opponents, got {len(opponents)}: {opponents!r}")
    return opponents


__all__ = ["OBJECTIVES", "opponent_specs", "objective_of",
           "PolicyAgent", "ModelError", "Agent", "RandomAgent", "GreedyAgent", "HeuristicAgent", "SPECS", "RULE_BASED",
           "COMPILED", "load", "legal_actions", "SearchAgent", "TurnValueAgent", "SB3Agent", "from_sb3"]
