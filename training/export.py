"""Export a trained MaskablePPO policy as a numpy-loadable model folder (``kc export``).

The folder is what ``kc_env.agents.policy_model`` reads: ``weights.npz`` (plain arrays) and
``model.json`` (layout versions, rules and players, training steps, evaluation results, date,
command). After writing, the export is loaded back with numpy alone and its action
probabilities are compared with the torch policy's on real observations: they must agree
within ``TOLERANCE``, or the export is refused.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from kc_env.agents import batch, model_folder, policy_model
from kc_env.agents.policy_model import PolicyNetwork

if TYPE_CHECKING:  # only the SB3 trainer imports SB3; the RLlib export uses this module too
    from sb3_contrib import MaskablePPO

TOLERANCE = 1e-3
"""How far apart numpy's and torch's action probabilities may be. Above float32's noise: torch's
own probabilities for the same weights and observations differed by 6e-5 between its first call
in a process and its later ones (the make demo model, research/experiments.md 2026-12-02), which made
a tolerance of 1e-5 refuse a good export now and then; a wrong mapping of the network (a layer, the
activation, the prior) moves them by tenths."""


def network_of(model: MaskablePPO) -> PolicyNetwork:
    """The actor of a MaskablePPO MLP policy as numpy arrays."""
    policy = model.policy
    modules = list(getattr(policy.pi_features_extractor, "net", [])) + list(policy.mlp_extractor.policy_net)
    layers = [m for m in modules if isinstance(m, torch.nn.Linear)]
    acts = {type(m).__name__ for m in modules if not isinstance(m, torch.nn.Linear)}
    if len(acts) > 1 or not acts <= {"Tanh", "ReLU"}:
        raise ValueError(f"cannot export activations {sorted(acts)}: one of tanh or relu throughout")
    activation = {"Tanh": "tanh", "ReLU": "relu"}[acts.pop() if acts else "Tanh"]

    def arrays(linear: torch.nn.Linear) -> tuple[np.ndarray, np.ndarray]:
        return (linear.weight.detach().cpu().numpy().astype(np.float32),
                linear.bias.detach().cpu().numpy().astype(np.float32))

    prior = getattr(policy, "prior", None)
    if prior is None:
        return PolicyNetwork(tuple(arrays(m) for m in layers), arrays(policy.action_net), activation)
    weight = float(policy.action_net.weight.detach().cpu())
    return PolicyNetwork(tuple(arrays(m) for m in layers), arrays(policy.action_net.linear), activation, prior, weight,
                         getattr(policy, "heuristic_weights", None))


def torch_probabilities(model: MaskablePPO, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The masked action probabilities of the torch policy (what MaskablePPO samples from)."""
    prior = getattr(model.policy, "prior", None)
    if prior is not None:  # the observation the policy trained on carries the prior's action
        hidden = np.zeros((len(obs), model.policy.privileged), dtype=np.float32)  # only the critic reads these
        chosen = batch.actions(prior, obs, masks, getattr(model.policy, "heuristic_weights", None))
        obs = np.concatenate([obs, chosen[:, None], hidden], axis=1)
    with torch.no_grad():
        tensor = torch.as_tensor(obs, dtype=torch.float32)
        dist = model.policy.get_distribution(tensor, action_masks=masks.astype(bool))
        return dist.distribution.probs.cpu().numpy().astype(np.float64)


def sample_observations(rules, num_players: int, count: int = 256, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Real observations and masks from random games, for checking an export."""
    import random

    from kc_env import actions, engine, observation

    rng = random.Random(seed)
    obs, masks = [], []
    k = 0
    while len(obs) < count:
        state = engine.new_deal(rules, num_players, seed=seed * 10_000 + k)
        k += 1
        while not state.is_over and len(obs) < count and state.move_count < 300:
            obs.append(observation.encode(state, state.current_player))
            masks.append(actions.legal_mask(state))
            moves = engine.legal_moves(state)
            engine.apply(state, moves[rng.randrange(len(moves))])
    return np.stack(obs), np.stack(masks)


def export(model: MaskablePPO, folder: str | Path, card: dict[str, Any], rules, num_players: int) -> Path:
    """Write ``model``'s policy to ``folder`` and prove numpy and torch agree (within ``TOLERANCE``)."""
    return save_checked(network_of(model), folder, card, rules, num_players,
                        lambda obs, masks: torch_probabilities(model, obs, masks))


def save_checked(network: PolicyNetwork, folder: str | Path, card: dict[str, Any], rules, num_players: int,
                 torch_probs: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Path:
    """Write ``network`` and its card to ``folder``, read it back with numpy alone and compare its
    action probabilities with ``torch_probs(obs, masks)`` (the trained policy's) on real
    observations: more than ``TOLERANCE`` apart and the export is refused. Any trainer's export ends here."""
    card = {
        "rules": rules.to_dict(), "num_players": num_players,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        **card,
    }
    folder = policy_model.save(folder, network, card)
    loaded, _ = policy_model.load_network(folder)
    obs, masks = sample_observations(rules, num_players)
    gap = float(np.max(np.abs(loaded.probabilities(obs, masks) - torch_probs(obs, masks))))
    if gap > TOLERANCE:
        raise ValueError(f"export of {folder}: numpy and torch probabilities differ by {gap:.2e} (> {TOLERANCE})")
    full = model_folder.card_json(folder / model_folder.CARD_FILE)
    full["export_check"] = {"max_probability_gap": gap, "observations": int(len(obs))}
    model_folder.write_card(folder, full)
    return folder
