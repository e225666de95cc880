"""The RLModules of the RLlib trainer: the masked policy the learner's seats share, and the
rule-based opponents.

``MaskedPolicyModule`` is a torch ``RLModule`` of RLlib's new API stack whose policy is exactly
the network of an exported model (``kc_env.agents.policy_model``): the observation vector goes
through the hidden layers ``pi.0``, ``pi.1``, ... and the ``action`` layer gives one logit per
action. The action mask is added to the logits as a log-mask (0 for a legal action, RLlib's
``FLOAT_MIN`` for an illegal one), so an illegal action has probability 0 when sampling, in the
PPO loss and in the entropy. The value function is a separate MLP of the same widths. Because
the shapes are the same, ``network_of`` copies the weights into a ``PolicyNetwork`` as they are.

``RuleBasedModule`` plays ``greedy``, ``heuristic`` or ``random`` inside RLlib: it has no
weights and is never trained; it computes its actions (``Columns.ACTIONS``) with the same
numba functions as the vector env's batched opponents (``kc_env.agents.batch``), from the
seat's observation and mask only. Opponents as modules, rather than inside an env wrapper, keep
RLlib's env the plain PettingZoo env with every seat an agent, let one ``policy_mapping_fn``
choose per episode who plays which seat (learner, rule-based agent or frozen snapshot), and let
the env runners batch each opponent's decisions over all their games.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from kc_env.actions import NUM_ACTIONS
from kc_env.agents import batch
from kc_env.agents.base import RULE_BASED
from kc_env.agents.policy_model import PolicyNetwork
from kc_env.observation import OBS_SIZE

OBS_KEY = "observation"
MASK_KEY = "action_mask"
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def _mlp(widths: list[int], activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    width = OBS_SIZE
    for w in widths:
        linear = nn.Linear(width, w)
        nn.init.orthogonal_(linear.weight, gain=np.sqrt(2))  # SB3's initialisation of hidden layers
        nn.init.zeros_(linear.bias)
        layers += [linear, ACTIVATIONS[activation]()]
        width = w
    return nn.Sequential(*layers)


def _head(width: int, size: int, gain: float) -> nn.Linear:
    linear = nn.Linear(width, size)
    nn.init.orthogonal_(linear.weight, gain=gain)
    nn.init.zeros_(linear.bias)
    return linear


def log_mask(mask: torch.Tensor) -> torch.Tensor:
    """0 where ``mask`` is 1, ``FLOAT_MIN`` where it is 0: what is added to the logits."""
    return torch.clamp(torch.log(mask.float()), min=FLOAT_MIN)


class MaskedPolicyModule(TorchRLModule, ValueFunctionAPI):
    """The learner (and its frozen snapshots). ``model_config``: ``hidden`` (the widths of the
    policy's hidden layers, the same for the value MLP) and ``activation`` (``tanh``/``relu``)."""

    def setup(self) -> None:
        hidden = [int(w) for w in self.model_config["hidden"]]
        activation = self.model_config["activation"]
        width = hidden[-1] if hidden else OBS_SIZE
        self.pi = _mlp(hidden, activation)
        self.action = _head(width, NUM_ACTIONS, 0.01)
        self.vf = _mlp(hidden, activation)
        self.value = _head(width, 1, 1.0)

    def masked_logits(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        """The action logits plus the log-mask, for a batch of observation dicts."""
        return self.action(self.pi(obs[OBS_KEY])) + log_mask(obs[MASK_KEY])

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self.masked_logits(batch[Columns.OBS])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.value(self.vf(batch[Columns.OBS][OBS_KEY])).squeeze(-1)


class RuleBasedModule(RLModule):
    """A built-in agent as an RLModule: no weights, never trained. ``model_config``: ``agent``
    (``random``, ``greedy`` or ``heuristic``) and ``seed`` (for ``random``). A plain ``RLModule``,
    not a torch one: RLlib's torch learner builds an optimizer for every torch module, and one
    without parameters is an error."""

    def setup(self) -> None:
        self.agent = self.model_config["agent"]
        if self.agent not in RULE_BASED:
            raise ValueError(f"rule-based module: unknown agent {self.agent!r}; known: {', '.join(RULE_BASED)}")
        self._rng = np.random.default_rng(self.model_config.get("seed"))

    def choose(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One legal action per row of a batch, as the agent would play it."""
        if self.agent == "random":
            return np.array([self._rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)
        return batch.actions(self.agent, obs, masks)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        actions = self.choose(_numpy(obs[OBS_KEY]), _numpy(obs[MASK_KEY]))
        return {Columns.ACTIONS: actions}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        raise NotImplementedError(f"the {self.agent} module is a fixed opponent; it is never trained")

    def compile(self, *args, **kwargs) -> None:
        """Nothing to compile (RLlib may call this on every module)."""


def _numpy(x: Any) -> np.ndarray:
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


def network_of(state: dict[str, Any], activation: str) -> PolicyNetwork:
    """The policy of a ``MaskedPolicyModule`` state dict (weights by name) as a ``PolicyNetwork``:
    the hidden layers ``pi.0, pi.2, ...`` (Linear modules between activations) become
    ``pi.0, pi.1, ...``, the ``action`` layer stays ``action``."""
    def array(name: str) -> np.ndarray:
        value = state[name]
        value = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)
        return value.astype(np.float32)

    indices = sorted({int(k.split(".")[1]) for k in state if k.startswith("pi.") and k.endswith(".weight")})
    hidden = tuple((array(f"pi.{i}.weight"), array(f"pi.{i}.bias")) for i in indices)
    return PolicyNetwork(hidden, (array("action.weight"), array("action.bias")), activation)


def torch_probabilities(module: MaskedPolicyModule, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The action probabilities the module samples from (softmax of the masked logits)."""
    with torch.no_grad():
        batch = {OBS_KEY: torch.as_tensor(obs, dtype=torch.float32),
                 MASK_KEY: torch.as_tensor(masks, dtype=torch.float32)}
        return torch.softmax(module.masked_logits(batch).double(), dim=-1).numpy()
