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

The game is also an RLCard env of its own, ``kings-corner``, registered with ``rlcard.make`` when
this module is imported: RLCard's ``env.run``, ``rlcard.utils.tournament`` and its agents
(``RandomAgent``, ``DQNAgent``, ``NFSPAgent``) play it as they play RLCard's games. Its
``game_*`` config keys are ``kings_corner_v0.raw_env``'s options (``game_num_players``,
``game_rules``, ``game_reward``, ``game_max_moves``...); ``seed`` seeds the deals. A state is
``{"obs": the 1599 values, "legal_actions": {id: None}, "raw_obs", "raw_legal_actions": names,
"action_record"}``; a step that is not legal (or after the game's end) is refused before RLCard records it;
the payoffs are the deal's rewards (``win_loss``: +1 to the winner, -1/(n-1) to the others, 0 to
all in a deal nobody won). A turn is several steps of one player, ``end turn`` last.
``get_perfect_information()`` gives the whole deal (every hand, the piles, the stock). There is no
``step_back`` (``allow_step_back`` is refused).

```python
import rlcard
from rlcard.agents import RandomAgent
from rlcard.utils import tournament
import kc_env.rlcard

env = rlcard.make("kings-corner", config={"seed": 0, "game_num_players": 3})
env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
print(tournament(env, 5))
```
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper
from rlcard.envs import Env as RLCardEnv
from rlcard.envs.registration import register, registry

from . import actions, engine, kings_corner_v0
from .cards import unique_name
from .engine import IllegalMove
from .observation import OBS_SIZE

ENV_ID = "kings-corner"
"""The id ``rlcard.make`` knows the game by, once this module is imported."""


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


GAME_KEYS = tuple(f"game_{option}" for option in kings_corner_v0.OPTIONS)
"""The config keys the game reads: ``kings_corner_v0.raw_env``'s options, each as ``game_NAME``."""
RLCARD_KEYS = ("seed", "allow_step_back")
"""The config keys RLCard's ``Env`` reads itself; the game reads the ``game_`` keys, and nothing any other."""


class Game:
    """RLCard's game protocol over ``kings_corner_v0.raw_env``: one deal a game, seats as player
    ids, the deal's seed drawn from ``np_random`` (which ``RLCardEnv.seed`` sets)."""

    allow_step_back = False
    np_random: np.random.RandomState
    totals: np.ndarray | None = None
    """Each seat's rewards so far; None until ``init_game`` (RLCard's ``reset``) deals the first game."""

    def __init__(self, options: dict[str, Any]) -> None:
        rules = options.get("rules")
        if isinstance(rules, str) and ("," in rules or "=" in rules):
            raise ValueError(f"{ENV_ID}: game_rules {rules[:80]!r} is kc --rules text; give a preset name, a dict or "
                             f"a Rules: Rules.parse({rules[:80]!r})")
        for key in options:
            if key not in kings_corner_v0.OPTIONS:
                raise ValueError(f"{ENV_ID}: unknown config key {'game_' + key!r}; its game_ keys: {', '.join(GAME_KEYS)}")
        self.table = kings_corner_v0.raw_env(**options)

    def init_game(self) -> tuple[dict[str, np.ndarray], int]:
        self.table.reset(seed=int(self.np_random.randint(2**31)))
        self.totals = np.zeros(self.table.num_players)
        player = self.get_player_id()
        return self.get_state(player), player

    def step(self, action: int | str) -> tuple[dict[str, np.ndarray], int]:
        """Play ``action`` (an id, or its name: RLCard passes a raw action as it is) for the player to act."""
        self.dealt().step(action_id(action))
        self.totals += [self.table.rewards[agent] for agent in self.table.possible_agents]
        player = self.get_player_id()
        return self.get_state(player), player

    def dealt(self) -> kings_corner_v0.raw_env:
        """The table, once a game is dealt; before, ``RuntimeError`` in one line asking for ``reset()``."""
        if self.totals is None:
            raise RuntimeError(f"{ENV_ID}: no game yet: call reset() first")
        return self.table

    def get_state(self, player: int) -> dict[str, np.ndarray]:
        """The observation of seat ``player`` (a whole number 0..num_players-1, never -1 for the last)."""
        seat = actions.whole_number(player)
        if seat is None or not 0 <= seat < self.table.num_players:
            raise ValueError(f"{ENV_ID}: player {player!r} is not a seat 0..{self.table.num_players - 1}")
        return self.dealt().observe(self.table.possible_agents[seat])

    def get_player_id(self) -> int:
        return self.table.agent_seat[self.dealt().agent_selection]

    def legal_actions(self) -> list[int]:
        """The legal action ids of the player to act, read from its action mask alone."""
        table = self.dealt()
        return _legal(table.action_mask(table.agent_selection))

    def get_perfect_information(self) -> dict[str, Any]:
        """The whole deal, every hand and the stock included, as RLCard's games give it: cards by
        name (``9H``), each pile bottom to top, the stock top first, the legal ids and their
        names, and the position as ``engine.to_text`` writes it."""
        deal, legal = self.dealt().game, self.legal_actions()
        return {"num_players": deal.num_players, "current_player": self.get_player_id(),
                "hand_cards": [_names(hand) for hand in deal.hands],
                "piles": {name: _names(pile) for name, pile in zip(engine.PILE_NAMES, deal.piles, strict=True)},
                "stock": _names(reversed(deal.stock)), "legal_actions": legal,
                "raw_legal_actions": [actions.name(a) for a in legal], "position": engine.to_text(deal)}

    def get_num_players(self) -> int:
        return self.table.num_players

    @staticmethod
    def get_num_actions() -> int:
        return actions.NUM_ACTIONS

    def is_over(self) -> bool:
        agent = self.dealt().agent_selection
        return bool(self.table.terminations[agent] or self.table.truncations[agent])

    def payoffs(self) -> np.ndarray:
        """Each seat's rewards summed over the game (a deal's come at its end; a match's
        ``score`` rewards at each deal's end)."""
        self.dealt()
        return self.totals.copy()


class KingsCornerRLCardEnv(RLCardEnv):
    """``rlcard.make("kings-corner", config)`` (see the module)."""

    def __init__(self, config: dict[str, Any]) -> None:
        for key in config:
            if key not in RLCARD_KEYS and not key.startswith("game_"):
                hint = f" (the game's options are game_ keys: game_{key})" if key in kings_corner_v0.OPTIONS else ""
                raise ValueError(f"{ENV_ID}: unknown config key {key!r}{hint}; its keys: "
                                 + ", ".join([*RLCARD_KEYS, *GAME_KEYS]))
        if config.get("allow_step_back"):
            raise ValueError(f"{ENV_ID} has no step_back: leave allow_step_back False")
        self.name = ENV_ID
        self.game = Game({key[len("game_"):]: value for key, value in config.items() if key.startswith("game_")})
        super().__init__(config)
        self.state_shape = [[OBS_SIZE] for _ in range(self.num_players)]
        self.action_shape = [None for _ in range(self.num_players)]

    def _extract_state(self, state: dict[str, np.ndarray]) -> dict[str, Any]:
        legal = _legal(state["action_mask"])
        return {"obs": state["observation"], "legal_actions": OrderedDict.fromkeys(legal),
                "raw_obs": state["observation"], "raw_legal_actions": [actions.name(a) for a in legal],
                "action_record": self.action_recorder}

    def get_payoffs(self) -> np.ndarray:
        return self.game.payoffs()

    def get_perfect_information(self) -> dict[str, Any]:
        """The whole state, every hand included (``Game.get_perfect_information``)."""
        return self.game.get_perfect_information()

    def step(self, action: Any, raw_action: bool = False) -> tuple[dict[str, Any], int]:
        """RLCard's step, with the action checked before anything is recorded: an action that
        is not legal (or a game already over) is refused and leaves the env as it was."""
        if self.game.is_over():
            raise ValueError(f"{ENV_ID}: the game is over: reset() it first")
        if isinstance(action, str) and not raw_action:
            raise ValueError(f"{ENV_ID}: {action[:40]!r} is a raw action (a name): step({action[:40]!r}, raw_action=True)")
        move = action_id(action)
        if move not in self._get_legal_actions():
            raise IllegalMove(f"{ENV_ID}: action {move} ({actions.name(move)}) is not legal for player "
                              f"{self.get_player_id()}")
        return super().step(actions.name(move), raw_action=True)  # recorded by name, as RLCard records raw actions

    def _get_legal_actions(self) -> list[int]:
        return self.game.legal_actions()


def action_id(action: Any) -> int:
    """An action as an id: a whole number 0..496 (numpy's and 0-d arrays too) or its name
    (``play 9H->N``); ``ValueError`` for anything else, never a float cut to an id."""
    if isinstance(action, str):
        return actions.parse(action)
    index = actions.whole_number(action)
    if index is None or not 0 <= index < actions.NUM_ACTIONS:
        raise ValueError(f"{ENV_ID}: an action is a whole number 0..{actions.NUM_ACTIONS - 1} or its name "
                         f"(raw_action=True), not {str(action)[:40]!r}")
    return index


def _names(cards) -> list[str]:
    return [unique_name(c) for c in cards]


def _legal(mask: np.ndarray) -> list[int]:
    """The legal action ids of an action mask."""
    return np.flatnonzero(mask).tolist()


if ENV_ID not in registry.env_specs:
    register(ENV_ID, f"{__name__}:KingsCornerRLCardEnv")
