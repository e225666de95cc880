"""Kickstart: before PPO, teach the network to play like a teacher agent (behaviour cloning).

The teacher (``heuristic`` by default) plays the learner's seat in the vector env against the
league's opponents; every (observation, mask, teacher action) is kept, with the return the
learner's seat got from there (the deal's reward, discounted by ``ppo.gamma``). The actor is
fitted by cross-entropy over the legal actions, the critic by mean squared error to the return.
PPO then starts from a policy that already plays like the teacher and a critic that already
knows what a position is worth, and improves on it instead of rediscovering it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from kc_env.agents.batch import rule_based


@dataclass
class Demonstrations:
    """The teacher's play: observations (float16, exact for this layout's values up to 1/2048),
    masks, actions and discounted returns."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray


def collect(env, teacher: str, samples: int, gamma: float) -> Demonstrations:
    """Let ``teacher`` play the learner's seat of ``env`` (a ``KingsCornerVecEnv``, possibly
    wrapped) until ``samples`` actions are recorded."""
    act = rule_based(teacher)
    B = env.num_envs
    obs_buf = np.zeros((samples + B, env.observation_space.shape[0]), dtype=np.float16)
    mask_buf = np.zeros((samples + B, env.action_space.n), dtype=bool)
    act_buf = np.zeros(samples + B, dtype=np.int16)
    ret_buf = np.zeros(samples + B, dtype=np.float32)
    open_steps: list[list[int]] = [[] for _ in range(B)]
    obs = env.reset()
    n = 0
    while n < samples:
        masks = env.action_masks()
        actions = act(obs, masks.astype(np.int8))
        rows = np.arange(n, n + B)
        obs_buf[rows], mask_buf[rows], act_buf[rows] = obs, masks, actions
        for b in range(B):
            open_steps[b].append(n + b)
        n += B
        obs, rewards, dones, _ = env.step(actions)
        for b in np.flatnonzero(dones):
            steps = open_steps[b]
            ret_buf[steps] = rewards[b] * gamma ** np.arange(len(steps) - 1, -1, -1)
            open_steps[b] = []
    done = np.ones(n, dtype=bool)
    for steps in open_steps:  # deals still running have no return yet: leave them out
        done[steps] = False
    return Demonstrations(obs_buf[:n][done], mask_buf[:n][done], act_buf[:n][done], ret_buf[:n][done])


def fit(model: MaskablePPO, demos: Demonstrations, epochs: int, batch_size: int = 4096,
        learning_rate: float = 1e-3, seed: int = 0, report: Callable[[dict[str, Any]], None] | None = None,
        step: Callable[[], Any] | None = None) -> dict[str, Any]:
    """Fit actor and critic to the demonstrations; returns the final losses and agreement.
    ``report`` gets each epoch's figures as it ends (``kc train`` prints a line), ``step`` is
    called after each gradient step (``kc train``'s bar on a terminal)."""
    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    n = len(demos.actions)
    stats: dict[str, Any] = {}
    for epoch in range(epochs):
        order = rng.permutation(n)
        agree = total = 0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            obs = torch.as_tensor(demos.obs[idx].astype(np.float32))
            actions = torch.as_tensor(demos.actions[idx].astype(np.int64))
            returns = torch.as_tensor(demos.returns[idx])
            values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=demos.masks[idx])
            actor_loss = -log_prob.mean()
            critic_loss = torch.nn.functional.mse_loss(values.flatten(), returns)
            loss = actor_loss + 0.5 * critic_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            if step is not None:
                step()
            with torch.no_grad():
                dist = policy.get_distribution(obs, action_masks=demos.masks[idx])
                agree += int((dist.distribution.probs.argmax(dim=1) == actions).sum())
                total += len(idx)
        stats = {"epoch": epoch + 1, "actor_loss": actor_loss.item(), "critic_loss": critic_loss.item(),
                 "agreement": agree / total, "samples": n}
        if report:
            report(stats)
    return stats
