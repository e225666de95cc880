"""``kings_corner_v0`` for RLCard's PettingZoo tools (``rlcard.utils.pettingzoo_utils``:
``run_game_pettingzoo``, ``tournament_pettingzoo``; the ``*AgentPettingZoo`` agents, which read
``{"observation", "action_mask"}`` through ``wrap_state``).

RLCard's loops read only ``termination`` from ``env.last()``: at a deal cut off after
``max_moves`` (truncated, not terminated) they ask the agent for a move on an all-zero mask and
fail. ``env(**options)`` is ``kings_corner_v0.env(**options)`` whose ``last()`` reports a
truncated agent as terminated too, so they step it ``None``, as PettingZoo wants.

```python
from rlcard.agents.pettingzoo_agents import RandomAgentPettingZoo
from rlcard.utils.pettingzoo_utils import tournament_pettingzoo
from kc_env import rlcard

env = rlcard.env(rules="standard", num_players=2)
print(tournament_pettingzoo(env, {a: RandomAgentPettingZoo(num_actions=497) for a in env.possible_agents}, 2))
```
"""

from __future__ import annotations

from pettingzoo.utils.wrappers import BaseWrapper

from . import kings_corner_v0


class EndedIsDone(BaseWrapper):
    """A PettingZoo AEC env whose ``last()`` gives ``termination or truncation`` as the
    termination (the truncation as it is): for loops that read only the termination."""

    def last(self, observe: bool = True) -> tuple:
        """``env.last()``, a truncated agent reported terminated as well."""
        obs, reward, termination, truncation, info = super().last(observe)
        return obs, reward, termination or truncation, truncation, info


def env(**options) -> EndedIsDone:
    """``kings_corner_v0.env(**options)`` for RLCard's loops (see the module)."""
    return EndedIsDone(kings_corner_v0.env(**options))
