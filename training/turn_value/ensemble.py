"""Several turn-value models as one: a network that scores a candidate turn by the mean of the
models' scores (their hidden units side by side, each output weight divided by their number).

    python -m kc_env.training.turn_value.ensemble OUT MODEL [MODEL ...]

PPO runs of one config that differ only in their seed (or their width) end at different policies
of about the same strength; the mean of their scores is the product of their policies (each a
softmax of its scores), which is steadier than any one of them (research/experiments.md,
2026-12-05 (night)). The models must have one hidden layer each and share the candidates, the
table, the gate (patience and the second network) and how the second network plays: the folded
model keeps those from the first, and its card lists the models it folds (``trained.ensemble_of``:
each one's ``trained`` block). Read and written as every turn-value model is (checked, atomic).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NamedTuple

import numpy as np

from kc_env.agents import turn_value

from ..export_folder import check_target, staged

TABLE = ("candidates", "num_players", "rules", "tables")
"""What every folded model must agree on and the folded card copies: its table and its candidates."""
PLAY = ("patience", "careless_play", "careless_candidates")
"""How the gate and the second network play: every folded model must agree, ``turn_value.save`` writes them."""
SHARED = (*TABLE, "careless_layers", *PLAY)
"""What every folded model must agree on (its card's keys): how the model plays, less the network."""


class Folded(NamedTuple):
    """A folded model before it is saved: the card's ``TABLE`` keys and its ``trained`` block, the
    network's layers, the second network's (or None), and how it plays (``PLAY``, the first model's)."""
    card: dict
    layers: list
    careless: list | None
    play: dict


def fold(folders: list[str | Path]) -> Folded:
    """The mean of the models in ``folders``; ``ValueError`` naming the first model that cannot be
    folded with the others."""
    if not folders:
        raise ValueError("no models to fold")
    models = [turn_value.load(f) for f in folders]
    first = models[0][0]
    for folder, (card, layers) in zip(folders, models, strict=True):
        if len(layers) != 2:
            raise ValueError(f"{folder}: {len(layers) - 1} hidden layers; only models with one fold")
        differ = [key for key in SHARED if card.get(key) != first.get(key)]
        if differ:
            raise ValueError(f"{folder}: its {', '.join(differ)} differ from {folders[0]}'s")
    careless = turn_value.load_careless(folders[0], first) if first.get("careless_layers") else None
    for folder, (card, _) in zip(folders[1:], models[1:], strict=True):
        if careless is not None and not same_network(careless, turn_value.load_careless(folder, card)):
            raise ValueError(f"{folder}: its second network differs from {folders[0]}'s")
    n = len(models)
    hidden = (np.concatenate([layers[0][0] for _, layers in models]),
              np.concatenate([layers[0][1] for _, layers in models]))
    output = (np.concatenate([layers[1][0] for _, layers in models], axis=1) / n,
              np.mean([layers[1][1] for _, layers in models], axis=0))
    card = {key: first[key] for key in TABLE if key in first}
    card["trained"] = {"trainer": "ensemble", "ensemble_of": [_trained(f, c) for f, (c, _) in
                                                              zip(folders, models, strict=True)]}
    play = {"patience": first.get("patience", 0), "careless_play": first.get("careless_play", "best"),
            "careless_candidates": first.get("careless_candidates")}
    return Folded(card, [hidden, output], careless, play)


def same_network(net, other) -> bool:
    """Whether two networks ((weight, bias) pairs) are the same arrays, layer by layer."""
    return len(net) == len(other) and all(np.array_equal(a, b) for mine, theirs in zip(net, other, strict=True)
                                          for a, b in zip(mine, theirs, strict=True))


def _trained(folder, card) -> dict:
    """What a folded model's card says of its training, less its curve (the model's own card keeps it)."""
    return {"folder": str(folder), **{k: v for k, v in card.get("trained", {}).items() if k != "curve"}}


def write(out: str | Path, folders: list[str | Path], patience: int | None = None, overwrite: bool = False) -> Path:
    """Fold ``folders`` (``fold``) and save the model in ``out``, with the gate's ``patience`` if
    given (the models' own otherwise): how many clean turns the heuristic plays is the player's
    choice, not the network's. ``out`` must be empty or new, or (``overwrite``) a model folder, as
    for ``kc export`` (``export_folder.check_target``)."""
    check_target(Path(out), overwrite)
    folded = fold(folders)
    if patience is not None and (folded.careless is None or not 0 <= patience <= 100):
        raise ValueError(f"--patience {patience}: only a gated model has one, from 0 to 100")
    play = folded.play if patience is None else {**folded.play, "patience": patience}
    return save_whole(out, folded.layers, folded.card, folded.careless, **play)


def save_whole(out: str | Path, *args, **kw) -> Path:
    """``turn_value.save`` into a staging folder that takes ``out``'s place once both files are
    written (``export_folder.staged``): an interrupted fold leaves the old model, never new
    weights beside an old card."""
    with staged(Path(out)) as stage:
        turn_value.save(stage, *args, **kw)
    return Path(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kc_env.training.turn_value.ensemble",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the folded model's folder")
    parser.add_argument("models", nargs="+", help="turn-value model folders with one hidden layer each")
    parser.add_argument("--patience", type=int, help="the gate's patience (default: the models')")
    parser.add_argument("--overwrite", action="store_true", help="replace the model already in OUT")
    args = parser.parse_args(argv)
    try:
        out = write(args.out, args.models, args.patience, args.overwrite)
    except (ValueError, turn_value.ModelError) as err:
        parser.exit(2, f"error: {err}\n")
    print(f"{out}: the mean of {len(args.models)} models")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
