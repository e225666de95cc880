"""``python_kings_corner``: one deal of Kings in the Corner as an OpenSpiel game (see the package
docstring for its card). The state wraps an engine ``GameState``; every move is the engine's."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyspiel

from .. import actions, engine, match, rewards
from ..cards import unique_name
from ..game_info import GAME_INFO
from ..rules import Rules
from . import deal
from .observer import SeatObserver

SHORT_NAME = "python_kings_corner"
DEFAULTS = {"players": 2, "rules": "standard", "reward": GAME_INFO.default_reward,
            "max_moves": GAME_INFO.default_max_moves}
"""The game's parameters and their defaults: ``python_kings_corner(players=3,rules=pagat)``."""
MAX_MOVES = 1_000_000
"""The largest ``max_moves``: OpenSpiel holds a game's length bounds (about three times it) in a
C++ ``int``."""

_UTILITY = {"win_loss": pyspiel.GameType.Utility.ZERO_SUM, "score": pyspiel.GameType.Utility.GENERAL_SUM}
"""``win_loss`` sums to 0 in every deal (blocked ones included: all 0); ``score`` does not."""


def game_type(reward: str = GAME_INFO.default_reward) -> pyspiel.GameType:
    """The game's ``GameType``; its utility kind follows the reward."""
    return pyspiel.GameType(
        short_name=SHORT_NAME, long_name="Python Kings in the Corner",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=_UTILITY[reward], reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=GAME_INFO.max_num_players, min_num_players=GAME_INFO.min_num_players,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=DEFAULTS)


def read_rules(text: str) -> Rules:
    """The ``rules`` parameter: a preset and overrides, as ``kc --rules`` reads them, written
    ``pagat;must_play:all`` (``;`` for ``,`` and ``:`` for ``=``: a game string splits its
    parameters at those)."""
    if "," in text or "=" in text:
        raise ValueError(f"rules {text!r}: a game parameter cannot hold ',' or '='; write "
                         f"{text.replace(',', ';').replace('=', ':')!r}")
    preset, *overrides = text.split(";")
    return Rules.parse(",".join([preset, *(pair.replace(":", "=", 1) for pair in overrides)]))


class KingsCornerGame(pyspiel.Game):
    """A table of ``players`` seats dealing one deal of ``rules``."""

    def __init__(self, params: dict | None = None):
        if unknown := sorted(set(params or {}) - set(DEFAULTS)):
            raise ValueError(f"{SHORT_NAME} has no parameter {unknown[0]!r}; its parameters: {', '.join(DEFAULTS)}")
        params = {**DEFAULTS, **(params or {})}
        if not isinstance(params["rules"], str):
            raise ValueError(f"rules must be a string such as 'pagat;must_play:all', not {params['rules']!r}")
        self.rules = read_rules(params["rules"])
        self.players = params["players"] = actions.whole_or_given(params["players"])  # np.int64 too
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise ValueError(f"players must be a whole number, not {self.players!r}")
        self.rules.check_players(self.players)
        self.reward = rewards.check(params["reward"])
        self.max_moves = params["max_moves"] = actions.whole_in("max_moves", params["max_moves"], 1, MAX_MOVES)
        bounds = rewards.bounds(self.reward, self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=GAME_INFO.num_distinct_actions, max_chance_outcomes=GAME_INFO.num_cards,
            num_players=self.players, min_utility=bounds.min_utility, max_utility=bounds.max_utility,
            utility_sum=bounds.utility_sum, max_game_length=self.max_moves)
        super().__init__(game_type(self.reward), info, params)
        self.made = True

    def __repr__(self) -> str:
        """OpenSpiel's game string; for a game whose parameters were refused (a half-made object
        that a traceback's locals still show), that it was not made: OpenSpiel's own repr of it
        raises MemoryError."""
        return super().__repr__() if getattr(self, "made", False) else f"<{SHORT_NAME}: not made, its parameters were refused>"

    def max_chance_nodes_in_history(self) -> int:
        """The deal's cards and its first seat, then at most two chance nodes a decision (the card
        a draw takes, the stock's top after ``clear_complete_piles`` shuffles a cleared pile in):
        OpenSpiel would take ``max_game_length`` alone, which a deal cut off early exceeds."""
        return GAME_INFO.num_cards + 1 + 2 * self.max_moves

    def new_initial_state(self) -> KingsCornerState:
        """Before the deal: the first chance node decides the deck's top card."""
        return KingsCornerState(self)

    def deserialize_state(self, text: str) -> KingsCornerState:
        """The state ``state.serialize()`` wrote, rebuilt by replaying its history from a new
        deal, every action checked as ``apply_action`` checks it; the rest of the text (OpenSpiel's
        pickle of the Python attributes) is never unpickled. ``ValueError`` names what is wrong."""
        first = text.split("\n", 1)[0] if isinstance(text, str) else ""
        if not first.startswith("history="):
            raise ValueError("a serialized state starts with 'history=' (the text of state.serialize())")
        state = self.new_initial_state()
        for i, pair in enumerate(filter(None, first[len("history="):].split(","))):
            player, _, action = pair.partition(":")
            if not (_is_int(player) and _is_int(action)) or int(player) != state.current_player():
                raise ValueError(f"history entry {i} {pair[:40]!r} is not 'player:action' of the player to act "
                                 f"({state.current_player()})")
            state.apply_action(int(action))
        return state

    def make_py_observer(self, iig_obs_type=None, params=None) -> SeatObserver:
        """One seat's view: kc_env's observation vector, and its text (with the moves made, for
        the information state)."""
        return SeatObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


@dataclass
class Table:
    """Everything a state holds. OpenSpiel clones a Python state by deep-copying each attribute,
    so this copies itself cheaply: the game and its rules shared, the deal by ``GameState.copy``."""

    game: KingsCornerGame
    top: list[int] = field(default_factory=list)  # the deck's top cards as chance decided them, top first
    first_seat: int | None = None
    deal: engine.GameState | None = None
    undecided: set[int] = field(default_factory=set)  # stock cards whose place is not decided yet
    moves: list[tuple[int, int]] = field(default_factory=list)  # (seat, action): the public history

    def __deepcopy__(self, memo: dict) -> Table:
        return Table(self.game, list(self.top), self.first_seat, self.deal and self.deal.copy(),
                     set(self.undecided), list(self.moves))

    def __getstate__(self) -> dict:
        """Pickled (``pickle``, ``state.serialize()``) with the game as its string: OpenSpiel's
        game object does not pickle, and came back without its parameters."""
        return {**self.__dict__, "game": str(self.game)}

    def __setstate__(self, data: dict) -> None:
        self.__dict__.update(data, game=pyspiel.load_game(data["game"]))

    @property
    def rules(self) -> Rules:
        """The game's rules."""
        return self.game.rules


class KingsCornerState(pyspiel.State):
    """The deal being made (``table.deal`` is None), or the engine's deal in play."""

    def __init__(self, game: KingsCornerGame):
        super().__init__(game)
        self.table = Table(game)

    # -- whose turn ------------------------------------------------------------------------
    def current_player(self) -> int:
        """Chance while dealing or while the stock's top is undecided, else the seat to act."""
        deal_ = self.table.deal
        if deal_ is None or self._top_undecided():
            return pyspiel.PlayerId.CHANCE
        if deal_.is_over:
            return pyspiel.PlayerId.TERMINAL
        return deal_.current_player

    def _top_undecided(self) -> bool:
        deal_ = self.table.deal
        return not deal_.is_over and bool(deal_.stock) and deal_.stock[-1] in self.table.undecided

    def _choosing_first_seat(self) -> bool:
        return len(self.table.top) == deal.deal_size(self.table.rules, self.table.game.players)

    def is_terminal(self) -> bool:
        """The deal is over: a seat went out, it blocked, or it was cut off at ``max_moves``."""
        return self.table.deal is not None and self.table.deal.is_over

    # -- chance ----------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Uniform over the cards the deck's next place can hold (or the seats, for who plays
        first under ``first_player: random``)."""
        t = self.table
        if not self.is_chance_node():
            return []
        if t.deal is None and self._choosing_first_seat():
            choices = list(range(t.game.players))
        elif t.deal is None:
            choices = sorted(set(range(t.rules.deck_size)) - set(t.top))
        else:
            choices = sorted(t.undecided)
        return [(c, 1.0 / len(choices)) for c in choices]

    def _apply_chance(self, outcome: int) -> None:
        allowed = [c for c, _ in self.chance_outcomes()]
        if outcome not in allowed:
            raise ValueError(f"chance outcome {outcome} is not one of this node's {len(allowed)} "
                             f"({', '.join(map(str, allowed[:12]))}{', ...' if len(allowed) > 12 else ''})")
        t = self.table
        if t.deal is not None:
            deal.put_on_top(t.deal, outcome)
            t.undecided.discard(outcome)
            return
        if self._choosing_first_seat():
            t.first_seat = outcome
        else:
            t.top.append(outcome)
        if self._choosing_first_seat() and (t.first_seat is not None or t.rules.first_player != "random"):
            t.deal, t.undecided = deal.from_deck(t.rules, t.game.players, t.top, t.first_seat)

    # -- moves -----------------------------------------------------------------------------
    def _legal_actions(self, player: int) -> list[int]:
        return sorted(actions.legal_actions(self.table.deal))

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            self._apply_chance(action)
            return
        t = self.table
        cleared, seat = t.deal.cleared, t.deal.current_player
        engine.apply(t.deal, actions.decode(action))  # IllegalMove leaves the deal as it was
        t.moves.append((seat, action))
        if t.deal.cleared > cleared:  # the cleared pile was shuffled into the stock
            t.undecided = set(t.deal.stock)
        if t.deal.move_count >= t.game.max_moves:
            match.truncate(t.deal)  # a deal cut off counts as blocked

    def _action_to_string(self, player: int, action: int) -> str:
        if player != pyspiel.PlayerId.CHANCE:
            return actions.name(action)
        if self.table.deal is None and self._choosing_first_seat():
            return f"first seat {action}"
        return f"{'deal' if self.table.deal is None else 'stock top'} {unique_name(action)}"

    def returns(self) -> list[float]:
        """Each seat's reward once the deal is over (``kc_env.rewards``), else 0."""
        if not self.is_terminal():
            return [0.0] * self.table.game.players
        return rewards.deal_rewards(self.table.game.reward, self.table.deal)

    def __str__(self) -> str:
        if self.table.deal is None:
            return "deck top: " + " ".join(map(unique_name, self.table.top))
        return engine.to_text(self.table.deal)


def _is_int(text: str) -> bool:
    return text.lstrip("-").isascii() and text.lstrip("-").isdigit()


pyspiel.register_game(game_type(), KingsCornerGame)
