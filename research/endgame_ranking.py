"""A learned endgame for `models/turn-ranking-2p`: its turns once the stock is empty ranked by a
network fitted to what the endgame search (`models/turn-ranking-endgame-2p`) values, instead of
searched at play time (research/experiments.md, "2026-12-02 (night): distilling the endgame search"):

    python research/endgame_ranking.py label --against heuristic --deals 1500 --seed 90000000 --save runs/endrank/heuristic.npz
    python research/endgame_ranking.py label --against random --deals 1500 --seed 91000000 --save runs/endrank/random.npz
    python research/endgame_ranking.py fit --data runs/endrank/heuristic.npz runs/endrank/random.npz --out runs/endrank/end.npz
    python research/endgame_ranking.py play --nets runs/endrank/end.npz --deals 1000 --seed 5150
    python research/endgame_ranking.py net --data runs/endrank/heuristic.npz --out runs/endrank/net.npz --hidden 128 --loss centred --dropout 0.2 --epochs 40
    python research/endgame_ranking.py play --nets runs/endrank/net.npz --deals 1000 --seed 5150 --against heuristic --who planned model --save runs/endrank/shares

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

``net`` (2026-12-03): a network with a hidden layer (relu) instead, fitted with torch on a loss of
the search's values (``centred``), its pick (``choice``, ExIt's target) or a softmax of its values
(``soft``); held out: its agreement with the search's pick and its gain over the model's pick, in
the target and in each opponent's column. ``ship``: the model with such networks as its endgame
(needs ``endgame_format.patch``, the format's endgame networks, applied).

``play``: the model with its endgame turns ranked by those two networks (the first until its
gate has seen the other seat be careless, then the second), from both seats of the same deals
against the heuristic and against random, beside the model as shipped and the heuristic;
``--who planned`` keeps the line chosen at an endgame turn's start to its end, ``first`` ranks
only the first endgame turn; ``--save`` keeps each episode's share, so that runs pair.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from kc_env.training.turn_value import learn as tv

from kc_env import engine
from kc_env.actions import END_TURN_ACTION
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
        arrays.update(layer_arrays(name, layers))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, **arrays)


def layer_arrays(name: str, layers) -> dict[str, np.ndarray]:
    """A network's (weight, bias) pairs as ``{name}_w0, {name}_b0, ...`` (float32)."""
    out = {}
    for i, (w, b) in enumerate(layers):
        out[f"{name}_w{i}"], out[f"{name}_b{i}"] = np.asarray(w, np.float32), np.asarray(b, np.float32)
    return out


def read_layers(z, name: str):
    """``layer_arrays`` read back as ``value``'s (weights, biases) tuples."""
    count = sum(1 for key in z.files if key.startswith(f"{name}_w"))
    return (tuple(np.ascontiguousarray(z[f"{name}_w{i}"], np.float32) for i in range(count)),
            tuple(np.ascontiguousarray(z[f"{name}_b{i}"], np.float32) for i in range(count)))


def _pick(layers, x) -> int:
    from kc_env.agents.turn_value import value

    return int(np.argmax(value(x, tuple(np.ascontiguousarray(w, np.float32) for w, _ in layers),
                               tuple(np.ascontiguousarray(b, np.float32) for _, b in layers))))


def padded(rows):
    """Decisions as arrays padded to ``K`` candidates: features [n, K, F], values [n, K, 2], and
    which candidates are real [n, K]."""
    x = np.zeros((len(rows), K, FEATURES), np.float32)
    y = np.zeros((len(rows), K, 2), np.float32)
    real = np.zeros((len(rows), K), bool)
    for i, (f, v) in enumerate(rows):
        x[i, :len(v)], y[i, :len(v)], real[i, :len(v)] = f, v, True
    return x, y, real


def fit_network(x, v, real, *, hidden: int, loss: str, epochs: int, lr: float, weight_decay: float,
                temperature: float, seed: int, dropout: float = 0.0, val=None, log=print):
    """A relu network (``hidden`` units, then one score) fitted to rank each decision's candidates
    by ``v`` [n, K] (the search's values): ``loss`` ``choice`` is the cross-entropy of a softmax over
    the candidates against the search's own pick (ExIt's target: the best-valued candidate),
    ``soft`` against a softmax of the values at ``temperature``, ``centred`` the squared error of
    score less its decision's mean against value less its decision's mean. Minibatches of 256
    decisions; the epoch whose picks are worth most on ``val`` (x, v, real) is kept."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[2], hidden), torch.nn.ReLU(), torch.nn.Dropout(dropout),
                              torch.nn.Linear(hidden, 1))
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)
    xt, vt, mt = torch.from_numpy(x), torch.from_numpy(v), torch.from_numpy(real)
    neg = torch.tensor(-1e9)
    choice = torch.where(mt, vt, neg).argmax(1)
    soft = torch.softmax(torch.where(mt, vt / temperature, neg), 1)
    gen = torch.Generator().manual_seed(seed)
    best, kept = -1.0, None
    for epoch in range(epochs):
        net.train()
        for idx in torch.randperm(len(xt), generator=gen).split(256):
            s = torch.where(mt[idx], net(xt[idx]).squeeze(2), neg)
            if loss == "choice":
                err = torch.nn.functional.cross_entropy(s, choice[idx])
            elif loss == "soft":
                err = -(soft[idx] * torch.log_softmax(s, 1)).sum(1).mean()
            else:
                m, n = mt[idx].float(), mt[idx].float().sum(1, keepdim=True)
                sc = (s * m) - (s * m).sum(1, keepdim=True) / n
                vc = (vt[idx] * m) - (vt[idx] * m).sum(1, keepdim=True) / n
                err = ((sc - vc) ** 2 * m).sum() / m.sum()
            opt.zero_grad()
            err.backward()
            opt.step()
        net.eval()
        layers = [(lin.weight.detach().numpy().copy(), lin.bias.detach().numpy().copy()) for lin in (net[0], net[3])]
        if val is not None:
            d = diagnose(layers, *val)
            log(f"epoch {epoch + 1}: validation {d}")
            if d["value"] > best:
                best, kept = d["value"], layers
    return kept or layers


def net_picks(layers, x, real) -> np.ndarray:
    """The network's pick in each padded decision."""
    from kc_env.agents.turn_value import value

    ws = tuple(np.ascontiguousarray(w, np.float32) for w, _ in layers)
    bs = tuple(np.ascontiguousarray(b, np.float32) for _, b in layers)
    s = value(x.reshape(-1, x.shape[2]), ws, bs).reshape(real.shape)
    return np.where(real, s, -1.0).argmax(1)


def diagnose(layers, x, v, real, picks=None, heuristic_column=None, random_column=None) -> dict:
    """On padded decisions valued ``v`` [n, K]: the network's agreement with the search's pick,
    its mean gain over the model's own pick (``picks``) and the search's, each with the 95%
    half-width; ``heuristic_column``: the same gains in the play-outs against the heuristic."""
    n = np.arange(len(v))
    mine, search = net_picks(layers, x, real), np.where(real, v, -1e9).argmax(1)
    out = {"decisions": len(v), "agreement": round(float(np.mean(mine == search)), 4),
           "value": round(float(v[n, mine].mean()), 4), "search_value": round(float(v[n, search].mean()), 4)}
    if picks is not None:
        for tag, col in (("", v), ("_vs_heuristic", heuristic_column), ("_vs_random", random_column)):
            if col is None:
                continue
            g, b = col[n, mine] - col[n, picks], col[n, search] - col[n, picks]
            out[f"gain{tag}"] = round(float(g.mean()), 4)
            out[f"half_width{tag}"] = round(float(1.96 * g.std() / np.sqrt(len(g))), 4)
            out[f"search_gain{tag}"] = round(float(b.mean()), 4)
            out[f"model_agrees_with_search{tag}"] = round(float(np.mean(picks == search)), 4)
    return out


def net(args) -> None:
    """``net``: a hidden-layer network for each target (``TARGETS``) on every labelled decision, 20%
    held out (``tv.held_out``) and a tenth of the rest to choose the epoch; the held-out diagnostic."""
    data = [read(p) for p in args.data]
    arrays = {}
    for name in TARGETS:
        if name == "seen" and not args.seen:
            continue
        train_rows, val_rows, held = [], [], []
        for rows, picks, _seen in data:
            out = set(tv.held_out(len(rows)))
            rest = [i for i in range(len(rows)) if i not in out]
            train_rows += [rows[i] for i in rest if i % 10]
            val_rows += [rows[i] for i in rest if i % 10 == 0]
            held.append(([rows[i] for i in sorted(out)], np.array([picks[i] for i in sorted(out)])))
        xt, yt, rt = padded(train_rows)
        xv, yv, rv = padded(val_rows)
        w = args.heuristic_weight
        layers = fit_network(xt, target_of(name, yt, w), rt, hidden=args.hidden, loss=args.loss, epochs=args.epochs,
                             lr=args.lr, weight_decay=args.weight_decay, temperature=args.temperature,
                             seed=args.fit_seed, dropout=args.dropout, val=(xv, target_of(name, yv, w), rv),
                             log=lambda m, tag=name: print(f"{tag} {m}", flush=True))
        for path, (rows, picks) in zip(args.data, held, strict=True):
            xh, yh, rh = padded(rows)
            print(json.dumps({"network": name, "data": path, "hidden": args.hidden, "loss": args.loss,
                              "heuristic_weight": w, **diagnose(layers, xh, target_of(name, yh), rh, picks, yh[:, :, 0],
                                                                yh[:, :, 1])}), flush=True)
        arrays.update(layer_arrays(name, layers))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, **arrays)


def target_of(name: str, y: np.ndarray, heuristic_weight: float = 0.5) -> np.ndarray:
    """``TARGETS[name]`` of padded values [n, K, 2]; ``heuristic_weight``: the weight of the column
    against the heuristic in ``unseen``'s mean (the search's is 0.5)."""
    if name == "unseen":
        return heuristic_weight * y[:, :, 0] + (1 - heuristic_weight) * y[:, :, 1]
    return y[:, :, 1]


class LearnedEndgame(TurnValueAgent):
    """The model, its endgame turns ranked by the fitted networks (``play``)."""

    def __init__(self, nets: str, keep_plan: bool = False, first_only: bool = False) -> None:
        self.first_only, self.used = first_only, False
        super().__init__(MODEL)
        with np.load(nets) as z:
            self.endgame_nets = {seen: read_layers(z, n) if f"{n}_w0" in z.files else None
                                 for seen, n in ((False, "unseen"), (True, "seen"))}
        self.keep_plan, self.plan, self.learned_now = keep_plan, [], False

    def reset(self, seed=None) -> None:
        super().reset(seed)
        self.used = False

    def act(self, obs) -> int:
        """With ``keep_plan``, an endgame turn follows the line its start chose to its end (what the
        labels valued), instead of ranking again after each move."""
        if not self.keep_plan:
            return super().act(obs)
        ob, mask = vector(obs), mask_of(obs)
        if self.plan and not endgame_start(ob) and mask[self.plan[0]]:
            return self.plan.pop(0)
        self.plan = []
        lines, lengths, vals, own = self.ranked(obs)
        if vals is None or len(vals) < 2:
            return own
        best = int(np.argmax(vals))
        line = [int(m) for m in lines[best, :lengths[best]]] + [END_TURN_ACTION]
        if endgame_start(ob) and self.learned_now:
            self.plan = line[1:]
        return line[0]

    def network(self, obs):
        net = super().network(obs)  # the gate's memory, updated once a decision
        learned = self.endgame_nets[self.seen_careless]
        ob = vector(obs)
        self.learned_now = False
        if learned is not None and view.obs_count(ob[view.OBS_STOCK], view.CARD_SCALE) == 0 and not self.used:
            if self.first_only and endgame_start(ob):
                self.used = True  # ``first_only``: the network ranks the first endgame turn alone
            self.learned_now = True
            return learned
        return net


def ship(args) -> None:
    """``ship``: ``MODEL`` with the networks of ``--nets`` as its endgame networks (``unseen`` as
    ``endgame_layers``, ``seen``, when there, as ``endgame_careless_layers``), written as a
    turn-value model folder (``turn_value.save``); ``kc export`` then evaluates it into its card."""
    from kc_env.agents import turn_value as tvm

    card, layers = tvm.load(MODEL)
    loose = tvm.load_careless(MODEL, card)
    with np.load(args.nets) as z:
        nets = {n: read_layers(z, n) for n in ("unseen", "seen") if f"{n}_w0" in z.files}
    as_pairs = {n: list(zip(ws, bs, strict=True)) for n, (ws, bs) in nets.items()}
    keep = {k: card[k] for k in ("candidates", "num_players", "rules")}
    trained = dict(card["trained"], endgame={
        "what": "once the stock is empty, the candidates ranked by a network fitted to a play-out search's values "
                "there (research/endgame_ranking.py; research/experiments.md, 2026-12-03)",
        "from": MODEL, "nets": args.nets, "commands": args.commands})
    tvm.save(args.out, layers, keep | {"trained": trained}, careless_layers=loose, patience=card["patience"],
             endgame_layers=as_pairs["unseen"], endgame_careless_layers=as_pairs.get("seen"))
    print(json.dumps({"out": args.out, "endgame_layers": [len(b) for _, b in as_pairs["unseen"]]}))


def play_job(job):
    seed, lo, hi, who, against, nets = job
    out = []
    for i in range(lo, hi):
        for seat in (0, 1):
            state = engine.new_deal("standard", 2, seed=deal_seed(seed, i), dealer=0)
            if who in ("learned", "planned", "first"):
                me = LearnedEndgame(nets, keep_plan=who != "learned", first_only=who == "first")
            else:
                me = load(MODEL if who == "model" else who)
            other = load(against, seed=agent_seed(seed, i, seat))
            play_deal(state, [me, other] if seat == 0 else [other, me])
            out.append(0.5 if state.winner is None else float(state.winner == seat))
    return out


def play(args) -> None:
    for against in args.against:
        for who in args.who:
            if who == "heuristic" and against == "heuristic":
                continue
            jobs = [(args.seed, k, min(args.deals, k + 50), who, against, args.nets) for k in range(0, args.deals, 50)]
            with ProcessPoolExecutor(args.workers) as pool:
                shares = [s for part in pool.map(play_job, jobs) for s in part]
            if args.save:
                Path(args.save).mkdir(parents=True, exist_ok=True)
                np.save(Path(args.save) / f"{who}-{against}-{args.seed}-{args.deals}.npy", np.array(shares))
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
    p = sub.add_parser("net")
    p.add_argument("--data", nargs="+", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--loss", choices=("choice", "soft", "centred"), default="choice")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=1e-5)
    p.add_argument("--temperature", type=float, default=0.05)
    p.add_argument("--fit-seed", type=int, default=0)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--heuristic-weight", type=float, default=0.5,
                   help="the weight of the play-outs against the heuristic in the unseen network's target")
    p.add_argument("--seen", action="store_true", help="also the network against random (after the gate fires)")
    p = sub.add_parser("ship")
    p.add_argument("--nets", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--commands", nargs="*", default=[], help="the commands that made the nets, for the card")
    p = sub.add_parser("play")
    p.add_argument("--nets", required=True)
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--seed", type=int, default=5150)
    p.add_argument("--against", nargs="+", choices=("heuristic", "random"), default=["heuristic", "random"])
    p.add_argument("--who", nargs="+", choices=("learned", "planned", "first", "model", "heuristic"),
                   default=["learned", "model", "heuristic"])
    p.add_argument("--save", help="a folder for each run's shares by episode (to pair runs on the same deals)")
    for p in sub.choices.values():
        p.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    {"label": label, "fit": fit, "net": net, "ship": ship, "play": play}[args.what](args)


if __name__ == "__main__":
    main()
