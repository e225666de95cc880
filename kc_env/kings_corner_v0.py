"""
# Kings in the Corner (``kings_corner_v0``)

| Import             | `from kc_env import kings_corner_v0`                       |
|--------------------|------------------------------------------------------------|
| Actions            | Discrete(497)                                              |
| Parallel API       | No                                                         |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`, n = 2 to 6   |
| Action values      | [0, 496]                                                   |
| Observation shape  | Dict: `observation` (1599,) float32, `action_mask` (497,) int8 |
| Observation values | [0, 1], except `scores` [-2, 2] and `rule_penalty` [0, 4]  |

Kings in the Corner for 2 to 6 players (rules: ``RULES.md``), as a PettingZoo AEC environment.
Seat ``i`` is agent ``player_i``; play goes from seat ``i`` to seat ``i + 1``. A turn is several
actions by the same agent: the agent to act keeps ``agent_selection`` until it plays
``end turn`` (or the deal ends).

```python
from kc_env import kings_corner_v0
env = kings_corner_v0.env(rules="pagat", num_players=3)
env.reset(seed=42)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
    env.step(action)
```

### Actions
One flat ``Discrete(497)`` for every rule set and player count (``kc_env.actions``, layout 1):

| indices  | action                           | index                 | name           |
|----------|----------------------------------|-----------------------|----------------|
| 0..431   | play card ``c`` onto pile ``p``  | ``c * 8 + p``         | ``play 9H->N`` |
| 432..495 | move pile ``s`` onto pile ``d``  | ``432 + s * 8 + d``   | ``move W->N``  |
| 496      | end the turn (draws under ``draw: end``) | ``496``       | ``end turn``   |

Cards are 0..51 (``suit * 13 + rank - 1``, suits C D H S) and the jokers 52, 53; piles are
0 N, 1 E, 2 S, 3 W, 4 NE, 5 SE, 6 SW, 7 NW. ``actions.encode``, ``decode``, ``name`` and
``parse`` convert. Under ``pile_moves: partial`` the part of the pile that moves is implied.

### Observations
``{"observation": vector, "action_mask": mask}``. The vector (``kc_env.observation``, layout 2,
1599 float32 values) holds only what the agent's seat may see, seats written relative to it:

| slices | size | meaning |
|---|---|---|
| hand, hand_size | 54 + 1 | the agent's own cards (one-hot) and their number |
| pile_{P}_cards / _top / _bottom | 3 x 54 per pile | each pile's cards, top card and bottom card, one-hot |
| pile_{P}_length / _top_rank / _top_colour | 1 + 13 + 3 per pile | its length, the rank and colour its top stands for |
| others_hand_sizes | 5 | the other hands' sizes, from the agent's left |
| stock_size | 1 | cards in the stock |
| scores | 6 | match totals, the agent first (0 in a one-deal episode) |
| drawn, played, moved, idle_turns, my_turn | 5 | the turn's phase |
| to_act, dealer | 6 + 6 | who is to act and who dealt, relative to the agent |
| num_players | 5 | one-hot 2..6 |
| rule_* | 46 + 3 + 14 | every variant one-hot, hand size, target, chips, penalty table |
| rule_*_more, first_turn | 14 + 1 | layout 2: the rule values added since layout 1, one-hot; no turn of the deal has ended yet |

``observation.decode(vector)`` gives the same view back as a readable ``SeatView``. The
``action_mask`` is 1 for the legal actions of the agent to act, all 0 for every other agent
and once the episode is over. On a live turn it is never all 0.

### Rewards
Given when the episode ends (``win_loss``) or when each deal ends (``score``):

| ``reward`` | winner(s) | others | no winner / truncated |
|---|---|---|---|
| ``win_loss`` (default) | +1 (k winners: +1/k each) | -1/(n-1) (-1/(n-k)) | 0 |
| ``score`` | 0 | -penalty / (hand_size x costliest card) | blocked: -own penalty / same; a truncated one-deal episode: 0 |

With ``episode="deal"`` the winner is the deal's; with ``episode="match"`` it is the match's
(``kc_env.match``: totals, target, tie-break, dealer rotation), and ``score`` rewards come at the
end of every deal of the match. ``score`` prices hands by ``rules.penalty_table()``; a hand
``hand_size`` cards of the costliest card scores -1. The sum of ``win_loss`` rewards is 0.

### Illegal actions
``raw_env`` raises the engine's ``IllegalMove`` (a ``ValueError``, the state unchanged) for an
action whose mask entry is 0 or that is outside 0..496. ``env()`` wraps it in
``kc_env.wrappers.ClassicWrapper``, which behaves as PettingZoo's classic chain
``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw_env(),
illegal_reward=-1)))`` in one wrapper (a test plays the two side by side): an illegal action
warns and ends the game, the offender gets -1 and the other agents 0
(``TerminateIllegalWrapper``), and every agent's infos are then those of an ended episode
(``deal``: ``winner`` -1, not blocked nor truncated, ``penalties`` 0; in a match ``match`` with
``winners`` all -1), as ``KingsCorner-v0`` gives them (the chain's one difference: it leaves
them ``{}``); an action outside the action space is an ``AssertionError``
(``AssertOutOfBoundsWrapper``), and so is a bool (``Discrete`` would take ``True`` for 1; the
chain then fails on the mask with numpy's "truth value ... is ambiguous"); ``step``/``observe`` before ``reset`` are errors
(``OrderEnforcingWrapper``). ``env().unwrapped`` is the ``raw_env``.

### Arguments
``env(**kwargs)`` and ``raw_env(**kwargs)`` take:

- ``rules``: a preset name (``standard``, ``bicycle``, ``pagat``, ``printable``, ``wikihow``,
  ``online``, ``german``), a ``Rules``, or a dict of variants (``{"preset": "pagat", "jokers": 2}``).
  Every variant of ``RULES.md`` section 4 and 5 is a field of ``Rules``. Default ``standard``.
- ``num_players``: 2 to 6 (default 2).
- ``episode``: ``"deal"`` (default) or ``"match"``.
- ``reward``: ``"win_loss"`` (default) or ``"score"``.
- ``max_moves``: a deal is cut off after this many moves, end-turn moves included (default
  1000; random play needs about 100). In a one-deal episode that truncates the episode; in a
  match the deal counts as blocked (``kc_env.match.truncate``) and the match goes on.
- ``max_deals``: a match episode that has not ended after this many deals is truncated
  (default 100; a ``chips`` match can in principle go on for ever).
- ``dealer``: the seat that deals the first deal, or ``"random"`` (default: drawn from the
  episode's seed).
- ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the text), ``"human"`` (printed
  after every step) or ``"rgb_array"`` (``render()`` returns the table as an ``H x W x 3`` uint8
  picture with the card faces, the layout of the text; ``kc_env.render_image``, Pillow).
- ``render_view``: ``"acting"`` (default: the hand of the agent to act, the others as counts)
  or ``"all"`` (every hand: for watching agents, not for playing against them).

Any other keyword is a one-line ``TypeError`` naming the env called and these options (and, for
``KingsCorner-v0``'s ``opponents``, ``learner_seat``, ``illegal_action`` and ``observation``, why
this env does not take them).

``reset(seed=None, options=None)``: the same seed and actions always give the same game.
``options={"position": TEXT}`` starts from a position written as text (``engine.from_text``;
it must have ``num_players`` hands and not be over). Any other option key is ignored with a
one-line warning naming it and the known ones (PettingZoo's own ``api_test`` resets with
``options={"options": 1}``, so an AEC env must take a key it does not know; ``KingsCorner-v0``
refuses one).
Before the first ``reset``, ``raw_env``'s ``step``, ``last``, ``agent_iter``, ``observe`` and ``state`` raise
``RuntimeError("call reset() first")``.

``state()`` is the whole table, every hand and the stock order (``state_space``: ``Box(1977,)``,
layout in ``kc_env.full_state``), as PettingZoo defines it for centralised training. It holds
what no seat may see: training-only information, never a playing policy's input.

``pettingzoo.make("aec", "kc_env/kings_corner_v0")`` (after ``import kc_env``) is ``env()``; the
id is PettingZoo's ``namespace/name-vN`` (``kc_env/kings_corner-v0``; ``kc_env/KingsCorner-v0``
is the same env under the Gymnasium id's name).

``infos[agent]`` is ``{}`` while the deal goes on. Once a deal ends it holds ``"deal"`` (in a
match, from the end of the first deal on), and at the end of a match ``"match"`` too (an episode
``env()`` ends on an illegal action: the deal's, nobody won, nothing paid), each with
one type and shape in every episode, so that stacks which store infos in arrays (Tianshou's
replay buffer, Gymnasium's vector envs) can:

| key | type | meaning |
|---|---|---|
| ``deal["winner"]`` | int | the last deal's winner, ``-1`` (``NO_WINNER``) if nobody won (blocked or cut off) |
| ``deal["blocked"]``, ``deal["truncated"]`` | bool | it ended blocked; it was cut off at ``max_moves`` |
| ``deal["penalties"]`` | n ints | what each seat adds for it (0 for every seat in a one-deal episode cut off) |
| ``match["winners"]`` | n ints | the match winners' seats, then ``-1`` up to one entry a seat |
| ``match["totals"]`` | n ints | the match totals by seat |

### Engine
``raw_env`` plays on the compiled kernel (``kc_env.vector.single``: one numba call a step, which
also writes the next agent's observation and mask); ``engine_env`` is the same env on the Python
engine, kept as the reference that ``tests/test_vector_diff.py`` plays it against, step for step.
``env.unwrapped.game`` is the engine's ``GameState`` of the deal (built from the deal's seed and
moves when read: reading it every step costs an engine move a step). ``raw_env.step_drawing``
plays a step and then every seat given a numpy generator (``set_draws``) in the same compiled
call, each drawing as the ``random`` agent does (``KingsCorner-v0``'s random opponents).

### Version history
* v0: first release (action layout 1, observation layout 1: 1584 values).
* v0, observation layout 2 (issue 19's house rules): 1599 values, layout 1's 1584 unchanged and
  in place, then ``rule_*_more`` (14: a one-hot of each rule value added since,
  ``observation.MORE_CHOICES``) and ``first_turn`` (1); a new value also sets the slot of its
  nearest layout-1 value (``observation.LEGACY``), so a model trained on layout 1 reads the first
  1584 values and still plays. Action layout 1 unchanged.
* v0, infos of one shape (issue 36): a deal nobody won has ``winner`` -1 (was None), a one-deal
  episode cut off has ``penalties`` of 0 (was None), and ``match["winners"]`` is padded with -1
  to one entry a seat.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv

from . import actions, engine, full_state, rewards
from . import match as match_mod
from . import observation as obs_mod
from .engine import GameState, IllegalMove
from .match import NO_WINNER
from .options import keywords_of, refuse_unknown_keywords, seat_option
from .render import render as render_text
from .rules import Rules
from .wrappers import ClassicWrapper

if TYPE_CHECKING:
    from .vector.game import DealResult

EPISODES = ("deal", "match")
REWARDS = rewards.REWARDS
RENDER_VIEWS = ("acting", "all")
DEFAULT_MAX_MOVES = match_mod.DEFAULT_MAX_MOVES
DEFAULT_MAX_DEALS = 100
ILLEGAL_REWARD = -1
SEED_BOUND = 2**63
NUM_ACTIONS = actions.NUM_ACTIONS
KERNEL_OVER = 8  # vector.single.OVER: the kernel step's codes below it are the seat to act next
RESET_OPTIONS = ("position",)
"""The keys ``reset(options=...)`` takes."""
NOT_RESET = "call reset() first"
"""What a call that needs an episode says before the first ``reset``."""


def env(**kwargs: Any) -> ClassicWrapper:
    """The environment with PettingZoo's classic wrappers' behaviour (one ``ClassicWrapper``):
    an illegal action ends the game with -1 for the offender, an action outside the space is an
    assertion error, and the calls must come in order (reset first)."""
    refuse_unknown_keywords("kings_corner_v0.env", kwargs, OPTIONS, NOT_HERE)
    return ClassicWrapper(raw_env(**kwargs), illegal_reward=ILLEGAL_REWARD)


def reset_position(options: Any, strict: bool = False) -> str | None:
    """The position text in ``reset``'s ``options`` (None: none), once the options are checked:
    None or a dict, its ``position`` text, else a one-line ``ValueError``. A key not in
    ``RESET_OPTIONS`` is refused the same way (``strict``, the Gymnasium env) or ignored with a
    one-line ``UserWarning`` (PettingZoo's ``api_test`` resets with ``{"options": 1}``)."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict such as {{'position': TEXT}}, not {options!r}"[:300])
    for key in options:
        if key not in RESET_OPTIONS:
            said = f"unknown reset option {key!r}; the options are: {', '.join(RESET_OPTIONS)}"[:300]
            if strict:
                raise ValueError(said)
            warnings.warn(f"{said} (ignored)", UserWarning, stacklevel=4)
    position = options.get("position")
    if position is not None and not isinstance(position, str):
        raise ValueError(f"options['position'] must be a position written as text, not {position!r}"[:300])
    return position


def _choice(name: str, value: Any, allowed: tuple) -> Any:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")
    return value


class engine_env(AECEnv, EzPickle):
    """Kings in the Corner as a PettingZoo AEC environment on the reference engine
    (``kc_env.engine``): what ``raw_env`` is, move for move, on the compiled kernel. Kept as the
    reference the differential test (``tests/test_vector_diff.py``) plays ``raw_env`` against, and
    where numba is missing."""

    metadata = {
        "name": "kings_corner_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, rules: Rules | str | dict | None = None, num_players: int = 2, episode: str = "deal",
                 reward: str = "win_loss", max_moves: int = DEFAULT_MAX_MOVES,
                 max_deals: int = DEFAULT_MAX_DEALS, dealer: int | str = "random",
                 render_mode: str | None = None, render_view: str = "acting") -> None:
        EzPickle.__init__(self, rules=rules, num_players=num_players, episode=episode, reward=reward,
                          max_moves=max_moves, max_deals=max_deals, dealer=dealer,
                          render_mode=render_mode, render_view=render_view)
        super().__init__()
        self.rules = Rules.coerce(rules)
        num_players = actions.whole_or_given(num_players)
        self.rules.check_players(num_players)
        self.num_players = num_players
        self.episode = _choice("episode", episode, EPISODES)
        self.reward_kind = _choice("reward", reward, REWARDS)
        self.max_moves = actions.whole_in("max_moves", max_moves, 1, match_mod.MOST_MOVES)
        self.max_deals = actions.whole_in("max_deals", max_deals, 1, match_mod.MOST_MOVES)
        self.dealer = seat_option("dealer", dealer, num_players)
        self.render_mode = _choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        self.render_view = _choice("render_view", render_view, RENDER_VIEWS)

        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(actions.NUM_ACTIONS) for a in self.possible_agents}
        self.observation_spaces = {a: self._make_observation_space() for a in self.possible_agents}
        self.state_space = spaces.Box(*full_state.bounds(), dtype=np.float32)
        self._np_random: np.random.Generator | None = None
        self.state_: GameState | None = None
        self.match: match_mod.Match | None = None
        self._log: list[int] = []  # the episode's moves: seat << 9 | action index

    @property
    def move_log(self) -> list[str]:
        """The episode's moves so far, ``"player_1 play 9H->N"``..., for rendering."""
        names, agents = actions.NAMES, self.possible_agents
        return [f"{agents[m >> 9]} {names[m & 511]}" for m in self._log]

    @staticmethod
    def _make_observation_space() -> spaces.Dict:
        return spaces.Dict({
            "observation": spaces.Box(obs_mod.LOW, obs_mod.HIGH, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(actions.NUM_ACTIONS,), dtype=np.int8),
        })

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # -- episode ---------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new episode. The same ``seed`` gives the same game; ``options={"position":
        TEXT}`` starts from that position."""
        dealer, seed_, position = self._episode_start(seed, options)
        if self.episode == "match":
            self.match = match_mod.Match(self.rules, self.num_players, seed=seed_, dealer=dealer)
            state = self.match.new_deal()
        else:
            self.match = None
            state = engine.new_deal(self.rules, self.num_players, seed=seed_, dealer=dealer)
        if position is not None:
            state = self._read_position(position, seed_)
        self.state_ = state
        self._start_episode(state.current_player)

    def _episode_start(self, seed: int | None, options: dict | None) -> tuple[int, int, str | None]:
        """The episode's first dealer and deal seed, drawn from its seed, and the position of
        ``options`` (checked first: a refused reset changes nothing), or None."""
        position = reset_position(options)
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        rng = self._np_random
        dealer = int(rng.integers(self.num_players)) if self.dealer == "random" else self.dealer
        seed_ = int(rng.integers(SEED_BOUND))
        return dealer, seed_, position

    def _start_episode(self, to_act: int) -> None:
        """PettingZoo's bookkeeping for a new episode whose first deal has seat ``to_act`` to act."""
        self._log = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self._zero_totals = True  # every _cumulative_rewards is 0.0 (until rewards accumulate)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[to_act]
        if self.render_mode == "human":
            self.render()

    def _read_position(self, text: str, seed: int) -> GameState:
        state = engine.from_text(text, self.rules, seed=seed)
        if state.num_players != self.num_players:
            raise ValueError(f"the position has {state.num_players} hands, the environment {self.num_players} players")
        if state.is_over:
            raise ValueError("the position is already over: an episode must start on a live turn")
        return state

    @property
    def game(self) -> GameState:
        """The engine state of the deal being played (after ``reset``)."""
        self._check_reset()
        return self.state_

    def _check_reset(self) -> None:
        """``RuntimeError(NOT_RESET)`` before the first ``reset``."""
        if self.state_ is None:
            raise RuntimeError(NOT_RESET)

    @property
    def totals(self) -> tuple[int, ...] | None:
        """The match totals by seat (``episode="match"``), else None."""
        return None if self.match is None else self.match.totals

    # -- observing -------------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seat[agent]
        return {
            "observation": obs_mod.encode(self.game, seat, self.totals),
            "action_mask": self.action_mask(agent),
        }

    def observation_vector(self, agent: str) -> np.ndarray:
        """``observe(agent)["observation"]`` alone."""
        return obs_mod.encode(self.game, self.agent_seat[agent], self.totals)

    def view(self, agent: str) -> tuple[np.ndarray, np.ndarray]:
        """``observe(agent)``'s observation and action mask, as a pair."""
        return self.observation_vector(agent), self.action_mask(agent)

    def is_legal(self, index: int) -> bool:
        """Whether action ``index`` (0..496) is legal for the agent to act (the game going on)."""
        return engine.why_illegal(self.game, actions.MOVES[index]) is None

    def state(self) -> np.ndarray:
        """The whole table (every hand and the stock order) as ``float32[1977]``, in
        ``state_space`` (``kc_env.full_state``). Training-only information (e.g. a centralised
        critic): no policy that plays may see it."""
        return full_state.encode_state(self.game, self.totals)

    def action_mask(self, agent: str) -> np.ndarray:
        """The int8 mask of ``agent``'s legal actions (all 0 unless it is to act in a live game)."""
        live = agent in self.terminations and not (self.terminations[agent] or self.truncations[agent])
        if live and agent == self.agent_selection:
            return actions.legal_mask(self.game)
        return np.zeros(actions.NUM_ACTIONS, dtype=np.int8)

    # -- stepping --------------------------------------------------------------------------

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to act; raises ``IllegalMove`` for an illegal action
        (the state unchanged). A terminated or truncated agent steps ``None``."""
        self._check_reset()
        if not self.agents:
            raise RuntimeError("every agent is done: call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._step_live(agent, action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``; before ``reset`` a ``RuntimeError`` saying to call it."""
        self._check_reset()
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """``AECEnv.agent_iter``; before ``reset`` a ``RuntimeError`` saying to call it."""
        self._check_reset()
        return super().agent_iter(max_iter)

    def _step_live(self, agent: str, action: Any) -> None:
        """``step`` of ``agent``, the agent to act, while the episode goes on."""
        index = self._action_index(action)
        state = self.game
        seat = state.current_player
        try:
            engine.apply(state, actions.MOVES[index])  # checks the move first, once
        except IllegalMove:
            raise self._illegal(index) from None
        self._log.append(seat << 9 | index)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if state.is_over:
            self._end_deal(truncated=False)
        elif state.move_count >= self.max_moves:
            self._end_deal(truncated=True)
        if not (self.terminations[agent] or self.truncations[agent]):
            self.agent_selection = self.agents[self.game.current_player]
        else:
            self.agent_selection = self.agents[seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _action_index(self, action: Any) -> int:
        """``action`` as an index 0..NUM_ACTIONS-1, else ``IllegalMove`` saying why."""
        index = actions.whole_number(action)
        if index is None:
            raise IllegalMove(f"{self.agent_selection}: an action is a whole number 0..{actions.NUM_ACTIONS - 1}, "
                              f"not {action!r}"[:200])
        if not 0 <= index < actions.NUM_ACTIONS:
            raise IllegalMove(f"{self.agent_selection}: action {index} is outside 0..{actions.NUM_ACTIONS - 1}")
        return index

    def _illegal(self, index: int) -> IllegalMove:
        """The error for action ``index``, which the engine refused (the state unchanged)."""
        reason = engine.why_illegal(self.game, actions.MOVES[index])
        return IllegalMove(f"{self.agent_selection}: action {index} ({actions.name(index)}) is illegal: {reason}")

    def _end_deal(self, truncated: bool) -> None:
        """Score the finished (or cut-off) deal; end the episode or deal the match's next deal."""
        state = self._finished_deal()
        if self.match is None:
            self._set_deal_info(state, truncated, engine.deal_penalties(state) if state.is_over else None)
            if truncated:
                self.truncations = dict.fromkeys(self.agents, True)
                return
            self._give_deal_rewards(state.winner, engine.deal_penalties(state))
            self.terminations = dict.fromkeys(self.agents, True)
            return
        if truncated:
            match_mod.truncate(state)
            self._deal_cut_off(state)
        record = self.match.record_deal(state, truncated=truncated)
        self._set_deal_info(state, truncated, list(record.penalties))
        if self.reward_kind == "score":
            self._give_score(record.penalties)
        if self.match.is_over:
            if self.reward_kind == "win_loss":
                self._give_win_loss(self.match.winners)
            self._set_match_info()
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.match.deal_number >= self.max_deals:
            self.match.truncated = True
            self._set_match_info()
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self._next_deal()

    def _finished_deal(self) -> GameState:
        """The deal that just ended (or was cut off), to score."""
        return self.game

    def _deal_cut_off(self, state: GameState) -> None:
        """Hook: ``state``, cut off in a match, was ended as a blocked deal (``match.truncate``)."""

    def _next_deal(self) -> None:
        """Deal the match's next deal."""
        self.state_ = self.match.new_deal()

    def _give_deal_rewards(self, winner: int | None, penalties: list[int]) -> None:
        if self.reward_kind == "score":
            self._give_score(penalties)
        else:
            self._give_win_loss([] if winner is None else [winner])

    def _give_win_loss(self, winners: list[int]) -> None:
        """``rewards.win_loss``: winners +1/k each, the others -1/(n-k) each; nothing when nobody
        (or everybody) won."""
        self._give(rewards.win_loss(winners, self.num_players))

    def _give_score(self, penalties) -> None:
        """``rewards.score``: minus each seat's penalty, scaled by ``rewards.score_scale``."""
        self._give(rewards.score(penalties, self.rules))

    def _give(self, values: list[float]) -> None:
        for agent, value in zip(self.agents, values, strict=True):
            self.rewards[agent] += value

    def abandon_infos(self) -> None:
        """Every agent's infos as for an episode that ends here with nobody winning the deal (or
        the match) and no penalties paid: the Gymnasium env's episode ended by an illegal action."""
        self._set_deal_info(self.game, False, None)
        if self.match is not None:
            self._set_match_info()

    def _set_deal_info(self, state: GameState, truncated: bool, penalties: list[int] | None) -> None:
        """``infos[agent]["deal"]``, one type and shape for every deal (``NO_WINNER``; no
        penalties, as for a one-deal episode cut off, are 0 for every seat)."""
        winner = NO_WINNER if state.winner is None else int(state.winner)
        paid = [0] * self.num_players if penalties is None else [int(p) for p in penalties]
        for agent in self.agents:
            self.infos[agent] = {"deal": {"winner": winner, "blocked": bool(state.blocked and not truncated),
                                          "truncated": bool(truncated), "penalties": list(paid)}}

    def _set_match_info(self) -> None:
        """``infos[agent]["match"]``: the winners' seats padded with ``NO_WINNER`` to one entry a
        seat, and the totals (one shape whoever and however many won)."""
        winners = [int(w) for w in self.match.winners]
        winners += [NO_WINNER] * (self.num_players - len(winners))
        for agent in self.agents:
            self.infos[agent]["match"] = {"winners": list(winners), "totals": [int(t) for t in self.match.totals]}

    # -- rendering -------------------------------------------------------------------------

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the position as text; ``human``: printed; ``rgb_array``: the table as an
        ``H x W x 3`` uint8 picture. Seen by the agent to act (``render_view="acting"``) or with
        every hand (``"all"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (choose 'ansi', 'human' or 'rgb_array').")
            return None
        seat = None if self.render_view == "all" else self.agent_seat[self.agent_selection]
        if self.render_mode == "rgb_array":
            return self.render_image(seat)
        text = self.render_seat(seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_seat(self, seat: int | None, color: bool = False) -> str:
        """The position as text seen by ``seat`` (None: every hand), with the last moves."""
        return render_text(self.game, seat, totals=self.totals, last_moves=self.move_log,
                           names=self.possible_agents, color=color)

    def render_image(self, seat: int | None) -> np.ndarray:
        """The position as a picture seen by ``seat`` (None: every hand), with the last moves;
        the same shape for every frame of the env (``kc_env.render_image``)."""
        from .render_image import render_image

        return render_image(self.game, seat, totals=self.totals, last_moves=self.move_log,
                            names=self.possible_agents)

    def close(self) -> None:
        pass


OPTIONS = keywords_of(engine_env.__init__)
"""The keywords of ``env()`` and ``raw_env()`` (the module docstring's Arguments)."""
_SEATS = " (an option of the Gymnasium and vector envs, KingsCorner-v0: every seat of this AEC env is an agent)"
NOT_HERE = {
    "opponents": _SEATS,
    "learner_seat": _SEATS,
    "illegal_action": " (an option of KingsCorner-v0: env() ends the game on an illegal action, raw_env() raises)",
    "observation": " (an option of KingsCorner-v0: this env's observations are dicts with their action_mask)",
}
"""``KingsCorner-v0``'s options that this env has not, with why, for ``refuse_unknown_keywords``."""


class raw_env(engine_env):
    """Kings in the Corner as a PettingZoo AEC environment (see the module docstring), played on
    the compiled kernel (``kc_env.vector.single``: one game in one buffer, a compiled call per
    step), equal to ``engine_env`` in every observation, mask, reward, info, error and seed.

    ``game`` is the reference engine's ``GameState`` of the deal, built when asked: the deal
    dealt by the engine from the same seed, then the moves played since replayed through
    ``engine.apply`` (so it is exactly ``engine_env``'s state, hand order included). A match's
    deal is replayed when it ends, to be scored by ``kc_env.match``; a one-deal episode is
    scored from the kernel's state (``VecGame.deal_result``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        refuse_unknown_keywords("kings_corner_v0.raw_env", kwargs, OPTIONS, NOT_HERE)
        super().__init__(*args, **kwargs)
        from .vector import single  # numba loads here, not when kc_env is imported

        assert single.OVER == KERNEL_OVER
        self._single = single
        self._kernel = single.SingleGame()
        self._kernel.set_rules([0], self.rules, self.max_moves, self.reward_kind)
        self._mem = self._kernel.mem
        self._obs_out, self._mask_out = self._kernel.obs, self._kernel.mask  # what the compiled calls write
        self._step_kernel = single.step
        self._play_kernel = single.play
        self._played = self._kernel.played
        self._deal_args: tuple[int, int] | None = None  # (seed, dealer) of an engine deal not built yet
        self._engine: GameState | None = None  # the engine's copy of the deal, synced up to _synced
        self._deal_start = 0  # where the deal's moves start in _log
        self._synced = 0
        self._view: str | None = None  # the agent whose observation and mask are in the buffer
        self._view_terms: dict | None = None  # the terminations it was written under (a new dict: stale)
        self._clean: dict | None = None  # self.rewards when it is known to hold only 0 (ints)

    # -- episode ---------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new episode. The same ``seed`` gives the same game; ``options={"position":
        TEXT}`` starts from that position."""
        dealer, seed_, position = self._episode_start(seed, options)
        if self.episode == "match":
            self.match = match_mod.Match(self.rules, self.num_players, seed=seed_, dealer=dealer)
            deal_args = (self.match.next_seed, self.match.next_dealer)
        else:
            self.match = None
            deal_args = (seed_, dealer)
        self._log = []
        if position is not None:
            self._begin_deal(state=self._read_position(position, seed_))
        else:
            self._begin_deal(deal_args=deal_args)
        self._set_totals()
        self._clean = None
        self._start_episode(self._kernel.to_act(0))

    def _begin_deal(self, deal_args: tuple[int, int] | None = None, state: GameState | None = None) -> None:
        """Put a deal in the kernel: dealt there from ``deal_args`` (seed, dealer; the engine's
        copy is dealt when asked for), or copied from the engine ``state``."""
        if state is None:
            seed, dealer = deal_args
            self._kernel.deal_one(self.rules, self.num_players, seed, dealer)
        else:
            self._kernel.load_state(state, self.max_moves, self.reward_kind)
        self._deal_args, self._engine = deal_args, state
        self._deal_start = self._synced = len(self._log)
        self._view = None

    def _set_totals(self) -> None:
        """The match totals as the observation writes them (``observation.encode``), by seat."""
        if self.match is None:
            self._kernel.set_totals(None)
            return
        scale = obs_mod.score_scale(self.rules)
        clip = obs_mod.SCORE_CLIP
        self._kernel.set_totals([min(max(t / scale, -clip), clip) for t in self.match.totals])
        self._view = None

    @property
    def game(self) -> GameState:
        """The engine state of the deal being played (after ``reset``), built from the deal's
        seed and its moves so far (see the class docstring)."""
        state = self._engine
        if state is None:
            self._check_reset()
            seed, dealer = self._deal_args
            state = self._engine = engine.new_deal(self.rules, self.num_players, seed=seed, dealer=dealer)
        log, moves = self._log, actions.MOVES
        while self._synced < len(log):
            engine.apply(state, moves[log[self._synced] & 511])
            self._synced += 1
        return state

    def _check_reset(self) -> None:
        if self._deal_args is None and self._engine is None:
            raise RuntimeError(NOT_RESET)

    # -- observing -------------------------------------------------------------------------

    def _write_view(self, agent: str) -> None:
        """``agent``'s observation and mask into the buffer, unless they are there already."""
        if agent == self._view and self._view_terms is self.terminations:
            return
        live = agent in self.terminations and not (self.terminations[agent] or self.truncations[agent])
        self._single.observe(self._mem, self.agent_seat[agent], live and agent == self.agent_selection)
        self._view, self._view_terms = agent, self.terminations

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._check_reset()
        self._write_view(agent)
        return {"observation": self._obs_out.copy(), "action_mask": self._mask_out.copy()}

    def observation_vector(self, agent: str) -> np.ndarray:
        """``observe(agent)["observation"]`` alone."""
        self._check_reset()
        self._write_view(agent)
        return self._obs_out.copy()

    def action_mask(self, agent: str) -> np.ndarray:
        """The int8 mask of ``agent``'s legal actions (all 0 unless it is to act in a live game)."""
        self._write_view(agent)
        return self._mask_out.copy()

    def view(self, agent: str) -> tuple[np.ndarray, np.ndarray]:
        """``observe(agent)``'s observation and action mask, as a pair."""
        self._check_reset()
        self._write_view(agent)
        return self._obs_out.copy(), self._mask_out.copy()

    def is_legal(self, index: int) -> bool:
        """Whether action ``index`` (0..496) is legal for the agent to act (the game going on)."""
        return bool(self._single.is_legal(self._mem, index))

    # -- stepping --------------------------------------------------------------------------

    def _was_dead_step(self, action: None) -> None:
        self._view = None
        super()._was_dead_step(action)

    def _step_live(self, agent: str, action: Any) -> None:
        index = action if type(action) is int and 0 <= action < NUM_ACTIONS else self._action_index(action)
        code = self._step_kernel(self._mem, index)
        if code < 0:
            raise self._illegal(index)
        seat = self.agent_seat[agent]
        self._log.append(seat << 9 | index)
        self._cumulative_rewards[agent] = 0.0
        if self._clean is not self.rewards:
            self._clear_rewards()
            self._clean = self.rewards
        if code < KERNEL_OVER:  # the deal goes on; the buffer holds the next agent's view
            self._view = self.agent_selection = self.agents[code]  # (self._view_terms unchanged)
            # no rewards: _accumulate_rewards would add 0 to every total, which changes none
        else:
            self._deal_ended(agent, code)
        if self.render_mode == "human":
            self.render()

    def _deal_ended(self, agent: str, code: int) -> None:
        """The books after ``agent``'s move ended the deal (kernel ``code``: ``OVER`` or cut off)."""
        self._view = None
        self._end_deal(truncated=code != KERNEL_OVER)
        if not (self.terminations[agent] or self.truncations[agent]):
            self.agent_selection = self.agents[self._kernel.to_act(0)]
        else:
            self.agent_selection = agent
        self._accumulate_rewards()
        self._zero_totals = False

    def set_draws(self, seat: int, rng: np.random.Generator | None) -> None:
        """Let ``step_drawing`` play seat ``seat``'s actions drawn from ``rng`` as the ``random``
        agent draws them (``rng.choice`` of the legal actions; ``vector.numpy_draws``), or (None)
        not. The env keeps ``rng`` until it is replaced."""
        self._kernel.set_draws(seat, rng)

    def drawn_by(self, seat: int) -> np.random.Generator | None:
        """The generator ``set_draws`` gave seat ``seat``, or None."""
        return self._kernel.drawn_by[seat]

    def step_drawing(self, action: int | None, until: int, reward: float = 0.0) -> float:
        """``step(action)`` (an int 0..496; None: no step), then a step for every seat with draws
        (``set_draws``) to act, each an action drawn from its generator, until the episode ends
        or seat ``until`` or a seat without draws is to act: all in one compiled call (a few, if
        a match deals again). The env is then exactly as ``step`` called move by move leaves it
        (log, rewards, cumulative rewards, terminations, infos, agent to act, the generators).
        Returns ``reward`` plus the rewards of seat ``until``'s agent after each of those steps,
        added one by one as a loop over ``step`` would add them.
        Raises ``IllegalMove`` for an illegal ``action`` (nothing played). With ``render_mode
        "human"`` it renders once, at the end."""
        agent = self.agent_selection
        if not self.agents or self.terminations[agent] or self.truncations[agent]:
            raise RuntimeError("the episode is over: step_drawing plays live turns only")
        names, goal, drawn_by, played = self.possible_agents, self.possible_agents[until], self._kernel.drawn_by, self._played
        total, index = reward, -1 if action is None else action
        while True:
            code = self._play_kernel(self._mem, index, until)
            if code < 0:
                raise self._illegal(index)
            index = -1
            count, code = code >> 4, code & 15
            if count:
                moves = played[1:count + 1].tolist()
                self._log += moves
                if not self._zero_totals:
                    cumulative = self._cumulative_rewards
                    for move in moves:
                        cumulative[names[move >> 9]] = 0.0
                if self._clean is not self.rewards:
                    self._clear_rewards()
                    self._clean = self.rewards
            if code < KERNEL_OVER:  # the buffer holds the view of the agent to act next
                self._view = self.agent_selection = names[code]
                self._view_terms = self.terminations
                if code == until or not count or drawn_by[code] is None:
                    break
                continue  # PLAYED_CAP moves played: go on
            self._deal_ended(names[int(played[count]) >> 9], code)
            total += self.rewards[goal]
            if self.agent_selection == goal or self.terminations[goal] or self.truncations[goal]:
                break
        if self.render_mode == "human":
            self.render()
        return total

    def _give(self, values: list[float]) -> None:
        super()._give(values)
        self._clean = None

    def _finished_deal(self) -> GameState | DealResult:
        if self.match is None:  # scored from the kernel: hands as sets, which no score reads in order
            return self._kernel.deal_result(0)
        return self.game  # a match scores the engine's deal (chips count its turns without a play)

    def _deal_cut_off(self, state: GameState) -> None:
        self._kernel.load_state(state, self.max_moves, self.reward_kind)  # ended blocked as the engine did

    def _next_deal(self) -> None:
        self._begin_deal(deal_args=(self.match.next_seed, self.match.next_dealer))

    def _end_deal(self, truncated: bool) -> None:
        super()._end_deal(truncated)
        if self.match is not None:
            self._set_totals()


__all__ = ["env", "raw_env", "engine_env", "EPISODES", "REWARDS", "DEFAULT_MAX_MOVES", "DEFAULT_MAX_DEALS", "NO_WINNER"]
