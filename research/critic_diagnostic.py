"""Does a critic that sees the other seats' hands explain more of a deal's outcome than one that
sees what the seat sees? (issue 35, the 4-player bar; research/experiments.md, "2026-12-07
(morning)"). A diagnostic before training with ``turn_ppo.privileged_critic``:

    python research/critic_diagnostic.py runs/tppo64-4p/model --games 4000 --iteration 50

Plays one iteration's deals of ``configs/turn-ppo-all.yaml`` (4 players, iteration ``--iteration``'s
seeds, which no run of 24 iterations played) with the model as the policy, and fits a critic (relu
64, binary cross-entropy, Adam) to the outcomes from the chosen candidate's features alone, with
the other seats' fits (``rollouts.SEAT_FITS``), and with their whole hands
(``rollouts.HAND_FEATURES``). The last fifth of the choices, whole deals but one, is held out;
printed: each critic's explained variance there after every ten epochs and its best.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch
from kc_env.training import config as config_mod
from kc_env.training.turn_ppo import rollouts
from kc_env.training.turn_ppo.train import iteration_choices

from kc_env.agents import turn_value as model

CONFIG = "configs/turn-ppo-all.yaml"


def explained(y: torch.Tensor, p: torch.Tensor) -> float:
    return 1 - float((y - p).var() / y.var())


def fit(x: torch.Tensor, y: torch.Tensor, held: torch.Tensor, epochs: int, seed: int):
    """Held-out explained variance after every epoch of a critic fitted on the rest."""
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-5)
    xs, ys = x[~held], y[~held]
    for _ in range(epochs):
        for idx in torch.randperm(len(xs)).split(512):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(xs[idx]).squeeze(1), ys[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            yield explained(y[held], torch.sigmoid(net(x[held]).squeeze(1)))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model")
    p.add_argument("--games", type=int, default=4000)
    p.add_argument("--iteration", type=int, default=50)
    p.add_argument("--epochs", type=int, default=40)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    cfg = config_mod.load(CONFIG, None, {"turn_ppo.games": args.games, "turn_ppo.privileged_critic": True})
    card, first = model.load(args.model)
    data = iteration_choices(cfg, args.iteration, (first, model.load_careless(args.model, card)))
    n, rows = len(data["picks"]), np.arange(len(data["picks"]))
    seat = torch.from_numpy(data["feats"][rows, data["picks"]])
    hands = torch.from_numpy(data["hands"][rows, data["picks"]])
    y = torch.from_numpy(data["outcomes"])
    held = torch.arange(n) >= int(0.8 * n)  # the choices come deal by deal: a cut splits one deal
    print(json.dumps({"choices": n, "held_out": int(held.sum()), "mean_outcome": round(float(y.mean()), 4)}), flush=True)
    for name, x in (("seat", seat), ("seat+fits", torch.cat([seat, hands[:, :rollouts.SEAT_FITS]], 1)),
                    ("seat+fits+hands", torch.cat([seat, hands], 1))):
        best = -1.0
        for epoch, ev in enumerate(fit(x, y, held, args.epochs, 0), 1):
            best = max(best, ev)
            if epoch % 10 == 0:
                print(json.dumps({"critic": name, "epoch": epoch, "held_out_ev": round(ev, 4), "best": round(best, 4)}),
                      flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
