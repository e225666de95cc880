"""The network shape: a trunk shared by the policy and the value head, then one layer stack
each (``network.shared`` and ``network.hidden`` in the config).

The observation is wide (1584 values) and its first layer is most of the compute of a PPO
update, so the trunk computes it once for both heads. The exported actor is the trunk's
layers followed by the policy head's, all ``x @ W.T + b`` then the activation.
"""

from __future__ import annotations

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

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


def policy_kwargs(shared: list[int], hidden: list[int], activation: str) -> dict:
    """MaskablePPO ``policy_kwargs`` for this shape."""
    return {
        "features_extractor_class": SharedTrunk,
        "features_extractor_kwargs": {"hidden": list(shared), "activation": activation},
        "share_features_extractor": True,
        "net_arch": {"pi": list(hidden), "vf": list(hidden)},
        "activation_fn": ACTIVATIONS[activation],
    }
