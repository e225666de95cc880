"""A learned endgame for `models/turn-ranking-2p`: its turns once the stock is empty ranked by a
network fitted to what the endgame search (`models/turn-ranking-endgame-2p`) values, instead of
searched at play time (research/experiments.md, "2026-12-02 (night): distilling the endgame search"):

    python research/endgame_ranking.py label --against heuristic --deals 1500 --seed 90000000 --save runs/endrank/heuristic.npz
    python research/endgame_ranking.py label --against random --deals 1500 --seed 91000000 --save runs/endrank/random.npz
    python research/endgame_ranking.py fit --data runs/endrank/heuristic.npz runs/endrank/random.npz --out runs/endrank/end.npz
    python research/endgame_ranking.py play --nets runs/endrank/end.npz --deals 1000 --seed 5150

``label``: the model plays deals from both seats against ``--against``; at each of its turn
starts once the stock is empty (at two seats the cards it cannot see are then exactly the other
hand, so a play-out starts from the true position) its candidate turns (the heuristic's best 6,
as the model's) are played out against the heuristic (one play-out: both seats are then
deterministic) and against random (8 play-outs), as the endgame search does with
``others=heuristic+random``. Kept: the candidates' features, the two columns of values, whether
the model's gate had seen the other seat be careless, and the model's own pick.

``fit``: two linear rankings (``fit_ranking_sets``) on every labelled decision, 20% held out: one
on the mean of the two columns (the endgame search's value before the gate has seen anything
careless), one on the column against random (its value after). Prints each one's held-out gain
over the heuristic's turn and over the model's own pick.

``play``: the model with its endgame turns ranked by those two networks (the first until its
gate has seen the other seat be careless, then the second), from both seats of the same deals
against the heuristic and against random, beside the model as shipped and the heuristic.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from kc_env.training.turn_value import learn as tv

from kc_env import engine
from kc_env.agents import load, turns, view
from kc_env.agents.greedy import vector
from kc_env.agents.heuristic.weights import HEURISTIC_WEIGHTS
from kc_env.agents.playouts import OTHERS, line_values
from kc_env.agents.turn_value import FEATURES, TurnValueAgent, candidate_features, mask_of
from kc_env.match import deal_seed
from kc_env.play import play_deal
from kc_env.tournament import agent_seed

MODEL = "models/turn-ranking-2p"
K = 6
PLAYOUTS = {"heuristic": 1, "random": 8}
"""Play-outs a candidate against each opponent (one against the heuristic: the endgame at two
seats is then fully known and both seats are deterministic)."""


def endgame_start(ob: np.ndarray) -> bool:
    return (ob[view.OBS_PLAYED] < 0.5 and ob[view.OBS_MOVED] < 0.5
            and view.obs_count(ob[view.OBS_STOCK], view.CARD_SCALE) == 0)


class Recorder(TurnValueAgent):
    """The model, keeping its endgame turn starts: the observation, the mask, whether its gate had
    seen the other seat be careless, and its pick among the candidates (0, the heuristic's, when
    its gate gave the turn to the heuristic)."""

    def __init__(self) -> None:
        super().__init__(MODEL)
        self.kept: list[tuple[np.ndarray, np.ndarray, bool, int]] = []
        self._vals = None

    def ranked(self, obs):
        out = super().ranked(obs)
        self._vals = out[2]
        return out

    def act(self, obs) -> int:
        action = super().act(obs)
        ob = vector(obs)
        if endgame_start(ob):
            pick = 0 if self._vals is None or len(self._vals) == 0 else int(np.argmax(self._vals))
            self.kept.append((ob.copy(), mask_of(obs).astype(np.int8), self.seen_careless, pick))
        return action


def label_one(ob: np.ndarray, mask: np.ndarray, seed: int):
    """(features [c, F], values [c, 2]: against the heuristic, against random) or None where there is
    no choice or a candidate goes out."""
    lines, lengths = np.zeros((K, turns.MAX_DEPTH), np.int64), np.zeros(K, np.int64)
    feats = np.zeros((K, FEATURES), np.float32)
    valid, _, wins = candidate_features(ob, mask, K, lines, lengths, feats)
    if valid < 2 or wins >= 0:
        return None
    cols = [line_values(ob, lines[:valid], lengths[:valid], PLAYOUTS[o], HEURISTIC_WEIGHTS.copy(), seed, 1000,
                        OTHERS.index(o)) for o in PLAYOUTS]
    return feats[:valid], np.stack(cols, 1).astype(np.float32)


def label_job(job):
    seed, lo, hi, against = job
    feats, values, seen, picks = [], [], [], []
    for i in range(lo, hi):
        for seat in (0, 1):
            state = engine.new_deal("standard", 2, seed=deal_seed(seed, i), dealer=0)
            me, other = Recorder(), load(against, seed=agent_seed(seed, i, seat))
            play_deal(state, [me, other] if seat == 0 else [other, me])
            for n, (ob, mask, was_seen, pick) in enumerate(me.kept):
                row = label_one(ob, mask, seed * 1000 + i * 100 + seat * 50 + n)
                if row is not None:
                    feats.append(row[0])
                    values.append(row[1])
                    seen.append(was_seen)
                    picks.append(pick)
    return feats, values, seen, picks


def label(args) -> None:
    jobs = [(args.seed, k, min(args.deals, k + 25), args.against) for k in range(0, args.deals, 25)]
    feats, values, seen, picks = [], [], [], []
    with ProcessPoolExecutor(args.workers) as pool:
        for f, v, s, p in pool.map(label_job, jobs):
            feats += f
            values += v
            seen += s
            picks += p
    Path(args.save).parent.mkdir(parents=True, exist_ok=True)
    sizes = np.array([len(v) for v in values])
    np.savez(args.save, x=np.concatenate(feats), y=np.concatenate(values), sizes=sizes, seen=np.array(seen),
             picks=np.array(picks))
    print(json.dumps({"against": args.against, "decisions": len(values), "seen_careless": int(np.sum(seen))}))


def read(path):
    with np.load(path) as z:
        cuts = np.cumsum(z["sizes"])[:-1]
        return (list(zip(np.split(z["x"], cuts), np.split(z["y"], cuts), strict=True)),
                z["picks"].tolist(), z["seen"].tolist())


TARGETS = {"unseen": lambda y: y.mean(axis=1), "seen": lambda y: y[:, 1]}
"""The value a network ranks by: the mean over both opponents (the gate has seen nothing), the
value against random (it has)."""


def fit(args) -> None:
    data = [read(p) for p in args.data]
    arrays = {}
    for name, target in TARGETS.items():
        sets = [[(x, target(y)) for x, y in rows] for rows, _, _ in data]
        layers, gains = tv.fit_ranking_sets(sets, hidden=(), steps=3000, weight_decay=1e-4, log=lambda _: None)
        for path, (_rows, picks, _), g, one in zip(args.data, data, gains, sets, strict=True):
            held = tv.held_out(len(one))
            over_model = [one[i][1][_pick(layers, one[i][0])] - one[i][1][picks[i]] for i in held]
            print(json.dumps({"network": name, "data": path, **g, "gain_over_model": round(float(np.mean(over_model)), 4),
                              "half_width": round(float(1.96 * np.std(over_model) / np.sqrt(len(held))), 4)}))
        arrays[f"{name}_w"], arrays[f"{name}_b"] = layers[0]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, **arrays)


def _pick(layers, x) -> int:
    from kc_env.agents.turn_value import value

    return int(np.argmax(value(x, (np.ascontiguousarray(layers[0][0], np.float32),),
                               (np.ascontiguousarray(layers[0][1], np.float32),))))


class LearnedEndgame(TurnValueAgent):
    """The model, its endgame turns ranked by the fitted networks (``play``)."""

    def __init__(self, nets: str) -> None:
        super().__init__(MODEL)
        with np.load(nets) as z:
            self.endgame_nets = {seen: ((np.ascontiguousarray(z[f"{n}_w"], np.float32),),
                                        (np.ascontiguousarray(z[f"{n}_b"], np.float32),))
                                 for seen, n in ((False, "unseen"), (True, "seen"))}

    def network(self, obs):
        net = super().network(obs)  # the gate's memory, updated once a decision
        if view.obs_count(vector(obs)[view.OBS_STOCK], view.CARD_SCALE) == 0:
            return self.endgame_nets[self.seen_careless]
        return net


def play_job(job):
    seed, lo, hi, who, against, nets = job
    out = []
    for i in range(lo, hi):
        for seat in (0, 1):
            state = engine.new_deal("standard", 2, seed=deal_seed(seed, i), dealer=0)
            me = LearnedEndgame(nets) if who == "learned" else load(MODEL if who == "model" else who)
            other = load(against, seed=agent_seed(seed, i, seat))
            play_deal(state, [me, other] if seat == 0 else [other, me])
            out.append(0.5 if state.winner is None else float(state.winner == seat))
    return out


def play(args) -> None:
    for against in ("heuristic", "random"):
        for who in ("learned", "model", "heuristic"):
            if who == "heuristic" and against == "heuristic":
                continue
            jobs = [(args.seed, k, min(args.deals, k + 50), who, against, args.nets) for k in range(0, args.deals, 50)]
            with ProcessPoolExecutor(args.workers) as pool:
                shares = [s for part in pool.map(play_job, jobs) for s in part]
            print(json.dumps({"agent": who, "against": against, "episodes": len(shares),
                              "share": round(float(np.mean(shares)), 4),
                              "half_width": round(float(1.96 * np.std(shares) / np.sqrt(len(shares))), 4)}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("label")
    p.add_argument("--against", choices=("heuristic", "random"), required=True)
    p.add_argument("--deals", type=int, default=1500)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--save", required=True)
    p = sub.add_parser("fit")
    p.add_argument("--data", nargs="+", required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("play")
    p.add_argument("--nets", required=True)
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--seed", type=int, default=5150)
    for p in sub.choices.values():
        p.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    {"label": label, "fit": fit, "play": play}[args.what](args)


if __name__ == "__main__":
    main()
