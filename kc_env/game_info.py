"""The game's facts in one place, as OpenSpiel's ``GameInfo`` states them: ``GAME_INFO``.

Every fact is read from the module that owns it, never typed here: the action layout from
``kc_env.actions``, the observation size from ``kc_env.observation``'s layout, the players a
table seats from ``kc_env.rules``, the moves after which a deal is cut off from
``kc_env.match``, the reward kinds and their ranges from ``kc_env.rewards``. Code elsewhere
reads these names instead of writing the numbers again.

```python
from kc_env.game_info import GAME_INFO
GAME_INFO.num_distinct_actions    # 497: one Discrete(497) for every rule set and player count
GAME_INFO.move_offset             # 432: move pile s onto d is move_offset + s * num_piles + d
GAME_INFO.end_turn_action         # 496
GAME_INFO.observation_size        # 1599 float32 values per seat (observation layout 2)
GAME_INFO.min_num_players, GAME_INFO.max_num_players  # 2, 6
GAME_INFO.default_max_moves       # 1000: a deal is cut off after this many moves by default
GAME_INFO.rewards["score"]        # Bounds(min_utility=-54.0, max_utility=0.0, utility_sum=None)
```

A card play is ``play_offset + card * num_piles + pile`` (cards 0..53, piles 0..7). The
rewards' ranges are the widest over every rule set (``kc_env.rewards.bounds(kind, rules)``
gives one rule set's); ``min_utility``, ``max_utility`` and ``utility_sum`` are those of the
default reward, ``win_loss``, as in OpenSpiel.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from . import actions, observation, rewards, rules
from .match import DEFAULT_MAX_MOVES


@dataclass(frozen=True)
class GameInfo:
    """The facts of Kings in the Corner that do not depend on the rule set (see the module)."""

    num_distinct_actions: int
    play_offset: int
    move_offset: int
    end_turn_action: int
    num_cards: int
    num_piles: int
    action_layout_version: int
    observation_size: int
    observation_layout_version: int
    min_num_players: int
    max_num_players: int
    default_max_moves: int
    default_reward: str
    rewards: Mapping[str, rewards.Bounds] = field(hash=False)

    @property
    def min_utility(self) -> float:
        """The least reward of one seat under the default reward."""
        return self.rewards[self.default_reward].min_utility

    @property
    def max_utility(self) -> float:
        """The most reward of one seat under the default reward."""
        return self.rewards[self.default_reward].max_utility

    @property
    def utility_sum(self) -> float | None:
        """What the seats' rewards add up to under the default reward (None: it varies)."""
        return self.rewards[self.default_reward].utility_sum


GAME_INFO = GameInfo(
    num_distinct_actions=actions.NUM_ACTIONS,
    play_offset=actions.PLAY_OFFSET,
    move_offset=actions.MOVE_OFFSET,
    end_turn_action=actions.END_TURN_ACTION,
    num_cards=actions.NUM_CARDS,
    num_piles=actions.NUM_PILES,
    action_layout_version=actions.ACTION_LAYOUT_VERSION,
    observation_size=observation.OBS_SIZE,
    observation_layout_version=observation.OBS_LAYOUT_VERSION,
    min_num_players=rules.MIN_PLAYERS,
    max_num_players=rules.MAX_PLAYERS,
    default_max_moves=DEFAULT_MAX_MOVES,
    default_reward=rewards.REWARDS[0],
    rewards=MappingProxyType({kind: rewards.bounds(kind) for kind in rewards.REWARDS}),
)
"""The game's facts (see the module docstring)."""


__all__ = ["GAME_INFO", "GameInfo"]
