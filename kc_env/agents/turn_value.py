"""A learned value of whole turns: the agent scores the positions where it may end its turn and
plays towards the best (TD-Gammon's afterstates, at the level of a turn).

At each decision the heuristic's search lists its ``candidates`` best distinct end-of-turn
positions (``heuristic.search.turn_candidates``: a line of moves to each, "end now" among them
when it is good); each is turned into the seat's observation there (``turns.afterstate``), then
into ``FEATURES`` numbers (``features``: the hand, every pile's top, length and what still fits
on it, the others' hand sizes, the stock, the heuristic's own evaluation, the rules), and a small
network (``value``) gives the win share it expects from there. The agent plays the first move of
the best line; a line that goes out always wins. It re-plans at every decision, from what it
sees then.

A model may hold a second network for careless opponents (``careless_layers`` in its card,
arrays ``careless_w0, careless_b0, ...``): the first network is the one to play against a player
who never leaves a move open (the heuristic), the second against one who does (random). The agent
then keeps, for the deal, whether any other seat has been careless (``careless``: at the start of
its turn, after another seat's turn, a pile move is open or a side is empty, which the heuristic
never leaves) and how many of its turns started without that. It plays the heuristic's own turn
for its first ``patience`` turns (one number, or one for each seat count: ``patience_at``), the
first network from then on, and the second for the rest of the deal once a seat has been
careless (``gate``, compiled: the trainer's duel plays it too). A
card with ``careless_play: sample`` (for every table, or for some seat counts: ``samples_at``) plays
the second network as a policy over turns does: at the
start of the turn it draws a line from the softmax of the network's scores (with the agent's seeded
generator), then follows it to the end of the turn (a line that goes out is always taken). A card's
``careless_candidates`` (at most ``candidates``) lets the second network choose among the heuristic's
first so many candidates only (a uniform draw among fewer, better lines wins more against random). It
tells a new deal (``new_deal``) by what no move within a deal does: the deal's first turn, match
totals that moved, or two cards in its hand it did not hold at its last decision (a turn draws at
most one); not by the table or the stock, which a cleared pile (``clear_complete_piles``) shrinks
and grows within a deal. One agent may play several seats of a deal: it keeps this for each seat
apart (``seat_row`` tells the seats by their hands, which never share a card). ``act_batch`` keeps nothing between calls (a batch's rows are many
games), so it always plays the first network.

A model is a folder: ``model.json`` (``format: kc_env-turn-value``, the layer sizes, the
candidates, what it was trained on) and ``weights.npz`` (plain float32 arrays ``w0, b0, w1, b1,
...``), both read by ``model_folder`` (no pickles, capped sizes); every weight and bias at most
``MAX_WEIGHT``, and no unit able to reach ``MAX_SCORE`` (``score_bounds``), so that scores never
overflow. numpy and the compiled search only: no torch.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..actions import END_TURN_ACTION, MOVE_OFFSET
from ..compiled import njit
from ..observation import LAYOUT_SIZES, SLICES
from ..rules import MAX_PLAYERS
from ..vector import kernel as K
from . import model_folder as folders
from . import turns, view
from .base import Agent, legal_actions
from .greedy import mask as mask_of
from .greedy import vector
from .heuristic.evaluation import C_PEN, C_SIZE, WIN_VALUE, evaluate, fitting_unseen, read_context
from .heuristic.search import NO_CANDIDATE, turn_candidates
from .heuristic.weights import HEURISTIC_WEIGHTS
from .model_folder import CARD_FILE, WEIGHTS_FILE, ModelError  # noqa: F401 - ModelError: turn_value.ModelError still works

FORMAT, FORMAT_VERSION = folders.TURN_VALUE.card_format, folders.TURN_VALUE.version
FEATURES_VERSION = 1
PILE_FEATURES = 20
_OTHERS_AT = 54 + 2 + 8 * PILE_FEATURES
RULES_END = LAYOUT_SIZES[1]
"""The features hold the rules as observation layout 1 writes them (its rule values stay where
they were), so that models of ``FEATURES_VERSION`` 1 keep their width."""
FEATURES = _OTHERS_AT + 5 + 3 + 2 + 5 + (RULES_END - K.RULES_START)
"""Numbers describing one end-of-turn position (layout ``FEATURES_VERSION``)."""
SEAT_COUNT = slice(_OTHERS_AT + 10, _OTHERS_AT + 15)
"""The features that say how many play (one-hot, 2 to 6 players)."""
MAX_FILE_BYTES = 16 * 2**20
"""The largest ``weights.npz`` of a turn-value model (its card: ``model_folder.MAX_CARD_BYTES``)."""
MAX_WEIGHTS_BYTES = MAX_FILE_BYTES
"""The most both networks' arrays may hold together (float32), summed from the card's layer sizes
before any array is read: what a ``weights.npz`` under ``MAX_FILE_BYTES`` holds uncompressed."""
MAX_LAYERS = 16
"""The most layers a card may list for each network."""
MAX_WIDTH = 4096
"""The widest layer a card may list."""
MAX_WEIGHT = 2.0**24
"""The largest magnitude of a weight or bias a model may hold: trained weights stay under 1, and
the largest a model ships with is a seat fold's silencing weight (``seats.SILENCE``, 2**20)."""
FEATURE_BOUND = 1e4
"""What no feature's magnitude reaches, where ``score_bounds`` starts: the one-hots and counts
(over 4 to 40) stay under 14, and the heuristic's evaluation over 10 stayed under 8 in random deals
of every preset."""
MAX_SCORE = 1e30
"""The most a network's units and scores may reach (``score_bounds``), far under float32's largest
(3.4e38): its scores and their sigmoid and softmax stay numbers."""
HEURISTIC_TURN = "heuristic"
"""What the gate (``TurnValueAgent.network``) gives for a turn the heuristic plays itself."""
CARELESS = "careless_"
"""The prefix of the second network's arrays (``careless_w0``...)."""
_PILE_LENGTHS = [SLICES[f"pile_{p}_length"].start for p in ("N", "E", "S", "W", "NE", "SE", "SW", "NW")]
_SIDE_LENGTHS = _PILE_LENGTHS[:4]
_FIRST_TURN = SLICES["first_turn"].start
_SCORES = SLICES["scores"]
CARELESS_PLAYS = ("best", "sample")
"""How a model plays its second network (``careless_play`` in its card): the best-valued line,
re-planned at every decision, or a line drawn at the turn's start and followed to its end."""
HEURISTIC_NET, FIRST_NET, CARELESS_NET = 0, 1, 2
"""What ``gate`` gives: the heuristic's own move, the first network, the second."""
_SEEN, _CLEAN_TURNS, _HAND, _TOTALS = 0, 1, 2, 3
GATE_MEMORY = _TOTALS + _SCORES.stop - _SCORES.start
"""The gate's memory of one seat for a deal (int64): whether another seat has been careless, the
seat's clean turn starts, and what ``new_deal`` compares: its hand (a bit a card) and the match
totals at its last decision."""


@njit
def features(obs, out):
    """The features of the position in ``obs`` (the seat's observation where its turn would end)
    into ``out`` (float32 of ``FEATURES``)."""
    g = turns.alloc(1, False)
    turns.load(obs, g, 1)
    ctx = np.zeros(C_SIZE, dtype=np.float64)
    read_context(obs, g.R, ctx)
    out[:] = 0.0
    pinfo = g.pinfo
    hand = g.hands[0, 0]
    penalty = 0.0
    for c in range(54):
        if (hand >> c) & 1:
            out[c] = 1.0
            penalty += ctx[C_PEN + c]
    out[54] = K.popcount(hand) / 13.0
    out[55] = penalty / 5.0
    for p in range(8):
        f = 56 + p * PILE_FEATURES
        n = pinfo[0, p, K.LEN]
        out[f] = n / 13.0
        if n == 0:
            out[f + 1] = 1.0
        else:
            out[f + 2 + pinfo[0, p, K.TOP_RANK] - 1] = 1.0
            colour = pinfo[0, p, K.TOP_COLOUR]
            out[f + 15 + (2 if colour < 0 else colour)] = 1.0
        out[f + 18] = max(fitting_unseen(g, 0, p, ctx), 0) / 4.0
        out[f + 19] = K.popcount(hand & pinfo[0, p, K.ACC]) / 4.0
    f = _OTHERS_AT
    for j in range(5):
        out[f + j] = obs[view.OBS_OTHERS + j] * 54.0 / 13.0
    out[f + 5] = obs[view.OBS_STOCK] * 54.0 / 40.0
    out[f + 6] = obs[view.OBS_IDLE]
    out[f + 7] = 1.0 if obs[view.OBS_PLAYED] > 0.5 or obs[view.OBS_MOVED] > 0.5 else 0.0
    if hand == 0:
        out[f + 8] = 1.0
    else:
        out[f + 9] = evaluate(g, HEURISTIC_WEIGHTS, 0, ctx) / 10.0
    for j in range(5):
        out[SEAT_COUNT.start + j] = obs[view.OBS_NUM_PLAYERS + j]
    out[SEAT_COUNT.stop:] = obs[K.RULES_START:RULES_END]


@njit
def scores(x, layers_w, layers_b):
    """The network's output for each row of ``x`` ([n, FEATURES]): relu layers, no squashing (a
    policy over turns samples from their softmax)."""
    h = np.ascontiguousarray(x)
    last = len(layers_w) - 1
    for i in range(last + 1):
        h = np.ascontiguousarray(h @ layers_w[i].T) + layers_b[i]
        if i < last:
            h = h * (h > 0)
    return h[:, 0]


@njit
def value(x, layers_w, layers_b):
    """The network's win share for each row of ``x`` ([n, FEATURES]): its ``scores``' sigmoid."""
    return 1.0 / (1.0 + np.exp(-scores(x, layers_w, layers_b)))


@njit
def candidate_features(obs, mask, k, top_line, top_len, feats):
    """The heuristic's ``k`` best end-of-turn lines from ``obs`` (into ``top_line``, ``top_len``)
    and the features of where each ends (into ``feats``). Returns (how many are valid, the
    heuristic's own action, which of them goes out or -1)."""
    top_v = np.zeros(k, dtype=np.float64)
    own = turn_candidates(obs, mask, HEURISTIC_WEIGHTS.copy(), top_v, top_line, top_len)
    g = turns.alloc(turns.MAX_DEPTH + 1, view.clears_piles(obs))
    turns.load(obs, g, turns.MAX_DEPTH + 1)
    after = np.zeros(K.OBS_SIZE, dtype=np.float32)
    valid = 0
    wins = -1
    for i in range(k):
        if top_v[i] <= NO_CANDIDATE:
            break
        valid += 1
        turns.replay(g, top_line[i], top_len[i])
        turns.afterstate(obs, g, top_len[i], after)
        features(after, feats[i])
        if top_v[i] >= WIN_VALUE - 1.0 and wins < 0:
            wins = i
    return valid, own, wins


_SIDES = np.array(_SIDE_LENGTHS, dtype=np.int64)


@njit
def careless_shown(valid, wins, few):
    """How many of the ``valid`` candidates the second network chooses among: the heuristic's
    first ``few`` (a card's ``careless_candidates``), and always the line that goes out
    (``wins``, -1 for none)."""
    return max(min(valid, few), wins + 1)


@njit
def careless(ob, mask):
    """Whether, at the start of the seat's turn and after another seat's turn, a pile move is open
    or a side is empty: what the heuristic, which takes every pile move and fills every side it
    can, never leaves behind. A side a cleared pile left empty (``clear_complete_piles``) counts as
    any other: the heuristic fills it in the turn it clears it. Compiled: the trainers' deal loops
    gate by it too."""
    if ob[view.OBS_PLAYED] > 0.5 or ob[view.OBS_MOVED] > 0.5 or ob[_FIRST_TURN] > 0.5:
        return False
    for a in range(MOVE_OFFSET, END_TURN_ACTION):
        if mask[a]:
            return True
    for i in _SIDES:
        if ob[i] == 0:
            return True
    return False


@njit
def index_at(p, u):
    """The index the uniform ``u`` (in [0, 1)) falls on in the distribution ``p``: a draw from ``p``."""
    acc = 0.0
    for j in range(len(p) - 1):
        acc += p[j]
        if u < acc:
            return j
    return len(p) - 1


@njit
def uniform(rng, b):
    """A uniform number in [0, 1) from the kernel's generator ``rng[b]``."""
    return K.randbelow(rng, b, 1 << 30) / (1 << 30)


@njit
def gate(ob, mask, memory, patience, gated):
    """Which network plays this decision (``HEURISTIC_NET``, ``FIRST_NET``, ``CARELESS_NET``;
    module docstring), ``memory`` (``GATE_MEMORY``, zeros at the deal's start) updated: without a
    second network (``gated`` 0) always the first; ``gated`` -1: no network, the heuristic."""
    if gated < 0:
        return HEURISTIC_NET
    if not gated:
        return FIRST_NET
    if careless(ob, mask):
        memory[_SEEN] = 1
    elif ob[view.OBS_PLAYED] < 0.5 and ob[view.OBS_MOVED] < 0.5 and ob[_FIRST_TURN] < 0.5:
        memory[_CLEAN_TURNS] += 1
    if memory[_SEEN]:
        return CARELESS_NET
    return HEURISTIC_NET if memory[_CLEAN_TURNS] < patience else FIRST_NET


@njit
def _hand_bits(ob):
    hand = np.int64(0)
    for c in range(54):
        if ob[c] > 0.5:
            hand |= np.int64(1) << np.int64(c)
    return hand


@njit
def seat_row(ob, memories, used):
    """The row of ``memories`` (``GATE_MEMORY`` each, one per seat an agent plays) that holds the
    deciding seat: the row whose last hand this hand continues (a card in common, at most one card
    it did not hold: no two seats hold the same card, and a turn draws at most one), else the row
    used longest ago (a new seat, or a new deal). ``used`` (int64, a row each) notes when each was
    used. With one seat this is the one row that seat has used, or a row as good as cleared."""
    hand = _hand_bits(ob)
    row = 0
    for i in range(memories.shape[0]):
        if used[i] < used[row]:
            row = i
    for i in range(memories.shape[0]):
        not_held = hand & ~memories[i, _HAND]
        if used[i] > 0 and (hand & memories[i, _HAND]) != 0 and (not_held & (not_held - 1)) == 0:
            row = i
            break
    if memories[row, _HAND] & hand == 0:
        memories[row, :] = 0  # a row taken for another seat starts as a new deal's
    clock = used[0]
    for i in range(used.shape[0]):
        clock = max(clock, used[i])
    used[row] = clock + 1
    return row


@njit
def new_deal(ob, memory):
    """Whether ``ob`` is of another deal than the seat's last decision noted in ``memory`` (then
    ``memory`` is cleared), noting this one: the deal's first turn, match totals that moved (they
    are scored between deals), or two or more cards in the hand that it did not hold (a turn draws
    at most one, and cards on the table go back to the stock, never to a hand)."""
    hand = _hand_bits(ob)
    not_held = hand & ~memory[_HAND]
    fresh = ob[_FIRST_TURN] > 0.5 or (not_held & (not_held - 1)) != 0  # two bits or more
    for j in range(_SCORES.stop - _SCORES.start):
        total = round(ob[_SCORES.start + j] * 2.0**24)  # every float32 in [-2, 2], exactly
        fresh |= total != memory[_TOTALS + j]
        memory[_TOTALS + j] = total
    if fresh:
        memory[_SEEN] = memory[_CLEAN_TURNS] = 0
    memory[_HAND] = hand
    return fresh


def layer_arrays(layers) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """(weights, biases) of a network's (weight, bias) pairs, contiguous float32 as the compiled
    code (``value``, ``scores``) takes them."""
    return (tuple(np.ascontiguousarray(w, np.float32) for w, _ in layers),
            tuple(np.ascontiguousarray(b, np.float32) for _, b in layers))


def at_seats(setting: Any, num_players: int, default: Any) -> Any:
    """A checked card's setting at a table of ``num_players``: one value for every table, or one
    for each seat count (``{"2": 9, "4": 0}``; a seat count it does not name: ``default``)."""
    return setting.get(str(num_players), default) if isinstance(setting, Mapping) else setting


def patience_at(patience: int | Mapping[str, int], num_players: int) -> int:
    """The gate's patience at a table of ``num_players`` (a card's ``patience``: ``at_seats``)."""
    return int(at_seats(patience, num_players, 0))


def samples_at(careless_play: str | Mapping[str, str], num_players: int) -> bool:
    """Whether the second network samples at a table of ``num_players`` (a card's
    ``careless_play``, ``at_seats``: ``sample`` or ``best``)."""
    return at_seats(careless_play, num_players, "best") == "sample"


class TurnValueAgent(Agent):
    """Plays towards the end-of-turn position its value network rates best (module docstring)."""

    def __init__(self, folder: str | Path, seed: int | None = None, spec: str | None = None) -> None:
        """``seed`` seeds the draws of a model whose second network samples (``careless_play:
        sample``); other models are deterministic."""
        self.folder = Path(folder)
        self.card, self.layers = load(self.folder)
        self.spec = spec or str(folder)
        self.candidates = int(self.card["candidates"])
        self._w, self._b = layer_arrays(self.layers)
        loose = self.card.get("careless_layers") and load_careless(self.folder, self.card)
        self._loose = layer_arrays(loose) if loose else None
        self.patience = self.card.get("patience", 0)
        self.careless_play = self.card.get("careless_play", "best")
        self.careless_candidates = int(self.card.get("careless_candidates", self.candidates))
        self.rng = np.random.default_rng(seed)
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget what the other seats showed (a new deal), at every seat it plays; ``seed`` (when
        given) reseeds the draws."""
        self._memories = np.zeros((MAX_PLAYERS, GATE_MEMORY), dtype=np.int64)
        self._used = np.zeros(MAX_PLAYERS, dtype=np.int64)
        self._row = 0
        self._memory = self._memories[0]
        self._held: dict[int, list[int]] = {}  # each seat's drawn line: the moves left of its turn
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    @property
    def seen_careless(self) -> bool:
        """Whether, this deal, another seat has been careless (``careless``) as the seat of its last
        decision saw it: then it is not the heuristic."""
        return bool(self._memory[_SEEN])

    def values(self, obs: Mapping[str, np.ndarray], net=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """The candidates' lines, their lengths, the network's values (``net``: (weights, biases),
        the first network by default) and the heuristic's action."""
        k = self.candidates
        lines = np.zeros((k, turns.MAX_DEPTH), dtype=np.int64)
        lengths = np.zeros(k, dtype=np.int64)
        feats = np.zeros((k, FEATURES), dtype=np.float32)
        valid, own, wins = candidate_features(vector(obs), mask_of(obs), k, lines, lengths, feats)
        if net is not None and net is self._loose:  # the second network chooses among the first few
            valid = careless_shown(valid, wins, self.careless_candidates)
        w, b = net or (self._w, self._b)
        vals = value(feats[:valid], w, b) if valid else np.zeros(0, np.float32)
        if wins >= 0:
            vals[wins] = np.inf
        return lines[:valid], lengths[:valid], vals, int(own)

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        legal_actions(obs)  # refuses a mask with no legal action
        net = self.network(obs)
        if self._loose is not None and net is self._loose and samples_at(self.careless_play, self._players):
            return self.drawn_move(obs)
        lines, lengths, vals, own = self.values(obs, None if net == HEURISTIC_TURN else net)
        return own if net == HEURISTIC_TURN else first_move_of_best(lines, lengths, vals, own)

    def drawn_move(self, obs: Mapping[str, np.ndarray]) -> int:
        """The next move of the line the seat drew for this turn from the second network's softmax
        (``careless_play: sample``): drawn at the turn's start, or when the drawn line's next move
        is not legal (nothing of it is left after a draw of the ``stuck`` rule); then followed."""
        ob, mask = vector(obs), mask_of(obs)
        held = self._held.get(self._row, [])
        mid_turn = ob[view.OBS_PLAYED] > 0.5 or ob[view.OBS_MOVED] > 0.5
        if not (mid_turn and held and mask[held[0]]):
            held = self._held[self._row] = self._draw(ob, mask)
        return held.pop(0)

    def _draw(self, ob: np.ndarray, mask: np.ndarray) -> list[int]:
        """A line drawn from the second network's softmax over the first ``careless_candidates``
        candidates (the one that goes out, if any), as its moves and the end of the turn."""
        k = self.candidates
        lines = np.zeros((k, turns.MAX_DEPTH), dtype=np.int64)
        lengths = np.zeros(k, dtype=np.int64)
        feats = np.zeros((k, FEATURES), dtype=np.float32)
        valid, own, wins = candidate_features(ob, mask, k, lines, lengths, feats)
        if valid == 0:
            return [int(own)]
        valid = careless_shown(valid, wins, self.careless_candidates)
        pick = wins if wins >= 0 or valid == 1 else 0
        if wins < 0 and valid > 1:
            z = scores(feats[:valid], *self._loose).astype(np.float64)
            p = np.exp(z - z.max())
            pick = int(self.rng.choice(valid, p=p / p.sum()))
        return [int(a) for a in lines[pick, :lengths[pick]]] + [K.END_TURN_ACTION]

    def network(self, obs: Mapping[str, np.ndarray]):
        """The network the gate picks for this decision, updating what it remembers (call it once a
        decision): ``HEURISTIC_TURN`` in the turns the heuristic plays itself, else ``values``'s ``net``."""
        return self.gate(vector(obs), mask_of(obs)) if self._loose else None

    def gate(self, ob: np.ndarray, mask: np.ndarray):
        """Which network to play (module docstring): the second once a seat has been careless this
        deal, "heuristic" for the first ``patience`` turns, else the first (None). The compiled
        ``gate`` after ``new_deal``, which clears what it remembers at a new deal."""
        ob, mask = np.ascontiguousarray(ob, np.float32), np.ascontiguousarray(mask, np.int8)
        self._row = seat_row(ob, self._memories, self._used)  # one agent may play several seats
        self._memory = self._memories[self._row]
        new_deal(ob, self._memory)
        self._players = view.num_players(ob)  # the table's seats: the card's settings may differ by them
        net = gate(ob, mask, self._memory, patience_at(self.patience, self._players), 1)
        return HEURISTIC_TURN if net == HEURISTIC_NET else None if net == FIRST_NET else self._loose

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row (the vector env's batched opponents), each by the first network: a
        batch's rows are many games, so nothing is kept between them."""
        return np.array([first_move_of_best(*self.values({"observation": o, "action_mask": m}))
                         for o, m in zip(obs, masks, strict=True)], dtype=np.int64)


def first_move_of_best(lines: np.ndarray, lengths: np.ndarray, vals: np.ndarray, own: int) -> int:
    """The first move of the best-valued line (end turn for "end now"); the heuristic's own move
    when there is no choice."""
    if len(vals) < 2:
        return own
    best = int(np.argmax(vals))
    return int(lines[best, 0]) if lengths[best] else K.END_TURN_ACTION


def is_turn_value_folder(folder: str | Path) -> bool:
    """Whether ``folder`` holds a turn-value model (its card names the format)."""
    return folders.format_of(folder) is folders.TURN_VALUE


def save(folder: str | Path, layers: list[tuple[np.ndarray, np.ndarray]], card: Mapping[str, Any],
         careless_layers: list[tuple[np.ndarray, np.ndarray]] | None = None, patience: int | Mapping[str, int] = 0,
         careless_play: str | Mapping[str, str] = "best", careless_candidates: int | None = None) -> Path:
    """Write a turn-value model: ``layers`` as (weight [out, in], bias [out]) pairs, and its card;
    with ``careless_layers``, the second network, the gate's ``patience`` and how the second network
    plays (``careless_play``, written when it samples) and among how many candidates
    (``careless_candidates``, written when fewer than ``candidates``; module docstring).
    Each file is written whole or not at all, and durably (``files.write_atomic``)."""
    import io

    from ..files import write_atomic

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez(buf, **network_arrays(layers, careless_layers))
    write_atomic(folder / WEIGHTS_FILE, buf.getvalue())
    full = {"format": FORMAT, "format_version": FORMAT_VERSION, "features_version": FEATURES_VERSION,
            "features": FEATURES, "layers": [int(w.shape[0]) for w, _ in layers], **card}
    if careless_layers:
        full.update(careless_layers=[int(w.shape[0]) for w, _ in careless_layers],
                    patience=dict(patience) if isinstance(patience, Mapping) else int(patience))
        if careless_play != "best":
            full["careless_play"] = dict(careless_play) if isinstance(careless_play, Mapping) else careless_play
        if careless_candidates is not None and careless_candidates < full["candidates"]:
            full["careless_candidates"] = int(careless_candidates)
    folders.write_card(folder, full)
    return folder


def network_arrays(layers, careless_layers=None) -> dict[str, np.ndarray]:
    """The arrays of ``weights.npz`` by name: ``w0, b0, ...`` for the first network, ``careless_w0,
    careless_b0, ...`` for the second (float32)."""
    arrays = {}
    for prefix, net in (("", layers), (CARELESS, careless_layers or [])):
        for i, (w, b) in enumerate(net):
            arrays[f"{prefix}w{i}"], arrays[f"{prefix}b{i}"] = np.asarray(w, np.float32), np.asarray(b, np.float32)
    return arrays


def read_card(folder: str | Path) -> dict[str, Any]:
    """The checked card of a turn-value model (its weights unread): format, feature layout, layer
    sizes, candidates, the gate's patience, the table, and the arrays' total under
    ``MAX_WEIGHTS_BYTES`` (summed from the layer sizes)."""
    card_path, card = folders.versioned_card(Path(folder), folders.TURN_VALUE,
                                             f"a turn-value model holds {CARD_FILE} and {WEIGHTS_FILE}")
    if card.get("features_version") != FEATURES_VERSION:
        raise ModelError(f"{card_path}: features version {card.get('features_version')!r}; "
                         f"this kc_env reads {FEATURES_VERSION}")
    if type(card.get("features")) is not int or card["features"] != FEATURES:
        raise ModelError(f"{card_path}: 'features' must be {FEATURES} (the turn-value features this kc_env "
                         f"computes), not {card.get('features')!r}")
    sizes, k = card.get("layers"), card.get("candidates")
    _check_layer_sizes(card_path, "layers", sizes)
    if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= 64:
        raise ModelError(f"{card_path}: 'candidates' must be an integer from 2 to 64, not {k!r}")
    if card.get("careless_layers") is not None:
        _check_layer_sizes(card_path, "careless_layers", card["careless_layers"])
    patience = card.get("patience", 0)
    if not _each_seat(patience, lambda p: type(p) is int and 0 <= p <= 100):  # not 2.0, not True
        raise ModelError(f"{card_path}: 'patience' must be an integer from 0 to 100, or one for each seat count "
                         f"(\"2\" to \"{MAX_PLAYERS}\"), not {str(patience)[:80]!r}")
    play = card.get("careless_play", "best")
    if not _each_seat(play, lambda p: isinstance(p, str) and p in CARELESS_PLAYS):
        raise ModelError(f"{card_path}: 'careless_play' must be one of {', '.join(CARELESS_PLAYS)}, or one for each "
                         f"seat count (\"2\" to \"{MAX_PLAYERS}\"), not {str(play)[:80]!r}")
    if card.get("careless_play") and card.get("careless_layers") is None:
        raise ModelError(f"{card_path}: 'careless_play' says how a second network plays, and the card lists "
                         "none ('careless_layers')")
    few = card.get("careless_candidates", k)
    if isinstance(few, bool) or not isinstance(few, int) or not 2 <= few <= k or (
            "careless_candidates" in card and card.get("careless_layers") is None):
        raise ModelError(f"{card_path}: 'careless_candidates' must be an integer from 2 to 'candidates' ({k}), "
                         f"with 'careless_layers', not {few!r}")
    if "trained" in card and not isinstance(card["trained"], Mapping):
        raise ModelError(f"{card_path}: 'trained', what the model was trained on, must be a mapping, "
                         f"not {str(card['trained'])[:80]!r}")
    folders.check_table(card, card_path)
    folders.check_total(card_path, _shapes(card), MAX_WEIGHTS_BYTES)
    return card


def _each_seat(setting: Any, valid) -> bool:
    """Whether a card's ``setting`` is one ``valid`` value, or a mapping of seat counts ("2" to
    "6") to ``valid`` values."""
    if isinstance(setting, Mapping):
        return set(setting) <= {str(n) for n in range(2, MAX_PLAYERS + 1)} and all(map(valid, setting.values()))
    return valid(setting)


def load(folder: str | Path) -> tuple[dict[str, Any], list[tuple[np.ndarray, np.ndarray]]]:
    """The card and first network's layers of a turn-value model, checked (``read_card``, then
    the weights file under ``MAX_FILE_BYTES`` and every array of both networks:
    ``model_folder.read_arrays``)."""
    folder = Path(folder)
    card = read_card(folder)
    arrays = folders.read_weights(folder, _shapes(card), MAX_FILE_BYTES, dtypes=("float32",),
                                  holds=f"a turn-value model holds {CARD_FILE} and {WEIGHTS_FILE}")
    return card, _network(folder / WEIGHTS_FILE, arrays, "", len(card["layers"]))


def load_careless(folder: str | Path, card: Mapping[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The second network of a model whose (checked) card lists ``careless_layers``, checked as
    ``load`` checks the first."""
    sizes = card["careless_layers"]
    path = Path(folder) / WEIGHTS_FILE
    arrays = folders.read_arrays(path, _layer_shapes(sizes, CARELESS), MAX_FILE_BYTES, dtypes=("float32",))
    return _network(path, arrays, CARELESS, len(sizes))


def _network(path: Path, arrays: Mapping[str, np.ndarray], prefix: str, depth: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) pairs of the network ``prefix`` names among ``arrays`` (read from
    ``path``): ``ModelError`` naming the first array that holds more than ``MAX_WEIGHT``, or the
    first layer whose units could go past ``MAX_SCORE`` (``score_bounds``)."""
    layers = [(arrays[f"{prefix}w{i}"], arrays[f"{prefix}b{i}"]) for i in range(depth)]
    for i, pair in enumerate(layers):
        for name, array in zip((f"{prefix}w{i}", f"{prefix}b{i}"), pair, strict=True):
            largest = float(np.abs(array).max(initial=0.0))
            if largest > MAX_WEIGHT:
                raise ModelError(f"{path}: array {name} holds {largest:.3g}; a weight or bias is at most "
                                 f"{MAX_WEIGHT:.3g} in magnitude")
    for i, bound in enumerate(score_bounds(layers)):
        if bound > MAX_SCORE:
            raise ModelError(f"{path}: arrays {prefix}w{i}, {prefix}b{i} could take the network's values to "
                             f"{bound:.3g} (from features up to {FEATURE_BOUND:.0e}), more than the {MAX_SCORE:.0e} "
                             "a model may reach")
    return layers


def score_bounds(layers: list[tuple[np.ndarray, np.ndarray]]):
    """The most any unit of each layer of a network could reach in magnitude from features under
    ``FEATURE_BOUND``, layer by layer (float64): a unit's bound is its weights' magnitudes times its
    inputs' bounds, plus its bias's (a relu only lowers one). Yields each layer's as it goes, so a
    caller that stops at the first past ``MAX_SCORE`` never multiplies past float64."""
    bound = np.full(FEATURES, FEATURE_BOUND)
    for w, b in layers:
        bound = np.abs(w.astype(np.float64)) @ bound + np.abs(b.astype(np.float64))
        yield float(bound.max(initial=0.0))


def load_agent(folder: str | Path, seed: int | None = None, spec: str | None = None) -> TurnValueAgent:
    """The agent of a turn-value model folder (``model_folder.Format.load``)."""
    return TurnValueAgent(folder, seed=seed, spec=spec)


def _shapes(card: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """Every array of both networks of a checked card, by name."""
    return _layer_shapes(card["layers"], "") | _layer_shapes(card.get("careless_layers") or [], CARELESS)


def weights_bytes(sizes: list[int], networks: int = 1) -> int:
    """What ``networks`` networks of layer ``sizes`` (ending in 1) hold as float32, in bytes: what
    ``MAX_WEIGHTS_BYTES`` bounds."""
    return networks * 4 * sum(int(np.prod(shape)) for shape in _layer_shapes(sizes, "").values())


def _check_layer_sizes(card_path: Path, key: str, sizes: Any) -> None:
    """``ModelError`` unless ``sizes`` lists 1 to ``MAX_LAYERS`` widths up to ``MAX_WIDTH``, ending in 1."""
    if not (isinstance(sizes, list) and bool(sizes) and sizes[-1] == 1 and
            all(isinstance(s, int) and not isinstance(s, bool) and 0 < s <= MAX_WIDTH for s in sizes)):
        raise ModelError(f"{card_path}: {key!r} must list the layer sizes, ending in 1")
    if len(sizes) > MAX_LAYERS:
        raise ModelError(f"{card_path}: {key!r} must list at most {MAX_LAYERS} layer sizes, not {len(sizes):,}")


def _layer_shapes(sizes: list[int], prefix: str) -> dict[str, tuple[int, ...]]:
    """The shape of every array of a network of ``sizes`` (from ``FEATURES`` inputs)."""
    shapes, fan_in = {}, FEATURES
    for i, size in enumerate(sizes):
        shapes[f"{prefix}w{i}"], shapes[f"{prefix}b{i}"] = (size, fan_in), (size,)
        fan_in = size
    return shapes
