"""Pad a turn-value model of the shipped features (version 1) to the features of
``research/threat_features.patch`` (version 2): zero weights on the new inputs, so the padded model
plays as the one it came from. Run with the patch applied (it reads the patched ``FEATURES``):

    python research/pad_features.py runs/tppo64-all/model runs/feat-start
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from kc_env.agents.turn_value import FEATURES, FEATURES_VERSION

FIRST_LAYERS = ("w0", "careless_w0")
"""The arrays that read the features: each network's first layer."""


def pad(source: Path, out: Path) -> dict[str, tuple[int, ...]]:
    """Write ``source``'s model to ``out`` with its first layers widened to ``FEATURES``."""
    card = json.loads((source / "model.json").read_text())
    arrays = dict(np.load(source / "weights.npz"))
    for name in FIRST_LAYERS:
        if name in arrays:
            w = arrays[name]
            arrays[name] = np.concatenate([w, np.zeros((w.shape[0], FEATURES - w.shape[1]), np.float32)], axis=1)
    card["features"], card["features_version"] = FEATURES, FEATURES_VERSION
    out.mkdir(parents=True, exist_ok=True)
    (out / "model.json").write_text(json.dumps(card, indent=2))
    np.savez(out / "weights.npz", **arrays)
    return {name: a.shape for name, a in arrays.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    print(pad(args.source, args.out))


if __name__ == "__main__":
    main()
