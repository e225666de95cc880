"""What OpenSpiel's Python search takes from a game in place of the state methods a Python game
cannot give (``resample_from_infostate``): ``resample(state, player)``, the callback of
``ISMCTSBot.set_resampler``, built on the engine's re-deal of the cards a seat cannot see."""

from __future__ import annotations

import random
from collections.abc import Callable

from .. import engine
from . import deal
from .game import KingsCornerState


def resample(state: KingsCornerState, player: int, rng: random.Random | None = None) -> KingsCornerState:
    """A copy of ``state`` that ``player`` cannot tell from it (the same information state): the
    other hands and the stock dealt anew by ``engine.redeal_unseen``, the stock's order left to
    the chance nodes again. ``rng`` (default: a generator seeded from the system) deals them;
    ``resampler(seed)`` gives a reproducible callback. While the deal is being made nobody has
    seen a card: the copy's deck top is drawn anew."""
    rng = rng or random.Random()
    out = state.clone()
    if state.table.deal is None:
        out.table.top = rng.sample(range(state.table.rules.deck_size), len(state.table.top))
        return out
    out.table.deal = engine.redeal_unseen(state.table.deal, player, rng)
    out.table.undecided = deal.below_top(out.table.deal.stock)
    return out


def resampler(seed: int) -> Callable[[KingsCornerState, int], KingsCornerState]:
    """``resample`` with one generator seeded by ``seed``, for ``ISMCTSBot.set_resampler``."""
    rng = random.Random(seed)
    return lambda state, player: resample(state, player, rng)
