"""Exported policies: a trained network as plain data, run with numpy alone (DESIGN.md, Agents).

An exported model is a folder::

    models/NAME/
        model.json     the card: format, layout versions, network shape, rules and players it
                       was trained for, training steps, evaluation results, date, command
        weights.npz    the arrays, read with ``numpy.load(allow_pickle=False)``

The network is the actor of an SB3 ``MaskableActorCriticPolicy`` with an MLP: the observation
vector goes through the hidden layers ``pi.0``, ``pi.1``, ... (``x @ W.T + b`` then the
activation), then ``action`` gives one logit per action; illegal actions are masked out before
the softmax or argmax. A network may have a *prior*: a rule-based agent (``heuristic`` or
``greedy``) whose chosen action gets ``prior_weight`` added to its logit, so that the trained
layers learn a correction to that agent's play (residual policy learning) instead of the whole
game. ``kc export`` (in ``training/``) writes the folder; this module reads it,
and refuses, with a message that says which, a folder without its files, a corrupt file, an
array that would need unpickling, a layout version this package cannot feed, or shapes that do
not fit together. An observation layout starts with the one before it
(``observation.LAYOUT_SIZES``), so a network trained on an older layout reads the first values
of today's vector, the ones it was trained on (``PolicyNetwork.obs_size``). The card and the
arrays are read by ``model_folder`` (the one reader of model folders: only the arrays the card's
network needs, each ``.npy`` header checked before its data, nothing unpickled, finite float32),
with the card capped at ``model_folder.MAX_CARD_BYTES`` and the weights at ``MAX_WEIGHTS_BYTES``
(the file, and the arrays' total from the card's shapes, before any is read): an extra or
oversized member costs nothing.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..actions import ACTION_LAYOUT_VERSION, NUM_ACTIONS
from ..files import write_atomic
from ..observation import LAYOUT_SIZES, OBS_LAYOUT_VERSION
from . import model_folder as folders
from .base import COMPILED, Agent, legal_actions
from .model_folder import (  # noqa: F401
    CARD_FILE,
    MAX_CARD_BYTES,
    WEIGHTS_FILE,
    ModelError,
    card_json,
    check_table,
    is_model_folder,
    model_folder,
    shipped_models,
)

FORMAT, FORMAT_VERSION = folders.POLICY.card_format, folders.POLICY.version
ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
MASKED_LOGIT = -1e8  # what sb3-contrib's MaskableCategorical puts on illegal actions
MAX_WEIGHTS_BYTES = 1 << 30
"""The largest ``weights.npz``, and the most the network's arrays may hold as float32, all
together: the shapes the card declares are summed before any array is read (the shipped models
hold a few megabytes)."""
MAX_WIDTH = 1 << 16
"""The widest hidden layer a card may declare."""
MAX_LAYERS = 32
"""The most hidden layers a card may declare: a trained network's shared trunk and its policy
layers, up to 16 each (``network.shared`` and ``network.hidden`` of a training config); the
shipped models have two."""
PRIORS = COMPILED
"""The rule-based agents a network may take as its prior (those with a compiled policy)."""


@dataclass(frozen=True)
class PolicyNetwork:
    """The actor network as numpy arrays: ``hidden`` (W, b) pairs, then ``action`` (W, b), and
    optionally a ``prior`` agent whose choice gets ``prior_weight`` added to its logit (a
    ``heuristic`` prior plays with its own evaluation weights, ``heuristic_weights``, when the
    training tuned them: ``training/sb3/tune.py``)."""

    hidden: tuple[tuple[np.ndarray, np.ndarray], ...]
    action: tuple[np.ndarray, np.ndarray]
    activation: str = "tanh"
    prior: str | None = None
    prior_weight: float = 0.0
    heuristic_weights: Mapping[str, float] | None = None

    def logits(self, obs: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
        """Action logits for a batch ``[B, OBS_SIZE]`` (or one vector), before masking. A network
        with a prior needs the ``masks`` too (the prior agent picks among the legal actions)."""
        x = np.asarray(obs, dtype=np.float32)[..., :self.obs_size]
        act = ACTIVATIONS[self.activation]
        for w, b in self.hidden:
            x = act(x @ w.T + b)
        w, b = self.action
        logits = x @ w.T + b
        if self.prior is not None:
            if masks is None:
                raise ValueError(f"this network adds the {self.prior} agent's choice: logits() needs the action masks")
            from .batch import actions  # compiled on first use, not when kc_env.agents is imported

            chosen = actions(self.prior, obs, masks, self.heuristic_weights)
            rows = np.atleast_2d(logits)
            rows[np.arange(len(rows)), chosen] += np.float32(self.prior_weight)
        return logits

    @property
    def obs_size(self) -> int:
        """How many values of the observation the network reads: the length of the layout it was
        trained on, the first values of today's (``observation.LAYOUT_SIZES``)."""
        return (self.hidden[0][0] if self.hidden else self.action[0]).shape[1]

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked action probabilities (softmax over legal actions), batch or single."""
        logits = np.where(np.asarray(mask, dtype=bool), self.logits(obs, mask).astype(np.float64), MASKED_LOGIT)
        logits -= logits.max(axis=-1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=-1, keepdims=True)

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights by name, as written to ``weights.npz``."""
        out = {}
        for i, (w, b) in enumerate(self.hidden):
            out[f"pi.{i}.weight"], out[f"pi.{i}.bias"] = w, b
        out["action.weight"], out["action.bias"] = self.action
        return out


def save(folder: str | Path, network: PolicyNetwork, card: Mapping[str, Any]) -> Path:
    """Write ``network`` and its card (extra fields of ``model.json``) into ``folder``, each file
    atomically (``kc_env.files.write_atomic``): a kill leaves the old file or the new one."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    arrays = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in network.arrays().items()}
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_atomic(folder / WEIGHTS_FILE, buffer.getvalue())
    full = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "obs_layout_version": OBS_LAYOUT_VERSION, "action_layout_version": ACTION_LAYOUT_VERSION,
        "network": {"hidden": [int(w.shape[0]) for w, _ in network.hidden], "activation": network.activation,
                    **({"prior": network.prior, "prior_weight": float(network.prior_weight)} if network.prior else {}),
                    **({"heuristic_weights": dict(network.heuristic_weights)} if network.heuristic_weights else {})},
        **card,
    }
    folders.write_card(folder, full)
    return folder


def read_card(folder: str | Path) -> dict[str, Any]:
    """The ``model.json`` of an exported model, checked for format and layout versions."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelError(f"{folder}: not an exported model folder (it should hold {CARD_FILE} and {WEIGHTS_FILE})")
    path, card = folders.versioned_card(folder, folders.POLICY, f"an exported model holds {CARD_FILE} and {WEIGHTS_FILE}")
    for key, what, ours, readable in (
            ("obs_layout_version", "observation layout", OBS_LAYOUT_VERSION, tuple(LAYOUT_SIZES)),
            ("action_layout_version", "action layout", ACTION_LAYOUT_VERSION, (ACTION_LAYOUT_VERSION,))):
        if type(card.get(key)) is not int or card.get(key) not in readable:  # not true, not 1.0
            raise ModelError(f"{path}: the model was trained for {what} version {card.get(key)!r}, "
                             f"this kc_env has version {ours}; retrain or export it for this version")
    check_table(card, path)
    network = card.get("network")
    if not isinstance(network, dict) or not isinstance(network.get("activation"), str) \
            or network["activation"] not in ACTIVATIONS:
        raise ModelError(f"{path}: 'network' must name an activation among {', '.join(ACTIVATIONS)}")
    hidden = network.get("hidden", [])
    if not isinstance(hidden, list) or not all(type(w) is int and 0 < w <= MAX_WIDTH for w in hidden):
        raise ModelError(f"{path}: network hidden must be a list of layer widths 1 to {MAX_WIDTH}, not {hidden!r}"[:300])
    if len(hidden) > MAX_LAYERS:
        raise ModelError(f"{path}: network hidden must list at most {MAX_LAYERS} layers, not {len(hidden):,}")
    prior, weight = network.get("prior"), network.get("prior_weight", 0.0)
    if prior is not None and (not isinstance(prior, str) or prior not in PRIORS):
        raise ModelError(f"{path}: unknown network prior {prior!r} (known: {', '.join(PRIORS)})")
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not np.isfinite(weight):
        raise ModelError(f"{path}: network prior_weight must be a finite number, not {weight!r}")
    tuned = network.get("heuristic_weights")
    if tuned is not None:
        if prior != "heuristic":
            raise ModelError(f"{path}: network heuristic_weights need the heuristic as the network's prior")
        from .heuristic.weights import evaluation_weights

        try:
            evaluation_weights(tuned)
        except ValueError as exc:
            raise ModelError(f"{path}: network {exc}") from None
    return card


def load_network(folder: str | Path) -> tuple[PolicyNetwork, dict[str, Any]]:
    """The network and card of an exported model, fully checked (see the module docstring)."""
    folder = Path(folder)
    card = read_card(folder)
    arrays = folders.read_weights(folder, _expected_shapes(card), MAX_WEIGHTS_BYTES)
    return _network_from(arrays, card, folder / WEIGHTS_FILE), card


def _expected_shapes(card: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """Every array the card's network needs, by name, with the shape it must have."""
    widths = [LAYOUT_SIZES[card["obs_layout_version"]], *card["network"].get("hidden", []), NUM_ACTIONS]
    names = [f"pi.{i}" for i in range(len(widths) - 2)] + ["action"]
    shapes = {}
    for k, name in enumerate(names):
        shapes[f"{name}.weight"], shapes[f"{name}.bias"] = (widths[k + 1], widths[k]), (widths[k + 1],)
    return shapes


def _network_from(arrays: dict[str, np.ndarray], card: dict[str, Any], path: Path) -> PolicyNetwork:
    """The network of ``arrays`` (finite float32, of the shapes the card declares)."""
    depth = len(card["network"].get("hidden", []))
    hidden = tuple((arrays[f"pi.{i}.weight"], arrays[f"pi.{i}.bias"]) for i in range(depth))
    action = (arrays["action.weight"], arrays["action.bias"])
    width = LAYOUT_SIZES[card["obs_layout_version"]]
    for name, (w, b) in [(f"pi.{i}", layer) for i, layer in enumerate(hidden)] + [("action", action)]:
        if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
            raise ModelError(f"{path}: layer {name} has shape {w.shape} / {b.shape}, expected (*, {width}) / (*,)")
        width = w.shape[0]
    if width != NUM_ACTIONS:
        raise ModelError(f"{path}: the network gives {width} logits, the action layout has {NUM_ACTIONS}")
    net = card["network"]
    return PolicyNetwork(hidden, action, net["activation"], net.get("prior"), float(net.get("prior_weight", 0.0)),
                         net.get("heuristic_weights"))


class PolicyAgent(Agent):
    """An exported policy as an agent: the most likely legal action (``deterministic``, the
    default) or a sample from the masked softmax (seeded)."""

    def __init__(self, folder: str | Path, seed: int | None = None, deterministic: bool = True,
                 spec: str | None = None) -> None:
        self.folder = Path(folder)
        self.network, self.card = load_network(self.folder)
        self.spec = spec or str(folder)  # a shipped model keeps its name, not the folder it is in
        self.deterministic = deterministic
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        legal_actions(obs)  # a clear error when this seat has nothing to do
        vector, mask = np.asarray(obs["observation"], np.float32), np.asarray(obs["action_mask"])
        return int(self.act_batch(vector[None], mask[None])[0])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row of a batch (what the vector env calls for batched opponents)."""
        if self.deterministic:
            logits = np.where(np.asarray(masks, dtype=bool), self.network.logits(obs, masks), -np.inf)
            return logits.argmax(axis=-1)
        p = self.network.probabilities(obs, masks)
        return np.array([self._rng.choice(len(row), p=row / row.sum()) for row in p])


def load_agent(folder: str | Path, seed: int | None = None, spec: str | None = None) -> PolicyAgent:
    """The agent of an exported policy folder (``model_folder.Format.load``)."""
    return PolicyAgent(folder, seed=seed, spec=spec)


def table_differences(card: Mapping[str, Any], rules, num_players: int) -> list[str]:
    """How a table of ``rules`` (a ``Rules``) and ``num_players`` differs from the one the model
    whose card is ``card`` was trained for: the player count, then each rule variant that
    differs, as ``name: trained → here``. Empty when the table is the trained one (or the card
    does not say). A card of several tables: ``model_folder.tables_differences``."""
    from ..rules import Rules

    if card.get("tables"):
        return folders.tables_differences(card, rules, num_players)
    out = []
    trained_players = card.get("num_players")
    if trained_players is not None and trained_players != num_players:
        out.append(f"players: {trained_players} → {num_players}")
    if isinstance(card.get("rules"), Mapping):
        trained, here = Rules.from_dict(card["rules"]).to_dict(), rules.to_dict()
        out += [f"{name}: {trained[name]} → {here[name]}" for name in here if here[name] != trained[name]]
    return out


def other_table(agent: Any, rules, num_players: int) -> str | None:
    """When ``agent`` is an exported model (its ``card``: a policy, turn-value or search model)
    trained for another table than ``rules`` (a ``Rules``) and ``num_players``: ``"<spec> was
    trained for another table (<differences>); it plays here all the same"`` (the observation is
    the same for every table); when its card does not say the rules (``rules`` and ``tables`` may
    be absent, ``model_folder.check_table``), that it does not; else ``None``."""
    if not isinstance(getattr(agent, "card", None), Mapping):
        return None
    differences = table_differences(agent.card, rules, num_players)
    if agent.card.get("rules") is None and not agent.card.get("tables"):
        told = f" ({'; '.join(differences)})" if differences else ""
        return f"{agent.spec}'s card does not say the rules it was trained for{told}; it plays here all the same"
    if not differences:
        return None
    return f"{agent.spec} was trained for another table ({'; '.join(differences)}); it plays here all the same"
