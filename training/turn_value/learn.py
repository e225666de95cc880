"""Learning the value of whole turns (``kc_env.agents.turn_value``) by self-play, batched in
compiled code.

``play_games`` plays whole deals on the vector kernel, every game on its own core-share: the
seats in ``learners`` choose a whole turn at a time among the heuristic's candidate end-of-turn
positions (the network's best, or the heuristic's best without a network; a random candidate
with probability ``epsilon``), the other seats play the heuristic move by move. For every turn a
learner chose it records the features of the position it chose to end in; when the deal ends,
each record's target is what the deal was worth to its seat, ``match.win_share`` (1 a win, 0 a
loss, 1 / players a deal nobody won; a deal cut off after ``max_moves`` ends as blocked, so under
``blocked: fewest_cards`` the one seat with the fewest cards wins it): Monte-Carlo returns of
afterstates, as TD-Gammon's first runs and DouZero.

``fit`` trains the network (torch) on those records, ``export`` writes the model folder.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import prange

from kc_env.agents import turns
from kc_env.agents.heuristic.weights import HEURISTIC_WEIGHTS
from kc_env.agents.playouts import OTHERS, TABLE_ROW, line_values, new_table, others_move, seat_share, to_act
from kc_env.agents.turn_value import FEATURES, candidate_features, layer_arrays, value
from kc_env.compiled import njit, njit_parallel
from kc_env.vector import kernel as K

OPPONENTS = OTHERS
"""What the seats that do not learn may play, by code (``play_games``' ``others``): the play-outs'
``OTHERS``."""


Deals = namedtuple("Deals", "seeds dealers learners others")
Deals.__doc__ = """The deals ``play_games`` plays, one per game ``i``: its seed and dealer, the seats that
learn (``learners[i]``: bit ``s`` for seat ``s``) and what the others play (``others[i]``, a code of
``OPPONENTS``: the heuristic, greedy or random)."""

Choice = namedtuple("Choice", "k epsilon explore_seed use_net layers_w layers_b")
Choice.__doc__ = """How a learner chooses its turn: among the heuristic's ``k`` best candidates, a random one
with probability ``epsilon`` (a generator per game from ``explore_seed``), else the network's best
(``use_net``: layers ``layers_w``, ``layers_b``) or the heuristic's."""

Records = namedtuple("Records", "feats seats counts shares")
Records.__doc__ = """What ``play_games`` writes: game ``i``'s records ``feats[i, :counts[i]]`` (the chooser in
``seats``; at most ``feats.shape[1]``) and every seat's share of the deal, ``shares[i]``."""


@njit_parallel
def play_games(deals, num_players, rules_row, rules_vec, choice, records):
    """Play every deal of ``deals`` (see the module docstring and ``Deals``, ``Choice``,
    ``Records``) with the kernel's rules row ``rules_row`` and the observation's rules block
    ``rules_vec``, into ``records``."""
    # numba cannot hand a namedtuple to a prange loop's body (numba#4846): the loop takes their
    # fields, and each game makes them again
    seeds, dealers, learners, others = deals
    k, epsilon, explore_seed, use_net, layers_w, layers_b = choice
    feats, seats, counts, shares = records
    for i in prange(seeds.shape[0]):
        _play_game(np.int64(i), Deals(seeds, dealers, learners, others), num_players, rules_row, rules_vec,
                   Choice(k, epsilon, explore_seed, use_net, layers_w, layers_b), Records(feats, seats, counts, shares))


@njit
def _play_game(i, deals, num_players, rules_row, rules_vec, choice, records):
    """Deal ``i`` of ``play_games``, played on a table of its own (``playouts.Table``)."""
    t = new_table(rules_row, deals.seeds[i], deals.dealers[i], num_players, choice.explore_seed, i)
    n = 0
    seat = to_act(t, rules_vec)
    while seat >= 0:
        if (deals.learners[i] >> seat) & 1:
            n += _learner_turn(t.g, TABLE_ROW, t.ob, t.mask, choice, t.rng, records, i, n, t.scratch)
        else:
            others_move(t, deals.others[i])
        seat = to_act(t, rules_vec)
    records.counts[i] = n
    for s in range(num_players):
        records.shares[i, s] = seat_share(t.g, TABLE_ROW, s)


@njit
def _learner_turn(g, b, ob, mask, choice, rng, records, i, n, scratch):
    """A learner's whole turn in row ``b`` of ``g``: it chooses among the heuristic's candidates
    (see ``Choice``), records the features of its choice as record ``n`` of game ``i`` (if there
    is room) and plays it. Returns the number of records written (0 or 1)."""
    k = choice.k
    lines = np.zeros((k, turns.MAX_DEPTH), dtype=np.int64)
    lengths = np.zeros(k, dtype=np.int64)
    feats = np.zeros((k, FEATURES), dtype=np.float32)
    valid, own, wins = candidate_features(ob, mask, k, lines, lengths, feats)
    pick = 0
    if wins >= 0:
        pick = wins
    elif valid > 1:
        if K.randbelow(rng, b, 1 << 30) < choice.epsilon * (1 << 30):
            pick = K.randbelow(rng, b, valid)
        elif choice.use_net:
            pick = np.argmax(value(feats[:valid], choice.layers_w, choice.layers_b))
    wrote = 0
    if n < records.feats.shape[1]:
        records.feats[i, n] = feats[pick]
        records.seats[i, n] = g.S[b, K.CUR]
        wrote = 1
    for j in range(lengths[pick]):
        K.apply_action(g, b, lines[pick, j], scratch)
    if not (g.S[b, K.OVER] or g.S[b, K.TRUNC]):
        K.apply_action(g, b, K.END_TURN_ACTION, scratch)
    return wrote


def rules_arrays(rules, max_moves: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's rules row and the observation's rules block for ``rules``."""
    from kc_env import observation
    from kc_env.vector import rules_row

    return rules_row(rules, max_moves), np.ascontiguousarray(observation.rules_vector(rules), dtype=np.float32)


def no_net() -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """Layers standing for 'no network' (``use_net`` 0): numba needs arrays of the right types."""
    return (np.zeros((1, FEATURES), np.float32),), (np.zeros(1, np.float32),)


def generate(rules, num_players: int, seeds: np.ndarray, learners: np.ndarray, *, k: int = 8, epsilon: float = 0.0,
             layers=None, max_moves: int = 1000, explore_seed: int = 0, max_records: int = 80, others=None):
    """Play the deals ``seeds`` (dealer ``seed % players``); returns (features [N, FEATURES],
    targets [N], game index [N], shares [games, players]). ``others``: the code (``OPPONENTS``)
    of what the other seats play in each game (default the heuristic)."""
    seeds = np.ascontiguousarray(seeds, dtype=np.int64)  # one compiled version for every caller's seeds
    rrow, rvec = rules_arrays(rules, max_moves)
    ws, bs = no_net() if layers is None else layer_arrays(layers)
    g = len(seeds)
    feats = np.zeros((g, max_records, FEATURES), np.float32)
    seat = np.zeros((g, max_records), np.int64)
    count = np.zeros(g, np.int64)
    shares = np.zeros((g, num_players), np.float64)
    others = np.zeros(g, np.int64) if others is None else np.broadcast_to(np.asarray(others, np.int64), (g,)).copy()
    play_games(Deals(seeds, seeds % num_players, np.asarray(learners, np.int64), others), num_players, rrow, rvec,
               Choice(k, float(epsilon), explore_seed, layers is not None, ws, bs), Records(feats, seat, count, shares))
    keep = np.arange(max_records)[None, :] < count[:, None]
    game = np.broadcast_to(np.arange(g)[:, None], keep.shape)[keep]
    targets = shares[game, seat[keep]].astype(np.float32)
    return feats[keep], targets, game, shares


def torch_network(inputs: int, hidden, seed: int, start):
    """The value network (relu MLP to one output) as torch modules, and its linear layers;
    ``start``: numpy (weight, bias) pairs to begin from."""
    import torch

    torch.manual_seed(seed)
    sizes = [inputs, *hidden, 1]
    mods = []
    for i in range(len(sizes) - 1):
        mods.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            mods.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*mods)
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    if start is not None:
        with torch.no_grad():
            for lin, (w, b) in zip(linears, start, strict=True):
                lin.weight.copy_(torch.from_numpy(np.array(w)))  # a copy: a loaded model's arrays are read-only
                lin.bias.copy_(torch.from_numpy(np.array(b)))
    return net, linears


def numpy_layers(linears):
    """A network's torch linear layers as numpy (weight [out, in], bias [out]) pairs (copies)."""
    return [(lin.weight.detach().numpy().copy(), lin.bias.detach().numpy().copy()) for lin in linears]


def fit(x: np.ndarray, y: np.ndarray, *, hidden=(256, 128), epochs: int = 4, batch: int = 4096, lr: float = 1e-3,
        weight_decay: float = 1e-5, seed: int = 0, start=None, log=print):
    """Fit the value network to (features, target) pairs with binary cross-entropy; returns its
    layers as numpy (weight [out, in], bias [out]) pairs. ``start`` continues from such layers."""
    import torch

    net, linears = torch_network(x.shape[1], hidden, seed, start)
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        order = torch.randperm(len(xt), generator=gen)
        total = 0.0
        for at in range(0, len(xt), batch):
            idx = order[at:at + batch]
            opt.zero_grad()
            loss = loss_fn(net(xt[idx]).squeeze(1), yt[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        log(f"epoch {epoch + 1}/{epochs}: loss {total / len(xt):.4f}")
    return numpy_layers(linears)


def bce(layers, x: np.ndarray, y: np.ndarray) -> float:
    """The network's binary cross-entropy on (x, y): the figure held-out records are judged by."""
    ws, bs = layer_arrays(layers)
    p = np.clip(value(np.ascontiguousarray(x), ws, bs), 1e-6, 1 - 1e-6)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def duel(rules, num_players: int, seeds: np.ndarray, layers, k: int = 8, against: str = "heuristic",
         max_moves: int = 1000) -> tuple[float, float]:
    """The learner's win share (and its 95% half-width) in one seat against ``against`` (one of
    ``OPPONENTS``) in the others, every deal played once with the learner in each seat
    (duplicate deals)."""
    seeds = np.asarray(seeds, np.int64)
    all_seeds = np.repeat(seeds, num_players)
    learner = np.tile(np.arange(num_players), len(seeds))
    _, _, _, shares = generate(rules, num_players, all_seeds, 1 << learner, k=k, layers=layers, max_moves=max_moves,
                               others=OPPONENTS.index(against))
    won = shares[np.arange(len(all_seeds)), learner].reshape(len(seeds), num_players).mean(axis=1)
    return float(won.mean()), float(1.96 * won.std() / np.sqrt(len(won)))


__all__ = ["play_games", "generate", "fit", "fit_ranking", "bce", "duel", "turn_starts", "ranking_check",
           "label_chunk", "LABEL_SEEDS", "load_labels", "save_labels", "fit_ranking_sets"]

LABEL_SEEDS = {"heuristic": 70_000_000, "random": 71_000_000}
"""Where the deals of ``label_chunk``'s decisions start, by opponent (``seed`` 0)."""
CHUNK_DEALS = 100


def label_chunk(rules, num_players: int, chunk: int, against: str, *, k: int = 6, redeals: int = 12,
                first: int = 0, seed: int = 0, deals: int = CHUNK_DEALS,
                others: tuple[str, ...] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Play-out-labelled decisions from chunk ``chunk`` of ``CHUNK_DEALS`` deals against
    ``against``: at 4 random turn starts of the heuristic's seat in each deal (``turn_starts``)
    where it has at least 2 candidate turns and none goes out, the features of its ``k`` best
    candidates and each one's value on the same ``redeals`` re-deals, the other seats played by
    ``against`` in the play-outs too. ``first``: how many decisions came before (it seeds the
    re-deals; ``deals``: the first of the chunk's deals only, for tests). Returns one (features
    [c, FEATURES], values [c]) pair per decision. With ``others`` (names of ``OTHERS``) the
    play-outs are played once against each, on the same re-deals, and the values are [c,
    len(others)], a column per opponent."""
    base = seed * 10**9 + LABEL_SEEDS[against]
    obs, masks = turn_starts(rules, num_players, np.arange(deals) + base + chunk * CHUNK_DEALS, per_deal=4,
                             seed=chunk, against=against)
    rows = []
    for ob, m in zip(obs, masks, strict=True):
        lines, lengths = np.zeros((k, turns.MAX_DEPTH), np.int64), np.zeros(k, np.int64)
        feats = np.zeros((k, FEATURES), np.float32)
        valid, _, wins = candidate_features(ob.astype(np.float32), m.astype(np.int8), k, lines, lengths, feats)
        if valid < 2 or wins >= 0:
            continue
        v = np.stack([line_values(ob.astype(np.float32), lines[:valid], lengths[:valid], redeals, HEURISTIC_WEIGHTS.copy(),
                                  base + first + len(rows), 1000, OTHERS.index(other)) for other in others or (against,)], 1)
        rows.append((feats[:valid], (v if others else v[:, 0]).astype(np.float32)))
    return rows


def turn_starts(rules, num_players: int, seeds: np.ndarray, per_deal: int = 2, seed: int = 0,
                against: str = "heuristic"):
    """Observations and masks at the start of ``per_deal`` random turns of each deal, the deals
    played by the heuristic in every seat (held-out positions for ``ranking_check``). With
    ``against="random"`` only seat ``b % num_players`` of deal ``b`` plays the heuristic, and only
    its turns are kept; the other seats play uniformly random legal moves."""
    from kc_env.agents.batch import rule_based
    from kc_env.vector import VecGame

    if against not in ("heuristic", "random"):
        raise ValueError(f"turn starts against 'heuristic' or 'random', not {against!r}")
    rng = np.random.default_rng(seed)
    heuristic = rule_based("heuristic")
    g = VecGame(len(seeds))
    idx = np.arange(len(seeds))
    g.deal(idx, rules, num_players, seeds=[int(s) for s in seeds], dealers=[int(s) % num_players for s in seeds])
    picks = {b: set(rng.integers(0, 40, size=per_deal).tolist()) for b in range(len(seeds))}
    turn = np.zeros(len(seeds), np.int64)
    obs_out, mask_out = [], []
    live = idx
    while live.size:
        seats = g.S[live, K.CUR]
        obs, masks = g.observe(live, seats), g.legal_masks(live)
        kept = np.ones(len(live), bool) if against == "heuristic" else seats == live % num_players
        starting = (g.S[live, K.PLAYED] == 0) & (g.S[live, K.MOVED] == 0) & kept
        for i in np.flatnonzero(starting).tolist():
            b = int(live[i])
            if turn[b] in picks[b] and masks[i].sum() > 1:
                obs_out.append(obs[i])
                mask_out.append(masks[i])
            turn[b] += 1
        moves = heuristic(obs, masks)
        for i in np.flatnonzero(~kept).tolist():
            moves[i] = rng.choice(np.flatnonzero(masks[i]))
        g.step(live, moves)
        live = live[(g.S[live, K.OVER] == 0) & (g.S[live, K.TRUNC] == 0)]
    return np.array(obs_out), np.array(mask_out)


def ranking_check(layers, obs: np.ndarray, masks: np.ndarray, *, k: int = 8, redeals: int = 64, seed: int = 0) -> dict:
    """Does the network rank the candidate turns as their play-outs do? For each position: the
    heuristic's ``k`` candidates, each valued by ``redeals`` play-outs on the same re-deals
    (``playouts.line_values``); reports the mean play-out value of the network's pick and of
    the heuristic's pick (its first candidate), of the best candidate, and how often the network
    picks the best where the best beats the heuristic's by more than 0.05."""
    from kc_env.agents.playouts import line_values

    ws, bs = layer_arrays(layers)
    net_v, heur_v, best_v, clear, clear_hit = [], [], [], 0, 0
    for i, (ob, m) in enumerate(zip(obs, masks, strict=True)):
        lines = np.zeros((k, turns.MAX_DEPTH), np.int64)
        lengths = np.zeros(k, np.int64)
        feats = np.zeros((k, FEATURES), np.float32)
        valid, _, wins = candidate_features(ob.astype(np.float32), m.astype(np.int8), k, lines, lengths, feats)
        if valid < 2 or wins >= 0:
            continue
        played = line_values(ob.astype(np.float32), lines[:valid], lengths[:valid], redeals, HEURISTIC_WEIGHTS.copy(),
                             seed + i, 1000, 0)
        pick = int(np.argmax(value(feats[:valid], ws, bs)))
        net_v.append(played[pick])
        heur_v.append(played[0])
        best_v.append(played.max())
        if played.max() > played[0] + 0.05:
            clear += 1
            clear_hit += int(played[pick] >= played.max() - 1e-9)
    net_v, heur_v, best_v = map(np.array, (net_v, heur_v, best_v))
    diff = net_v - heur_v
    return {"positions": len(net_v), "network_pick": round(float(net_v.mean()), 4),
            "heuristic_pick": round(float(heur_v.mean()), 4), "best": round(float(best_v.mean()), 4),
            "gain": round(float(diff.mean()), 4), "gain_half_width": round(float(1.96 * diff.std() / np.sqrt(len(diff))), 4),
            "clear_cases": clear, "best_picked_in_clear_cases": clear_hit}


def fit_ranking(x: np.ndarray, y: np.ndarray, decision: np.ndarray, *, hidden=(256, 128), steps: int = 2000,
                lr: float = 1e-3, weight_decay: float = 1e-4, seed: int = 0, start=None, log=print):
    """Fit the network to play-out values of candidate turns, judged within each decision: the
    loss is the squared error of each candidate's score less its decision's mean score, against
    its play-out value less its decision's mean value. The luck of the deal, shared by every
    candidate of a decision, drops out; what is left is which turn is better. Full batch (a
    few tens of thousands of candidates); returns the layers as numpy pairs."""
    import torch

    net, linears = torch_network(x.shape[1], hidden, seed, start)
    _, group = np.unique(decision, return_inverse=True)
    g = torch.from_numpy(group.astype(np.int64))
    count = torch.zeros(int(group.max()) + 1).index_add_(0, g, torch.ones(len(g)))
    yt = torch.from_numpy(y.astype(np.float32))
    y_centred = yt - (torch.zeros(len(count)).index_add_(0, g, yt) / count)[g]
    xt = torch.from_numpy(x)
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)
    for step in range(steps):
        opt.zero_grad()
        s = net(xt).squeeze(1)
        s_centred = s - (torch.zeros(len(count)).index_add_(0, g, s) / count)[g]
        loss = ((s_centred - y_centred) ** 2).mean()
        loss.backward()
        opt.step()
        if (step + 1) % max(1, steps // 5) == 0:
            log(f"step {step + 1}/{steps}: loss {loss.item():.5f} (predicting no difference: "
                f"{(y_centred ** 2).mean().item():.5f})")
    return numpy_layers(linears)


def load_labels(path) -> tuple[list[tuple[np.ndarray, np.ndarray]], int]:
    """The labelled decisions kept in ``path`` by ``save_labels`` and how many chunks made them
    (none and 0 when there is no such file). Plain arrays, read without pickles."""
    from pathlib import Path

    if not path or not Path(path).is_file():
        return [], 0
    with np.load(path, allow_pickle=False) as z:
        x, y, d, chunk = z["x"], z["y"], z["d"], int(z["chunk"])
    starts = np.flatnonzero(np.r_[True, d[1:] != d[:-1]]) if len(d) else np.array([], dtype=np.int64)
    ends = np.r_[starts[1:], len(d)]
    return [(x[a:b], y[a:b]) for a, b in zip(starts, ends, strict=True)], chunk


def save_labels(path, rows: list[tuple[np.ndarray, np.ndarray]], chunks: int) -> None:
    """Keep the labelled decisions ``rows`` (made by ``chunks`` chunks) in ``path``, whole or not
    at all."""
    import io

    from kc_env.files import write_atomic

    buf = io.BytesIO()
    np.savez(buf, x=np.concatenate([r[0] for r in rows]), y=np.concatenate([r[1] for r in rows]),
             d=np.concatenate([np.full(len(r[1]), i) for i, r in enumerate(rows)]), chunk=chunks)
    write_atomic(path, buf.getvalue())


def fit_ranking_sets(sets: list[list[tuple[np.ndarray, np.ndarray]]], *, hidden=(), steps: int = 3000,
                     weight_decay: float = 1e-4, seed: int = 0, start=None, log=print):
    """``fit_ranking`` on 80% of the decisions of every set of labelled decisions (the same 20%
    of each set held out for any seed: drawn with seed 0). Returns the layers and, for each set,
    the mean play-out value of the network's pick less the heuristic's (its first candidate) on
    the held-out decisions, with the 95% half-width, and the same for the best candidate (an
    upper bound, a maximum of noisy values)."""
    rows, held_sets = [], []
    for one in sets:
        held_sets.append([i + len(rows) for i in held_out(len(one))])
        rows += one
    held = {i for h in held_sets for i in h}
    train = [i for i in range(len(rows)) if i not in held]
    x = np.concatenate([rows[i][0] for i in train])
    y = np.concatenate([rows[i][1] for i in train])
    d = np.concatenate([np.full(len(rows[i][1]), i) for i in train])
    layers = fit_ranking(x, y, d, hidden=hidden, steps=steps, weight_decay=weight_decay, seed=seed, start=start,
                         log=log)
    return layers, [pick_gains(layers, rows, h) for h in held_sets]


def held_out(count: int) -> list[int]:
    """The decisions ``fit_ranking_sets`` holds out of a set of ``count`` (the same for any seed)."""
    return sorted(np.random.default_rng(0).choice(count, size=count // 5, replace=False).tolist())


def pick_gains(layers, rows: list[tuple[np.ndarray, np.ndarray]], indices) -> dict:
    """On the decisions ``rows[i]`` for ``i`` in ``indices``: the mean play-out value of the
    network's pick less the heuristic's (the first candidate), its 95% half-width, and the same
    mean for the best candidate (an upper bound: a maximum of noisy values)."""
    ws, bs = layer_arrays(layers)
    gain = np.array([rows[i][1][int(np.argmax(value(rows[i][0], ws, bs)))] - rows[i][1][0] for i in indices])
    best = np.array([rows[i][1].max() - rows[i][1][0] for i in indices])
    return {"held_out": len(gain), "gain": round(float(gain.mean()), 4),
            "half_width": round(float(1.96 * gain.std() / np.sqrt(max(1, len(gain)))), 4),
            "best_candidate_gain": round(float(best.mean()), 4)}
