"""Bots both ways: a kc_env agent as a ``pyspiel.Bot`` (``AgentBot``, for OpenSpiel's
``evaluate_bots`` and its tournaments), and an OpenSpiel bot as a kc_env ``Agent`` (``BotAgent``,
for ``kc benchmark``, ``run_tournament`` and the envs' opponents), with OpenSpiel's IS-MCTS as the
agent ``ISMCTSAgent``."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from .. import actions, play
from ..agents import Agent, load
from ..agents.base import legal_actions
from .game import KingsCornerState
from .position import seat_position
from .search import resampler

MAX_SIMULATIONS = 1_000_000
"""The most simulations (and roll-outs each) an IS-MCTS search may take a decision."""
BotMaker = Callable[[pyspiel.Game, int, int], pyspiel.Bot]
"""Makes an OpenSpiel bot: ``maker(game, seat, seed)``."""


class AgentBot(pyspiel.Bot):
    """A kc_env agent (a spec such as ``heuristic``, or an ``Agent``) playing
    ``python_kings_corner`` as an OpenSpiel bot: it sees only its seat's observation and mask."""

    def __init__(self, agent: str | Agent, seed: int | None = None):
        pyspiel.Bot.__init__(self)
        self.agent, self.seed = load(agent, seed=seed), seed

    def restart_at(self, state: KingsCornerState) -> None:
        """A new deal: the agent is reset (reseeded with the bot's seed)."""
        self.agent.reset(seed=self.seed)

    def inform_action(self, state: KingsCornerState, player: int, action: int) -> None:
        """Nothing to do: the agent reads the whole view at each step."""

    def step(self, state: KingsCornerState) -> int:
        """The agent's action for the seat to act, from what that seat sees (``play.observe``)."""
        return int(self.agent.act(play.observe(state.table.deal)))


class BotAgent(Agent):
    """An OpenSpiel bot as a kc_env agent. At each decision it rebuilds the seat's position from
    the observation alone (``position.seat_position``: the unseen cards dealt at random) and asks
    a bot made by ``maker(game, 0, seed)`` for its move; the bot is made anew for each position,
    so it carries nothing from one decision to the next (an IS-MCTS bot re-deals the unseen
    cards itself)."""

    spec = "openspiel"

    def __init__(self, maker: BotMaker, seed: int | None = None, label: str = "openspiel"):
        self.maker, self.label = maker, label
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the positions' deals and the bots' seeds."""
        self.rng = random.Random(seed)

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        """The bot's move from the position that ``obs`` shows (a garbage ``obs`` refused in one
        line: ``legal_actions`` and ``observation.decode`` check it)."""
        legal_actions(obs)
        position = seat_position(obs["observation"], self.rng)
        bot = self.maker(position.state.get_game(), 0, self.rng.getrandbits(31))
        action = position.real_action(int(bot.step(position.state)))
        if not obs["action_mask"][action]:
            raise ValueError(f"{self.label} chose {actions.name(action)}, which is not legal here")
        return action


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's ``ISMCTSBot`` that ``evaluate_bots`` can seat: it searches anew at every step,
    so a new deal and the others' moves need nothing (OpenSpiel's raises on ``restart_at``)."""

    def restart_at(self, state: pyspiel.State) -> None:
        """Forget the last search's tree."""
        self.reset()

    def inform_action(self, state: pyspiel.State, player: int, action: int) -> None:
        """Nothing to do: the next step searches from the state it is given."""


@dataclass(frozen=True)
class ISMCTSMaker:
    """Makes OpenSpiel's ``ISMCTSBot`` with random roll-outs and ``resample`` as its re-deal
    (a ``BotMaker``; plain data, so that an agent holding it pickles into worker processes)."""

    simulations: int = 50
    uct_c: float = 2.0
    rollouts: int = 1

    def __post_init__(self) -> None:
        """Each setting checked when made (numpy numbers taken), not at the first move inside
        OpenSpiel; else ``ValueError`` in one line naming it."""
        for name in ("simulations", "rollouts"):
            object.__setattr__(self, name, actions.whole_in(name, getattr(self, name), 1, MAX_SIMULATIONS))
        c = self.uct_c
        if isinstance(c, bool) or not isinstance(c, (int, float, np.floating, np.integer)) or not 0 <= c < math.inf:
            raise ValueError(f"uct_c must be a number of at least 0, not {c!r}")
        object.__setattr__(self, "uct_c", float(c))

    def __call__(self, game: pyspiel.Game, seat: int, seed: int) -> pyspiel.Bot:
        rng = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=rng)
        bot = ISMCTSBot(game, evaluator, self.uct_c, self.simulations, random_state=rng)
        bot.set_resampler(resampler(seed))
        return bot


class ISMCTSAgent(BotAgent):
    """OpenSpiel's IS-MCTS (``ISMCTSMaker``) as a kc_env agent; ``kc benchmark
    kc_env.openspiel:ISMCTSAgent`` names it."""

    spec = "kc_env.openspiel:ISMCTSAgent"

    def __init__(self, seed: int | None = None, simulations: int = 50):
        super().__init__(ISMCTSMaker(simulations), seed=seed, label=f"ismcts:{simulations}")
