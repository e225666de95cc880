"""One PPO update of the turn policy on an iteration's choices, and its critic (torch).

The critic values a candidate's end-of-turn position (the win share from there, fitted with
binary cross-entropy to the outcomes of the positions chosen), from the candidate's features or,
when the choices carry ``hands`` (``privileged_critic``), from those and what the other seats hold
(``rollouts.HAND_FEATURES``: a privileged critic, as PerfectDou's, while the policy still plays from
what its seat sees); a choice's baseline is the critic's
value expected under the policy that chose (the sum over the valid candidates of probability times
value), computed before the critic learns from this iteration's deals. The advantage is the
deal's outcome less the baseline (``advantage: outcome``) or the chosen candidate's value less it
(``expected``), normalised; the policy takes PPO's clipped steps with an entropy bonus over the
valid candidates. The figures returned say whether it learns: the critic's explained variance on
the outcomes, the advantages' mean over their standard error (signal to noise), the policy's
entropy, how far it moved (approximate KL by stable-baselines3's estimator, never negative; the
share of clipped ratios) and how often it sampled other than the heuristic's own best turn
(candidate 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..turn_value.learn import numpy_layers, torch_network


def _scores(net, feats, valid):
    """The network's score of every candidate, ``-inf`` past the valid ones."""
    import torch

    z = net(feats).squeeze(-1)
    slots = torch.arange(feats.shape[1])[None, :]
    return z.masked_fill(slots >= valid[:, None], float("-inf"))


def baseline(critic, feats, valid, logp_all):
    """The critic's value of each candidate (sigmoid) and its expectation under the policy."""
    import torch

    with torch.no_grad():
        q = torch.sigmoid(_scores(critic, feats, valid)).nan_to_num(0.0)
        return q, (logp_all.exp() * q).sum(dim=1)


def approx_kl(log_ratio) -> float:
    """How far the policy moved on a batch, from its choices' log-ratios (new over old log
    probability): mean((ratio - 1) - log ratio), stable-baselines3's estimator, which is never
    negative (the plain mean of the log-ratio can be)."""
    import torch

    with torch.no_grad():
        return float(((log_ratio.exp() - 1) - log_ratio).mean())


def ppo_update(actor_layers, critic_layers, data: dict[str, np.ndarray], s, *, seed: int, log) -> tuple[Any, Any, dict]:
    """Update the policy (``actor_layers``) and the critic on ``data`` (``rollouts.generate``'s
    choices) with the settings ``s`` (``TurnPPOSettings``); returns both as numpy layers and the
    diagnostics."""
    import torch

    torch.manual_seed(seed)
    feats, valid = torch.from_numpy(data["feats"]), torch.from_numpy(data["valid"])
    seen = torch.cat([feats, torch.from_numpy(data["hands"])], dim=2) if "hands" in data else feats
    picks, old_logp = torch.from_numpy(data["picks"]), torch.from_numpy(data["logps"])
    outcome = torch.from_numpy(data["outcomes"])
    actor, actor_linears = torch_network(feats.shape[2], list(s.hidden) if actor_layers is None else
                                    [w.shape[0] for w, _ in actor_layers[:-1]], seed, actor_layers)
    critic, critic_linears = torch_network(seen.shape[2], s.critic_hidden, seed + 1, critic_layers)
    rows = torch.arange(len(picks))
    with torch.no_grad():
        logp_all = torch.log_softmax(_scores(actor, feats, valid), dim=1)
    q, v = baseline(critic, seen, valid, logp_all)
    adv = (outcome if s.advantage == "outcome" else q[rows, picks]) - v
    spread = adv.std() if len(adv) > 1 else torch.ones(())  # one choice has no spread: its advantage is 0
    stats = {"choices": len(picks), "explained_variance": _explained(outcome, v),
             "advantage_snr": float(adv.mean().abs() / (spread / np.sqrt(len(adv)) + 1e-12)) if len(adv) > 1 else 0.0,
             "other_than_heuristic": float((picks != 0).float().mean())}
    adv = (adv - adv.mean()) / (spread + 1e-8)
    opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=s.learning_rate)
    gen = torch.Generator().manual_seed(seed)
    bce = torch.nn.BCEWithLogitsLoss()
    kls, clipped, entropies = [], [], []
    for _ in range(s.epochs):
        order = torch.randperm(len(picks), generator=gen)
        for at in range(0, len(order), s.batch_size):
            i = order[at:at + s.batch_size]
            logp = torch.log_softmax(_scores(actor, feats[i], valid[i]), dim=1)
            chosen = logp[torch.arange(len(i)), picks[i]]
            log_ratio = chosen - old_logp[i]
            ratio = log_ratio.exp()
            policy_loss = -torch.min(ratio * adv[i], ratio.clamp(1 - s.clip_range, 1 + s.clip_range) * adv[i]).mean()
            entropy = -(logp.exp() * logp.nan_to_num(0.0, neginf=0.0)).sum(dim=1).mean()
            value_loss = bce(critic(seen[i, :, :][torch.arange(len(i)), picks[i]]).squeeze(-1), outcome[i])
            opt.zero_grad()
            (policy_loss - s.ent_coef * entropy + value_loss).backward()
            opt.step()
            with torch.no_grad():
                kls.append(approx_kl(log_ratio))
                clipped.append(float(((ratio - 1).abs() > s.clip_range).float().mean()))
                entropies.append(float(entropy))
    stats |= {"entropy": float(np.mean(entropies)), "approx_kl": float(np.mean(kls)),
              "clip_fraction": float(np.mean(clipped))}
    log("  ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v:,}" for k, v in stats.items()))
    return numpy_layers(actor_linears), numpy_layers(critic_linears), stats


def _explained(y, pred) -> float:
    """1 - Var(y - pred) / Var(y): the share of the outcomes' variance the baseline explains."""
    var = float(y.var()) if len(y) > 1 else 0.0
    return float(1 - (y - pred).var() / var) if var > 0 else 0.0
