"""Where `models/turn-ranking-2p` loses against random (research/experiments.md, "2026-12-02 (evening):
the ranking's endgame, and a search there against the league"):

    python research/endgame_diagnostic.py where --deals 1000 --seed 5150
    python research/endgame_diagnostic.py endgame --deals 1000 --seed 5150

``where``: the model and the heuristic each play the same deals from both seats against random
(``random`` seeded the same for both). For the model's deals, split by whether its gate saw the
other seat be careless (``turn_value.careless``) before the deal ended, it prints the outcomes
(won, blocked, lost) of the model and of the heuristic on the same deals and seats.

``endgame``: the model with its endgame (once the stock is empty) played otherwise, against the
heuristic and against random on the same deals: by the model itself (as shipped), by the
heuristic in every deal, by the heuristic only in the deals where the gate has seen nothing
careless yet. Paired with ``where``'s heuristic on the same deals.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from kc_env import engine
from kc_env.agents import load, view
from kc_env.agents.greedy import vector
from kc_env.agents.turn_value import HEURISTIC_TURN, TurnValueAgent
from kc_env.match import deal_seed
from kc_env.play import play_deal
from kc_env.tournament import agent_seed

MODEL = "models/turn-ranking-2p"
ENDGAMES = ("model", "heuristic", "heuristic_if_unseen")
"""Who plays the model's turns once the stock is empty (``endgame``): the model itself, the
heuristic, the heuristic in the deals where the gate has seen nothing careless."""
BASELINE = "the heuristic"
"""The heuristic in the model's seat for the whole deal."""


class Endgame(TurnValueAgent):
    """The model, its turns once the stock is empty given to the heuristic as ``endgame`` says;
    records whether its gate has seen the other seat be careless."""

    def __init__(self, endgame: str) -> None:
        super().__init__(MODEL)
        self.endgame = endgame

    def network(self, obs):
        net = super().network(obs)
        if view.obs_count(vector(obs)[view.OBS_STOCK], view.CARD_SCALE) == 0 and (
                self.endgame == "heuristic" or (self.endgame == "heuristic_if_unseen" and not self.seen_careless)):
            return HEURISTIC_TURN
        return net


def outcome(state: engine.GameState, seat: int) -> str:
    return "blocked" if state.winner is None else "won" if state.winner == seat else "lost"


def play(job) -> list[dict]:
    """Deals ``lo`` to ``hi`` from both seats: ``who`` (an ``ENDGAMES`` name or ``BASELINE``) against ``opponent``."""
    seed, lo, hi, who, opponent = job
    out = []
    for i in range(lo, hi):
        for seat in (0, 1):
            state = engine.new_deal("standard", 2, seed=deal_seed(seed, i), dealer=0)
            me = load("heuristic") if who == BASELINE else Endgame(who)
            other = load(opponent, seed=agent_seed(seed, i, seat))
            play_deal(state, [me, other] if seat == 0 else [other, me])
            out.append({"deal": i, "seat": seat, "outcome": outcome(state, seat), "seen": isinstance(me, Endgame) and me.seen_careless})
    return out


def run(who: str, opponent: str, args) -> list[dict]:
    jobs = [(args.seed, k, min(args.deals, k + 50), who, opponent) for k in range(0, args.deals, 50)]
    with ProcessPoolExecutor(args.workers) as pool:
        return [row for part in pool.map(play, jobs) for row in part]


def share(rows: list[dict]) -> float:
    return float(np.mean([{"won": 1.0, "blocked": 0.5, "lost": 0.0}[r["outcome"]] for r in rows]))


def where(args) -> None:
    model, heuristic = run("model", "random", args), run(BASELINE, "random", args)
    for seen in (False, True):
        rows = [(m, h) for m, h in zip(model, heuristic, strict=True) if m["seen"] == seen]
        print(json.dumps({"careless_seen": seen, "episodes": len(rows),
                          "model": dict(Counter(m["outcome"] for m, _ in rows)),
                          "heuristic_same_deals": dict(Counter(h["outcome"] for _, h in rows)),
                          "model_share": round(share([m for m, _ in rows]), 4),
                          "heuristic_share": round(share([h for _, h in rows]), 4)}), flush=True)


def endgame(args) -> None:
    for opponent in ("heuristic", "random"):
        for who in (BASELINE, *ENDGAMES):
            rows = run(who, opponent, args)
            print(json.dumps({"endgame_by": who, "against": opponent, "episodes": len(rows),
                              "share": round(share(rows), 4), **Counter(r["outcome"] for r in rows)}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("where", "endgame"))
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=5150)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    {"where": where, "endgame": endgame}[args.what](args)


if __name__ == "__main__":
    main()
