"""Turn-value models for different seat counts as one network: each model plays the tables of its
own seat counts, exactly as it does alone.

    python -m kc_env.training.turn_value.seats OUT 2=MODEL [3-6=MODEL ...] [--careless-play 3-6=best] [--overwrite]

A network trained at two players and one trained at four rank the same candidate turns by
different features; one network over both is their hidden units side by side, each model's units
silenced at the seat counts it is not for. The features say how many play (``turn_value.SEAT_COUNT``,
one-hot): a unit's weight on the one-hot of a seat count that is not its model's is set to
``-SILENCE``, far below anything the other features add up to, so there its pre-activation is
negative and the relu gives 0; at its own seat counts that weight meets a 0 and the unit is the
model's own. The output layer adds the blocks' outputs (the biases add up to one constant, which
moves every candidate's score alike). At each seat count the folded network's scores are the
model's own, so its choices are too (tests/test_turn_value_seats.py).

The models must have one hidden layer each, the same candidates and the same second network; each
says which seat counts it plays (``2``, ``3-6``, ``2,4``: none twice). How the second network plays
at careless tables (``careless_play``) is each model's at its seats, or what ``--careless-play
SEATS=best|sample`` says: a play choice, as the gate's patience is (a second network of zeros never
learns; ``best`` is then the heuristic's own turn, ``sample`` a uniform draw). The folded card lists every
table the models were trained for (``tables``), takes the second network from the first model, its
``careless_play`` and the patience of each model's seats from that model (the card's ``patience``
by seat count), and lists the models it folds (``trained.seats_of``); ``kc export`` evaluates it at
the first of its tables, as it does every card that lists tables. Read and written as every
turn-value model is (checked, atomic).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from kc_env.agents import turn_value
from kc_env.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Rules

from ..export_folder import check_target
from .ensemble import same_network, save_whole

SILENCE = 2.0**20
"""What a silenced unit's seat-count weight is less than 0: far more than the features' sum."""
SAME = ("candidates", "careless_layers", "careless_candidates")
"""What every folded model must agree on (its card's keys)."""


def seat_counts(text: str) -> list[int]:
    """``2``, ``3-6`` or ``2,4`` as the seat counts it names; ``ValueError`` when it names none,
    or one that is not 2 to 6."""
    out: list[int] = []
    for part in text.split(","):
        low, dash, high = part.partition("-")
        try:
            low, high = int(low), int(high if dash else low)
        except ValueError:
            raise ValueError(f"{text!r}: seat counts are written 2, 3-6 or 2,4") from None
        if not MIN_PLAYERS <= low <= MAX_PLAYERS or not MIN_PLAYERS <= high <= MAX_PLAYERS:
            raise ValueError(f"{text!r}: seat counts are {MIN_PLAYERS} to {MAX_PLAYERS}")
        if high < low:
            raise ValueError(f"{text!r}: a range of seat counts goes up ({high}-{low})")
        out += range(low, high + 1)
    if len(set(out)) != len(out):
        raise ValueError(f"{text!r}: names a seat count twice")
    return out


def fold(parts: list[tuple[list[int], str | Path]], careless_play: dict[int, str] | None = None) -> dict[str, Any]:
    """One network of the models ``parts`` (their seat counts, their folder), as
    ``turn_value.save``'s arguments, each seat count's ``careless_play`` its model's unless
    ``careless_play`` says otherwise; ``ValueError`` naming the first that cannot be folded."""
    if not parts:
        raise ValueError("no models to fold")
    taken = [n for counts, _ in parts for n in counts]
    if len(set(taken)) != len(taken):
        raise ValueError(f"seat count {next(n for n in taken if taken.count(n) > 1)} is given to two models")
    models = [(counts, folder, *turn_value.load(folder)) for counts, folder in parts]
    careless = _check(models)
    _, _, first, _ = models[0]
    card = {"candidates": first["candidates"],
            "tables": [t for counts, folder, c, _ in models for t in _tables(folder, c) if t["num_players"] in counts],
            "trained": {"trainer": "seats", "seats_of": [
                {"seats": counts, "folder": str(folder), **{k: v for k, v in c.get("trained", {}).items() if k != "curve"}}
                for counts, folder, c, _ in models]}}
    patience = {str(n): turn_value.patience_at(c.get("patience", 0), n) for counts, _, c, _ in models for n in counts}
    return {"layers": _network(models), "card": card, "careless_layers": careless,
            "patience": _one_or_each(patience) if careless is not None else 0,
            "careless_play": _one_or_each(_plays(models, careless_play or {}, careless)) if careless is not None
            else "best",
            "careless_candidates": first.get("careless_candidates")}


def _check(models) -> list | None:
    """Refuses models that cannot be folded (``ValueError`` naming the first); returns their
    second network (the first model's, which every other shares), or None."""
    _, first_folder, first, _ = models[0]
    careless = turn_value.load_careless(first_folder, first) if first.get("careless_layers") else None
    for counts, folder, card, layers in models:
        if len(layers) != 2:
            raise ValueError(f"{folder}: {len(layers) - 1} hidden layers; only models with one fold")
        differ = [key for key in SAME if card.get(key) != first.get(key)]
        if not differ and careless is not None and not same_network(careless, turn_value.load_careless(folder, card)):
            differ = ["second network"]
        if differ:
            raise ValueError(f"{folder}: its {', '.join(differ)} differ from {first_folder}'s")
        trained = {t["num_players"] for t in _tables(folder, card)}
        if not trained & set(counts):
            raise ValueError(f"{folder}: trained at {', '.join(map(str, sorted(trained)))} players, none of the seat "
                             f"counts it is given ({', '.join(map(str, counts))})")
    return careless


def _network(models) -> list:
    """The models' hidden units side by side, each silenced at the seat counts not its model's;
    their outputs added."""
    hidden_w, hidden_b, output_w = [], [], []
    for counts, _, _, layers in models:
        w = layers[0][0].astype(np.float32).copy()
        for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            if n not in counts:
                w[:, turn_value.SEAT_COUNT.start + n - MIN_PLAYERS] = -SILENCE
        hidden_w.append(w)
        hidden_b.append(layers[0][1])
        output_w.append(layers[1][0])
    return [(np.concatenate(hidden_w), np.concatenate(hidden_b)),
            (np.concatenate(output_w, axis=1), np.sum([layers[1][1] for *_, layers in models], axis=0))]


def _plays(models, override: dict[int, str], careless) -> dict[str, str]:
    """How the second network plays at each seat count: its model's, or ``override``'s."""
    plays = {str(n): turn_value.at_seats(c.get("careless_play", "best"), n, "best") for counts, _, c, _ in models
             for n in counts}
    for n, play in override.items():
        if careless is None:
            raise ValueError(f"--careless-play {n}={play}: the models have no second network to play")
        if str(n) not in plays:
            raise ValueError(f"--careless-play {n}={play}: no model is given seat count {n}")
        if play not in turn_value.CARELESS_PLAYS:
            raise ValueError(f"--careless-play {n}={play}: the play is one of {', '.join(turn_value.CARELESS_PLAYS)}")
        plays[str(n)] = play
    return plays


def _one_or_each(by_seats: dict[str, Any]) -> Any:
    """A card's setting for each seat count: one value when they are all the same."""
    values = set(by_seats.values())
    return values.pop() if len(values) == 1 else by_seats


def _tables(folder, card) -> list[dict]:
    """The tables a model's card says it was trained for (``tables``, or its one table)."""
    if card.get("tables"):
        return list(card["tables"])
    if card.get("num_players") is None or card.get("rules") is None:
        raise ValueError(f"{folder}: its card names no table it was trained for (num_players and rules, or tables)")
    name = next((p for p in PRESETS if Rules.preset(p).to_dict() == Rules.from_dict(card["rules"]).to_dict()),
                "table")
    return [{"name": f"{name}-{card['num_players']}p", "num_players": card["num_players"], "rules": card["rules"]}]


def write(out: str | Path, parts: list[tuple[list[int], str | Path]], overwrite: bool = False,
          careless_play: dict[int, str] | None = None) -> Path:
    """Fold ``parts`` (``fold``) and save the model in ``out``: empty or new, or (``overwrite``) a
    model folder, as for ``kc export`` (``export_folder.check_target``)."""
    check_target(Path(out), overwrite)
    return save_whole(out, **fold(parts, careless_play))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kc_env.training.turn_value.seats",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the folded model's folder")
    parser.add_argument("models", nargs="+", metavar="SEATS=MODEL",
                        help="seat counts (2, 3-6, 2,4) and a turn-value model folder with one hidden layer")
    parser.add_argument("--careless-play", action="append", default=[], metavar="SEATS=PLAY",
                        help="how the second network plays at those seat counts (best or sample; default: the "
                             "model's own)")
    parser.add_argument("--overwrite", action="store_true", help="replace the model already in OUT")
    args = parser.parse_args(argv)
    try:
        plays, parts = {}, []
        for arg in args.careless_play:
            counts, sep, play = arg.partition("=")
            if not sep:
                raise ValueError(f"--careless-play {arg!r}: write SEATS=PLAY, as 3-6=best")
            plays |= dict.fromkeys(seat_counts(counts), play)
        for arg in args.models:
            counts, sep, folder = arg.partition("=")
            if not sep or not folder:
                raise ValueError(f"{arg!r}: write SEATS=MODEL, as 2=models/turn-ppo-ensemble-2p")
            parts.append((seat_counts(counts), folder))
        out = write(args.out, parts, args.overwrite, plays)
    except (ValueError, turn_value.ModelError) as err:
        parser.exit(2, f"error: {err}\n")
    print(f"{out}: {len(parts)} model{'s' * (len(parts) > 1)}, each at its own seat counts")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
