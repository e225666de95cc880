"""The weights of the heuristic's evaluation (``evaluation.evaluate``), by name."""

from __future__ import annotations

import numpy as np

WEIGHT_NAMES = (
    "card",  # each card in hand
    "penalty",  # a card's penalty, scaled 0 (cheapest) .. 1 (costliest)
    "fit",  # a card in hand that fits a top now
    "dead",  # a card in hand with no live place (needs a space)
    "half_dead",  # a card with one of its two parents buried
    "opp",  # each play the next player may make (expected)
    "decay",  # factor on "opp" for each seat further away
    "danger",  # extra weight on a player per card below 3 in hand
    "space",  # an empty side left to the others (any card fits)
    "corner",  # an empty corner (kings fit), times the chance they hold one
    "opening",  # a side pile the next player may move away to open a space
    "multi",  # factor on 'opp' with more than two players
    "danger_multi",  # 'danger' with more than two players
    "block",  # a deal blocked by an idle turn: lost chance when ahead, saved loss when behind
    "fit_close",  # added to "fit" while another player is close to going out (0: never)
    "close",  # close to going out: holding at most this many cards (for "fit_close")
    "level",  # the race is level: another player holds fewer than this many cards more than the seat
    "level_card",  # factor on "card" while the race is level (1: no change)
    "level_opp",  # factor on "opp" while the race is level (1: no change)
    "block_points",  # each penalty point held with the stock empty, under a penalty table (0: win share alone)
)
HEURISTIC_WEIGHTS = np.array(
    [1.0, 0.35, 0.25, 0.45, 0.12, 3.0, 0.6, 2.25, 1.3, 0.8, 1.0, 0.7, 0.5, 4.0, 0.0, 5.0, 1.0, 1.0, 1.0, 0.0],
    dtype=np.float64,
)
"""The tuned weights of ``evaluate``, in the order of ``WEIGHT_NAMES``: the heuristic that plays
for the win share (what the envs reward and every evaluation here counts)."""
FOR_POINTS = {"block_points": 1.0}
"""The weights the heuristic changes when it plays for points (``Agent.play_for("points")``): with
the stock empty every penalty point it holds counts as much as a card, so a deal heading for a
block sheds what costs most (a king into an empty corner) rather than hold it for a block."""
(W_CARD, W_PENALTY, W_FIT, W_DEAD, W_HALF, W_OPP, W_DECAY, W_DANGER, W_SPACE, W_CORNER, W_OPENING, W_MULTI,
 W_DANGER_MULTI, W_BLOCK, W_FIT_CLOSE, W_CLOSE, W_LEVEL, W_LEVEL_CARD, W_LEVEL_OPP, W_BLOCK_POINTS) = range(len(WEIGHT_NAMES))


def evaluation_weights(weights) -> np.ndarray:
    """The heuristic's evaluation weights from a mapping ``{name: value}`` (names of
    ``WEIGHT_NAMES``; a name left out keeps its ``HEURISTIC_WEIGHTS`` value), as float64 in the
    order of ``WEIGHT_NAMES``. ``None`` gives the tuned defaults. Refuses an unknown name, or a
    value that is not a finite number, with a message that says which."""
    out = HEURISTIC_WEIGHTS.copy()
    if weights is None:
        return out
    if not hasattr(weights, "items"):
        raise ValueError(f"heuristic weights must be a mapping of weight names to numbers, not {weights!r}")
    for name, value in weights.items():
        if name not in WEIGHT_NAMES:
            raise ValueError(f"unknown heuristic weight {name!r} (known: {', '.join(WEIGHT_NAMES)})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
            raise ValueError(f"heuristic weight {name} must be a finite number, not {value!r}")
        out[WEIGHT_NAMES.index(name)] = float(value)
    return out


def weights_by_name(weights: np.ndarray) -> dict[str, float]:
    """``weights`` (in the order of ``WEIGHT_NAMES``) as the mapping ``evaluation_weights`` reads."""
    return {name: float(v) for name, v in zip(WEIGHT_NAMES, np.asarray(weights, dtype=np.float64), strict=True)}
