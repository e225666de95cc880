"""Policy improvement by play-outs, before PPO (``pretrain.method: rollouts``): expert iteration.

Rollout rewards (``rollouts.py``) tell PPO what its own sampled move was worth against the
prior's, one move per position; most sampled moves change nothing in the deal, so few samples
carry signal. Here every move is valued instead. The prior plays the learner's seat against
the league's prior opponents; at every position with a choice, each legal move is played on a
copy of the deal and the deal is played out with the prior in every seat (``rollouts.move_values``): on
the true deal, or on ``pretrain.redeals`` re-deals of the cards the seat cannot see, the same
re-deals for every move. A position's label is the learner's win share after each legal move.

The network's actor head is then fitted so that its logit of each legal move, less the logit
of the prior's move, equals ``advantage_scale`` times that move's advantage (its share less the
share after the prior's move), by least squares. A play-out is exact for the true deal but the
seat sees only its own cards, so the labels are noisy, and the fit averages them: what it
learns is the advantage of a move given what the seat can see (the mean over the deals that
look the same, under the prior's own way of playing). With the prior's weight on the logits
(``network.prior_weight``), the policy plays otherwise than the prior where a move's learned
advantage beats the prior's move by more than ``prior_weight / advantage_scale`` of a deal:
one step of policy improvement over the prior (Bertsekas' rollout algorithm), and PPO goes on
from there. That margin is chosen on held-out positions (those of the last ``holdout`` share of
the deals), as the one whose deviations gain the most win share there.

Labelling is the costly part; it saves its positions in chunks in the run folder
(``improve/chunk_NNNN.npz``), so a killed run resumes where it stopped.
"""

from __future__ import annotations

import copy
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from kc_env.agents.batch import rule_based
from kc_env.files import write_atomic
from kc_env.vector import KingsCornerVecEnv, VecGame

from .rollouts import move_values

CHUNK = "chunk_{:04d}.npz"


@dataclass
class Positions:
    """Labelled positions: the seat's observation (float16: exact for this layout's values up to
    1/2048), the prior's move, the learner's win share after each legal move (NaN: illegal), and
    the deal each position came from."""

    obs: np.ndarray
    prior: np.ndarray
    values: np.ndarray
    deal: np.ndarray

    def __len__(self) -> int:
        return len(self.prior)

    def save(self, path: Path) -> None:
        buffer = io.BytesIO()
        np.savez(buffer, obs=self.obs, prior=self.prior, values=self.values, deal=self.deal)
        write_atomic(path, buffer.getvalue())

    @classmethod
    def load(cls, path: Path) -> Positions:
        with np.load(path, allow_pickle=False) as f:
            return cls(f["obs"], f["prior"], f["values"], f["deal"])

    @classmethod
    def join(cls, parts: list[Positions]) -> Positions:
        return cls(*(np.concatenate([getattr(p, k) for p in parts]) for k in ("obs", "prior", "values", "deal")))

    def take(self, rows: np.ndarray) -> Positions:
        return Positions(self.obs[rows], self.prior[rows], self.values[rows], self.deal[rows])


def label(env: KingsCornerVecEnv, prior: str, positions: int, folder: Path, chunk_size: int = 20_000,
          redeals: int = 0, log=print) -> Positions:
    """Label ``positions`` positions where the learner's seat has a choice, the prior playing it in
    ``env`` (whose opponents should be the prior too): each legal move's win share, on the true
    deal (``redeals`` 0) or averaged over that many re-deals of the unseen cards (``rollouts.move_values``).
    Chunks already in ``folder`` count; new ones are added until there are enough. Deals are
    numbered across chunks."""
    folder.mkdir(parents=True, exist_ok=True)
    parts = [Positions.load(p) for p in sorted(folder.glob("chunk_*.npz"))]
    have = sum(len(p) for p in parts)
    deal_base = int(max((p.deal.max() for p in parts if len(p)), default=-1)) + 1
    if have < positions:
        env.seed(env_seed(len(parts)))  # a new chunk plays new deals, resumed or not
    act = rule_based(prior)
    B = env.num_envs
    scratch = VecGame(B * 4 * max(redeals, 1))
    obs = env.reset() if have < positions else None
    deal_of = deal_base + np.arange(B)
    next_deal = deal_base + B
    buf: list[Positions] = []
    buffered = 0
    while have + buffered < positions:
        masks = env.action_masks()
        moves = act(obs, masks.astype(np.int8))
        choice = np.flatnonzero(masks.sum(axis=1) > 1)
        if choice.size:
            rows, acts = np.nonzero(masks[choice])
            games = choice[rows]
            values = np.full((choice.size, masks.shape[1]), np.nan, dtype=np.float32)
            keys = (have + buffered + rows).astype(np.int64)  # one per position, the same on a resumed run
            values[rows, acts] = move_values(env.game, games, acts, prior, redeals, keys, scratch)
            buf.append(Positions(obs[choice].astype(np.float16), moves[choice].astype(np.int16),
                                 values.astype(np.float16), deal_of[choice].astype(np.int64)))
            buffered += choice.size
        obs, _, dones, _ = env.step(moves)
        for b in np.flatnonzero(dones):
            deal_of[b] = next_deal
            next_deal += 1
        if buffered >= chunk_size or have + buffered >= positions:
            chunk = Positions.join(buf)
            chunk.save(folder / CHUNK.format(len(parts)))
            parts.append(chunk)
            have += len(chunk)
            buf, buffered = [], 0
            log(f"labelled {have:,} positions")
    return Positions.join(parts)


def env_seed(chunk: int) -> int:
    """The env seed of the ``chunk``-th chunk: chunks never replay each other's deals."""
    return 1_000_003 * (chunk + 1)


def split(data: Positions, holdout: float) -> tuple[Positions, Positions]:
    """Training and held-out positions, by deal (the last ``holdout`` share of the deals)."""
    deals = np.unique(data.deal)
    cut = deals[int(len(deals) * (1 - holdout))] if holdout > 0 and len(deals) > 1 else deals.max() + 1
    return data.take(np.flatnonzero(data.deal < cut)), data.take(np.flatnonzero(data.deal >= cut))


def advantages(data: Positions) -> tuple[np.ndarray, np.ndarray]:
    """Each legal move's share less the prior move's (0 for illegal moves), and the legal masks."""
    values = data.values.astype(np.float32)
    legal = ~np.isnan(values)
    own = values[np.arange(len(values)), data.prior.astype(np.int64)]
    return np.where(legal, values - own[:, None], 0.0).astype(np.float32), legal


def move_scores(policy, obs: np.ndarray, prior: np.ndarray) -> torch.Tensor:
    """The actor head's logits without the prior's weight (``PriorHead.linear``), for the seat's
    observations with the prior's move appended."""
    x = torch.cat([torch.as_tensor(obs.astype(np.float32)), torch.as_tensor(prior.astype(np.float32))[:, None]], 1)
    features = policy.extract_features(x, policy.pi_features_extractor)
    latent = policy.mlp_extractor.forward_actor(features)
    return policy.action_net.linear(latent[:, :policy.action_net.width])


def predicted(policy, data: Positions, batch_size: int = 8192) -> np.ndarray:
    """Each move's logit less the prior move's logit, both without the prior's weight."""
    out = []
    with torch.no_grad():
        for start in range(0, len(data), batch_size):
            rows = slice(start, start + batch_size)
            f = move_scores(policy, data.obs[rows], data.prior[rows])
            own = f.gather(1, torch.as_tensor(data.prior[rows].astype(np.int64))[:, None])
            out.append((f - own).numpy())
    return np.concatenate(out) if out else np.zeros((0, data.values.shape[1]), np.float32)


def gain(scores: np.ndarray, adv: np.ndarray, legal: np.ndarray, margin: float) -> tuple[float, float]:
    """Where the best-scored legal move beats the prior's by more than ``margin``, the policy plays
    it: the mean win share that gains per position (by the labels) and how often it happens."""
    masked = np.where(legal, scores, -np.inf)
    best = masked.argmax(axis=1)
    deviate = masked[np.arange(len(best)), best] > margin
    gained = np.where(deviate, adv[np.arange(len(best)), best], 0.0)
    return float(gained.mean()) if len(gained) else 0.0, float(deviate.mean()) if len(gained) else 0.0


def best_margin(scores: np.ndarray, adv: np.ndarray, legal: np.ndarray) -> tuple[float, float, dict]:
    """The margin (0 to 3 logits, by 0.1) whose deviations gain the most on these positions, with
    that gain per position and the gain at every margin."""
    margins = np.round(np.linspace(0.0, 3.0, 31), 2)
    gains = [gain(scores, adv, legal, m)[0] for m in margins]
    best = int(np.argmax(gains))
    return float(margins[best]), gains[best], dict(zip(margins.tolist(), gains, strict=True))


def fit(model, data: Positions, *, epochs: int, learning_rate: float, scale: float, holdout: float,
        batch_size: int = 2048, seed: int = 0, log=print) -> dict[str, Any]:
    """Fit the actor head to ``scale`` times the advantages (see the module docstring), keep the
    epoch whose best margin gains the most on the held-out positions, and set the prior's weight
    to that margin. If no epoch gains more than the network as it was (at its own prior weight),
    the network is left as it was."""
    policy = model.policy
    train_set, held = split(data, holdout)
    adv, legal = advantages(train_set)
    held_adv, held_legal = advantages(held)
    params = [p for name, p in policy.named_parameters() if not name.startswith(("value_net", "mlp_extractor.value_net"))
              and name != "action_net.weight"]
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    rng = np.random.default_rng(seed)
    margin = float(policy.action_net.weight.item())  # the config's prior_weight: kept if no epoch gains
    start_gain = gain(predicted(policy, held), held_adv, held_legal, margin)[0]
    best = {"epoch": 0, "margin": margin, "gain": start_gain, "state": copy.deepcopy(policy.state_dict())}
    history = [{"epoch": 0, "held_best_margin": margin, "held_best_gain": start_gain}]
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(train_set))
        total = 0.0
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            f = move_scores(policy, train_set.obs[rows], train_set.prior[rows])
            prior = torch.as_tensor(train_set.prior[rows].astype(np.int64))[:, None]
            diff = f - f.gather(1, prior)
            target = torch.as_tensor(adv[rows]) * scale
            weight = torch.as_tensor(legal[rows], dtype=torch.float32)
            loss = ((diff - target) ** 2 * weight).sum() / weight.sum().clamp(min=1.0)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            total += loss.item() * len(rows)
        margin, held_gain, _ = best_margin(predicted(policy, held), held_adv, held_legal)
        row = {"epoch": epoch, "loss": total / max(len(order), 1), "held_best_margin": margin,
               "held_best_gain": held_gain}
        history.append(row)
        log(json.dumps(row))
        if held_gain > best["gain"]:
            best = {"epoch": epoch, "margin": margin, "gain": held_gain, "state": copy.deepcopy(policy.state_dict())}
    policy.load_state_dict(best["state"])
    with torch.no_grad():
        policy.action_net.weight.fill_(best["margin"])
    scores = predicted(policy, held)
    _, _, by_margin = best_margin(scores, held_adv, held_legal)
    return {"positions": len(data), "train_positions": len(train_set), "held_positions": len(held),
            "kept_epoch": best["epoch"], "prior_weight": best["margin"], "held_gain_per_position": best["gain"],
            "held_deviation_share": gain(scores, held_adv, held_legal, best["margin"])[1], "epochs": history,
            "held_gain_by_margin": by_margin}
