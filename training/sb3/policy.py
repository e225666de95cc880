"""The network shape: a trunk shared by the policy and the value head, then one layer stack
each (``network.shared`` and ``network.hidden`` in the config).

The observation is wide (1599 values) and its first layer is most of the compute of a PPO
update, so the trunk computes it once for both heads. The exported actor is the trunk's
layers followed by the policy head's, all ``x @ W.T + b`` then the activation.

With ``network.prior`` (residual policy learning), a rule-based agent's choice is part of the
policy: the env appends that agent's action index to every observation (``PriorAction`` in
``wrappers.py``), and the action head adds a learned weight (``network.prior_weight`` at the start)
to that action's logit. At the start the policy plays like the prior agent, softened; PPO learns
where to play otherwise. The exported model computes the same prior with numpy
(``kc_env.agents.policy_model``).

With ``network.privileged_critic`` the env appends, after the prior's action, what the seat
cannot see (the other hands, the next stock cards; ``wrappers.privileged_features``), and only the
value head reads it: in a game this much of luck, a critic that knows the cards predicts the
deal's outcome far better, so PPO's advantages are far less noisy. The actor never sees those
columns, so the exported policy plays from the seat's own observation.
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from kc_env.actions import NUM_ACTIONS
from kc_env.observation import OBS_SIZE

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


class SharedTrunk(BaseFeaturesExtractor):
    """Linear layers with an activation after each, shared by the actor and the critic."""

    def __init__(self, observation_space: spaces.Box, hidden: list[int], activation: str = "tanh") -> None:
        width = int(observation_space.shape[0])
        layers: list[torch.nn.Module] = []
        for size in hidden:
            layers += [torch.nn.Linear(width, size), ACTIVATIONS[activation]()]
            width = size
        super().__init__(observation_space, features_dim=width)
        self.net = torch.nn.Sequential(*layers)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations)


class PriorTrunk(BaseFeaturesExtractor):
    """The shared trunk over the seat's observation; the columns after it (the prior's action,
    then any privileged columns for the critic) pass on beside the trunk's output, the action
    as a one-hot of ``NUM_ACTIONS``."""

    def __init__(self, observation_space: spaces.Box, hidden: list[int], activation: str = "tanh") -> None:
        trunk = SharedTrunk(spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32), hidden, activation)
        extra = int(observation_space.shape[0]) - OBS_SIZE - 1
        super().__init__(observation_space, features_dim=trunk.features_dim + NUM_ACTIONS + extra)
        self.net = trunk.net
        self.width = trunk.features_dim

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        chosen = torch.nn.functional.one_hot(observations[:, OBS_SIZE].long(), NUM_ACTIONS)
        return torch.cat([self.net(observations[:, :OBS_SIZE]), chosen.to(observations.dtype),
                          observations[:, OBS_SIZE + 1:]], dim=1)


class PriorExtractor(torch.nn.Module):
    """SB3's ``MlpExtractor`` for ``PriorTrunk`` features: the policy head sees the trunk's
    output and carries the prior's one-hot on to the action head; the value head sees the trunk's
    output and the privileged columns (``privileged`` of them; 0 for none)."""

    def __init__(self, width: int, hidden: list[int], activation: str, privileged: int = 0) -> None:
        super().__init__()
        self.width = width

        def stack(w: int) -> tuple[torch.nn.Sequential, int]:
            layers = []
            for size in hidden:
                layers += [torch.nn.Linear(w, size), ACTIVATIONS[activation]()]
                w = size
            return torch.nn.Sequential(*layers), w

        self.policy_net, self.latent_dim_pi = stack(width)
        self.value_net, self.latent_dim_vf = stack(width + privileged)
        self.latent_dim_pi += NUM_ACTIONS

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        w = self.width
        return torch.cat([self.policy_net(features[:, :w]), features[:, w:w + NUM_ACTIONS]], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        w = self.width
        return self.value_net(torch.cat([features[:, :w], features[:, w + NUM_ACTIONS:]], dim=1))


class PriorHead(torch.nn.Module):
    """Logits: a linear layer over the policy latent, plus ``weight`` on the prior's action."""

    def __init__(self, width: int, weight: float) -> None:
        super().__init__()
        self.width = width
        self.linear = torch.nn.Linear(width, NUM_ACTIONS)
        self.weight = torch.nn.Parameter(torch.tensor(float(weight)))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return self.linear(latent[:, :self.width]) + self.weight * latent[:, self.width:]


class PriorPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with a rule-based prior on the logits (see the module docstring)."""

    def __init__(self, *args, prior: str = "heuristic", prior_weight: float = 4.0, privileged: int = 0,
                 heuristic_weights: dict[str, float] | None = None, **kwargs) -> None:
        self.prior, self.prior_weight, self.privileged = prior, prior_weight, privileged
        self.heuristic_weights = heuristic_weights  # the prior's evaluation weights, if tuned (training/sb3/tune.py)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        hidden = self.net_arch["pi"] if isinstance(self.net_arch, dict) else list(self.net_arch)
        activation = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}[self.activation_fn]
        self.mlp_extractor = PriorExtractor(self.features_extractor.width, hidden, activation, self.privileged)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = PriorHead(self.mlp_extractor.latent_dim_pi - NUM_ACTIONS, self.prior_weight)
        if self.ortho_init:
            self.action_net.linear.apply(lambda m: self.init_weights(m, gain=0.01))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "prior": self.prior, "prior_weight": self.prior_weight,
                "privileged": self.privileged, "heuristic_weights": self.heuristic_weights}


def policy_kwargs(shared: list[int], hidden: list[int], activation: str,
                  prior: str | None = None, prior_weight: float = 4.0, privileged: int = 0,
                  heuristic_weights: dict[str, float] | None = None) -> dict:
    """MaskablePPO ``policy_kwargs`` for this shape (with a prior: for ``PriorPolicy``)."""
    kwargs = {
        "features_extractor_class": PriorTrunk if prior else SharedTrunk,
        "features_extractor_kwargs": {"hidden": list(shared), "activation": activation},
        "share_features_extractor": True,
        "net_arch": {"pi": list(hidden), "vf": list(hidden)},
        "activation_fn": ACTIVATIONS[activation],
    }
    if prior:
        kwargs.update(prior=prior, prior_weight=prior_weight, privileged=privileged, heuristic_weights=heuristic_weights)
    return kwargs
