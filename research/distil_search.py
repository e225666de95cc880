"""Distilling the search at four seats (`models/search-4p`) into a network over candidate turns,
with the search's *chosen* line as the target (ExIt's low-noise classification target; issue 35,
its 4-player bar; research/experiments.md, "2026-12-05 (night): distilling search-4p"):

    NUMBA_NUM_THREADS=1 python research/distil_search.py label --deals 3000 --seed 93000000 --out runs/distil-4p
    NUMBA_NUM_THREADS=1 python research/distil_search.py label --deals 3000 --seed 97000000 --out runs/dagger-4p-1 \
        --student runs/distil-4p/model
    python research/distil_search.py fit --data runs/distil-4p runs/dagger-4p-1 --model runs/dagger-4p-1/model --anchor
    python research/distil_search.py fit --data runs/distil-4p --model runs/distil-4p/model --hidden 64
    python research/distil_search.py duel --model runs/distil-4p/model --deals 4000 --seed 94000
    python research/distil_search.py reliability --deals 400 --seed 98000000

``label``: the search plays one seat of each deal against three heuristics (its seat rotating with
the deal). At each decision it values by play-outs (a fresh search: mostly a turn's start), it
keeps the observation and the line it chose; each is then turned into the shipped heuristic's
``--candidates`` best candidate turns (the turn-value model's candidates, ``candidate_features``)
and the index of the one that ends where the chosen line ends. Decisions with a line that goes out
(the model always takes it) or whose chosen end is not among the candidates are dropped (counted).
Written in chunks of 50 deals (``chunk-NNNNN.npz``), so a killed run resumes where it stopped.
With ``--student MODEL`` (DAgger, ExIt's loop) the model plays the seat and the search only labels
the positions the model reaches: the search's own play never shows it the model's mistakes.

``fit``: a relu network over the candidates' features, the cross-entropy of its softmax against
the search's pick (``endgame_ranking.fit_network``, loss ``choice``) over every ``--data`` folder's
decisions, a tenth of them (every tenth chunk of each folder) held out: its agreement with the search there, beside the heuristic's own
pick's (candidate 0); another tenth (the chunks before those) chooses the epoch kept. Saved as a turn-value model folder for the table it was labelled at.

``duel``: the model as it ships (``shipped.duel``, compiled) in one seat against three of the
heuristic, and against three random players beside the heuristic there, every deal from each seat.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from endgame_ranking import fit_network, net_picks
from kc_env.training.turn_value.shipped import duel as shipped_duel

from kc_env import engine
from kc_env.agents import load, turns, view
from kc_env.agents.search_agent import SearchAgent
from kc_env.agents.turn_value import _OTHERS_AT, FEATURES, candidate_features, features, save
from kc_env.match import deal_seed
from kc_env.play import play_deal
from kc_env.rules import Rules
from kc_env.tournament import agent_seed
from kc_env.vector import kernel as K

SEARCH_4P = "search:redeals=32,margin=0.05,corner=0,fit_close=0.25,penalty=0.175,card=1.1"
"""``models/search-4p``'s spec."""
CHUNK = 50


class Recorder(SearchAgent):
    """The search, keeping (observation, mask, chosen line) at each decision it values by play-outs."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._mask = None

    def _decide(self, ob, mk):
        self._mask = mk
        return super()._decide(ob, mk)

    def _keep_plan(self, ob, line, length, blueprint) -> None:
        self.kept.append((ob.copy(), np.asarray(self._mask, np.int8).copy(), np.array(line[:length], np.int64)))
        super()._keep_plan(ob, line, length, blueprint)


def end_features(ob: np.ndarray, line: np.ndarray) -> np.ndarray:
    """The features of the position where ``line`` ends the turn from ``ob``."""
    g = turns.alloc(turns.MAX_DEPTH + 1, view.clears_piles(ob))
    turns.load(ob, g, turns.MAX_DEPTH + 1)
    full = np.zeros(turns.MAX_DEPTH, np.int64)
    full[:len(line)] = line
    turns.replay(g, full, len(line))
    after = np.zeros(K.OBS_SIZE, np.float32)
    turns.afterstate(ob, g, len(line), after)
    out = np.zeros(FEATURES, np.float32)
    features(after, out)
    return out


def target(ob: np.ndarray, mask: np.ndarray, line: np.ndarray, k: int):
    """(features [valid, F], the chosen candidate's index) or a reason it is dropped."""
    lines, lengths = np.zeros((k, turns.MAX_DEPTH), np.int64), np.zeros(k, np.int64)
    feats = np.zeros((k, FEATURES), np.float32)
    valid, _, wins = candidate_features(ob, mask, k, lines, lengths, feats)
    if wins >= 0:
        return "goes_out"
    if valid < 2:
        return "no_choice"
    same = np.flatnonzero((feats[:valid] == end_features(ob, line)).all(axis=1))
    return (feats[:valid], int(same[0])) if len(same) else "not_a_candidate"


class Student:
    """DAgger's seat: the search labels every position (``teacher.act`` keeps its chosen line where
    it searches), the student's move is played."""

    def __init__(self, student, teacher: Recorder) -> None:
        self.student, self.teacher = student, teacher

    def act(self, obs) -> int:
        self.teacher.act(obs)
        return self.student.act(obs)


def searched(rules: Rules, players: int, seed: int, i: int, student: str | None = None) -> list:
    """Deal ``i`` of ``seed`` played with the search in seat ``i % players`` (the student there with
    ``student``, the search labelling) and the heuristic in the others: the (observation, mask,
    chosen line) of every position the search searched."""
    seat = i % players
    me = Recorder.from_spec(SEARCH_4P, seed=agent_seed(seed, i, seat))
    seats = [load("heuristic", seed=agent_seed(seed, i, s)) for s in range(players)]
    seats[seat] = me if student is None else Student(load(student, seed=agent_seed(seed, i, seat)), me)
    play_deal(engine.new_deal(rules, players, seed=deal_seed(seed, i), dealer=0), seats)
    return me.kept


def label_chunk(rules: Rules, players: int, seed: int, lo: int, hi: int, k: int, out: Path,
                student: str | None = None) -> dict:
    xs, picks, counts = [], [], {"goes_out": 0, "no_choice": 0, "not_a_candidate": 0, "kept": 0}
    for i in range(lo, hi):
        for ob, mask, line in searched(rules, players, seed, i, student):
            row = target(ob, mask, line, k)
            if isinstance(row, str):
                counts[row] += 1
                continue
            counts["kept"] += 1
            xs.append(row[0])
            picks.append(row[1])
    sizes = np.array([len(x) for x in xs], np.int64)
    np.savez(out, x=np.concatenate(xs) if xs else np.zeros((0, FEATURES), np.float32), sizes=sizes,
             picks=np.array(picks, np.int64), counts=json.dumps(counts))
    return counts


def label(args) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rules = Rules.preset(args.rules)
    for lo in range(0, args.deals, CHUNK):
        path = out / f"chunk-{lo // CHUNK:05d}.npz"
        if path.exists():
            continue
        started = time.time()
        counts = label_chunk(rules, args.players, args.seed, lo, min(args.deals, lo + CHUNK), args.candidates, path,
                             args.student)
        print(json.dumps({"chunk": path.name, **counts, "seconds": round(time.time() - started, 1)}), flush=True)


def read(folders: list[Path]):
    """Every chunk's decisions: (features [n, F] each, picks), and which chunk each came from (the
    ``f``-th folder's ``c``-th chunk is ``100_000 * f + c``)."""
    rows, picks, chunk = [], [], []
    paths = [(100_000 * f + c, path) for f, folder in enumerate(folders)
             for c, path in enumerate(sorted(folder.glob("chunk-*.npz")))]
    for c, path in paths:
        with np.load(path) as z:
            cuts = np.cumsum(z["sizes"])[:-1]
            rows += np.split(z["x"], cuts) if len(z["sizes"]) else []
            picks += z["picks"].tolist()
            chunk += [c] * len(z["sizes"])
    return rows, np.array(picks), np.array(chunk)


def padded(rows, picks, k: int):
    """Features [n, k, F], the search's pick one-hot [n, k] (``fit_network``'s values) and which
    candidates are real [n, k]."""
    x = np.zeros((len(rows), k, FEATURES), np.float32)
    v = np.zeros((len(rows), k), np.float32)
    real = np.zeros((len(rows), k), bool)
    for i, (f, p) in enumerate(zip(rows, picks, strict=True)):
        x[i, :len(f)], real[i, :len(f)], v[i, p] = f, True, 1.0
    return x, v, real


def fit(args) -> None:
    rows, picks, chunk = read([Path(d) for d in args.data])
    held = chunk % 10 == 9
    k = max(len(r) for r in rows)
    val = np.flatnonzero(chunk % 10 == 8)  # other deals than the training ones, as the held-out are
    train = np.flatnonzero(chunk % 10 < 8)
    sets = {name: padded([rows[i] for i in idx], picks[idx], k) for name, idx in
            (("train", train), ("val", val), ("held", np.flatnonzero(held)))}
    log = lambda m: print(m, flush=True)  # noqa: E731
    if args.anchor:
        layers = fit_anchored(sets["train"], sets["val"], hidden=args.hidden, epochs=args.epochs, lr=args.lr,
                              weight_decay=args.weight_decay, seed=args.fit_seed, log=log)
    else:
        layers = fit_network(*sets["train"], hidden=args.hidden, loss="choice", epochs=args.epochs, lr=args.lr,
                             weight_decay=args.weight_decay, temperature=1.0, seed=args.fit_seed, dropout=args.dropout,
                             val=sets["val"], log=log)
    x, v, real = sets["held"]
    search, mine = v.argmax(1), net_picks(layers, x, real)
    fitted = np.mean(net_picks(layers, sets["train"][0], sets["train"][2]) == sets["train"][1].argmax(1))
    print(json.dumps({"decisions": len(rows), "held_out": len(v), "candidates": k,
                      "network_agrees_on_its_training_decisions": round(float(fitted), 4),
                      "network_agrees": round(float(np.mean(mine == search)), 4),
                      "heuristic_agrees": round(float(np.mean(search == 0)), 4),
                      "network_agrees_where_search_leaves_heuristic": round(float(np.mean(mine[search > 0] == search[search > 0])), 4),
                      "network_leaves_heuristic": round(float(np.mean(mine > 0)), 4)}), flush=True)
    card = {"candidates": int(args.candidates), "num_players": args.players, "rules": Rules.preset(args.rules).to_dict(),
            "trained": {"trainer": "research/distil_search.py", "teacher": SEARCH_4P, "decisions": len(rows),
                        "command": " ".join(sys.argv)}}
    save(args.model, [(w.astype(np.float32), b.astype(np.float32)) for w, b in layers], card)
    print(f"saved {args.model}")


EVALUATION = _OTHERS_AT + 9
"""The feature that holds the heuristic's own evaluation of the position (a tenth of it): its
``argmax`` over the candidates is the heuristic's pick."""
SHIFT = 50.0
"""Added to ``EVALUATION`` (under -3 here) in the exported hidden unit that carries it, so that the
unit's relu passes it unchanged."""


def fit_anchored(train, val, *, hidden: int, epochs: int, lr: float, weight_decay: float, seed: int, log):
    """A candidate's score ``a * evaluation + net(x)``: the heuristic's ranking (``a`` learned, from
    30) plus a relu network that starts at zero, fitted by the cross-entropy of the softmax over the
    candidates against the search's pick; the epoch that agrees most with the search on ``val`` is
    kept. Exported as one relu network: the evaluation passes through one more hidden unit."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(FEATURES, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))
    with torch.no_grad():
        net[2].weight.zero_()
        net[2].bias.zero_()
    a = torch.nn.Parameter(torch.tensor(30.0))
    opt = torch.optim.Adam([{"params": net.parameters(), "weight_decay": weight_decay}, {"params": [a]}], lr=lr)
    x, v, real = (torch.from_numpy(t) for t in train)
    pick, neg = v.argmax(1), torch.tensor(-1e9)
    gen = torch.Generator().manual_seed(seed)
    best, kept = -1.0, None
    for epoch in range(epochs):
        for idx in torch.randperm(len(x), generator=gen).split(256):
            s = a * x[idx][:, :, EVALUATION] + net(x[idx]).squeeze(2)
            err = torch.nn.functional.cross_entropy(torch.where(real[idx], s, neg), pick[idx])
            opt.zero_grad()
            err.backward()
            opt.step()
        layers = _folded(net, float(a.detach()))
        agree = float(np.mean(net_picks(layers, val[0], val[2]) == val[1].argmax(1)))
        log(f"epoch {epoch + 1}: a {float(a.detach()):.2f}, validation agreement {agree:.4f}")
        if agree > best:
            best, kept = agree, layers
    return kept


def _folded(net, a: float):
    """``a * evaluation + net(x)`` as one relu network (weight [out, in], bias [out]) pairs."""
    w0, b0 = net[0].weight.detach().numpy(), net[0].bias.detach().numpy()
    w1, b1 = net[2].weight.detach().numpy(), net[2].bias.detach().numpy()
    unit = np.zeros((1, FEATURES), np.float32)
    unit[0, EVALUATION] = 1.0
    return [(np.concatenate([w0, unit]), np.concatenate([b0, [SHIFT]]).astype(np.float32)),
            (np.concatenate([w1, [[a]]], axis=1).astype(np.float32), (b1 - a * SHIFT).astype(np.float32))]


def duel(args) -> None:
    rules = Rules.preset(args.rules)
    seeds = np.arange(args.deals, dtype=np.int64) + args.seed * 10**6
    for folder, against in ((args.model, "heuristic"), (args.model, "random"), (None, "random")):
        started = time.time()
        share, half, _ = shipped_duel(folder, rules, args.players, seeds, against=against)
        print(json.dumps({"model": folder or "heuristic", "against": against, "share": round(share, 4),
                          "half_width": round(half, 4), "seconds": round(time.time() - started, 1)}), flush=True)


def reliability(args) -> None:
    """The search's split-half reliability: it plays one seat of each deal against three heuristics
    (as ``label``), and every position it searched is searched again by a fresh search with other
    seeds. How often the two pick the same candidate is the most any network fitted to the search's
    picks can agree with them from the position alone; beside it, the same where the first search
    leaves the heuristic's own candidate (``fit``'s ``network_agrees_where_search_leaves_heuristic``)."""
    rules, k = Rules.preset(args.rules), args.candidates
    first, second = [], []
    for i in range(args.deals):
        for j, (ob, mask, line) in enumerate(searched(rules, args.players, args.seed, i)):
            row = target(ob, mask, line, k)
            again = Recorder.from_spec(SEARCH_4P, seed=agent_seed(args.seed + 1, i, j))
            again.act({"observation": ob, "action_mask": mask})
            other = target(ob, mask, again.kept[0][2], k) if again.kept else "no_search"
            if not isinstance(row, str) and not isinstance(other, str):
                first.append(row[1])
                second.append(other[1])
    a, b = np.array(first), np.array(second)
    print(json.dumps({"deals": args.deals, "positions": len(a), "searches_agree": round(float(np.mean(a == b)), 4),
                      "first_keeps_heuristic": round(float(np.mean(a == 0)), 4),
                      "second_keeps_heuristic": round(float(np.mean(b == 0)), 4),
                      "agree_where_first_leaves_heuristic": round(float(np.mean(b[a > 0] == a[a > 0])), 4),
                      "second_keeps_heuristic_where_first_leaves": round(float(np.mean(b[a > 0] == 0)), 4)}),
          flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("label", "fit", "duel", "reliability"):
        s = sub.add_parser(name)
        s.add_argument("--rules", default="standard")
        s.add_argument("--players", type=int, default=4)
        s.add_argument("--candidates", type=int, default=32)
    lab = sub.choices["label"]
    lab.add_argument("--deals", type=int, required=True)
    lab.add_argument("--seed", type=int, required=True)
    lab.add_argument("--out", required=True)
    lab.add_argument("--student", help="a turn-value model folder that plays the seat (DAgger); the search labels")
    f = sub.choices["fit"]
    f.add_argument("--data", required=True, nargs="+")
    f.add_argument("--model", required=True)
    f.add_argument("--hidden", type=int, default=64)
    f.add_argument("--epochs", type=int, default=30)
    f.add_argument("--lr", type=float, default=1e-3)
    f.add_argument("--weight-decay", type=float, default=1e-5)
    f.add_argument("--dropout", type=float, default=0.0)
    f.add_argument("--fit-seed", type=int, default=0)
    f.add_argument("--anchor", action="store_true", help="the heuristic's evaluation plus a residual network")
    d = sub.choices["duel"]
    d.add_argument("--model", required=True)
    d.add_argument("--deals", type=int, default=2000)
    d.add_argument("--seed", type=int, required=True)
    r = sub.choices["reliability"]
    r.add_argument("--deals", type=int, required=True)
    r.add_argument("--seed", type=int, required=True)
    args = p.parse_args(argv)
    {"label": label, "fit": fit, "duel": duel, "reliability": reliability}[args.command](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
